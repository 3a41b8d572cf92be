package negotiation

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/parleynet/parley/schemas"
)

// decodeWithSchemas is the reference the one-pass decoder is held to: the
// envelope decoded as it was before, with the JSON Schema validator on a
// generic tree, then a typed encoding/json pass, then the rules beyond the
// schema. The JSON front end (size limit, Canonicalize) is Decode's own:
// what is compared is the checking of the wire rules.
func decodeWithSchemas(b []byte, opts DecodeOptions) (*Envelope, error) {
	max := opts.MaxBytes
	if max <= 0 {
		max = DefaultMaxEnvelopeBytes
	}
	if len(b) > max {
		return nil, reject(CodeTooLarge, "", "%d bytes exceeds the limit of %d", len(b), max)
	}
	raw, err := Canonicalize(b)
	if err != nil {
		return nil, err
	}
	var generic any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return nil, &Error{Code: CodeMalformedJSON, Msg: err.Error(), Err: err}
	}
	set, err := schemas.Compiled()
	if err != nil {
		return nil, fmt.Errorf("negotiation: schemas: %w", err)
	}
	if err := set.ValidateEnvelope(generic); err != nil {
		var se *schemas.Error
		if errors.As(err, &se) {
			return nil, &Error{Code: Code(se.Code), Field: se.Pointer, Msg: se.Msg, Err: err}
		}
		return nil, &Error{Code: CodeSchemaInvalid, Msg: err.Error(), Err: err}
	}
	// The schema has checked the shape; one strict typed pass fills the
	// envelope and its payload, whose concrete type is known from the tree.
	typ, _ := generic.(map[string]any)["type"].(string)
	p := newPayload(MessageType(typ))
	if p == nil {
		return nil, reject(CodeUnknownType, "/type", "%q", typ)
	}
	// Unknown members were refused by the schema (additionalProperties is
	// false everywhere, and schemas/mirror_test.go holds the Go types to the
	// schemas member for member), so this pass need not look for them again.
	w := wireEnvelope{Payload: p}
	if err := json.Unmarshal(raw, &w); err != nil {
		var ne *Error
		if errors.As(err, &ne) {
			return nil, ne
		}
		return nil, &Error{Code: CodeSchemaInvalid, Msg: err.Error(), Err: err}
	}
	return fromWireReference(&w, p, raw)
}

func fromWireReference(w *wireEnvelope, p Payload, raw []byte) (*Envelope, error) {
	if w.SchemaVersion != SchemaVersion {
		return nil, reject(CodeBadSchemaVersion, "/schemaVersion", "want %s", SchemaVersion)
	}
	if _, err := ParseNegotiationID(w.NegotiationID); err != nil {
		return nil, err
	}
	ts, err := ParseTime(w.Timestamp)
	if err != nil {
		return nil, withField(err, "/timestamp")
	}
	if w.Sequence < 1 {
		return nil, reject(CodeSchemaInvalid, "/sequence", "sequence starts at 1")
	}
	if w.Sequence == 1 && !w.PreviousHash.IsZero() {
		return nil, reject(CodePreviousHashMismatch, "/previousHash", "sequence 1 must have the zero previousHash")
	}
	if err := checkPayload(p); err != nil {
		return nil, err
	}
	sig, err := parseHex(w.Signature, ed25519.SignatureSize)
	if err != nil {
		return nil, withField(err, "/signature")
	}
	e := &Envelope{
		Header: Header{
			Type: w.Type, NegotiationID: w.NegotiationID, TaskID: w.TaskID,
			Sequence: w.Sequence, PreviousHash: w.PreviousHash, Timestamp: ts,
			Sender: w.Sender, Recipients: w.Recipients,
		},
		Payload: p,
		raw:     raw,
		hash:    sha256.Sum256(raw),
	}
	copy(e.Signature[:], sig)
	needle := []byte(`,"signature":"` + w.Signature + `"`)
	// The top-level member is the last occurrence: only taskId, timestamp and
	// type (formats that cannot contain it) sort after "signature".
	e.sigOff = bytes.LastIndex(raw, needle)
	if e.sigOff < 0 {
		return nil, reject(CodeSchemaInvalid, "/signature", "signature member not found in canonical form")
	}
	return e, nil
}
