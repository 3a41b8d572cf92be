package nodetest

import (
	"context"
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// The payload census: which members of which payload types the envelopes
// test nodes received from one another, and took, carried. Start records
// each node's received envelopes when its test ends; a package's TestMain
// compares what was seen with every member of every payload type
// (PayloadMembers), so that every field of the seed's message types is
// exercised between real nodes in some test.
//
// A member is named Type.member: a payload type's own members by its
// message type (PaymentRequest.units), the members PXP adds to every
// payload as PXP.member, and the members of the structures payloads carry
// (terms, milestones, files, claims ...) by the Go type's name
// (Terms.deadline, FileRef.mediaType), across every payload that carries
// them. A member is seen when an envelope had it on the wire: set, or
// required (no omitempty) and so always written.

var census struct {
	sync.Mutex
	seen map[string]bool
}

// PayloadTypes returns one empty payload of every message type.
func PayloadTypes() []negotiation.Payload {
	return []negotiation.Payload{
		&negotiation.TaskProposal{}, &negotiation.TaskCounterOffer{}, &negotiation.TaskAcceptance{},
		&negotiation.MilestoneDefinition{}, &negotiation.RevisionRequest{}, &negotiation.DeliveryNotice{},
		&negotiation.PaymentRequest{}, &negotiation.CapabilityProof{}, &negotiation.DisputeEvidence{},
		&negotiation.ArbitratorProposal{}, &negotiation.MutualCancel{}, &negotiation.ReplacementContext{},
		&negotiation.SupervisorVeto{}, &negotiation.AcceptDelivery{},
	}
}

// PayloadMembers returns every member of every payload type, sorted.
func PayloadMembers() []string {
	all := map[string]bool{}
	for _, p := range PayloadTypes() {
		walkType(string(p.MessageType()), reflect.TypeOf(p).Elem(), all, map[reflect.Type]bool{})
	}
	out := make([]string, 0, len(all))
	for m := range all {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// PayloadCensus returns the members seen so far.
func PayloadCensus() map[string]bool {
	census.Lock()
	defer census.Unlock()
	out := make(map[string]bool, len(census.seen))
	for m := range census.seen {
		out[m] = true
	}
	return out
}

// recordCensus adds the members of every envelope n received and took
// (envelope.received with code ok) to the census.
func recordCensus(n *node.Node) {
	led := n.Ledger()
	if led == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	seen := map[string]bool{}
	for e, err := range led.ByKind(ctx, ledger.KindEnvelopeReceived) {
		if err != nil {
			break
		}
		var b struct {
			Code string `json:"code"`
		}
		if json.Unmarshal(e.Body, &b) != nil || b.Code != "ok" {
			continue
		}
		raw, err := led.Object(ctx, e.CID)
		if err != nil {
			continue
		}
		env, err := negotiation.Decode(raw, negotiation.DecodeOptions{})
		if err != nil || env.Payload == nil {
			continue
		}
		walkValue(string(env.Type), reflect.ValueOf(env.Payload).Elem(), seen)
	}
	census.Lock()
	defer census.Unlock()
	if census.seen == nil {
		census.seen = map[string]bool{}
	}
	for m := range seen {
		census.seen[m] = true
	}
}

var (
	pxpType = reflect.TypeFor[negotiation.PXP]()
	leafOf  = []reflect.Type{reflect.TypeFor[json.Marshaler](), reflect.TypeFor[encoding.TextMarshaler]()}
)

// member is one JSON member of a struct field: its name, and whether it
// is written when zero.
func member(f reflect.StructField) (name string, always, ok bool) {
	tag := f.Tag.Get("json")
	if tag == "-" || !f.IsExported() {
		return "", false, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero"), true
}

// inner returns the struct type a field's values are walked into (through
// pointers, slices and maps), or nil for a leaf.
func inner(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t.PkgPath() != pxpType.PkgPath() {
		return nil
	}
	for _, l := range leafOf {
		if t.Implements(l) || reflect.PointerTo(t).Implements(l) {
			return nil
		}
	}
	return t
}

func walkType(owner string, t reflect.Type, out map[string]bool, done map[reflect.Type]bool) {
	if done[t] {
		return
	}
	done[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type == pxpType {
			walkType("PXP", f.Type, out, done)
			continue
		}
		name, _, ok := member(f)
		if !ok {
			continue
		}
		out[owner+"."+name] = true
		if in := inner(f.Type); in != nil {
			walkType(in.Name(), in, out, done)
		}
	}
	delete(done, t)
}

func walkValue(owner string, v reflect.Value, out map[string]bool) {
	t := v.Type()
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		if f.Anonymous && f.Type == pxpType {
			walkValue("PXP", fv, out)
			continue
		}
		name, always, ok := member(f)
		if !ok || (!always && fv.IsZero()) {
			continue
		}
		out[owner+"."+name] = true
		if in := inner(f.Type); in != nil {
			walkInner(in.Name(), fv, out)
		}
	}
}

// walkInner walks the structs in v (a struct, or pointers, slices and maps
// of them).
func walkInner(owner string, v reflect.Value, out map[string]bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkInner(owner, v.Elem(), out)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walkInner(owner, v.Index(i), out)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			walkInner(owner, it.Value(), out)
		}
	case reflect.Struct:
		walkValue(owner, v, out)
	}
}
