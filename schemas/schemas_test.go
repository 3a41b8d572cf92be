package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// load returns a fixture as a generic document (numbers as json.Number).
func load(t testing.TB, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("fixtures", path))
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		t.Fatal(err)
	}
	return d
}

// set sets the member at a JSON pointer (array indexes decimal); a nil v
// deletes it.
func set(t testing.TB, d any, path string, v any) {
	t.Helper()
	toks := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i, tok := range toks {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		last := i == len(toks)-1
		switch c := d.(type) {
		case map[string]any:
			if last {
				if v == nil {
					delete(c, tok)
				} else {
					c[tok] = v
				}
				return
			}
			d = c[tok]
		case []any:
			var n int
			if err := json.Unmarshal([]byte(tok), &n); err != nil || n >= len(c) {
				t.Fatalf("set %s: bad index %q", path, tok)
			}
			if last {
				c[n] = v
				return
			}
			d = c[n]
		default:
			t.Fatalf("set %s: no container at %q", path, tok)
		}
	}
}

type edit struct {
	path string
	v    any // nil deletes
}

func mustCompile(t testing.TB) *Set {
	t.Helper()
	s, err := Compiled()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestValidateCodes checks the code and pointer of one failure per code,
// including failures reached through allOf, if/then and several $refs.
func TestValidateCodes(t *testing.T) {
	const (
		proposal   = "valid/02-TaskProposal.json"
		acceptance = "valid/05-TaskAcceptance-poster.json"
		delivery   = "valid/07-DeliveryNotice.json"
	)
	tests := []struct {
		name, base string
		edits      []edit
		code, ptr  string
	}{
		{"unknown member at top level", proposal, []edit{{"/extra", "x"}}, CodeUnknownField, "/extra"},
		{"unknown member in a claim", proposal, []edit{{"/payload/claims/0/confidence", "high"}}, CodeUnknownField, "/payload/claims/0/confidence"},
		{"unknown member with pointer escapes", proposal, []edit{{"/payload/terms/a~0b~1c", "x"}}, CodeUnknownField, "/payload/terms/a~0b~1c"},
		{"schema version", proposal, []edit{{"/schemaVersion", "azzle-xmtp-v0"}}, CodeBadSchemaVersion, "/schemaVersion"},
		{"message type", proposal, []edit{{"/type", "TaskBid"}}, CodeUnknownType, "/type"},
		{"address inside terms (if/then, three $refs)", proposal, []edit{{"/payload/terms/registry", "0x12"}}, CodeBadAddress, "/payload/terms/registry"},
		{"address in recipients", proposal, []edit{{"/recipients/0", "alice.eth"}}, CodeBadAddress, "/recipients/0"},
		{"hash in payload", acceptance, []edit{{"/payload/acceptedOfferHash", "0xABCD"}}, CodeBadHex, "/payload/acceptedOfferHash"},
		{"EVM signature form", acceptance, []edit{{"/payload/signature", "0x1b"}}, CodeBadHex, "/payload/signature"},
		{"inbox key", proposal, []edit{{"/sender/xmtpPublicKey", "0x00"}}, CodeBadHex, "/sender/xmtpPublicKey"},
		{"envelope signature", proposal, []edit{{"/signature", "0x"}}, CodeBadHex, "/signature"},
		{"intent card hash in PXP", proposal, []edit{{"/payload/intentCardHash", "0x1234"}}, CodeBadHex, "/payload/intentCardHash"},
		{"uuid", proposal, []edit{{"/negotiationId", "not-a-uuid"}}, CodeBadUUID, "/negotiationId"},
		{"timestamp pattern", proposal, []edit{{"/timestamp", "2026-06-13T12:00:00Z"}}, CodeBadTimestamp, "/timestamp"},
		{"timestamp date", proposal, []edit{{"/timestamp", "2026-02-30T12:00:00.000Z"}}, CodeBadTimestamp, "/timestamp"},
		{"integer in a milestone", proposal, []edit{{"/payload/terms/milestones/1/amount", "1e18"}}, CodeBadInteger, "/payload/terms/milestones/1/amount"},
		{"task id", delivery, []edit{{"/taskId", "-1"}}, CodeBadInteger, "/taskId"},
		{"cid in a file", delivery, []edit{{"/payload/files/0/cid", "Qm123"}}, CodeBadCID, "/payload/files/0/cid"},
		{"missing payload member", delivery, []edit{{"/payload/proofCid", nil}}, CodeSchemaInvalid, "/payload"},
		{"wrong JSON type inside a format definition", proposal, []edit{{"/previousHash", json.Number("5")}}, CodeSchemaInvalid, "/previousHash"},
		{"stated claim without ref", proposal, []edit{{"/payload/claims/1/ref", nil}}, CodeSchemaInvalid, "/payload/claims/1"},
		{"limits out of range", proposal, []edit{{"/payload/terms/limits/proposal_ttl_seconds", json.Number("604801")}}, CodeSchemaInvalid, "/payload/terms/limits/proposal_ttl_seconds"},
		{"payload not an object", proposal, []edit{{"/payload", "x"}}, CodeSchemaInvalid, "/payload"},

		// Several failures: the most specific wins, whatever the order.
		{"bad address beats unknown member", proposal, []edit{{"/payload/zzz", "x"}, {"/payload/terms/token", "0x0"}}, CodeBadAddress, "/payload/terms/token"},
		{"unknown member beats a rule", proposal, []edit{{"/payload/claims/1/ref", nil}, {"/payload/terms/extra", "x"}}, CodeUnknownField, "/payload/terms/extra"},
		{"version beats everything", proposal, []edit{{"/schemaVersion", "v2"}, {"/extra", "x"}, {"/timestamp", "now"}}, CodeBadSchemaVersion, "/schemaVersion"},
		{"type beats formats", proposal, []edit{{"/type", "Nope"}, {"/negotiationId", "x"}}, CodeUnknownType, "/type"},
		{"first by pointer among equals", proposal, []edit{{"/timestamp", "x"}, {"/negotiationId", "x"}, {"/previousHash", "x"}}, CodeBadUUID, "/negotiationId"},
	}
	s := mustCompile(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Object members are visited in map order, which varies from
			// run to run: the answer must not.
			for range 20 {
				d := load(t, tc.base)
				for _, e := range tc.edits {
					set(t, d, e.path, e.v)
				}
				err := s.Validate(Envelope, d)
				var se *Error
				if !errors.As(err, &se) {
					t.Fatalf("got %v, want a *schemas.Error", err)
				}
				if se.Code != tc.code || se.Pointer != tc.ptr {
					t.Fatalf("got %s at %q (%s), want %s at %q", se.Code, se.Pointer, se.Msg, tc.code, tc.ptr)
				}
			}
		})
	}
}

