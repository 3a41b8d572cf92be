package negotiation

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/ipfs/go-cid"
)

// DefaultMaxEnvelopeBytes is the default size limit of one envelope (256 KiB).
const DefaultMaxEnvelopeBytes = 256 << 10

// Sender identifies an envelope's author: its EVM address and the ed25519
// inbox key that signs the envelope.
type Sender struct {
	EVMAddress    Address   `json:"evmAddress"`
	XMTPPublicKey PublicKey `json:"xmtpPublicKey"`
}

// Header is the envelope without its payload and signature, as built by a
// sender before signing.
type Header struct {
	Type          MessageType
	NegotiationID string
	TaskID        *Uint256
	Sequence      uint64
	PreviousHash  Hash
	Timestamp     time.Time
	Sender        Sender
	Recipients    []Address
}

// wireEnvelope is the JSON shape of an envelope.
type wireEnvelope struct {
	SchemaVersion string      `json:"schemaVersion"`
	Type          MessageType `json:"type"`
	NegotiationID string      `json:"negotiationId"`
	TaskID        *Uint256    `json:"taskId,omitempty"`
	Sequence      uint64      `json:"sequence"`
	PreviousHash  Hash        `json:"previousHash"`
	Timestamp     string      `json:"timestamp"`
	Sender        Sender      `json:"sender"`
	Recipients    []Address   `json:"recipients,omitempty"`
	Payload       any         `json:"payload"`
	Signature     string      `json:"signature,omitempty"`
}

// Envelope is a decoded envelope. It keeps the JCS bytes it was decoded
// from: those bytes are what is hashed, stored and forwarded.
type Envelope struct {
	Header
	Payload   Payload
	Signature [ed25519.SignatureSize]byte

	raw      []byte      // JCS of the whole envelope
	hash     Hash        // SHA-256(raw)
	sigOff   int         // offset of `,"signature":"0x..."` in raw
	verified atomic.Bool // Verify succeeded once
}

// Bytes returns the envelope's canonical (JCS) bytes. The caller must not
// modify them.
func (e *Envelope) Bytes() []byte { return e.raw }

// Hash returns SHA-256 of the envelope's JCS bytes.
func (e *Envelope) Hash() Hash { return e.hash }

// CID returns the envelope's content identifier (its digest is Hash).
func (e *Envelope) CID() cid.Cid { return CIDFromHash(e.hash) }

// SigningBytes returns JCS(envelope without signature): the bytes the inbox
// key signs. JCS sorts members, so removing the top-level signature member
// from the canonical bytes yields exactly the canonical form without it.
func (e *Envelope) SigningBytes() []byte {
	n := len(`,"signature":"0x`) + 2*ed25519.SignatureSize + 1
	out := make([]byte, 0, len(e.raw)-n)
	out = append(out, e.raw[:e.sigOff]...)
	return append(out, e.raw[e.sigOff+n:]...)
}

// Addressed reports whether the envelope names a among its recipients.
func (e *Envelope) Addressed(a Address) bool {
	for _, r := range e.Recipients {
		if r == a {
			return true
		}
	}
	return false
}

// IsAnnouncement reports whether e is a public task announcement: a
// TaskProposal without recipients.
func (e *Envelope) IsAnnouncement() bool {
	return e.Type == TypeTaskProposal && len(e.Recipients) == 0
}

// DecodeOptions tune Decode. The zero value uses the defaults.
type DecodeOptions struct {
	// MaxBytes is the size limit; 0 means DefaultMaxEnvelopeBytes.
	MaxBytes int
}

// Warm builds what Decode and the clause rules otherwise build on first
// use (the wire rules compiled from the JSON Schemas, the CEL environment), and returns an
// error if either cannot be built. A node calls it at start: its first
// envelope then does not pay for it (about 20 ms of CPU here; in a
// network where every node receives its first announcement at once, on a
// shared machine, each hop of the gossip waited for it).
func Warm() error {
	if _, err := compiledRules(); err != nil {
		return err
	}
	_, err := ruleEnv()
	return err
}

