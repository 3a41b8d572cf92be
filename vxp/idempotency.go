package vxp

import (
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/strictjson"
)

// MaxIdempotencyKey is the longest Idempotency-Key taken, in bytes.
const MaxIdempotencyKey = 255

// IdempotencyRecord is what the node keeps (durably) of a request created
// with an Idempotency-Key: whose key it was, the body's hash and the
// request it made.
type IdempotencyRecord struct {
	ClientID  string `json:"client_id"`
	Key       string `json:"key"`
	BodyHash  string `json:"body_hash"`
	RequestID string `json:"request_id"`
}

// IdempotencyDecision is what a POST /v1/requests is: a new request, or
// the same request as RequestID, to be re-evaluated under the caller's
// authority now (not a replay of the first answer).
type IdempotencyDecision struct {
	New       bool
	RequestID string
}

// BodyHash returns the lowercase hex SHA-256 of JCS(body): two bodies are
// the same when they are the same JSON, whatever their member order and
// white space. A body that is not one strict JSON value is strictjson's
// refusal.
func BodyHash(body []byte) (string, error) {
	if err := strictjson.Check(body); err != nil {
		return "", err
	}
	jcs, err := negotiation.Canonicalize(body)
	if err != nil {
		return "", err
	}
	return TermsHash(jcs), nil
}

// CheckIdempotencyKey returns idempotency_key_required for an empty key
// and idempotency_key_invalid for one longer than MaxIdempotencyKey bytes
// or with a byte outside visible ASCII and space (0x20-0x7e).
func CheckIdempotencyKey(key string) error {
	if key == "" {
		return coded(CodeIdempotencyKeyRequired, "Idempotency-Key", "POST /v1/requests needs an Idempotency-Key")
	}
	if len(key) > MaxIdempotencyKey {
		return coded(CodeIdempotencyKeyInvalid, "Idempotency-Key", "longer than %d bytes", MaxIdempotencyKey)
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return coded(CodeIdempotencyKeyInvalid, "Idempotency-Key", "byte %d is not visible ASCII", i)
		}
	}
	return nil
}

// DecideIdempotency decides a POST /v1/requests by client clientID with
// key and a body whose BodyHash is bodyHash, given the record prior that
// the node holds for this client and key (nil for none):
//
//   - no key: idempotency_key_required; a malformed one:
//     idempotency_key_invalid;
//   - no record, or a record of another client or key (keys are per
//     client): a new request;
//   - the same body: the same request, re-evaluated;
//   - another body: idempotency_key_reused.
func DecideIdempotency(clientID, key, bodyHash string, prior *IdempotencyRecord) (IdempotencyDecision, error) {
	if err := CheckIdempotencyKey(key); err != nil {
		return IdempotencyDecision{}, err
	}
	if clientID == "" || bodyHash == "" {
		return IdempotencyDecision{}, coded(CodeBadArgument, "client_id", "no client or no body hash")
	}
	if prior == nil || prior.ClientID != clientID || prior.Key != key {
		return IdempotencyDecision{New: true}, nil
	}
	if prior.BodyHash != bodyHash {
		return IdempotencyDecision{}, coded(CodeIdempotencyKeyReused, "Idempotency-Key", "the key names request %s, made with another body", prior.RequestID)
	}
	return IdempotencyDecision{RequestID: prior.RequestID}, nil
}
