// Package strictjson is Parley's one strict JSON decoder: every JSON text
// the node reads from outside (API bodies and answers, the config file's
// JSON parts, identity links, approval receipts and requests, software key
// files, intent cards, proof bundles, the devnet's state file, MCP tool
// arguments) goes through it, so all of them refuse the same things with
// the same codes as the wire format (docs/wire.md, negotiation/errors.go):
//
//   - malformed_json: not exactly one JSON value (empty, truncated, data
//     after the value, a byte order mark, NaN, single quotes), invalid
//     UTF-8 anywhere, or an escaped lone surrogate;
//   - duplicate_key: an object names a member twice, at any depth;
//   - unknown_field: a member the Go type does not name, or names only in
//     another letter case (member names match exactly);
//   - schema_invalid: a value of the wrong JSON type, or one the Go type
//     cannot hold (a fraction for an int, an integer out of range, an
//     UnmarshalJSON or UnmarshalText method's refusal, whose error stays in
//     the chain);
//   - too_large: more bytes than the caller's limit (Read).
//
// Callers follow this contract:
//
//  1. Decode a whole document with Unmarshal, or with Read from a reader
//     under a byte limit. Nothing is filled on a refusal that callers may
//     rely on: treat v as garbage unless the error is nil.
//  2. Check validates a document without a Go type (a value kept as raw
//     bytes, hashed or canonicalised later).
//  3. Read the code of a refusal with CodeOf; *Error carries the JSON
//     pointer of the offending member and the byte offset.
//
// It is built on github.com/go-json-experiment/json (JSON v2), whose
// defaults already refuse duplicate names and invalid UTF-8 and match
// member names case-sensitively; this package adds RejectUnknownMembers and
// the codes. Types with their own UnmarshalJSON method are called with the
// raw bytes of their value, which this package has already checked for
// syntax, duplicates and UTF-8; unknown members inside such a value are
// the method's to refuse.
//
// The package is a leaf: it imports nothing of Parley's, so identity,
// approval, negotiation, ledger, node and cmd may all use it.
package strictjson
