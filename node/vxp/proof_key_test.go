package vxp

import (
	"crypto/ecdsa"
	"encoding/json"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// proofKey returns the key a verifier checks a proof with: the issuer's
// key as jwks_uri serves it (IssuerJWKS), the only key of the set.
func proofKey(t *testing.T, w *world) *ecdsa.PublicKey {
	t.Helper()
	b, err := w.srv.IssuerJWKS()
	if err != nil {
		t.Fatal(err)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(b, &set); err != nil {
		t.Fatal(err)
	}
	if len(set.Keys) != 1 {
		t.Fatalf("jwks holds %d keys, want 1", len(set.Keys))
	}
	k, ok := set.Keys[0].Key.(*ecdsa.PublicKey)
	if !ok {
		t.Fatalf("the issuer's key is %T", set.Keys[0].Key)
	}
	return k
}
