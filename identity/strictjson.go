package identity

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/gowebpki/jcs"
)

// maxSafeInteger is the largest integer JSON carries exactly (2^53 - 1).
const maxSafeInteger = 1<<53 - 1

// canonical returns the RFC 8785 (JCS) form of the JSON text b, rejecting
// duplicate member names with CodeDuplicateKey and anything that is not
// JSON with CodeMalformed.
func canonical(b []byte) ([]byte, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fail(CodeMalformed, "empty input")
	}
	out, err := jcs.Transform(b)
	if err != nil {
		if strings.Contains(strings.ToLower(err.Error()), "duplicate key") {
			return nil, failWrap(CodeDuplicateKey, err, "")
		}
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

// decodeStrict decodes the JSON text b into v and returns its JCS bytes.
// It rejects duplicate keys, unknown members, trailing data, and any input
// that does not survive a round trip through v unchanged (member names in
// another case, numbers in another form, missing members): what is decoded
// is exactly what was signed.
func decodeStrict(b []byte, v any) ([]byte, error) {
	canon, err := canonical(b)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if strings.Contains(err.Error(), "unknown field") {
			return nil, failWrap(CodeUnknownField, err, "")
		}
		return nil, failWrap(CodeMalformed, err, "")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fail(CodeMalformed, "data after the JSON value")
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
