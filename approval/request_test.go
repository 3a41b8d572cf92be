package approval

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"
)

type vector struct {
	Name    string          `json:"name"`
	Request json.RawMessage `json:"request"`
}

type expected struct {
	Name       string `json:"name"`
	Payload    string `json:"payload"`
	IntentHash string `json:"intentHash"`
}

// TestGoldenVectors reproduces the payloads and hashes an independent
// implementation (testdata/intent_vectors.mjs: JSON.stringify with sorted
// members) computed for testdata/intent_vectors.json.
func TestGoldenVectors(t *testing.T) {
	var vs []vector
	var ex []expected
	readJSON(t, "testdata/intent_vectors.json", &vs)
	readJSON(t, "testdata/intent_vectors.expected.json", &ex)
	if len(vs) != len(ex) || len(vs) < 3 {
		t.Fatalf("%d vectors, %d expectations", len(vs), len(ex))
	}
	for i, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			if ex[i].Name != v.Name {
				t.Fatalf("expectation %d is %q", i, ex[i].Name)
			}
			var r IntentRequest
			if err := json.Unmarshal(v.Request, &r); err != nil {
				t.Fatal(err)
			}
			p, err := r.HashingPayload()
			if err != nil {
				t.Fatal(err)
			}
			if string(p) != ex[i].Payload {
				t.Fatalf("payload\n got %s\nwant %s", p, ex[i].Payload)
			}
			h, err := r.ComputeHash()
			if err != nil || h != ex[i].IntentHash {
				t.Fatalf("hash %s (%v), want %s", h, err, ex[i].IntentHash)
			}
			// The full request, with its hash, parses and validates.
			full := bytes.TrimSuffix(bytes.TrimSpace(v.Request), []byte("}"))
			full = append(full, []byte(`,"intentHash":"`+h+`"}`)...)
			got, err := ParseRequest(full)
			if err != nil {
				t.Fatal(err)
			}
			if got.IntentHash != ex[i].IntentHash {
				t.Fatal("parsed hash differs")
			}
			// Its own JSON form parses back to the same hash.
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if again, err := ParseRequest(b); err != nil || again.IntentHash != h {
				t.Fatalf("round trip: %v", err)
			}
		})
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// fixedRequest builds a request with fixed randomness.
func fixedRequest(t *testing.T, act Action) IntentRequest {
	t.Helper()
	r, err := NewRequest(RequestSpec{Action: act, AgentID: "agent", SessionID: "sess",
		Context: IntentContext{Reason: "why", Risk: RiskHigh}}, t0, bytes.NewReader(make([]byte, 48)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestKeyOrderIndependence(t *testing.T) {
	forms := []any{
		json.RawMessage(`{"a":1,"b":2,"c":{"x":[1,{"q":1,"p":2}],"y":"z"}}`),
		json.RawMessage(`{"c":{"y":"z","x":[1,{"p":2,"q":1}]},"b":2,"a":1}`),
		[]byte("{ \"b\" : 2 ,\n \"a\" : 1.0, \"c\": {\"x\": [1e0, {\"q\": 1, \"p\": 2}], \"y\": \"\\u007a\"}}"),
		map[string]any{"b": 2, "a": 1, "c": map[string]any{"y": "z", "x": []any{1, map[string]int{"q": 1, "p": 2}}}},
	}
	var want string
	for i, f := range forms {
		act, err := NewAction("t", "", "", f)
		if err != nil {
			t.Fatalf("form %d: %v", i, err)
		}
		h := fixedRequest(t, act).IntentHash
		if i == 0 {
			want = h
		} else if h != want {
			t.Fatalf("form %d hashes to %s, form 0 to %s", i, h, want)
		}
	}
	act, _ := NewAction("t", "", "", map[string]any{"a": 1, "b": 3})
	if fixedRequest(t, act).IntentHash == want {
		t.Fatal("a changed value hashes the same")
	}
}

// TestEachFieldChangesHash changes every semantic field in turn: each
// change gives another hash, and the changed request with the old hash is
// refused as tampered.
func TestEachFieldChangesHash(t *testing.T) {
	act, err := NewAction(ToolSettlementSign, "sign", "neg-1", map[string]any{"amount": "100", "token": "0x0"})
	if err != nil {
		t.Fatal(err)
	}
	base := fixedRequest(t, act)
	args := func(s string) json.RawMessage { return json.RawMessage(s) }
	mutations := map[string]func(r *IntentRequest){
		"tool":            func(r *IntentRequest) { r.Action.Tool = ToolEscrowFund },
		"operation":       func(r *IntentRequest) { r.Action.Operation = "fund" },
		"operation blank": func(r *IntentRequest) { r.Action.Operation = "" },
		"target":          func(r *IntentRequest) { r.Action.Target = "neg-2" },
		"argument value":  func(r *IntentRequest) { r.Action.Arguments = args(`{"amount":"101","token":"0x0"}`) },
		"argument added":  func(r *IntentRequest) { r.Action.Arguments = args(`{"amount":"100","token":"0x0","x":""}`) },
		"argument type":   func(r *IntentRequest) { r.Action.Arguments = args(`{"amount":100,"token":"0x0"}`) },
		"nonce":           func(r *IntentRequest) { r.Nonce = strings.Repeat("f", 64) },
		"requestId":       func(r *IntentRequest) { r.RequestID = "req_other" },
		"issuedAt":        func(r *IntentRequest) { r.IssuedAt = r.IssuedAt.Add(time.Millisecond) },
		"expiresAt":       func(r *IntentRequest) { r.ExpiresAt = r.ExpiresAt.Add(time.Millisecond) },
		"agent":           func(r *IntentRequest) { r.AgentID = "agent-2" },
		"session":         func(r *IntentRequest) { r.SessionID = "" },
		"reason":          func(r *IntentRequest) { r.Context.Reason = "why not" },
		"risk":            func(r *IntentRequest) { r.Context.Risk = RiskLow },
	}
	seen := map[string]string{base.IntentHash: "base"}
	for name, mut := range mutations {
		t.Run(name, func(t *testing.T) {
			r := base
			mut(&r)
			h, err := r.ComputeHash()
			if err != nil {
				t.Fatal(err)
			}
			if other, ok := seen[h]; ok {
				t.Fatalf("hash equals %s's", other)
			}
			seen[h] = name
			wantCode(t, r.Validate(), CodeTamperedIntent)
		})
	}
	if err := base.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestBlankIsAbsent: blank optional members are the same intent as absent
// ones (seed section 3).
func TestBlankIsAbsent(t *testing.T) {
	const head = `{"version":"0.1","requestId":"req_x","nonce":"` +
		"0000000000000000000000000000000000000000000000000000000000000000" +
		`","issuedAt":"2026-09-17T00:00:00.000Z","expiresAt":"2026-09-17T00:01:00.000Z",`
	absent := head + `"action":{"tool":"t","arguments":{}}}`
	blank := head + `"action":{"tool":"t","operation":"","target":"","arguments":{}},"agent":{"id":""},"session":{"id":""},"context":{"reason":"","risk":""}}`
	var a, b IntentRequest
	if err := json.Unmarshal([]byte(absent), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(blank), &b); err != nil {
		t.Fatal(err)
	}
	ha, _ := a.ComputeHash()
	hb, _ := b.ComputeHash()
	if ha != hb {
		t.Fatalf("absent %s, blank %s", ha, hb)
	}
	p, _ := a.HashingPayload()
	for _, member := range []string{"operation", "target", "agent", "session", "context"} {
		if bytes.Contains(p, []byte(`"`+member+`"`)) {
			t.Fatalf("payload names %s: %s", member, p)
		}
	}
}

func TestWindowBounds(t *testing.T) {
	act, _ := NewAction("t", "", "", nil)
	tests := []struct {
		ttl time.Duration
		ok  bool
	}{
		{0, true}, // DefaultTTL
		{MinTTL - time.Millisecond, false},
		{MinTTL, true},
		{MaxTTL, true},
		{MaxTTL + time.Millisecond, false},
		{-time.Second, false},
		{10*time.Second + time.Microsecond, false},
	}
	for _, tc := range tests {
		r, err := NewRequest(RequestSpec{Action: act, TTL: tc.ttl}, t0, nil)
		if tc.ok != (err == nil) {
			t.Fatalf("ttl %s: %v", tc.ttl, err)
		}
		if err != nil {
			wantCode(t, err, CodeInvalidRequest)
			continue
		}
		want := tc.ttl
		if want == 0 {
			want = DefaultTTL
		}
		if r.ExpiresAt.Sub(r.IssuedAt) != want {
			t.Fatalf("ttl %s: window %s", tc.ttl, r.ExpiresAt.Sub(r.IssuedAt))
		}
		if r.Expired(r.ExpiresAt.Add(-time.Millisecond)) || !r.Expired(r.ExpiresAt) {
			t.Fatal("usable exactly while now < expiresAt")
		}
	}
	// A parsed request whose window lies outside the bounds is refused.
	r, _ := NewRequest(RequestSpec{Action: act, TTL: MinTTL}, t0, nil)
	for _, d := range []time.Duration{-time.Millisecond, MaxTTL - MinTTL + time.Millisecond} {
		bad := r
		bad.ExpiresAt = r.ExpiresAt.Add(d)
		bad.IntentHash, _ = bad.ComputeHash()
		b, _ := json.Marshal(bad)
		_, err := ParseRequest(b)
		wantCode(t, err, CodeInvalidRequest)
	}
}

func TestNonceAndRequestID(t *testing.T) {
	act, _ := NewAction("t", "", "", nil)
	seen := map[string]bool{}
	for range 50 {
		r, err := NewRequest(RequestSpec{Action: act}, t0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !hex64RE.MatchString(r.Nonce) || seen[r.Nonce] {
			t.Fatalf("nonce %q", r.Nonce)
		}
		if !strings.HasPrefix(r.RequestID, "req_") || len(r.RequestID) != 36 || seen[r.RequestID] {
			t.Fatalf("requestId %q", r.RequestID)
		}
		seen[r.Nonce], seen[r.RequestID] = true, true
		ch, err := r.Challenge()
		if err != nil || hex.EncodeToString(ch) != r.IntentHash || len(ch) != 32 {
			t.Fatal("challenge is not the 32 bytes of the intentHash")
		}
	}
	r, _ := NewRequest(RequestSpec{Action: act}, t0, nil)
	for _, nonce := range []string{strings.ToUpper(r.Nonce), r.Nonce[:62], "0x" + r.Nonce[2:], r.Nonce + "00"} {
		bad := r
		bad.Nonce = nonce
		bad.IntentHash, _ = bad.ComputeHash()
		wantCode(t, bad.Validate(), CodeInvalidRequest)
	}
}

// TestUnrepresentableRefused: values canonical JSON cannot carry
// unchanged are refused at creation (seed section 3).
func TestUnrepresentableRefused(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	deep := any("leaf")
	for range MaxArgumentsDepth + 1 {
		deep = []any{deep}
	}
	refused := map[string]any{
		"NaN":                     map[string]any{"x": math.NaN()},
		"infinity":                map[string]any{"x": math.Inf(1)},
		"int beyond 2^53":         map[string]any{"x": int64(1<<53 + 1)},
		"uint64 max":              map[string]any{"x": uint64(math.MaxUint64)},
		"big.Int":                 map[string]any{"x": big.NewInt(1)},
		"function":                map[string]any{"x": func() {}},
		"channel":                 map[string]any{"x": make(chan int)},
		"complex":                 map[string]any{"x": complex(1, 1)},
		"cycle":                   cyclic,
		"too deep":                map[string]any{"x": deep},
		"invalid UTF-8 value":     map[string]any{"x": "\xff"},
		"invalid UTF-8 key":       map[string]any{"\xfe": 1},
		"int keys":                map[int]string{1: "x"},
		"not an object":           []any{1, 2},
		"raw huge number":         json.RawMessage(`{"x":1e400}`),
		"raw imprecise integer":   json.RawMessage(`{"x":12345678901234567890}`),
		"raw too many digits":     json.RawMessage(`{"x":0.10000000000000000001}`),
		"raw duplicate member":    json.RawMessage(`{"x":1,"x":2}`),
		"raw array":               json.RawMessage(`[1]`),
		"raw null":                json.RawMessage(`null`),
		"raw lone surrogate":      json.RawMessage(`{"x":"\ud800"}`),
		"raw invalid UTF-8":       json.RawMessage("{\"x\":\"\xff\"}"),
		"raw trailing data":       json.RawMessage(`{"x":1} {}`),
		"raw too large":           json.RawMessage(`{"x":"` + strings.Repeat("a", MaxArgumentsBytes) + `"}`),
		"json.Number unsafe":      map[string]any{"x": json.Number("9007199254740993")},
		"float in struct NaN":     struct{ X float64 }{math.NaN()},
		"nested pointer to cycle": &cyclic,
	}
	for name, args := range refused {
		t.Run(name, func(t *testing.T) {
			_, err := NewAction("t", "", "", args)
			wantCode(t, err, CodeInvalidRequest)
		})
	}
	accepted := map[string]any{
		"2^53":           map[string]any{"x": int64(1 << 53)},
		"-2^53":          map[string]any{"x": -int64(1 << 53)},
		"0.1":            map[string]any{"x": 0.1},
		"raw -0 and 1e2": json.RawMessage(`{"x":-0,"y":1e2}`),
		"raw zeros":      json.RawMessage(`{"x":0e99999999,"y":-0.000e-5}`),
		"null value":     map[string]any{"x": nil},
		"struct":         struct{ Amount string }{"100"},
		"nil":            nil,
	}
	for name, args := range accepted {
		t.Run(name, func(t *testing.T) {
			if _, err := NewAction("t", "", "", args); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestActionFieldsChecked(t *testing.T) {
	for name, a := range map[string][3]string{
		"no tool":         {"", "", ""},
		"tool too long":   {strings.Repeat("t", MaxToolBytes+1), "", ""},
		"control in tool": {"a\nb", "", ""},
		"bad UTF-8 op":    {"t", "\xff", ""},
		"target too long": {"t", "", strings.Repeat("x", MaxLabelBytes+1)},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := NewAction(a[0], a[1], a[2], nil)
			wantCode(t, err, CodeInvalidRequest)
		})
	}
	act, _ := NewAction("t", "", "", nil)
	for name, spec := range map[string]RequestSpec{
		"bad risk":          {Action: act, Context: IntentContext{Risk: "extreme"}},
		"reason too long":   {Action: act, Context: IntentContext{Reason: strings.Repeat("r", MaxReasonBytes+1)}},
		"control in agent":  {Action: act, AgentID: "a\x00"},
		"no action":         {},
		"unchecked raw arg": {Action: Action{Tool: "t", Arguments: json.RawMessage(`{"x":1e400}`)}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := NewRequest(spec, t0, nil)
			wantCode(t, err, CodeInvalidRequest)
		})
	}
	if _, err := NewRequest(RequestSpec{Action: act, Context: IntentContext{Reason: "two\nlines\tand a tab"}}, t0, nil); err != nil {
		t.Fatalf("newline and tab in a reason: %v", err)
	}
}

func TestParseRequestStrict(t *testing.T) {
	act, _ := NewAction("t", "op", "tg", map[string]any{"a": "1"})
	r := fixedRequest(t, act)
	good, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseRequest(good); err != nil {
		t.Fatal(err)
	}
	s := string(good)
	cases := map[string]struct {
		in   string
		code Code
	}{
		"unknown member":    {strings.Replace(s, `"version"`, `"extra":1,"version"`, 1), CodeInvalidRequest},
		"duplicate member":  {strings.Replace(s, `"version":"0.1"`, `"version":"0.1","version":"0.1"`, 1), CodeInvalidRequest},
		"trailing data":     {s + "{}", CodeInvalidRequest},
		"seconds only":      {strings.Replace(s, "00:00:00.000Z", "00:00:00Z", 1), CodeInvalidRequest},
		"offset":            {strings.Replace(s, "00:00:00.000Z", "00:00:00.000+00:00", 1), CodeInvalidRequest},
		"wrong version":     {strings.Replace(s, `"0.1"`, `"0.2"`, 1), CodeInvalidRequest},
		"uppercase hash":    {strings.Replace(s, r.IntentHash, strings.ToUpper(r.IntentHash), 1), CodeInvalidRequest},
		"changed target":    {strings.Replace(s, `"target":"tg"`, `"target":"th"`, 1), CodeTamperedIntent},
		"changed arguments": {strings.Replace(s, `{"a":"1"}`, `{"a":"2"}`, 1), CodeTamperedIntent},
		"not JSON":          {"{", CodeInvalidRequest},
		"null":              {"null", CodeInvalidRequest},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParseRequest([]byte(tc.in))
			wantCode(t, err, tc.code)
		})
	}
}

// FuzzParseRequest: whatever parses validates, hashes stably and survives
// a round trip through its own JSON form with the same hash.
func FuzzParseRequest(f *testing.F) {
	b, _ := os.ReadFile("testdata/intent_vectors.json")
	var vs []vector
	_ = json.Unmarshal(b, &vs)
	for _, v := range vs {
		f.Add([]byte(v.Request))
	}
	act, _ := NewAction("t", "o", "g", map[string]any{"n": 1.5, "s": "x", "l": []any{true, nil}})
	r, _ := NewRequest(RequestSpec{Action: act, AgentID: "a"}, t0, bytes.NewReader(make([]byte, 48)))
	good, _ := json.Marshal(r)
	f.Add(good)
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := ParseRequest(in)
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		h, err := r.ComputeHash()
		if err != nil || h != r.IntentHash {
			t.Fatalf("parsed request hashes to %s (%v), says %s", h, err, r.IntentHash)
		}
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseRequest(out)
		if err != nil || again.IntentHash != r.IntentHash {
			t.Fatalf("round trip: %v", err)
		}
	})
}
