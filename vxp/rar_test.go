package vxp

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/parleynet/parley/strictjson"
)

const nid = "3f1c2b9e-8a4d-4e6f-9b2a-1c3d5e7f9a0b"

// TestParseDetails: what an authorization_details array may be.
func TestParseDetails(t *testing.T) {
	cap := `"type":"https://vxpprotocol.org/rar/capability"`
	cases := []struct {
		name  string
		in    string
		want  []Detail
		code  Code
		cause strictjson.Code // the strict decoder's code behind it, if any
	}{
		{"one entry", `[{` + cap + `,"actions":["offer.respond"],"identifier":"` + nid + `"}]`,
			[]Detail{{CapabilityType, []string{"offer.respond"}, nid}}, "", ""},
		{"no identifier", `[{` + cap + `,"actions":["task.post"]}]`,
			[]Detail{{CapabilityType, []string{"task.post"}, ""}}, "", ""},
		{"two actions", `[{` + cap + `,"actions":["negotiation.read","offer.respond"],"identifier":"n"}]`,
			[]Detail{{CapabilityType, []string{"negotiation.read", "offer.respond"}, "n"}}, "", ""},
		{"an unknown member", `[{` + cap + `,"actions":["a"],"identifier":"n","locations":["x"]}]`, nil, CodeInvalidAuthorizationDetails, strictjson.CodeUnknownField},
		{"a member in another case", `[{` + cap + `,"Actions":["a"]}]`, nil, CodeInvalidAuthorizationDetails, strictjson.CodeUnknownField},
		{"a duplicate member", `[{` + cap + `,"actions":["a"],"actions":["b"]}]`, nil, CodeInvalidAuthorizationDetails, strictjson.CodeDuplicateKey},
		{"actions a string", `[{` + cap + `,"actions":"a"}]`, nil, CodeInvalidAuthorizationDetails, strictjson.CodeSchemaInvalid},
		{"identifier a number", `[{` + cap + `,"actions":["a"],"identifier":7}]`, nil, CodeInvalidAuthorizationDetails, strictjson.CodeSchemaInvalid},
		{"not an array", `{` + cap + `,"actions":["a"]}`, nil, CodeInvalidAuthorizationDetails, strictjson.CodeSchemaInvalid},
		{"not JSON", `[{`, nil, CodeInvalidAuthorizationDetails, strictjson.CodeMalformedJSON},
		{"null", `null`, nil, CodeInvalidAuthorizationDetails, ""},
		{"empty", `[]`, nil, CodeInvalidAuthorizationDetails, ""},
		{"another type", `[{"type":"https://vxpprotocol.org/rar/relationship","actions":["a"]}]`, nil, CodeInvalidAuthorizationDetails, ""},
		{"no type", `[{"actions":["a"]}]`, nil, CodeInvalidAuthorizationDetails, ""},
		{"no actions", `[{` + cap + `}]`, nil, CodeInvalidAuthorizationDetails, ""},
		{"empty actions", `[{` + cap + `,"actions":[]}]`, nil, CodeInvalidAuthorizationDetails, ""},
		{"an empty action", `[{` + cap + `,"actions":[""]}]`, nil, CodeInvalidAuthorizationDetails, ""},
		{"an action twice", `[{` + cap + `,"actions":["a","a"]}]`, nil, CodeInvalidAuthorizationDetails, ""},
		{"an empty identifier", `[{` + cap + `,"actions":["a"],"identifier":""}]`, nil, CodeInvalidAuthorizationDetails, ""},
		{"too many", `[` + strings.Repeat(`{`+cap+`,"actions":["a"]},`, MaxDetails) + `{` + cap + `,"actions":["a"]}]`, nil, CodeInvalidAuthorizationDetails, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseDetails([]byte(c.in))
			if CodeOf(err) != c.code {
				t.Fatalf("got %v, want %q", err, c.code)
			}
			if c.cause != "" && !errors.Is(err, &strictjson.Error{Code: c.cause}) {
				t.Fatalf("%v does not rest on %s", err, c.cause)
			}
			if err == nil && !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestCoverage: a grant covers exactly the operations and targets it
// names; Missing names exactly what is not covered.
func TestCoverage(t *testing.T) {
	granted := []Detail{
		{CapabilityType, []string{"negotiation.read", "offer.respond"}, nid},
		{CapabilityType, []string{"task.post"}, ""},
		{"https://vxpprotocol.org/rar/relationship", []string{"escrow.fund"}, nid},
	}
	cases := []struct {
		name       string
		op, target string
		covered    bool
	}{
		{"a granted operation on its target", "offer.respond", nid, true},
		{"the other granted action", "negotiation.read", nid, true},
		{"another target", "offer.respond", "9f1c2b9e-8a4d-4e6f-9b2a-1c3d5e7f9a0b", false},
		{"the target in another case", "offer.respond", strings.ToUpper(nid), false},
		{"an operation not granted", "delivery.accept", nid, false},
		{"an operation granted only in another type", "escrow.fund", nid, false},
		{"a targetless grant on a target", "task.post", nid, false},
		{"a targetless grant, no target", "task.post", "", true},
		{"a targeted grant, no target", "offer.respond", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Covers(granted, c.op, c.target); got != c.covered {
				t.Fatalf("Covers = %v", got)
			}
			m := Missing(granted, Required(c.op, c.target))
			if c.covered && m != nil {
				t.Fatalf("covered but missing %+v", m)
			}
			if !c.covered && !reflect.DeepEqual(m, Required(c.op, c.target)) {
				t.Fatalf("missing %+v, want %+v", m, Required(c.op, c.target))
			}
		})
	}
	needed := []Detail{{CapabilityType, []string{"negotiation.read", "delivery.accept"}, nid}, {CapabilityType, []string{"task.post"}, ""}}
	if m := Missing(granted, needed); !reflect.DeepEqual(m, []Detail{{CapabilityType, []string{"delivery.accept"}, nid}}) {
		t.Fatalf("partly covered: missing %+v", m)
	}
	if m := Missing(nil, Required("offer.respond", nid)); len(m) != 1 {
		t.Fatalf("nothing granted: missing %+v", m)
	}
}

// TestCanonical: the JCS text of a grant, the shape the seed shows.
func TestCanonical(t *testing.T) {
	b, err := Canonical(Required("offer.respond", nid))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"actions":["offer.respond"],"identifier":"` + nid + `","type":"https://vxpprotocol.org/rar/capability"}]`
	if string(b) != want {
		t.Fatalf("%s", b)
	}
	if ds, err := ParseDetails(b); err != nil || !reflect.DeepEqual(ds, Required("offer.respond", nid)) {
		t.Fatalf("round trip: %v %v", ds, err)
	}
}

// TestNeedAuthorization: the seed's authorization member, for a request
// its grant does not cover, and nothing for one it does.
func TestNeedAuthorization(t *testing.T) {
	d, err := BuildDocument(DocumentConfig{BaseURL: "https://store.example", Limits: DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	md := BuildMetadata(d.Issuer)
	a := NeedAuthorization([]Detail{{CapabilityType, []string{"negotiation.read"}, nid}}, "offer.respond", nid, md, d.Endpoint)
	b, _ := json.Marshal(a)
	want := `{"error":"authorization_required","authorization_details":[{"type":"https://vxpprotocol.org/rar/capability","actions":["offer.respond"],"identifier":"` + nid + `"}],"device_authorization_endpoint":"https://store.example/vxp/oauth/device","resource":"https://store.example/vxp/v1"}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	if a := NeedAuthorization(Required("offer.respond", nid), "offer.respond", nid, md, d.Endpoint); a != nil {
		t.Fatalf("covered, yet %+v", a)
	}
}
