package identity

import (
	"bytes"
	"encoding/json"

	"github.com/gowebpki/jcs"

	"github.com/parleynet/parley/strictjson"
)

// maxSafeInteger is the largest integer JSON carries exactly (2^53 - 1).
const maxSafeInteger = 1<<53 - 1

// canonical returns the RFC 8785 (JCS) form of the JSON text b, which the
// project's strict decoder has accepted: a member named twice is
// CodeDuplicateKey, anything that is not one JSON value in valid UTF-8 is
// CodeMalformed.
func canonical(b []byte) ([]byte, error) {
	if err := strictjson.Check(b); err != nil {
		return nil, fromStrict(err)
	}
	out, err := jcs.Transform(b)
	if err != nil {
		return nil, failWrap(CodeMalformed, err, "")
	}
	return out, nil
}

// marshalCanonical returns JCS(json.Marshal(v)).
func marshalCanonical(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jcs.Transform(b)
}

// decodeStrict decodes the JSON text b into v with the project's strict
// decoder (strictjson: no member named twice, names matched exactly, no
// unknown members, valid UTF-8, nothing after the value) and returns its
// JCS bytes. It also refuses input that does not survive a round trip
// through v unchanged (numbers in another form, missing members): what is
// decoded is exactly what was signed.
func decodeStrict(b []byte, v any) ([]byte, error) {
	if err := strictjson.Unmarshal(b, v); err != nil {
		return nil, fromStrict(err)
	}
	canon, err := canonical(b)
	if err != nil {
		return nil, err
	}
	again, err := marshalCanonical(v)
	if err != nil {
		return nil, failWrap(CodeMalformed, err, "")
	}
	if !bytes.Equal(again, canon) {
		return nil, fail(CodeMalformed, "input does not round-trip: a member is missing, misnamed or in a non-canonical form")
	}
	return canon, nil
}

// fromStrict gives a refusal of the strict decoder identity's code:
// duplicate_key and unknown_field keep theirs, the rest is malformed.
func fromStrict(err error) error {
	switch strictjson.CodeOf(err) {
	case strictjson.CodeDuplicateKey:
		return failWrap(CodeDuplicateKey, err, "")
	case strictjson.CodeUnknownField:
		return failWrap(CodeUnknownField, err, "")
	}
	return failWrap(CodeMalformed, err, "")
}
