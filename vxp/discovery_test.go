package vxp

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/parleynet/parley/strictjson"
)

// seedDocument is the seed's vxp.json (section 1), as captured there.
const seedDocument = `{
  "protocol": "vxp", "version": "0.1",
  "organization": {"name": "Ferretería Demo", "domain": "store.example"},
  "issuer": "https://store.example/e/ferreteria-demo",
  "endpoint": "https://store.example/e/ferreteria-demo/v1",
  "capabilities": [
    {"id": "pedido.consultar", "effect": "read", "access": "delegated", "admission": "static",
     "authorization_details_type": "https://vxpprotocol.org/rar/capability"},
    {"id": "pedido.reprogramar_despacho", "effect": "write", "access": "delegated", "admission": "dynamic",
     "authorization_details_type": "https://vxpprotocol.org/rar/capability",
     "commitment_modes": ["firm", "conditional"], "outcome_proof": true}
  ],
  "limits": {"max_revisions": 3, "proposal_ttl_seconds": 900, "max_accept_attempts": 3},
  "outcome_proof": {"version": "0.1", "trust": "issuer_metadata"},
  "status": "experimental",
  "vxp": {"version": "0.1",
    "relationship": {"authorization_details_type": "https://vxpprotocol.org/rar/relationship",
      "company_initiated_actions": ["despacho.proponer_cambio", "incidencia.avisar", "alerta.confirmar_o_bloquear"]},
    "proof": {"trust": "issuer_metadata"}}
}`

// members returns the member paths of a JSON value (array elements merged
// under "[]").
func members(prefix string, v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			out[prefix+"/"+k] = true
			members(prefix+"/"+k, e, out)
		}
	case []any:
		for _, e := range x {
			members(prefix+"[]", e, out)
		}
	}
}

