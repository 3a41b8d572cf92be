package identity

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Link domain and type (DESIGN.md "Keys"). The domain has no chainId and no
// verifyingContract: a link is chain-independent.
const (
	LinkDomainName    = "Parley Identity"
	LinkDomainVersion = "1"
	LinkTypeString    = "IdentityLink(address evmAddress,bytes32 inboxKey,string peerId,bytes32 encryptionKeysHash,uint64 issuedAt,uint64 expiresAt)"
)

// MaxClockSkew is how far in the future a link's issuedAt may be when it is
// verified.
const MaxClockSkew = 5 * time.Minute

// maxLinkKeys bounds the encryption keys one link may list.
const maxLinkKeys = 16

// Link is a verified-format identity link: the document that binds a
// node's EVM address, inbox key, peer id and encryption keys, signed by the
// EVM key (EIP-712) and by the inbox key (ed25519 over the JCS form of the
// link without its signatures). A Link from ParseLink has the right form;
// only Verify says it is authentic and current.
type Link struct {
	EVMAddress     common.Address
	InboxKey       ed25519.PublicKey
	PeerID         peer.ID
	EncryptionKeys []*PublicEncryptionKey
	IssuedAt       time.Time
	ExpiresAt      time.Time
	EVMSignature   []byte // 65 bytes r||s||v, v in {27, 28}
	InboxSignature []byte // 64 bytes ed25519

	canon []byte // JCS bytes of the whole link
}

type linkJSON struct {
	EVMAddress     string        `json:"evmAddress"`
	InboxKey       string        `json:"inboxKey"`
	PeerID         string        `json:"peerId"`
	EncryptionKeys []linkKeyJSON `json:"encryptionKeys"`
	IssuedAt       uint64        `json:"issuedAt"`
	ExpiresAt      uint64        `json:"expiresAt"`
	Signatures     *linkSigJSON  `json:"signatures,omitempty"`
}

type linkKeyJSON struct {
	KEM       string `json:"kem"`
	PublicKey string `json:"publicKey"`
	NotAfter  uint64 `json:"notAfter"`
}

type linkSigJSON struct {
	EVM   string `json:"evm"`
	Inbox string `json:"inbox"`
}

// CreateLink builds and signs a link for the given keys. Times are carried
// in whole Unix seconds.
func CreateLink(evm *EVMKey, inbox *InboxKey, keys []*PublicEncryptionKey, issuedAt, expiresAt time.Time) (*Link, error) {
	l := &Link{
		EVMAddress:     evm.Address(),
		InboxKey:       inbox.PublicKey(),
		PeerID:         inbox.PeerID(),
		EncryptionKeys: keys,
		IssuedAt:       unixSeconds(issuedAt),
		ExpiresAt:      unixSeconds(expiresAt),
	}
	if err := l.checkForm(); err != nil {
		return nil, err
	}
	digest, err := l.EIP712Digest()
	if err != nil {
		return nil, err
	}
	if l.EVMSignature, err = evm.SignDigest(digest); err != nil {
		return nil, err
	}
	unsigned, err := l.SigningBytes()
	if err != nil {
		return nil, err
	}
	l.InboxSignature = inbox.Sign(unsigned)
	if l.canon, err = marshalCanonical(l.wire(true)); err != nil {
		return nil, err
	}
	return l, nil
}

