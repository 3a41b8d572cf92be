package vxp

import (
	"crypto/ecdsa"
	"testing"
)

// proofKey returns the key a verifier checks a proof with. REPLACE AT
// MERGE: fetch jwks_uri (the OAuth side's keys.go) and pick the key of
// the JWS's kid, instead of the stand-in signer's in-memory key.
func proofKey(t *testing.T, w *world) *ecdsa.PublicKey {
	t.Helper()
	return &w.srv.stubKey().PublicKey
}
