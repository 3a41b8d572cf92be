package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"time"

	"github.com/ipfs/go-cid"
	"github.com/multiformats/go-multihash"
	"github.com/parleynet/parley/negotiation"
)

var (
	kindRE  = regexp.MustCompile(`^[a-z][a-z0-9]*([._-][a-z0-9]+)*$`)
	stateRE = regexp.MustCompile(`^[a-z][a-z_]*$`)
)

// maxKindLen bounds a kind's length.
const maxKindLen = 64

// Append records one event. It returns the entry, and existed = true when
// r carries an object that was already stored: then the returned entry is
// the one that stored it and nothing was written. A malformed or oversize
// record is refused with an *Error and writes nothing; so is a record of a
// reserved kind that EnvelopeRecord or RejectedRecord did not build as it
// stands. Append returns only after the entry is synced to disk.
func (l *Ledger) Append(ctx context.Context, r Record) (e Entry, existed bool, err error) {
	req, err := l.prepareRecord(r)
	if err != nil {
		return Entry{}, false, err
	}
	res := l.submit(ctx, req)
	return res.entry, res.existed, res.err
}

// AppendEnvelope records an authentic envelope that this node sent
// (KindEnvelopeSent) or received (KindEnvelopeReceived): Append of the
// record EnvelopeRecord builds. Recording an envelope already stored
// returns the first entry and writes nothing (existed = true).
func (l *Ledger) AppendEnvelope(ctx context.Context, kind string, env *negotiation.Envelope, effect negotiation.Code, at time.Time) (e Entry, existed bool, err error) {
	r, err := EnvelopeRecord(kind, env, effect, at)
	if err != nil {
		return Entry{}, false, err
	}
	return l.Append(ctx, r)
}

// EnvelopeRecord returns the record of an authentic envelope that this node
// sent (KindEnvelopeSent) or received (KindEnvelopeReceived), for Append or
// a batch of AppendAll: its JCS bytes are stored once under its CID, and
// the entry's body names the CID, the type, the sender, its sequence and
// the effect code: "ok" ("" means ok), or the code with which the state
// machine refused its effect (the envelope is kept whole either way). A
// bad kind, a missing envelope or a code that does not refuse an authentic
// envelope's effect is an *Error. The record is accepted only as returned:
// changing its members makes the append refuse it (CodeBadKind).
func EnvelopeRecord(kind string, env *negotiation.Envelope, effect negotiation.Code, at time.Time) (Record, error) {
	if kind != KindEnvelopeSent && kind != KindEnvelopeReceived {
		return Record{}, refuse(CodeBadKind, "kind", "%q is not an envelope kind", kind)
	}
	if env == nil || len(env.Bytes()) == 0 {
		return Record{}, refuse(CodeBadObject, "envelope", "no envelope")
	}
	if effect == "" {
		effect = "ok"
	} else if effect != "ok" && !effect.Authentic() {
		return Record{}, refuse(CodeBadCode, "effect", "%q does not refuse the effect of an authentic envelope", effect)
	}
	body := envelopeBody{
		Code: string(effect), Sender: env.Sender.EVMAddress.String(),
		Sequence: env.Sequence, Type: string(env.Type),
	}
	b, err := json.Marshal(body)
	if err != nil {
		return Record{}, err
	}
	return seal(Record{
		Kind: kind, NegotiationID: env.NegotiationID, Body: b, At: at,
		Object: env.Bytes(), ObjectCodec: CodecJSON,
	}), nil
}

// envelopeBody is the body of an envelope entry, less the cid the ledger
// adds. Its members are plain, so json.Marshal yields canonical bytes once
// sorted; prepare canonicalises it anyway.
type envelopeBody struct {
	Code     string `json:"code"`
	Sender   string `json:"sender"`
	Sequence uint64 `json:"sequence"`
	Type     string `json:"type"`
}

// AppendRejected records input that was not authentic: Append of the
// record RejectedRecord builds.
func (l *Ledger) AppendRejected(ctx context.Context, input []byte, code negotiation.Code, negotiationID string, at time.Time) (Entry, error) {
	r, err := RejectedRecord(input, code, negotiationID, at)
	if err != nil {
		return Entry{}, err
	}
	e, _, err := l.Append(ctx, r)
	return e, err
}

