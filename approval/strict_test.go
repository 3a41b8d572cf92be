package approval

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestStrictDocuments: requests, receipts and software key files are read
// with the project's strict decoder. Before, a member in another letter
// case was taken for the member, and a software key file whose private key
// did not parse made the library panic on first use.
func TestStrictDocuments(t *testing.T) {
	h := newHarness(t)
	req := h.settlementRequest(t, "1")
	rb, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	rs := string(rb)
	for name, in := range map[string]string{
		"member in another case":        strings.Replace(rs, `"version"`, `"Version"`, 1),
		"nested member in another case": strings.Replace(rs, `"reason"`, `"Reason"`, 1),
		"member named twice":            strings.Replace(rs, `"version":"0.1"`, `"version":"0.1","version":"0.1"`, 1),
		"invalid UTF-8":                 strings.Replace(rs, `Accept the`, "Accept\xff the", 1),
		"lone surrogate":                strings.Replace(rs, `Accept the`, `Accept\ud800 the`, 1),
	} {
		if in == rs {
			t.Fatalf("%s: the edit did not apply", name)
		}
		_, err := ParseRequest([]byte(in))
		wantCode(t, err, CodeInvalidRequest)
	}

	k := newTestKey(h.cfg, counterAdvance)
	h.enrolFirst(t, k, "laptop")
	receipt := string(h.approve(t, k, req))
	if _, err := ParseReceipt([]byte(receipt)); err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]string{
		"member in another case":        strings.Replace(receipt, `"decision"`, `"Decision"`, 1),
		"nested member in another case": strings.Replace(receipt, `"userVerified"`, `"UserVerified"`, 1),
		"member named twice":            strings.Replace(receipt, `"decision":"approved"`, `"decision":"denied","decision":"approved"`, 1),
	} {
		if in == receipt {
			t.Fatalf("%s: the edit did not apply", name)
		}
		_, err := ParseReceipt([]byte(in))
		wantCode(t, err, CodeInvalidReceipt)
	}

	key, err := NewSoftwareKey(h.cfg, h.cfg.Origins[0])
	if err != nil {
		t.Fatal(err)
	}
	kb, err := json.Marshal(key)
	if err != nil {
		t.Fatal(err)
	}
	var back SoftwareKey
	if err := json.Unmarshal(kb, &back); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(kb, &m); err != nil {
		t.Fatal(err)
	}
	cred := m["credential"].(map[string]any)
	keyOf := cred["key"].(map[string]any)
	edited := func(edit func()) []byte {
		saved := keyOf["data"]
		savedType := keyOf["type"]
		edit()
		b, _ := json.Marshal(m)
		keyOf["data"], keyOf["type"] = saved, savedType
		return b
	}
	for name, in := range map[string][]byte{
		"member in another case": []byte(strings.Replace(string(kb), `"rp"`, `"RP"`, 1)),
		"garbage private key":    edited(func() { keyOf["data"] = "aGVsbG8=" }),
		"key of another type":    edited(func() { keyOf["type"] = "rsa" }),
		"unknown key type":       edited(func() { keyOf["type"] = "ed448" }),
	} {
		var sk SoftwareKey
		if err := json.Unmarshal(in, &sk); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
