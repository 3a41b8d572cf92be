// Package schemas holds Parley's JSON Schemas (draft 2020-12): the wire
// envelope, the payload of every message type, the PXP fields, the identity
// link and the other documents peers exchange. They are embedded in the
// binary and compiled once.
//
// Every object schema sets additionalProperties to false. Formats that carry
// a rejection code of their own (addresses, hex, UUIDs, timestamps, decimal
// integers, CIDs) are named definitions in common.schema.json, so a failure
// maps to a stable code by the definition it failed; unknown members are
// unknown_field and every other failure is schema_invalid. When a value fails
// in several places (through allOf, if/then and $ref), Validate reports the
// most specific failure, the same one whatever order the validator took.
//
// The payload of an envelope is checked against the schema of its type by
// if/then pairs, not oneOf, so a failure names the one payload schema that
// applies. fixtures/ holds valid and invalid envelopes that this package,
// the negotiation package and an independent validator (ajv-check.mjs) all
// judge the same way.
//
// This package imports nothing of Parley's; negotiation imports it (its own
// tests check the fixtures with negotiation and identity).
package schemas
