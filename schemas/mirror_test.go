package schemas_test

import (
	"encoding/json"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/schemas"
)

// The Go payload structs are the wire spec: each schema must name exactly
// the struct's json members, and require exactly those without omitempty.

// jsonMembers returns the json member names of a struct type (embedded
// structs without a tag are flattened, as encoding/json does) and the
// required ones.
func jsonMembers(t reflect.Type) (all, required []string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("json")
		if f.Anonymous && !hasTag {
			a, r := jsonMembers(f.Type)
			all, required = append(all, a...), append(required, r...)
			continue
		}
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		all = append(all, name)
		if !slices.Contains(strings.Split(opts, ","), "omitempty") {
			required = append(required, name)
		}
	}
	slices.Sort(all)
	slices.Sort(required)
	return all, required
}

// schemaAt returns the object schema at file#pointer.
func schemaAt(t *testing.T, ref string) map[string]any {
	t.Helper()
	file, ptr, _ := strings.Cut(ref, "#")
	b, err := fs.ReadFile(schemas.FS(), file)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var cur any
	if err := json.Unmarshal(b, &cur); err != nil {
		t.Fatal(err)
	}
	for _, tok := range strings.Split(strings.Trim(ptr, "/"), "/") {
		if tok == "" {
			continue
		}
		cur = cur.(map[string]any)[tok]
	}
	m, ok := cur.(map[string]any)
	if !ok {
		t.Fatalf("%s is not a schema object", ref)
	}
	return m
}

func kebab(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

func TestSchemasMirrorGoStructs(t *testing.T) {
	payloads := map[negotiation.MessageType]any{
		negotiation.TypeTaskProposal:        negotiation.TaskProposal{},
		negotiation.TypeTaskCounterOffer:    negotiation.TaskCounterOffer{},
		negotiation.TypeTaskAcceptance:      negotiation.TaskAcceptance{},
		negotiation.TypeMilestoneDefinition: negotiation.MilestoneDefinition{},
		negotiation.TypeRevisionRequest:     negotiation.RevisionRequest{},
		negotiation.TypeDeliveryNotice:      negotiation.DeliveryNotice{},
		negotiation.TypePaymentRequest:      negotiation.PaymentRequest{},
		negotiation.TypeCapabilityProof:     negotiation.CapabilityProof{},
		negotiation.TypeDisputeEvidence:     negotiation.DisputeEvidence{},
		negotiation.TypeArbitratorProposal:  negotiation.ArbitratorProposal{},
		negotiation.TypeMutualCancel:        negotiation.MutualCancel{},
		negotiation.TypeReplacementContext:  negotiation.ReplacementContext{},
		negotiation.TypeSupervisorVeto:      negotiation.SupervisorVeto{},
		negotiation.TypeAcceptDelivery:      negotiation.AcceptDelivery{},
	}
	pairs := map[string]any{
		"payloads/terms.schema.json":                  negotiation.Terms{},
		"payloads/terms.schema.json#/$defs/milestone": negotiation.Milestone{},
		"payloads/terms.schema.json#/$defs/limits":    negotiation.Limits{},
		"payloads/file-ref.schema.json":               negotiation.FileRef{},
		"payloads/pxp.schema.json#/$defs/claim":       negotiation.Claim{},
		"payloads/pxp.schema.json#/$defs/review":      negotiation.Review{},
		"payloads/pxp.schema.json#/$defs/escalation":  negotiation.Escalation{},
		"envelope.schema.json#/properties/sender":     negotiation.Sender{},
	}
	for _, mt := range negotiation.MessageTypes {
		v, ok := payloads[mt]
		if !ok {
			t.Fatalf("no Go struct listed for %s", mt)
		}
		pairs["payloads/"+kebab(string(mt))+".schema.json"] = v
	}
	if len(pairs) != 8+len(negotiation.MessageTypes) {
		t.Fatalf("%d pairs", len(pairs))
	}
	for ref, v := range pairs {
		t.Run(ref, func(t *testing.T) {
			sch := schemaAt(t, ref)
			all, required := jsonMembers(reflect.TypeOf(v))
			var props []string
			for k := range sch["properties"].(map[string]any) {
				props = append(props, k)
			}
			slices.Sort(props)
			var req []string
			if r, ok := sch["required"].([]any); ok {
				for _, x := range r {
					req = append(req, x.(string))
				}
			}
			slices.Sort(req)
			if !slices.Equal(props, all) {
				t.Errorf("properties %v, Go members %v", props, all)
			}
			if !slices.Equal(req, required) {
				t.Errorf("required %v, Go members without omitempty %v", req, required)
			}
			if sch["additionalProperties"] != false {
				t.Errorf("additionalProperties is not false")
			}
		})
	}
}

// TestEnvelopeDispatchesEveryType checks that envelope.schema.json has one
// if/then pair per message type and that its type enum is the Go list.
func TestEnvelopeDispatchesEveryType(t *testing.T) {
	env := schemaAt(t, "envelope.schema.json")
	var dispatched []string
	for _, x := range env["allOf"].([]any) {
		pair := x.(map[string]any)
		typ := pair["if"].(map[string]any)["properties"].(map[string]any)["type"].(map[string]any)["const"].(string)
		ref := pair["then"].(map[string]any)["properties"].(map[string]any)["payload"].(map[string]any)["$ref"].(string)
		if want := "payloads/" + kebab(typ) + ".schema.json"; ref != want {
			t.Errorf("%s dispatches to %s, want %s", typ, ref, want)
		}
		dispatched = append(dispatched, typ)
	}
	var enum []string
	for _, x := range schemaAt(t, "common.schema.json#/$defs/messageType")["enum"].([]any) {
		enum = append(enum, x.(string))
	}
	var goTypes []string
	for _, mt := range negotiation.MessageTypes {
		goTypes = append(goTypes, string(mt))
	}
	slices.Sort(dispatched)
	slices.Sort(enum)
	slices.Sort(goTypes)
	if !slices.Equal(dispatched, goTypes) || !slices.Equal(enum, goTypes) {
		t.Fatalf("dispatch %v, enum %v, Go %v", dispatched, enum, goTypes)
	}
}
