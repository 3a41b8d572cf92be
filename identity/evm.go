package identity

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// EVMKey is the node's secp256k1 key. It signs EIP-712 digests (settlements,
// the identity link) and transactions. It is kept on disk only in
// go-ethereum's encrypted keystore format.
type EVMKey struct {
	priv *ecdsa.PrivateKey
	addr common.Address
}

// GenerateEVMKey returns a new random EVM key.
func GenerateEVMKey() (*EVMKey, error) {
	priv, err := crypto.GenerateKey()
	if err != nil {
		return nil, fmt.Errorf("identity: generate evm key: %w", err)
	}
	return NewEVMKey(priv)
}

// NewEVMKey wraps an existing secp256k1 private key, such as a dev chain's
// funded account. It returns an error for a nil key or one on another curve.
func NewEVMKey(priv *ecdsa.PrivateKey) (*EVMKey, error) {
	//lint:ignore SA1019 secp256k1 is not a standard-library curve: go-ethereum keys are defined by D.
	if priv == nil || priv.D == nil {
		return nil, errors.New("identity: nil evm key")
	}
	if priv.Curve != crypto.S256() {
		return nil, errors.New("identity: evm key is not secp256k1")
	}
	return &EVMKey{priv: priv, addr: crypto.PubkeyToAddress(priv.PublicKey)}, nil
}

// Address returns the key's EVM address.
func (k *EVMKey) Address() common.Address { return k.addr }

// PrivateKey returns the underlying private key, for libraries that need
// it (for example to unlock a dev chain account). It is secret.
func (k *EVMKey) PrivateKey() *ecdsa.PrivateKey { return k.priv }

// SignDigest signs a 32-byte digest (an EIP-712 hash) and returns the
// 65-byte signature r||s||v with low s and v in {27, 28}.
func (k *EVMKey) SignDigest(digest [32]byte) ([]byte, error) {
	sig, err := crypto.Sign(digest[:], k.priv)
	if err != nil {
		return nil, fmt.Errorf("identity: sign digest: %w", err)
	}
	sig[64] += 27
	return sig, nil
}

// SignTx signs tx for chainID with the latest signer go-ethereum knows for
// that chain and returns the signed transaction.
func (k *EVMKey) SignTx(tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	if tx == nil || chainID == nil {
		return nil, errors.New("identity: sign tx: nil transaction or chain id")
	}
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(chainID), k.priv)
	if err != nil {
		return nil, fmt.Errorf("identity: sign tx: %w", err)
	}
	return signed, nil
}

// RecoverDigestSigner returns the address that made sig (65 bytes, r||s||v,
// v in {27, 28}, low s) over digest, or ErrBadEVMSignature.
func RecoverDigestSigner(digest [32]byte, sig []byte) (common.Address, error) {
	if len(sig) != 65 {
		return common.Address{}, fail(CodeBadEVMSignature, "signature is %d bytes, want 65", len(sig))
	}
	v := sig[64]
	if v != 27 && v != 28 {
		return common.Address{}, fail(CodeBadEVMSignature, "v is %d, want 27 or 28", v)
	}
	r := new(big.Int).SetBytes(sig[:32])
	s := new(big.Int).SetBytes(sig[32:64])
	if !crypto.ValidateSignatureValues(v-27, r, s, true) {
		return common.Address{}, fail(CodeBadEVMSignature, "r or s out of range, or s is high")
	}
	norm := make([]byte, 65)
	copy(norm, sig)
	norm[64] = v - 27
	pub, err := crypto.SigToPub(digest[:], norm)
	if err != nil {
		return common.Address{}, failWrap(CodeBadEVMSignature, err, "recover")
	}
	return crypto.PubkeyToAddress(*pub), nil
}
