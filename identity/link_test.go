package identity

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gowebpki/jcs"
)

func TestEVMKey(t *testing.T) {
	p := newParty(t, "alice", KEMX25519)
	for i := range 20 {
		d := sha256.Sum256([]byte{byte(i)})
		sig, err := p.evm.SignDigest(d)
		if err != nil {
			t.Fatal(err)
		}
		if len(sig) != 65 || (sig[64] != 27 && sig[64] != 28) {
			t.Fatalf("sig %x: want 65 bytes with v in {27,28}", sig)
		}
		s := new(big.Int).SetBytes(sig[32:64])
		if s.Cmp(new(big.Int).Rsh(crypto.S256().Params().N, 1)) > 0 {
			t.Fatal("high s")
		}
		a, err := RecoverDigestSigner(d, sig)
		if err != nil || a != p.evm.Address() {
			t.Fatalf("recovered %s, %v", a.Hex(), err)
		}
		bad := bytes.Clone(sig)
		bad[64] -= 27
		if _, err := RecoverDigestSigner(d, bad); CodeOf(err) != CodeBadEVMSignature {
			t.Fatalf("v in {0,1} accepted: %v", err)
		}
		// high-s twin of a valid signature is refused
		hs := bytes.Clone(sig)
		new(big.Int).Sub(crypto.S256().Params().N, s).FillBytes(hs[32:64])
		hs[64] ^= 1
		if _, err := RecoverDigestSigner(d, hs); CodeOf(err) != CodeBadEVMSignature {
			t.Fatalf("high s accepted: %v", err)
		}
	}
	chainID := big.NewInt(1337)
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: 3, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(2), Gas: 21000, To: &to, Value: big.NewInt(5)})
	signed, err := p.evm.SignTx(tx, chainID)
	if err != nil {
		t.Fatal(err)
	}
	from, err := types.Sender(types.LatestSignerForChainID(chainID), signed)
	if err != nil || from != p.evm.Address() {
		t.Fatalf("tx sender %s, %v", from.Hex(), err)
	}
	if _, err := NewEVMKey(nil); err == nil {
		t.Fatal("nil key accepted")
	}
}

func TestInboxKeyPeerID(t *testing.T) {
	p := newParty(t, "alice", KEMX25519)
	lk, err := p.inbox.LibP2PKey()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := lk.GetPublic().Raw()
	if err != nil || !bytes.Equal(raw, p.inbox.PublicKey()) {
		t.Fatal("libp2p key is not the inbox key")
	}
	// identity multihash (0x00, length 36) of the protobuf public key
	// (field 1 = KeyType Ed25519 (1), field 2 = 32 bytes).
	want := append([]byte{0x00, 0x24, 0x08, 0x01, 0x12, 0x20}, p.inbox.PublicKey()...)
	if !bytes.Equal([]byte(p.inbox.PeerID()), want) {
		t.Fatalf("peer id bytes %x, want %x", []byte(p.inbox.PeerID()), want)
	}
	if !strings.HasPrefix(p.inbox.PeerID().String(), "12D3KooW") {
		t.Fatalf("peer id %s", p.inbox.PeerID())
	}
	if len(p.inbox.PublicHex()) != 66 || p.inbox.PublicHex() != strings.ToLower(p.inbox.PublicHex()) {
		t.Fatal("public hex form")
	}
}

// manualLinkDigest computes the EIP-712 digest of a link by hand, from the
// type string, without go-ethereum's apitypes.
func manualLinkDigest(l *Link, ekh [32]byte) [32]byte {
	k := crypto.Keccak256
	domainType := k([]byte("EIP712Domain(string name,string version)"))
	domain := k(domainType, k([]byte(LinkDomainName)), k([]byte(LinkDomainVersion)))
	u64 := func(v int64) []byte {
		b := make([]byte, 32)
		binary.BigEndian.PutUint64(b[24:], uint64(v))
		return b
	}
	structHash := k(k([]byte(LinkTypeString)),
		common.LeftPadBytes(l.EVMAddress[:], 32),
		l.InboxKey,
		k([]byte(l.PeerID.String())),
		ekh[:],
		u64(l.IssuedAt.Unix()),
		u64(l.ExpiresAt.Unix()))
	return [32]byte(k([]byte{0x19, 0x01}, domain, structHash))
}