// RejectedRecord returns the record of input that was not authentic, for
// Append or a batch of AppendAll: only its SHA-256, size and the rejection
// code, never its bytes. negotiationID is the one the input claimed, if it
// named a well-formed one ("" otherwise). A code that is empty, not a code,
// or names an authentic envelope is an *Error (CodeBadCode). The record is
// accepted only as returned.
func RejectedRecord(input []byte, code negotiation.Code, negotiationID string, at time.Time) (Record, error) {
	if code == "" || code == negotiation.CodeDuplicate || code.Authentic() {
		return Record{}, refuse(CodeBadCode, "code", "%q is not a rejection of non-authentic input", code)
	}
	if !validCode(string(code)) {
		return Record{}, refuse(CodeBadCode, "code", "%q is not a code", code)
	}
	sum := sha256.Sum256(input)
	body := `{"code":"` + string(code) + `","hash":"` + negotiation.Hash(sum).String() + `","size":` + strconv.Itoa(len(input)) + `}`
	return seal(Record{Kind: KindEnvelopeRejected, NegotiationID: negotiationID, Body: []byte(body), At: at}), nil
}

// seal marks r as built by the constructor of its reserved kind.
func seal(r Record) Record {
	c := r
	r.sealed = &c
	return r
}

// unchanged reports whether r is the record its constructor sealed.
func (r Record) unchanged() bool {
	s := r.sealed
	return s != nil && s.Kind == r.Kind && s.NegotiationID == r.NegotiationID && s.At.Equal(r.At) &&
		s.ObjectCodec == r.ObjectCodec && bytes.Equal(s.Body, r.Body) && bytes.Equal(s.Object, r.Object) &&
		(s.Object == nil) == (r.Object == nil)
}

// prepareRecord checks that r may be appended by Append or AppendAll (a
// reserved kind only as its constructor built it) and prepares it.
func (l *Ledger) prepareRecord(r Record) (*request, error) {
	if err := checkKind(r.Kind); err != nil {
		return nil, err
	}
	if reservedKinds[r.Kind] && !(constructed[r.Kind] && r.unchanged()) {
		return nil, refuse(CodeBadKind, "kind", "%q is written only by its own method", r.Kind)
	}
	return l.prepare(r)
}

// constructed are the reserved kinds whose records a constructor builds
// for Append and AppendAll (EnvelopeRecord, RejectedRecord).
var constructed = map[string]bool{
	KindEnvelopeSent: true, KindEnvelopeReceived: true, KindEnvelopeRejected: true,
}

func validCode(s string) bool { return stateRE.MatchString(s) && len(s) <= 64 }

// RecordAnchor records that head was anchored on chain. proof is a JSON
// object describing where (for example chainId, contract, txHash,
// blockNumber); the ledger adds "head" and "count". It refuses a head this
// ledger never had (CodeUnknownHead).
func (l *Ledger) RecordAnchor(ctx context.Context, head Head, proof []byte) (Entry, error) {
	body, err := canonicalBody(proof, l.cfg.MaxEntryBytes)
	if err != nil {
		return Entry{}, err
	}
	body, err = insertMembers(body, []member{
		{key: []byte("count"), val: strconv.AppendUint(nil, head.Seq, 10)},
		{key: []byte("head"), val: []byte(`"` + head.Hash.String() + `"`)},
	})
	if err != nil {
		return Entry{}, err
	}
	req, err := l.prepare(Record{Kind: KindAnchor, Body: body})
	if err != nil {
		return Entry{}, err
	}
	req.op = opAnchor
	req.anchor = head
	res := l.submit(ctx, req)
	return res.entry, res.err
}

