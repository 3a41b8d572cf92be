package identity

import (
	"bytes"
	"crypto/ed25519"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// RevocationTypeString is the EIP-712 type the EVM key signs to revoke a
// link, under the same domain as the link.
const RevocationTypeString = "IdentityRevocation(bytes32 linkHash,address evmAddress,bytes32 inboxKey,uint64 revokedAt)"

// Revocation is a signed statement that a link is no longer valid from
// RevokedAt on. Either key the link binds may sign it (a node that lost one
// key can still revoke with the other); a revocation carries one or both
// signatures, and every signature it carries must verify.
type Revocation struct {
	LinkHash       [32]byte
	EVMAddress     common.Address
	InboxKey       ed25519.PublicKey
	RevokedAt      time.Time
	EVMSignature   []byte // empty when the EVM key did not sign
	InboxSignature []byte // empty when the inbox key did not sign

	canon []byte
}

type revocationJSON struct {
	LinkHash   string      `json:"linkHash"`
	EVMAddress string      `json:"evmAddress"`
	InboxKey   string      `json:"inboxKey"`
	RevokedAt  uint64      `json:"revokedAt"`
	Signatures *revSigJSON `json:"signatures,omitempty"`
}

type revSigJSON struct {
	EVM   string `json:"evm,omitempty"`
	Inbox string `json:"inbox,omitempty"`
}

// RevokeLink returns a revocation of link dated at, signed by evm and by
// inbox. Either key may be nil, not both; a key given must be the one the
// link names.
func RevokeLink(link *Link, evm *EVMKey, inbox *InboxKey, at time.Time) (*Revocation, error) {
	if evm == nil && inbox == nil {
		return nil, fail(CodeMalformed, "a revocation needs at least one key")
	}
	if evm != nil && evm.Address() != link.EVMAddress {
		return nil, fail(CodeRevocationMismatch, "evm key %s is not the link's", evm.Address().Hex())
	}
	if inbox != nil && !inbox.PublicKey().Equal(link.InboxKey) {
		return nil, fail(CodeRevocationMismatch, "inbox key is not the link's")
	}
	r := &Revocation{LinkHash: link.Hash(), EVMAddress: link.EVMAddress, InboxKey: link.InboxKey, RevokedAt: unixSeconds(at)}
	if evm != nil {
		d, err := r.EIP712Digest()
		if err != nil {
			return nil, err
		}
		if r.EVMSignature, err = evm.SignDigest(d); err != nil {
			return nil, err
		}
	}
	if inbox != nil {
		b, err := r.SigningBytes()
		if err != nil {
			return nil, err
		}
		r.InboxSignature = inbox.Sign(b)
	}
	var err error
	if r.canon, err = marshalCanonical(r.wire(true)); err != nil {
		return nil, err
	}
	return r, nil
}

// ParseRevocation decodes a revocation strictly and checks its form. It
// does not check signatures: call Verify.
func ParseRevocation(b []byte) (*Revocation, error) {
	var w revocationJSON
	canon, err := decodeStrict(b, &w)
	if err != nil {
		return nil, err
	}
	r := &Revocation{canon: canon}
	h, err := parseHex(w.LinkHash, 32)
	if err != nil {
		return nil, wrapField(err, "linkHash")
	}
	r.LinkHash = [32]byte(h)
	if r.EVMAddress, err = parseAddress(w.EVMAddress); err != nil {
		return nil, err
	}
	if r.InboxKey, err = ParseInboxKey(w.InboxKey); err != nil {
		return nil, wrapField(err, "inboxKey")
	}
	if w.RevokedAt > maxSafeInteger {
		return nil, fail(CodeMalformed, "revokedAt above 2^53-1")
	}
	r.RevokedAt = time.Unix(int64(w.RevokedAt), 0).UTC()
	if w.Signatures == nil || (w.Signatures.EVM == "" && w.Signatures.Inbox == "") {
		return nil, fail(CodeMalformed, "a revocation needs at least one signature")
	}
	if w.Signatures.EVM != "" {
		if r.EVMSignature, err = parseHex(w.Signatures.EVM, 65); err != nil {
			return nil, wrapField(err, "signatures.evm")
		}
	}
	if w.Signatures.Inbox != "" {
		if r.InboxSignature, err = parseHex(w.Signatures.Inbox, ed25519.SignatureSize); err != nil {
			return nil, wrapField(err, "signatures.inbox")
		}
	}
	return r, nil
}

// Verify checks that r revokes link: it names the link's hash, EVM address
// and inbox key, and each signature it carries verifies (at least one).
func (r *Revocation) Verify(link *Link) error {
	if r.LinkHash != link.Hash() || r.EVMAddress != link.EVMAddress || !r.InboxKey.Equal(link.InboxKey) {
		return fail(CodeRevocationMismatch, "revocation does not name this link")
	}
	if len(r.EVMSignature) == 0 && len(r.InboxSignature) == 0 {
		return fail(CodeMalformed, "a revocation needs at least one signature")
	}
	if len(r.EVMSignature) > 0 {
		d, err := r.EIP712Digest()
		if err != nil {
			return err
		}
		signer, err := RecoverDigestSigner(d, r.EVMSignature)
		if err != nil {
			return err
		}
		if signer != r.EVMAddress {
			return fail(CodeBadEVMSignature, "revocation signed by %s, not %s", signer.Hex(), r.EVMAddress.Hex())
		}
	}
	if len(r.InboxSignature) > 0 {
		b, err := r.SigningBytes()
		if err != nil {
			return err
		}
		if !ed25519.Verify(r.InboxKey, b, r.InboxSignature) {
			return fail(CodeBadSignature, "inbox signature over the revocation does not verify")
		}
	}
	return nil
}

// Bytes returns the JCS bytes of the revocation with its signatures.
func (r *Revocation) Bytes() []byte { return bytes.Clone(r.canon) }

// SigningBytes returns the JCS bytes of the revocation without signatures:
// what the inbox key signs.
func (r *Revocation) SigningBytes() ([]byte, error) { return marshalCanonical(r.wire(false)) }

// EIP712Digest returns the EIP-712 digest of the revocation under the link
// domain.
func (r *Revocation) EIP712Digest() ([32]byte, error) {
	msg := apitypes.TypedDataMessage{
		"linkHash":   r.LinkHash[:],
		"evmAddress": r.EVMAddress.Hex(),
		"inboxKey":   []byte(r.InboxKey),
		"revokedAt":  strconv.FormatInt(r.RevokedAt.Unix(), 10),
	}
	return typedDigest("IdentityRevocation", linkTypes, msg)
}

func (r *Revocation) wire(withSigs bool) revocationJSON {
	w := revocationJSON{
		LinkHash:   hex0x(r.LinkHash[:]),
		EVMAddress: r.EVMAddress.Hex(),
		InboxKey:   hex0x(r.InboxKey),
		RevokedAt:  uint64(r.RevokedAt.Unix()),
	}
	if withSigs {
		w.Signatures = &revSigJSON{}
		if len(r.EVMSignature) > 0 {
			w.Signatures.EVM = hex0x(r.EVMSignature)
		}
		if len(r.InboxSignature) > 0 {
			w.Signatures.Inbox = hex0x(r.InboxSignature)
		}
	}
	return w
}