// TestValidFixturesPass checks every valid fixture against its schema.
func TestValidFixturesPass(t *testing.T) {
	s := mustCompile(t)
	for dir, name := range map[string]string{"valid": Envelope, "identity-link/valid": IdentityLink} {
		entries, err := os.ReadDir(filepath.Join("fixtures", dir))
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) == 0 {
			t.Fatalf("no fixtures in %s", dir)
		}
		for _, e := range entries {
			if err := s.Validate(name, load(t, filepath.Join(dir, e.Name()))); err != nil {
				t.Errorf("%s/%s: %v", dir, e.Name(), err)
			}
		}
	}
}

// TestIdentityLink checks the identity link schema on the committed links
// with one defect each.
func TestIdentityLink(t *testing.T) {
	const base = "identity-link/valid/worker.json"
	tests := []struct {
		name, path string
		v          any
		code       string
	}{
		{"unknown member", "/revoked", true, CodeUnknownField},
		{"unknown signature member", "/signatures/webauthn", "x", CodeUnknownField},
		{"address", "/evmAddress", "0x1", CodeBadAddress},
		{"inbox key", "/inboxKey", "0xAB", CodeBadHex},
		{"evm signature", "/signatures/evm", "0x00", CodeBadHex},
		{"inbox signature", "/signatures/inbox", "0x00", CodeBadHex},
		{"peer id", "/peerId", "QmNotAnEd25519PeerId", CodeSchemaInvalid},
		{"unknown kem", "/encryptionKeys/0/kem", "P-256", CodeSchemaInvalid},
		{"X25519 with an ML-KEM-768+X25519 key", "/encryptionKeys/0/kem", "X25519", CodeSchemaInvalid},
		{"ML-KEM-768+X25519 with an X25519 key", "/encryptionKeys/1/kem", "MLKEM768-X25519", CodeSchemaInvalid},
		{"expiry as a string", "/expiresAt", "1813492800", CodeSchemaInvalid},
		{"missing signatures", "/signatures", nil, CodeSchemaInvalid},
	}
	s := mustCompile(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := load(t, base)
			set(t, d, tc.path, tc.v)
			err := s.Validate(IdentityLink, d)
			var se *Error
			if !errors.As(err, &se) || se.Code != tc.code {
				t.Fatalf("got %v, want %s", err, tc.code)
			}
		})
	}
}

// TestObjectSchemasAreClosed checks that every object schema with
// properties sets additionalProperties to false. Subschemas of if and then
// only add conditions to a closed schema and are exempt.
func TestObjectSchemasAreClosed(t *testing.T) {
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch n := v.(type) {
		case map[string]any:
			if _, ok := n["properties"]; ok {
				if ap, ok := n["additionalProperties"].(bool); !ok || ap {
					t.Errorf("%s: object schema without additionalProperties false", path)
				}
			}
			for k, c := range n {
				if k == "if" || k == "then" || k == "else" {
					continue
				}
				walk(path+"/"+k, c)
			}
		case []any:
			for i, c := range n {
				walk(path+"/"+strconv.Itoa(i), c)
			}
		}
	}
	n := 0
	err := fs.WalkDir(FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(FS(), p)
		if err != nil {
			return err
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			return err
		}
		walk(p+"#", doc)
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 19 {
		t.Fatalf("walked %d schema files", n)
	}
}

// BenchmarkValidateEnvelope validates a 2.3 KB counter-offer (terms, PXP
// claims and reviews) against the envelope schema.
func BenchmarkValidateEnvelope(b *testing.B) {
	s := mustCompile(b)
	d := load(b, "valid/03-TaskCounterOffer.json")
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		if err := s.Validate(Envelope, d); err != nil {
			b.Fatal(err)
		}
	}
	if used := processCPU() - cpu; used > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
