package vxp

// DELETE AT MERGE: a stand-in for the OAuth side's signJWS (keys.go),
// which signs with the issuer's key of jwks_uri. This one signs with an
// ES256 key made in memory per server, so that proof.go and its tests run
// before keys.go exists.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"sync"

	jose "github.com/go-jose/go-jose/v4"
)

var stubKeys sync.Map // *Server -> *ecdsa.PrivateKey (DELETE AT MERGE)

// stubKey returns s's in-memory proof key (DELETE AT MERGE).
func (s *Server) stubKey() *ecdsa.PrivateKey {
	if k, ok := stubKeys.Load(s); ok {
		return k.(*ecdsa.PrivateKey)
	}
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	got, _ := stubKeys.LoadOrStore(s, k)
	return got.(*ecdsa.PrivateKey)
}

// signJWS signs payload as a compact JWS of type typ (DELETE AT MERGE).
func (s *Server) signJWS(typ string, payload []byte) (string, error) {
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: s.stubKey()}, (&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
	if err != nil {
		return "", err
	}
	o, err := sig.Sign(payload)
	if err != nil {
		return "", err
	}
	return o.CompactSerialize()
}
