package demo

import (
	"crypto/ecdsa"

	"github.com/ethereum/go-ethereum/crypto"
)

// evmKey signs digests with a secp256k1 key (v in {0,1}; SignDigest adds 27).
type evmKey struct{ k *ecdsa.PrivateKey }

func (e evmKey) Sign(d []byte) ([]byte, error) { return crypto.Sign(d, e.k) }