// prepare validates r and does the costly work (canonical body, CID) on
// the caller's goroutine, so the writer only assembles, hashes and writes.
func (l *Ledger) prepare(r Record) (*request, error) {
	if err := checkKind(r.Kind); err != nil {
		return nil, err
	}
	if r.NegotiationID != "" {
		if _, err := negotiation.ParseNegotiationID(r.NegotiationID); err != nil {
			return nil, &Error{Code: CodeBadNegotiationID, Field: "negotiationId", Msg: "want a lowercase UUID v4", Err: err}
		}
	}
	if !r.At.IsZero() {
		if y := r.At.UTC().Year(); y < 0 || y > 9999 {
			return nil, refuse(CodeBadTime, "at", "year %d is outside 0000-9999", y)
		}
	}
	body, err := canonicalBody(r.Body, l.cfg.MaxEntryBytes)
	if err != nil {
		return nil, err
	}
	at := r.At
	if at.IsZero() {
		at = l.cfg.Clock()
	}
	req := &request{op: opAppend, kind: r.Kind, negID: r.NegotiationID, at: at}
	if r.Object != nil {
		c, err := objectCID(r.Object, r.ObjectCodec, l.cfg.MaxObjectBytes)
		if err != nil {
			return nil, err
		}
		body, err = insertMembers(body, []member{{key: []byte("cid"), val: []byte(`"` + c.String() + `"`)}})
		if err != nil {
			return nil, err
		}
		req.object, req.cid = r.Object, c
	} else {
		ms, err := members(body)
		if err != nil {
			return nil, refuse(CodeBadBody, "body", "%v", err)
		}
		if _, ok := lookup(ms, "cid"); ok {
			return nil, refuse(CodeReservedMember, "body/cid", "set by the ledger for an entry that stores an object")
		}
	}
	if r.Kind == KindThreadState {
		if r.NegotiationID == "" {
			return nil, refuse(CodeBadNegotiationID, "negotiationId", "a thread.state entry names its negotiation")
		}
		ms, _ := members(body)
		v, _ := lookup(ms, "state")
		s, ok := plainString(v)
		if !ok || !stateRE.MatchString(s) || len(s) > 64 {
			return nil, refuse(CodeBadBody, "body/state", "a thread.state body has a state name")
		}
		req.state = s
	}
	req.body = body
	req.seal()
	n := len(`{"at":"2006-01-02T15:04:05.000Z","body":,"kind":"","negotiationId":"","negotiationPrev":18446744073709551615,"seq":18446744073709551615}`) +
		len(body) + len(r.Kind) + len(r.NegotiationID)
	if n > l.cfg.MaxEntryBytes {
		return nil, refuse(CodeTooLarge, "", "entry of %d bytes exceeds the limit of %d", n, l.cfg.MaxEntryBytes)
	}
	req.size = keyCost(9, 64+n) + keyCost(1+len(r.Kind)+9, 0) + keyCost(1+len(r.NegotiationID)+9, 0) +
		keyCost(9, 64) // the Merkle tree nodes it completes (one key, two hashes on average; treeOverhead bounds the rest)
	if req.object != nil {
		cl := len(req.cid.Bytes())
		req.size += keyCost(1+cl, len(req.object)) + keyCost(1+cl, 8)
	}
	if req.state != "" {
		req.size += keyCost(1+len(r.NegotiationID), len(req.state))
	}
	return req, nil
}

func checkKind(kind string) error {
	if len(kind) == 0 || len(kind) > maxKindLen || !kindRE.MatchString(kind) {
		return refuse(CodeBadKind, "kind", "want a lowercase dotted name of at most %d characters, got %q", maxKindLen, kind)
	}
	return nil
}

// canonicalBody returns the JCS form of body, which must be one JSON
// object; nil or empty means {}.
func canonicalBody(body []byte, limit int) ([]byte, error) {
	if len(body) == 0 {
		return []byte("{}"), nil
	}
	if len(body) > limit {
		return nil, refuse(CodeTooLarge, "body", "%d bytes exceeds the limit of %d", len(body), limit)
	}
	if body[0] == '{' && isCanonical(body) {
		return append([]byte(nil), body...), nil
	}
	out, err := negotiation.Canonicalize(body)
	if err != nil {
		return nil, &Error{Code: CodeBadBody, Field: "body", Msg: string(negotiation.CodeOf(err)), Err: err}
	}
	if out[0] != '{' {
		return nil, refuse(CodeBadBody, "body", "not a JSON object")
	}
	return out, nil
}

// ObjectCID returns the CID under which the ledger stores obj with codec
// (0 is CodecJSON): the CID the entry that stores it names. A record of
// an AppendAll batch may refer to an object stored by an earlier record
// of the same batch by it. An empty object, an unknown codec or JSON that
// is not valid is an *Error (the size limit is the append's to check).
func ObjectCID(obj []byte, codec uint64) (cid.Cid, error) {
	return objectCID(obj, codec, math.MaxInt)
}

// objectCID checks an object and returns its CIDv1 (sha2-256).
func objectCID(obj []byte, codec uint64, limit int) (cid.Cid, error) {
	if codec == 0 {
		codec = CodecJSON
	}
	switch {
	case len(obj) == 0:
		return cid.Undef, refuse(CodeBadObject, "object", "empty")
	case len(obj) > limit:
		return cid.Undef, refuse(CodeTooLarge, "object", "%d bytes exceeds the limit of %d", len(obj), limit)
	case codec != CodecJSON && codec != CodecRaw:
		return cid.Undef, refuse(CodeBadObject, "objectCodec", "codec 0x%x is neither json nor raw", codec)
	case codec == CodecJSON && !json.Valid(obj):
		return cid.Undef, refuse(CodeBadObject, "object", "not JSON (use CodecRaw for other bytes)")
	}
	sum := sha256.Sum256(obj)
	mh, err := multihash.Encode(sum[:], multihash.SHA2_256)
	if err != nil {
		return cid.Undef, err
	}
	return cid.NewCidV1(codec, mh), nil
}