// Decode parses an envelope strictly: size limit, well-formed JSON without
// duplicate members, the rules of the JSON Schemas (unknown members,
// formats, the payload of its type), and the formats the schemas cannot
// express (EIP-55 checksums, canonical integers, CIDs, EVM signature
// form). It does not check the signature: call Verify. Every failure is an
// *Error with a code.
//
// Canonical input (what peers send) is checked in place and read in one
// pass into the typed envelope (wiredecode.go); other input is
// canonicalised first, and the canonical bytes are what the envelope keeps.
func Decode(b []byte, opts DecodeOptions) (*Envelope, error) {
	max := opts.MaxBytes
	if max <= 0 {
		max = DefaultMaxEnvelopeBytes
	}
	if len(b) > max {
		return nil, reject(CodeTooLarge, "", "%d bytes exceeds the limit of %d", len(b), max)
	}
	var raw []byte
	if isCanonical(b) {
		raw = bytes.Clone(b)
	} else {
		var err error
		if raw, err = Canonicalize(b); err != nil {
			return nil, err
		}
	}
	return decodeCanonical(raw)
}

func withField(err error, field string) error {
	var e *Error
	if errors.As(err, &e) && e.Field == "" {
		c := *e
		c.Field = field
		return &c
	}
	return err
}

// strictUnmarshal decodes JSON refusing unknown members and trailing data.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var ne *Error
		if errors.As(err, &ne) {
			return ne
		}
		if msg := err.Error(); bytes.Contains([]byte(msg), []byte("unknown field")) {
			return &Error{Code: CodeUnknownField, Msg: msg, Err: err}
		}
		return &Error{Code: CodeSchemaInvalid, Msg: err.Error(), Err: err}
	}
	if dec.More() {
		return reject(CodeMalformedJSON, "", "trailing data")
	}
	return nil
}

// Verify checks the ed25519 signature of sender.xmtpPublicKey over
// JCS(envelope without signature).
func (e *Envelope) Verify() error {
	if e.verified.Load() {
		return nil
	}
	if !ed25519.Verify(e.Sender.XMTPPublicKey[:], e.SigningBytes(), e.Signature[:]) {
		return reject(CodeBadSignature, "/signature", "ed25519 signature does not verify")
	}
	e.verified.Store(true)
	return nil
}