// ParseLink decodes a link strictly (duplicate keys, unknown or missing
// members, non-canonical values and malformed fields are rejected) and
// checks its form. Only the link's canonical bytes are accepted: b must be
// exactly JCS of the link (no white space around or inside it, members in
// JCS order, minimal escapes), else CodeNotCanonical, so a link has one
// spelling wherever it arrives (the identity handshake, session inits, DHT
// records, topics, bundles, files) and its hash is the hash of what was
// received. It does not check signatures or times: call Verify.
func ParseLink(b []byte) (*Link, error) {
	var w linkJSON
	canon, err := decodeStrict(b, &w)
	if err != nil {
		return nil, err
	}
	if w.Signatures == nil {
		return nil, fail(CodeMalformed, "signatures missing")
	}
	l := &Link{canon: canon}
	if l.EVMAddress, err = parseAddress(w.EVMAddress); err != nil {
		return nil, err
	}
	if l.InboxKey, err = ParseInboxKey(w.InboxKey); err != nil {
		return nil, wrapField(err, "inboxKey")
	}
	if l.PeerID, err = peer.Decode(w.PeerID); err != nil {
		return nil, failWrap(CodeMalformed, err, "peerId")
	}
	if l.PeerID.String() != w.PeerID {
		return nil, fail(CodeMalformed, "peerId is not in canonical form")
	}
	if w.IssuedAt > maxSafeInteger || w.ExpiresAt > maxSafeInteger {
		return nil, fail(CodeMalformed, "issuedAt or expiresAt above 2^53-1")
	}
	l.IssuedAt = time.Unix(int64(w.IssuedAt), 0).UTC()
	l.ExpiresAt = time.Unix(int64(w.ExpiresAt), 0).UTC()
	for i, k := range w.EncryptionKeys {
		kem := KEM(k.KEM)
		if !kem.Known() {
			return nil, fail(CodeUnknownKEM, "encryptionKeys[%d].kem %q", i, k.KEM)
		}
		pub, err := parseHexAny(k.PublicKey)
		if err != nil {
			return nil, wrapField(err, "encryptionKeys["+strconv.Itoa(i)+"].publicKey")
		}
		if k.NotAfter > maxSafeInteger {
			return nil, fail(CodeMalformed, "encryptionKeys[%d].notAfter above 2^53-1", i)
		}
		pk, err := NewPublicEncryptionKey(kem, pub, time.Unix(int64(k.NotAfter), 0))
		if err != nil {
			return nil, err
		}
		l.EncryptionKeys = append(l.EncryptionKeys, pk)
	}
	if l.EVMSignature, err = parseHex(w.Signatures.EVM, 65); err != nil {
		return nil, wrapField(err, "signatures.evm")
	}
	if l.InboxSignature, err = parseHex(w.Signatures.Inbox, ed25519.SignatureSize); err != nil {
		return nil, wrapField(err, "signatures.inbox")
	}
	if err := l.checkForm(); err != nil {
		return nil, err
	}
	if !bytes.Equal(b, canon) {
		return nil, fail(CodeNotCanonical, "the link is not in its canonical (JCS) form: %d bytes, canonical %d", len(b), len(canon))
	}
	return l, nil
}

func (l *Link) checkForm() error {
	if n := len(l.EncryptionKeys); n == 0 || n > maxLinkKeys {
		return fail(CodeMalformed, "encryptionKeys has %d keys, want 1..%d", n, maxLinkKeys)
	}
	seen := make(map[KeyID]bool, len(l.EncryptionKeys))
	for i, k := range l.EncryptionKeys {
		if seen[k.ID] {
			return fail(CodeMalformed, "encryptionKeys[%d] repeats key %s", i, k.ID)
		}
		seen[k.ID] = true
	}
	if !l.ExpiresAt.After(l.IssuedAt) {
		return fail(CodeMalformed, "expiresAt is not after issuedAt")
	}
	return nil
}

// Verify checks that l is authentic and current at now: its peerId is the
// libp2p id of its inbox key, the EVM signature is an EIP-712 signature by
// evmAddress (low s, v in {27, 28}), the inbox signature verifies over the
// JCS form of the link without signatures, issuedAt is at most MaxClockSkew
// after now, and now is before expiresAt.
func (l *Link) Verify(now time.Time) error {
	id, err := PeerIDFromInboxKey(l.InboxKey)
	if err != nil {
		return err
	}
	if id != l.PeerID {
		return fail(CodePeerIDMismatch, "peerId %s, inbox key gives %s", l.PeerID, id)
	}
	digest, err := l.EIP712Digest()
	if err != nil {
		return err
	}
	signer, err := RecoverDigestSigner(digest, l.EVMSignature)
	if err != nil {
		return err
	}
	if signer != l.EVMAddress {
		return fail(CodeBadEVMSignature, "link signed by %s, not %s", signer.Hex(), l.EVMAddress.Hex())
	}
	unsigned, err := l.SigningBytes()
	if err != nil {
		return err
	}
	if !ed25519.Verify(l.InboxKey, unsigned, l.InboxSignature) {
		return fail(CodeBadSignature, "inbox signature over the link does not verify")
	}
	return l.checkTimes(now)
}

