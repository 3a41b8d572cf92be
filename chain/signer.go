package chain

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/parleynet/parley/identity"
)

// Signer is the EVM key the client acts with. identity.EVMKey satisfies it;
// KeySigner wraps a plain key.
type Signer interface {
	// Address returns the key's account address.
	Address() common.Address
	// SignTx returns tx signed for chainID.
	SignTx(tx *types.Transaction, chainID *big.Int) (*types.Transaction, error)
	// SignDigest returns a 65-byte r||s||v signature over digest with v in
	// {27, 28} and low s.
	SignDigest(digest [32]byte) ([]byte, error)
}

// KeySigner is a Signer over an in-memory secp256k1 key, for tests and the
// dev chain's public dev accounts.
type KeySigner struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

var (
	_ Signer = (*KeySigner)(nil)
	_ Signer = (*identity.EVMKey)(nil)
)

// NewKeySigner returns a Signer for key.
func NewKeySigner(key *ecdsa.PrivateKey) *KeySigner {
	return &KeySigner{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
}

// Address returns the key's address.
func (s *KeySigner) Address() common.Address { return s.addr }

// SignTx signs tx with the latest signer for chainID.
func (s *KeySigner) SignTx(tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	return types.SignTx(tx, types.LatestSignerForChainID(chainID), s.key)
}

// SignDigest signs digest; v is 27 or 28 and s is in the lower half of the
// curve order (go-ethereum's signer normalises it).
func (s *KeySigner) SignDigest(digest [32]byte) ([]byte, error) {
	sig, err := crypto.Sign(digest[:], s.key)
	if err != nil {
		return nil, fmt.Errorf("chain: sign digest: %w", err)
	}
	sig[64] += 27
	return sig, nil
}