// TermsHash returns SHA-256 of the canonical bytes of the payload's terms
// member, for TaskProposal and TaskCounterOffer; ok is false for other types.
// The bytes hashed are those received, never re-encoded from Go values.
func (e *Envelope) TermsHash() (h Hash, ok bool) {
	if e.Type != TypeTaskProposal && e.Type != TypeTaskCounterOffer {
		return Hash{}, false
	}
	// JCS is recursive: the terms member of the canonical envelope is itself
	// canonical, so its bytes are hashed as they stand.
	var m struct {
		Payload struct {
			Terms json.RawMessage `json:"terms"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(e.raw, &m); err != nil || len(m.Payload.Terms) == 0 {
		return Hash{}, false
	}
	return sha256.Sum256(m.Payload.Terms), true
}

// InboxSigner signs with an ed25519 inbox key. identity.InboxKey satisfies
// it; Ed25519Key adapts a bare private key.
type InboxSigner interface {
	PublicKey() ed25519.PublicKey
	Sign(msg []byte) []byte
}

// Ed25519Key adapts an ed25519 private key to InboxSigner.
type Ed25519Key ed25519.PrivateKey

// PublicKey returns the public half.
func (k Ed25519Key) PublicKey() ed25519.PublicKey {
	return ed25519.PrivateKey(k).Public().(ed25519.PublicKey)
}

// Sign signs msg.
func (k Ed25519Key) Sign(msg []byte) []byte { return ed25519.Sign(ed25519.PrivateKey(k), msg) }

// Build assembles, checks, canonicalises and signs an envelope from h and
// p with the inbox key. It applies the rules a receiver's Decode applies
// (checkBuilt: the same wire rules on the Go values; checkPayload; the
// size limit), so a node never sends what a peer would refuse, and signs
// what it built without decoding its own output again: TestBuildAgreesWithDecode
// and FuzzBuildAgreesWithDecode keep Decode(e.Bytes()) equal to e.
//
// The envelope holds p itself: the caller must not change p afterwards.
func Build(h Header, p Payload, key InboxSigner, opts DecodeOptions) (*Envelope, error) {
	if p == nil || reflect.ValueOf(p).IsNil() {
		return nil, reject(CodeSchemaInvalid, "/payload", "no payload")
	}
	if h.Type == "" {
		h.Type = p.MessageType()
	}
	if h.Type != p.MessageType() {
		return nil, reject(CodeSchemaInvalid, "/type", "type %s with a %s payload", h.Type, p.MessageType())
	}
	if !bytes.Equal(key.PublicKey(), h.Sender.XMTPPublicKey[:]) {
		return nil, reject(CodeBadSignature, "/sender/xmtpPublicKey", "signing key is not the sender's inbox key")
	}
	w := wireEnvelope{
		SchemaVersion: SchemaVersion, Type: h.Type, NegotiationID: h.NegotiationID, TaskID: h.TaskID,
		Sequence: h.Sequence, PreviousHash: h.PreviousHash, Timestamp: FormatTime(h.Timestamp),
		Sender: h.Sender, Recipients: h.Recipients, Payload: p,
	}
	if err := checkBuilt(&w, p); err != nil {
		return nil, err
	}
	ts, err := time.Parse(TimeLayout, w.Timestamp)
	if err != nil {
		return nil, reject(CodeBadTimestamp, "/timestamp", "%v", err)
	}
	if w.Sequence == 1 && !w.PreviousHash.IsZero() {
		return nil, reject(CodePreviousHashMismatch, "/previousHash", "sequence 1 must have the zero previousHash")
	}
	if err := checkPayload(p); err != nil {
		return nil, err
	}
	unsigned, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("negotiation: encode envelope: %w", err)
	}
	canon, err := Canonicalize(unsigned)
	if err != nil {
		return nil, err
	}
	// The signature member goes where JCS sorts it: after sequence, before
	// taskId or (without one) timestamp. Those members are the envelope's
	// last and no payload member has their names, so each is the last of
	// its spelling in the bytes (a string cannot hold an unescaped quote).
	next := `,"timestamp":"`
	if h.TaskID != nil {
		next = `,"taskId":"`
	}
	at := bytes.LastIndex(canon, []byte(next))
	if at < 0 {
		return nil, fmt.Errorf("negotiation: encode envelope: no %s member", next)
	}
	sig := key.Sign(canon)
	member := `,"signature":"` + HexBytes(sig) + `"`
	max := opts.MaxBytes
	if max <= 0 {
		max = DefaultMaxEnvelopeBytes
	}
	if n := len(canon) + len(member); n > max {
		return nil, reject(CodeTooLarge, "", "%d bytes exceeds the limit of %d", n, max)
	}
	raw := make([]byte, 0, len(canon)+len(member))
	raw = append(append(append(raw, canon[:at]...), member...), canon[at:]...)
	if len(h.Recipients) == 0 {
		h.Recipients = nil
	}
	h.Timestamp = ts
	e := &Envelope{Header: h, Payload: p, raw: raw, hash: sha256.Sum256(raw), sigOff: at}
	copy(e.Signature[:], sig)
	e.verified.Store(true) // signed here with the sender's own key
	return e, nil
}

// Sign re-signs the JSON envelope b (any member order, any signature or
// none) with key and returns the canonical signed bytes. It validates
// nothing beyond JSON well-formedness (test tools sign invalid envelopes on
// purpose); run Decode and Verify on the result to check it. Nodes use Build.
func Sign(b []byte, key InboxSigner) ([]byte, error) {
	canon, err := Canonicalize(b)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(canon, &m); err != nil {
		return nil, &Error{Code: CodeMalformedJSON, Msg: err.Error(), Err: err}
	}
	delete(m, "signature")
	unsigned, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if canon, err = Canonicalize(unsigned); err != nil {
		return nil, err
	}
	sig, _ := json.Marshal(HexBytes(key.Sign(canon)))
	m["signature"] = sig
	out, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return Canonicalize(out)
}