// checkTimes checks issuedAt against now plus MaxClockSkew, and expiresAt.
func (l *Link) checkTimes(now time.Time) error {
	if l.IssuedAt.After(now.Add(MaxClockSkew)) {
		return fail(CodeLinkNotYetValid, "issuedAt %s is after %s", l.IssuedAt.Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	if !now.Before(l.ExpiresAt) {
		return fail(CodeLinkExpired, "expired at %s", l.ExpiresAt.Format(time.RFC3339))
	}
	return nil
}

// Reverify reports whether b is exactly l's bytes and l is still current
// at now: for a link whose signatures were verified when it was decoded,
// presented again (a peer reconnecting), the signatures need no second
// check, only the times. An error is Verify's time error; false with nil
// means b is another link, to be decoded and verified in full.
func (l *Link) Reverify(b []byte, now time.Time) (bool, error) {
	if !bytes.Equal(l.canon, b) {
		return false, nil
	}
	if err := l.checkTimes(now); err != nil {
		return false, err
	}
	return true, nil
}

// DecodeLink parses b strictly and verifies the link at now.
func DecodeLink(b []byte, now time.Time) (*Link, error) {
	l, err := ParseLink(b)
	if err != nil {
		return nil, err
	}
	if err := l.Verify(now); err != nil {
		return nil, err
	}
	return l, nil
}

// Bytes returns the JCS bytes of the whole link, signatures included: the
// form to publish, store and hash.
func (l *Link) Bytes() []byte { return bytes.Clone(l.canon) }

// Hash returns SHA-256 of Bytes: the link hash that discovery documents and
// revocations name.
func (l *Link) Hash() [32]byte { return sha256.Sum256(l.canon) }

// SigningBytes returns the JCS bytes of the link without its signatures:
// what the inbox key signs.
func (l *Link) SigningBytes() ([]byte, error) { return marshalCanonical(l.wire(false)) }

// EncryptionKeysHash returns SHA-256 of the JCS form of the encryptionKeys
// list, the encryptionKeysHash the EVM key signs.
func (l *Link) EncryptionKeysHash() ([32]byte, error) {
	b, err := marshalCanonical(l.wire(false).EncryptionKeys)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(b), nil
}

// EIP712Digest returns the EIP-712 digest of the link under the domain
// {name: "Parley Identity", version: "1"}.
func (l *Link) EIP712Digest() ([32]byte, error) {
	ekh, err := l.EncryptionKeysHash()
	if err != nil {
		return [32]byte{}, err
	}
	msg := apitypes.TypedDataMessage{
		"evmAddress":         l.EVMAddress.Hex(),
		"inboxKey":           []byte(l.InboxKey),
		"peerId":             l.PeerID.String(),
		"encryptionKeysHash": ekh[:],
		"issuedAt":           strconv.FormatInt(l.IssuedAt.Unix(), 10),
		"expiresAt":          strconv.FormatInt(l.ExpiresAt.Unix(), 10),
	}
	return typedDigest("IdentityLink", linkTypes, msg)
}

// Key returns the encryption key with id, or nil.
func (l *Link) Key(id KeyID) *PublicEncryptionKey {
	for _, k := range l.EncryptionKeys {
		if k.ID == id {
			return k
		}
	}
	return nil
}

// CurrentKey returns the key a sender should seal to at now: of the keys
// whose notAfter is after now, the one with the latest notAfter (the first
// listed on a tie). It returns ErrNoCurrentKey when every key has expired.
func (l *Link) CurrentKey(now time.Time) (*PublicEncryptionKey, error) {
	var best *PublicEncryptionKey
	for _, k := range l.EncryptionKeys {
		if !k.NotAfter.After(now) {
			continue
		}
		if best == nil || k.NotAfter.After(best.NotAfter) {
			best = k
		}
	}
	if best == nil {
		return nil, fail(CodeNoCurrentKey, "every encryption key of %s has expired", l.PeerID)
	}
	return best, nil
}

// Supersedes reports whether l may replace old: both name the same EVM
// address and l was issued later.
func (l *Link) Supersedes(old *Link) bool {
	return l.EVMAddress == old.EVMAddress && l.IssuedAt.After(old.IssuedAt)
}

// MarshalJSON returns Bytes.
func (l *Link) MarshalJSON() ([]byte, error) { return l.Bytes(), nil }

func (l *Link) wire(withSigs bool) linkJSON {
	w := linkJSON{
		EVMAddress: l.EVMAddress.Hex(),
		InboxKey:   hex0x(l.InboxKey),
		PeerID:     l.PeerID.String(),
		IssuedAt:   uint64(l.IssuedAt.Unix()),
		ExpiresAt:  uint64(l.ExpiresAt.Unix()),
	}
	w.EncryptionKeys = make([]linkKeyJSON, len(l.EncryptionKeys))
	for i, k := range l.EncryptionKeys {
		w.EncryptionKeys[i] = linkKeyJSON{KEM: string(k.KEM), PublicKey: hex0x(k.Bytes()), NotAfter: uint64(k.NotAfter.Unix())}
	}
	if withSigs {
		w.Signatures = &linkSigJSON{EVM: hex0x(l.EVMSignature), Inbox: hex0x(l.InboxSignature)}
	}
	return w
}

var linkTypes = apitypes.Types{
	"EIP712Domain": {
		{Name: "name", Type: "string"},
		{Name: "version", Type: "string"},
	},
	"IdentityLink": {
		{Name: "evmAddress", Type: "address"},
		{Name: "inboxKey", Type: "bytes32"},
		{Name: "peerId", Type: "string"},
		{Name: "encryptionKeysHash", Type: "bytes32"},
		{Name: "issuedAt", Type: "uint64"},
		{Name: "expiresAt", Type: "uint64"},
	},
	"IdentityRevocation": {
		{Name: "linkHash", Type: "bytes32"},
		{Name: "evmAddress", Type: "address"},
		{Name: "inboxKey", Type: "bytes32"},
		{Name: "revokedAt", Type: "uint64"},
	},
}

func typedDigest(primary string, types apitypes.Types, msg apitypes.TypedDataMessage) ([32]byte, error) {
	td := apitypes.TypedData{
		Types:       types,
		PrimaryType: primary,
		Domain:      apitypes.TypedDataDomain{Name: LinkDomainName, Version: LinkDomainVersion},
		Message:     msg,
	}
	h, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return [32]byte{}, failWrap(CodeMalformed, err, "eip-712 %s", primary)
	}
	return [32]byte(h), nil
}

// parseAddress accepts only EIP-55 checksummed addresses.
func parseAddress(s string) (common.Address, error) {
	if !common.IsHexAddress(s) || len(s) != 42 || s[:2] != "0x" {
		return common.Address{}, fail(CodeMalformed, "evmAddress %q is not an address", s)
	}
	a := common.HexToAddress(s)
	if a.Hex() != s {
		return common.Address{}, fail(CodeMalformed, "evmAddress %q is not EIP-55 checksummed", s)
	}
	return a, nil
}

func wrapField(err error, field string) error {
	if e, ok := err.(*Error); ok {
		return &Error{Code: e.Code, Msg: field + ": " + e.Msg, Err: e.Err}
	}
	return failWrap(CodeMalformed, err, "%s", field)
}

func unixSeconds(t time.Time) time.Time { return time.Unix(t.Unix(), 0).UTC() }

// compile-time check that Link marshals as its canonical bytes.
var _ json.Marshaler = (*Link)(nil)