func TestLinkCreateVerify(t *testing.T) {
	p := newParty(t, "alice", KEMMLKEM768X25519)
	l := p.link
	if err := l.Verify(t0); err != nil {
		t.Fatal(err)
	}
	// encryptionKeysHash is SHA-256 of the JCS key list, computed here from
	// the published bytes.
	var m map[string]json.RawMessage
	if err := json.Unmarshal(l.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	list, err := jcs.Transform(m["encryptionKeys"])
	if err != nil {
		t.Fatal(err)
	}
	ekh, err := l.EncryptionKeysHash()
	if err != nil || ekh != sha256.Sum256(list) {
		t.Fatal("encryptionKeysHash is not SHA-256(JCS(encryptionKeys))")
	}
	d, err := l.EIP712Digest()
	if err != nil {
		t.Fatal(err)
	}
	if d != manualLinkDigest(l, ekh) {
		t.Fatal("apitypes digest differs from the hand-computed EIP-712 digest")
	}
	// The inbox signature is over JCS(link without signatures).
	delete(m, "signatures")
	unsigned, _ := json.Marshal(m)
	unsigned, _ = jcs.Transform(unsigned)
	if !ed25519.Verify(p.inbox.PublicKey(), unsigned, l.InboxSignature) {
		t.Fatal("inbox signature is not over JCS(link without signatures)")
	}
	// Round trip.
	back, err := DecodeLink(l.Bytes(), t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if back.Hash() != l.Hash() || back.PeerID != l.PeerID || back.EncryptionKeys[0].ID != l.EncryptionKeys[0].ID {
		t.Fatal("link did not round-trip")
	}
}

func TestLinkVerifyTimes(t *testing.T) {
	p := newParty(t, "alice", KEMX25519)
	for _, tc := range []struct {
		name string
		now  time.Time
		code Code
	}{
		{"at issue", t0, ""},
		{"slightly before issue (skew)", t0.Add(-4 * time.Minute), ""},
		{"long before issue", t0.Add(-6 * time.Minute), CodeLinkNotYetValid},
		{"just before expiry", p.link.ExpiresAt.Add(-time.Second), ""},
		{"at expiry", p.link.ExpiresAt, CodeLinkExpired},
		{"after expiry", p.link.ExpiresAt.Add(time.Hour), CodeLinkExpired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := p.link.Verify(tc.now)
			if tc.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantCode(t, err, tc.code)
		})
	}
}

// editLink applies edit to the decoded JSON of a link and re-encodes it.
func editLink(t *testing.T, b []byte, edit func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// indent returns b pretty-printed: the same link, not its canonical bytes.
func indent(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestLinkRejects(t *testing.T) {
	a := newParty(t, "alice", KEMX25519)
	b := newParty(t, "bob", KEMX25519)
	good := a.link.Bytes()
	keys := func(m map[string]any) map[string]any { return m["encryptionKeys"].([]any)[0].(map[string]any) }
	sigs := func(m map[string]any) map[string]any { return m["signatures"].(map[string]any) }
	for _, tc := range []struct {
		name string
		in   []byte
		code Code
	}{
		{"not json", []byte("nope"), CodeMalformed},
		{"empty", nil, CodeMalformed},
		{"duplicate key", []byte(strings.Replace(string(good), `"issuedAt":`, `"issuedAt":1,"issuedAt":`, 1)), CodeDuplicateKey},
		{"unknown field", editLink(t, good, func(m map[string]any) { m["extra"] = 1 }), CodeUnknownField},
		{"unknown nested field", editLink(t, good, func(m map[string]any) { keys(m)["id"] = "x" }), CodeUnknownField},
		{"missing field", editLink(t, good, func(m map[string]any) { delete(m, "peerId") }), CodeMalformed},
		{"missing signatures", editLink(t, good, func(m map[string]any) { delete(m, "signatures") }), CodeMalformed},
		{"member in other case", []byte(strings.Replace(string(good), `"peerId"`, `"PeerId"`, 1)), CodeUnknownField},
		{"leading white space", append([]byte(" "), good...), CodeNotCanonical},
		{"trailing newline", append(bytes.Clone(good), '\n'), CodeNotCanonical},
		{"indented", indent(t, good), CodeNotCanonical},
		{"an escape JCS does not use", []byte(strings.Replace(string(good), `"peerId"`, `"peer\u0049d"`, 1)), CodeNotCanonical},
		{"invalid UTF-8", []byte(strings.Replace(string(good), `"peerId"`, "\"peer\xffId\"", 1)), CodeMalformed},
		{"lone surrogate", []byte(strings.Replace(string(good), `"peerId"`, `"peer\ud800"`, 1)), CodeMalformed},
		{"float time", editLink(t, good, func(m map[string]any) { m["issuedAt"] = json.Number("1781352000.5") }), CodeMalformed},
		{"exponent time", editLink(t, good, func(m map[string]any) { m["issuedAt"] = json.Number("1.781352e9") }), CodeMalformed},
		{"time over 2^53", editLink(t, good, func(m map[string]any) { m["expiresAt"] = json.Number("9007199254740993") }), CodeMalformed},
		{"trailing data", append(bytes.Clone(good), []byte(" {}")...), CodeMalformed},
		{"lowercase address", editLink(t, good, func(m map[string]any) { m["evmAddress"] = strings.ToLower(m["evmAddress"].(string)) }), CodeMalformed},
		{"uppercase hex", editLink(t, good, func(m map[string]any) { m["inboxKey"] = "0x" + strings.ToUpper(m["inboxKey"].(string)[2:]) }), CodeMalformed},
		{"unknown kem", editLink(t, good, func(m map[string]any) { keys(m)["kem"] = "RSA" }), CodeUnknownKEM},
		{"no keys", editLink(t, good, func(m map[string]any) { m["encryptionKeys"] = []any{} }), CodeMalformed},
		{"short signature", editLink(t, good, func(m map[string]any) { sigs(m)["evm"] = "0x00" }), CodeMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeLink(tc.in, t0)
			wantCode(t, err, tc.code)
		})
	}

	// Well-formed but not authentic.
	for _, tc := range []struct {
		name string
		edit func(m map[string]any)
		code Code
	}{
		{"other inbox key", func(m map[string]any) { m["inboxKey"] = b.inbox.PublicHex() }, CodePeerIDMismatch},
		{"other peer id", func(m map[string]any) { m["peerId"] = b.inbox.PeerID().String() }, CodePeerIDMismatch},
		{"other address", func(m map[string]any) { m["evmAddress"] = b.evm.Address().Hex() }, CodeBadEVMSignature},
		{"other key", func(m map[string]any) { keys(m)["publicKey"] = hex0x(b.enc.Bytes()) }, CodeBadEVMSignature},
		{"later expiry", func(m map[string]any) { m["expiresAt"] = json.Number("1900000000") }, CodeBadEVMSignature},
		{"other notAfter", func(m map[string]any) { keys(m)["notAfter"] = json.Number("1900000000") }, CodeBadEVMSignature},
		{"evm signature of another link", func(m map[string]any) { sigs(m)["evm"] = hex0x(b.link.EVMSignature) }, CodeBadEVMSignature},
		{"inbox signature of another link", func(m map[string]any) { sigs(m)["inbox"] = hex0x(b.link.InboxSignature) }, CodeBadSignature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := ParseLink(editLink(t, good, tc.edit))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			wantCode(t, l.Verify(t0), tc.code)
		})
	}
}

func TestLinkCurrentKeyAndRotation(t *testing.T) {
	p := newParty(t, "alice", KEMX25519)
	k2, err := DeriveEncryptionKey(KEMMLKEM768X25519, seed("alice", "enc2"), t0.Add(60*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	l2, err := CreateLink(p.evm, p.inbox, []*PublicEncryptionKey{p.enc.PublicKey(), k2.PublicKey()}, t0.Add(time.Hour), t0.Add(90*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := l2.Verify(t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if !l2.Supersedes(p.link) || p.link.Supersedes(l2) {
		t.Fatal("Supersedes")
	}
	cur, err := l2.CurrentKey(t0)
	if err != nil || cur.ID != k2.ID {
		t.Fatal("current key should be the one with the latest notAfter")
	}
	if l2.Key(p.enc.ID) == nil || l2.Key(KeyID{}) != nil {
		t.Fatal("Key lookup")
	}
	_, err = p.link.CurrentKey(p.enc.NotAfter)
	wantCode(t, err, CodeNoCurrentKey)
}

func TestRevocation(t *testing.T) {
	a := newParty(t, "alice", KEMX25519)
	b := newParty(t, "bob", KEMX25519)
	for _, tc := range []struct {
		name  string
		evm   *EVMKey
		inbox *InboxKey
	}{
		{"both keys", a.evm, a.inbox},
		{"evm key only", a.evm, nil},
		{"inbox key only", nil, a.inbox},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := RevokeLink(a.link, tc.evm, tc.inbox, t0.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			back, err := ParseRevocation(r.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if err := back.Verify(a.link); err != nil {
				t.Fatal(err)
			}
			wantCode(t, back.Verify(b.link), CodeRevocationMismatch)
		})
	}
	_, err := RevokeLink(a.link, b.evm, nil, t0)
	wantCode(t, err, CodeRevocationMismatch)
	_, err = RevokeLink(a.link, nil, nil, t0)
	wantCode(t, err, CodeMalformed)

	r, err := RevokeLink(a.link, a.evm, a.inbox, t0)
	if err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(string(r.Bytes()), `"revokedAt":`+itoa(t0.Unix()), `"revokedAt":`+itoa(t0.Unix()+1), 1)
	fr, err := ParseRevocation([]byte(forged))
	if err != nil {
		t.Fatal(err)
	}
	if err := fr.Verify(a.link); err == nil {
		t.Fatal("altered revocation verified")
	}
	// A revocation with a bad signature fails even if the other is good.
	var m map[string]any
	_ = json.Unmarshal(r.Bytes(), &m)
	m["signatures"].(map[string]any)["inbox"] = hex0x(make([]byte, 64))
	bad, _ := json.Marshal(m)
	br, err := ParseRevocation(bad)
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, br.Verify(a.link), CodeBadSignature)
	_, err = ParseRevocation([]byte(`{"linkHash":"0x` + strings.Repeat("00", 32) + `","evmAddress":"` + a.evm.Address().Hex() + `","inboxKey":"` + a.inbox.PublicHex() + `","revokedAt":1}`))
	wantCode(t, err, CodeMalformed)
	if !errors.Is(br.Verify(a.link), ErrBadSignature) {
		t.Fatal("errors.Is(ErrBadSignature)")
	}
}

func itoa(v int64) string { return big.NewInt(v).String() }

// TestLinkReverify: the very bytes of a verified link are accepted again
// on their times alone; other bytes are left to a full verification, and
// an expired or not yet valid link is refused even when the bytes match.
func TestLinkReverify(t *testing.T) {
	p := newParty(t, "alice", KEMX25519)
	b := p.link.Bytes()
	if same, err := p.link.Reverify(b, t0.Add(time.Hour)); !same || err != nil {
		t.Fatalf("same bytes, current: %v %v", same, err)
	}
	other := append(bytes.Clone(b[:len(b)-1]), ' ')
	if same, err := p.link.Reverify(other, t0.Add(time.Hour)); same || err != nil {
		t.Fatalf("other bytes: %v %v", same, err)
	}
	same, err := p.link.Reverify(b, p.link.ExpiresAt)
	if same {
		t.Fatal("an expired link reverified")
	}
	wantCode(t, err, CodeLinkExpired)
	same, err = p.link.Reverify(b, p.link.IssuedAt.Add(-MaxClockSkew-time.Minute))
	if same {
		t.Fatal("a link not yet valid reverified")
	}
	wantCode(t, err, CodeLinkNotYetValid)
}