func paths(t *testing.T, b []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	m := map[string]bool{}
	members("", v, m)
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestDocumentHasTheSeedsMembers: Parley's vxp.json has every member of
// the seed's, and no other, and the seed's example decodes strictly into
// Document.
func TestDocumentHasTheSeedsMembers(t *testing.T) {
	d, err := BuildDocument(DocumentConfig{BaseURL: "https://store.example", Name: "Ferretería Demo", Capabilities: []string{"negotiation.read", "offer.respond"}, Limits: DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(d)
	if got, want := paths(t, b), paths(t, []byte(seedDocument)); !reflect.DeepEqual(got, want) {
		t.Fatalf("members\n got %v\nwant %v", got, want)
	}
	var back Document
	if err := strictjson.Unmarshal([]byte(seedDocument), &back); err != nil {
		t.Fatalf("the seed's document: %v", err)
	}
	if strings.Contains(string(b), "jwk") || strings.Contains(string(b), "\"keys\"") {
		t.Fatalf("vxp.json carries keys: %s", b)
	}
	want := Document{
		Protocol: "vxp", Version: "0.1",
		Organization: Organization{"Ferretería Demo", "store.example"},
		Issuer:       "https://store.example/vxp", Endpoint: "https://store.example/vxp/v1",
		Capabilities: []Capability{
			{ID: "negotiation.read", Effect: "read", Access: "delegated", Admission: "static", AuthorizationDetailsType: CapabilityType},
			{ID: "offer.respond", Effect: "write", Access: "delegated", Admission: "dynamic", AuthorizationDetailsType: CapabilityType, CommitmentModes: []string{"firm", "conditional"}, OutcomeProof: true},
		},
		Limits:       Limits{3, 900, 3},
		OutcomeProof: OutcomeProof{"0.1", "issuer_metadata"},
		Status:       "experimental",
		VXP:          Extension{"0.1", Relationship{RelationshipType, RelationshipActions}, ProofTrust{"issuer_metadata"}},
	}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("got %+v\nwant %+v", d, want)
	}
}

// TestBuildDocument: the base URL and capability rules.
func TestBuildDocument(t *testing.T) {
	cases := []struct {
		name     string
		base     string
		insecure bool
		caps     []string
		limits   *Limits
		code     Code
		domain   string
		issuer   string
	}{
		{"https", "https://node.example", false, nil, nil, "", "node.example", "https://node.example/vxp"},
		{"a port: the domain has none", "https://node.example:8443", false, nil, nil, "", "node.example", "https://node.example:8443/vxp"},
		{"a trailing slash", "https://node.example/", false, nil, nil, "", "node.example", "https://node.example/vxp"},
		{"upper case", "HTTPS://Node.Example", false, nil, nil, "", "node.example", "https://node.example/vxp"},
		{"loopback http, allowed", "http://127.0.0.1:7301", true, nil, nil, "", "127.0.0.1", "http://127.0.0.1:7301/vxp"},
		{"localhost http, allowed", "http://localhost:7301", true, nil, nil, "", "localhost", "http://localhost:7301/vxp"},
		{"IPv6 loopback http, allowed", "http://[::1]:7301", true, nil, nil, "", "::1", "http://[::1]:7301/vxp"},
		{"loopback http, not allowed", "http://127.0.0.1:7301", false, nil, nil, CodeBadBaseURL, "", ""},
		{"http elsewhere, allowed on loopback only", "http://node.example", true, nil, nil, CodeBadBaseURL, "", ""},
		{"another scheme", "ftp://node.example", false, nil, nil, CodeBadBaseURL, "", ""},
		{"a path", "https://node.example/parley", false, nil, nil, CodeBadBaseURL, "", ""},
		{"a query", "https://node.example?a=1", false, nil, nil, CodeBadBaseURL, "", ""},
		{"a fragment", "https://node.example#x", false, nil, nil, CodeBadBaseURL, "", ""},
		{"a user", "https://u:p@node.example", false, nil, nil, CodeBadBaseURL, "", ""},
		{"relative", "node.example", false, nil, nil, CodeBadBaseURL, "", ""},
		{"empty", "", false, nil, nil, CodeBadBaseURL, "", ""},
		{"an unknown capability", "https://node.example", false, []string{"pedido.consultar"}, nil, CodeUnknownCapability, "", ""},
		{"a capability twice", "https://node.example", false, []string{"offer.respond", "offer.respond"}, nil, CodeUnknownCapability, "", ""},
		{"bad limits", "https://node.example", false, nil, &Limits{0, 900, 3}, CodeBadLimits, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := DefaultLimits()
			if c.limits != nil {
				l = *c.limits
			}
			d, err := BuildDocument(DocumentConfig{BaseURL: c.base, Capabilities: c.caps, Limits: l, AllowInsecureLoopback: c.insecure})
			if CodeOf(err) != c.code {
				t.Fatalf("got %v, want %q", err, c.code)
			}
			if err != nil {
				return
			}
			if d.Organization.Domain != c.domain || d.Issuer != c.issuer || d.Endpoint != c.issuer+"/v1" {
				t.Fatalf("domain %q issuer %q endpoint %q", d.Organization.Domain, d.Issuer, d.Endpoint)
			}
			if d.Organization.Name != c.domain {
				t.Fatalf("no name: the name is %q", d.Organization.Name)
			}
			md := BuildMetadata(d.Issuer)
			if err := CheckMetadata(d.Issuer, md); err != nil {
				t.Fatal(err)
			}
			u, err := MetadataURL(d.Issuer)
			if err != nil || u != strings.TrimSuffix(c.issuer, "/vxp")+"/.well-known/oauth-authorization-server/vxp" {
				t.Fatalf("metadata at %q, %v", u, err)
			}
		})
	}
}

// TestCapabilities: the catalogue's rows as vxp.json lists them; a public
// operation names no authorization details type.
func TestCapabilities(t *testing.T) {
	d, err := BuildDocument(DocumentConfig{BaseURL: "https://n.example", Capabilities: []string{"delivery.accept", "board.read", "task.post", "escrow.fund", "offer.respond", "negotiation.read"}, Limits: DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range d.Capabilities {
		ids = append(ids, c.ID)
		op, _ := LookupOperation(c.ID)
		if (c.AuthorizationDetailsType == "") != (op.Access == AccessPublic) {
			t.Errorf("%s: authorization_details_type %q", c.ID, c.AuthorizationDetailsType)
		}
		if (op.Effect == EffectWrite) != c.OutcomeProof || (op.Admission == AdmissionDynamic) != (len(c.CommitmentModes) > 0) {
			t.Errorf("%s: %+v", c.ID, c)
		}
	}
	if !slices.Equal(ids, []string{"board.read", "negotiation.read", "offer.respond", "task.post", "escrow.fund", "delivery.accept"}) {
		t.Fatalf("order %v", ids)
	}
	b, _ := json.Marshal(d.Capabilities[0])
	if string(b) != `{"id":"board.read","effect":"read","access":"public","admission":"static"}` {
		t.Fatalf("board.read: %s", b)
	}
	op, _ := LookupOperation("offer.respond")
	if op.Target != TargetNegotiation || !slices.Equal(op.CommitmentModes, []string{"firm", "conditional"}) {
		t.Fatalf("offer.respond %+v", op)
	}
	if d, _ := BuildDocument(DocumentConfig{BaseURL: "https://n.example", Limits: DefaultLimits()}); len(d.Capabilities) != len(DefaultCapabilities) {
		t.Fatalf("defaults: %+v", d.Capabilities)
	}
	if d, _ := BuildDocument(DocumentConfig{BaseURL: "https://n.example", Capabilities: []string{}, Limits: DefaultLimits()}); d.Capabilities == nil {
		t.Fatal("no capabilities marshal as null")
	}
}

// TestMetadata: the members the issue lists, and the issuer compared
// character by character.
func TestMetadata(t *testing.T) {
	md := BuildMetadata("https://n.example/vxp")
	b, _ := json.Marshal(md)
	want := `{"issuer":"https://n.example/vxp","token_endpoint":"https://n.example/vxp/oauth/token","device_authorization_endpoint":"https://n.example/vxp/oauth/device","jwks_uri":"https://n.example/vxp/oauth/jwks","response_types_supported":[],"grant_types_supported":["urn:ietf:params:oauth:grant-type:jwt-bearer","urn:ietf:params:oauth:grant-type:device_code"],"token_endpoint_auth_methods_supported":["private_key_jwt"],"token_endpoint_auth_signing_alg_values_supported":["ES256"],"dpop_signing_alg_values_supported":["ES256"],"authorization_details_types_supported":["https://vxpprotocol.org/rar/capability","https://vxpprotocol.org/rar/relationship"],"client_id_metadata_document_supported":true}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	for _, other := range []string{"https://n.example/vxp/", "https://N.example/vxp", "https://n.example/VXP", "https://n.example:443/vxp", "http://n.example/vxp", ""} {
		if err := CheckMetadata("https://n.example/vxp", Metadata{Issuer: other}); CodeOf(err) != CodeIssuerMismatch {
			t.Errorf("issuer %q: %v", other, err)
		}
	}
	for _, c := range []struct{ issuer, want string }{
		{"https://store.example/e/ferreteria-demo", "https://store.example/.well-known/oauth-authorization-server/e/ferreteria-demo"},
		{"https://n.example", "https://n.example/.well-known/oauth-authorization-server"},
		{"https://n.example:8443/vxp", "https://n.example:8443/.well-known/oauth-authorization-server/vxp"},
	} {
		if got, err := MetadataURL(c.issuer); err != nil || got != c.want {
			t.Errorf("%s: %q %v", c.issuer, got, err)
		}
	}
	if _, err := MetadataURL("not a url"); CodeOf(err) != CodeBadBaseURL {
		t.Errorf("a bad issuer: %v", err)
	}
	base, _ := Base("https://n.example", false)
	if DocumentURL(base) != "https://n.example/.well-known/vxp.json" {
		t.Fatal(DocumentURL(base))
	}
}

// TestCheckHost: the document is served only to its own host.
func TestCheckHost(t *testing.T) {
	d, err := BuildDocument(DocumentConfig{BaseURL: "https://node.example:8443", Limits: DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	v6, err := BuildDocument(DocumentConfig{BaseURL: "http://[::1]:7301", Limits: DefaultLimits(), AllowInsecureLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		doc  Document
		host string
		ok   bool
	}{
		{d, "node.example:8443", true},
		{d, "node.example", true},
		{d, "NODE.example:8443", true},
		{d, "other.example:8443", false},
		{d, "node.example.evil:8443", false},
		{d, "", false},
		{v6, "[::1]:7301", true},
		{v6, "[::1]", true},
		{v6, "127.0.0.1:7301", false},
	}
	for _, c := range cases {
		if err := CheckHost(c.doc, c.host); (err == nil) != c.ok || (err != nil && CodeOf(err) != CodeWrongHost) {
			t.Errorf("host %q: %v", c.host, err)
		}
	}
}
