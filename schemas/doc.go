// Package schemas holds Parley's JSON Schemas (draft 2020-12): the wire
// envelope, the payload of every message type, the PXP fields, the identity
// link and the other documents peers exchange. They are embedded with
// go:embed and compiled once.
//
// Every object schema sets additionalProperties to false. Formats that carry
// a rejection code of their own (addresses, hex, UUIDs, timestamps, decimal
// integers, CIDs) are named definitions in common.schema.json, so a failure
// maps to a stable code by the definition it failed; see Code.
//
// This package imports nothing of Parley's; negotiation and identity import it.
package schemas
