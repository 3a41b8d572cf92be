package identity

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"github.com/gowebpki/jcs"
	"os"
	"testing"
	"testing/cryptotest"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
)

var update = flag.Bool("update", false, "rewrite the golden vector files in testdata")

const (
	linkVectorsFile  = "testdata/identity-vectors.json"
	frameVectorsFile = "testdata/sealed-frames.json"
	keystoreVector   = "testdata/keystore-v1"
	keystorePass     = "parley test vector passphrase"
	vectorSeed       = 20260613
)

type partyVector struct {
	Name          string          `json:"name"`
	InboxSeed     string          `json:"inboxSeed"`
	EVMPrivateKey string          `json:"evmPrivateKey"`
	EncKEM        KEM             `json:"encKem"`
	EncIKM        string          `json:"encIkm"`
	EncPrivateKey string          `json:"encPrivateKey"`
	EncKeyID      string          `json:"encKeyId"`
	InboxKey      string          `json:"inboxKey"`
	PeerID        string          `json:"peerId"`
	EVMAddress    string          `json:"evmAddress"`
	Link          json.RawMessage `json:"link"`
}

type linkVectors struct {
	Description      string          `json:"description"`
	VerifyAt         int64           `json:"verifyAt"`
	Parties          []partyVector   `json:"parties"`
	SigningBytes     string          `json:"signingBytes"`
	KeysJCS          string          `json:"encryptionKeysJcs"`
	KeysHash         string          `json:"encryptionKeysHash"`
	EIP712Digest     string          `json:"eip712Digest"`
	LinkHash         string          `json:"linkHash"`
	Revocation       json.RawMessage `json:"revocation"`
	RevocationDigest string          `json:"revocationDigest"`
	KeystoreDir      string          `json:"keystoreDir"`
	KeystorePass     string          `json:"keystorePassphrase"`
	KeystoreInboxKey string          `json:"keystoreInboxKey"`
	KeystoreAddress  string          `json:"keystoreEvmAddress"`
	KeystorePeerID   string          `json:"keystorePeerId"`
	KeystoreEncKeyID string          `json:"keystoreEncKeyId"`
	KeystoreLinkHash string          `json:"keystoreLinkHash"`
}

type frameVector struct {
	Name          string   `json:"name"`
	From          string   `json:"from"`
	To            []string `json:"to"`
	NegotiationID string   `json:"negotiationId"`
	Plaintext     string   `json:"plaintext"`
	Frame         string   `json:"frame"`
	SessionIDs    []string `json:"sessionIds"`
	NewSession    bool     `json:"newSession"`
}

type frameVectors struct {
	Description string        `json:"description"`
	OpenAt      int64         `json:"openAt"`
	Frames      []frameVector `json:"frames"`
}

func vectorParties(t *testing.T) map[string]*party {
	return map[string]*party{
		"alice": newParty(t, "alice", KEMMLKEM768X25519),
		"bob":   newParty(t, "bob", KEMMLKEM768X25519),
		"carol": newParty(t, "carol", KEMX25519),
	}
}

func partyVectorOf(t *testing.T, name string, p *party) partyVector {
	priv, err := p.enc.PrivateBytes()
	if err != nil {
		t.Fatal(err)
	}
	return partyVector{
		Name:          name,
		InboxSeed:     hex0x(seed(name, "inbox")),
		EVMPrivateKey: hex0x(crypto.FromECDSA(p.evm.PrivateKey())),
		EncKEM:        p.enc.KEM,
		EncIKM:        hex0x(seed(name, "enc")),
		EncPrivateKey: hex0x(priv),
		EncKeyID:      p.enc.ID.String(),
		InboxKey:      p.inbox.PublicHex(),
		PeerID:        p.inbox.PeerID().String(),
		EVMAddress:    p.evm.Address().Hex(),
		Link:          p.link.Bytes(),
	}
}

func buildLinkVectors(t *testing.T) linkVectors {
	ps := vectorParties(t)
	a := ps["alice"]
	signing, err := a.link.SigningBytes()
	if err != nil {
		t.Fatal(err)
	}
	keysJCS, err := marshalCanonical(a.link.wire(false).EncryptionKeys)
	if err != nil {
		t.Fatal(err)
	}
	ekh, _ := a.link.EncryptionKeysHash()
	d, _ := a.link.EIP712Digest()
	rev, err := RevokeLink(a.link, a.evm, a.inbox, t0.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	rd, _ := rev.EIP712Digest()
	lh := a.link.Hash()
	v := linkVectors{
		Description:      "Parley identity vectors: parties derived from fixed seeds, alice's identity link with its signing inputs, a revocation, and a key directory (docs/identity.md).",
		VerifyAt:         t0.Unix(),
		SigningBytes:     string(signing),
		KeysJCS:          string(keysJCS),
		KeysHash:         hex0x(ekh[:]),
		EIP712Digest:     hex0x(d[:]),
		LinkHash:         hex0x(lh[:]),
		Revocation:       rev.Bytes(),
		RevocationDigest: hex0x(rd[:]),
		KeystoreDir:      keystoreVector,
		KeystorePass:     keystorePass,
	}
	for _, n := range []string{"alice", "bob", "carol"} {
		v.Parties = append(v.Parties, partyVectorOf(t, n, ps[n]))
	}
	return v
}

// buildFrameVectors seals a transcript with deterministic randomness.
func buildFrameVectors(t *testing.T) frameVectors {
	cryptotest.SetGlobalRandom(t, vectorSeed)
	ps := vectorParties(t)
	sa := ps["alice"].sealer(t)
	neg := uuid.MustParse("6f1d2c3b-4a59-4877-8695-a4b3c2d1e0ff")
	out := frameVectors{
		Description: "Parley sealed frames v1: a transcript from alice. Open the frames in order with each recipient's key (sessions carry over). Parties and links are in identity-vectors.json.",
		OpenAt:      t0.Unix(),
	}
	add := func(name string, to []string, msg string, newSession bool) {
		var links []*Link
		for _, n := range to {
			links = append(links, ps[n].link)
		}
		f, err := sa.Seal(t0, neg, links, []byte(msg))
		if err != nil {
			t.Fatal(err)
		}
		h, err := ParseFrameHeader(f)
		if err != nil {
			t.Fatal(err)
		}
		fv := frameVector{Name: name, From: "alice", To: to, NegotiationID: neg.String(), Plaintext: msg, Frame: hex0x(f), NewSession: newSession}
		for _, e := range h.Entries {
			fv.SessionIDs = append(fv.SessionIDs, e.SessionID.String())
		}
		out.Frames = append(out.Frames, fv)
	}
	add("session init to bob (MLKEM768-X25519)", []string{"bob"}, `{"hello":"bob"}`, true)
	add("later message to bob", []string{"bob"}, `{"seq":2}`, false)
	add("session init to carol (X25519)", []string{"carol"}, `{"hello":"carol"}`, true)
	add("dispute thread to bob and carol (both sessions exist)", []string{"bob", "carol"}, `{"evidence":"cid"}`, false)
	return out
}

func writeJSON(t *testing.T, path string, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./identity -run Golden -update)", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// canonLinks replaces each party's link, which the indented vector file
// holds as a JSON value, by its JCS bytes: the only bytes ParseLink takes.
func canonLinks(t *testing.T, v *linkVectors) {
	t.Helper()
	for i := range v.Parties {
		b, err := jcs.Transform(v.Parties[i].Link)
		if err != nil {
			t.Fatal(err)
		}
		v.Parties[i].Link = b
	}
}

func buildKeystoreVector(t *testing.T) {
	cryptotest.SetGlobalRandom(t, vectorSeed)
	if err := os.RemoveAll(keystoreVector); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig(keystoreVector)
	cfg.ScryptWorkFactor = 10
	cfg.KeystoreScryptN = 1 << 10
	cfg.KeystoreScryptP = 1
	cfg.KEM = KEMX25519
	if _, err := Create(cfg, []byte(keystorePass), t0); err != nil {
		t.Fatal(err)
	}
}

func TestGoldenLinkVectors(t *testing.T) {
	got := buildLinkVectors(t)
	if *update {
		buildKeystoreVector(t)
	}
	// Key directory vector: open it with the passphrase.
	cfg := DefaultConfig(keystoreVector)
	k, err := Open(cfg, []byte(keystorePass))
	if err != nil {
		t.Fatal(err)
	}
	got.KeystoreInboxKey = k.Inbox().PublicHex()
	got.KeystoreAddress = k.EVM().Address().Hex()
	got.KeystorePeerID = k.Inbox().PeerID().String()
	got.KeystoreEncKeyID = k.EncryptionKeys()[0].ID.String()
	lh := k.Link().Hash()
	got.KeystoreLinkHash = hex0x(lh[:])
	if err := k.Link().Verify(t0); err != nil {
		t.Fatal(err)
	}
	if *update {
		writeJSON(t, linkVectorsFile, got)
	}
	var want linkVectors
	readJSON(t, linkVectorsFile, &want)
	canonLinks(t, &want)
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if !bytes.Equal(gb, wb) {
		t.Fatalf("identity vectors differ from %s (if the format changed on purpose, run with -update)\n got: %s\nwant: %s", linkVectorsFile, gb, wb)
	}
	// The stored bytes verify on their own.
	for _, p := range want.Parties {
		l, err := DecodeLink(p.Link, time.Unix(want.VerifyAt, 0))
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if l.PeerID.String() != p.PeerID || l.EVMAddress.Hex() != p.EVMAddress {
			t.Fatalf("%s: link names other keys", p.Name)
		}
	}
	rev, err := ParseRevocation(want.Revocation)
	if err != nil {
		t.Fatal(err)
	}
	alice, _ := ParseLink(want.Parties[0].Link)
	if err := rev.Verify(alice); err != nil {
		t.Fatal(err)
	}
}

func TestGoldenSealedFrames(t *testing.T) {
	got := buildFrameVectors(t)
	if *update {
		writeJSON(t, frameVectorsFile, got)
	}
	var want frameVectors
	readJSON(t, frameVectorsFile, &want)
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if !bytes.Equal(gb, wb) {
		t.Errorf("sealing with fixed randomness no longer reproduces %s (if the format changed on purpose, run with -update)", frameVectorsFile)
	}
	// Open the stored frames with keys restored from the vector file alone,
	// as another implementation would.
	var lv linkVectors
	readJSON(t, linkVectorsFile, &lv)
	canonLinks(t, &lv)
	openers := map[string]*Sealer{}
	for _, p := range lv.Parties {
		openers[p.Name] = sealerFromVector(t, p)
	}
	at := time.Unix(want.OpenAt, 0)
	for _, fv := range want.Frames {
		frame, err := hex.DecodeString(fv.Frame[2:])
		if err != nil {
			t.Fatal(err)
		}
		for i, to := range fv.To {
			o, err := openers[to].Open(at, frame)
			if err != nil {
				t.Fatalf("%s: %s: %v", fv.Name, to, err)
			}
			if string(o.Plaintext) != fv.Plaintext || o.NewSession != fv.NewSession || o.SessionID.String() != fv.SessionIDs[i] ||
				o.SenderPeer.String() != lv.Parties[0].PeerID {
				t.Fatalf("%s: %s opened %+v", fv.Name, to, o)
			}
		}
	}
}

func sealerFromVector(t *testing.T, p partyVector) *Sealer {
	seedB, _ := hex.DecodeString(p.InboxSeed[2:])
	inbox, err := NewInboxKeyFromSeed(seedB)
	if err != nil {
		t.Fatal(err)
	}
	link, err := ParseLink(p.Link)
	if err != nil {
		t.Fatal(err)
	}
	priv, _ := hex.DecodeString(p.EncPrivateKey[2:])
	ek, err := NewEncryptionKey(p.EncKEM, priv, link.EncryptionKeys[0].NotAfter)
	if err != nil {
		t.Fatal(err)
	}
	if ek.ID.String() != p.EncKeyID {
		t.Fatalf("%s: key id %s, vector says %s", p.Name, ek.ID, p.EncKeyID)
	}
	s, err := NewSealer(DefaultSealerConfig(inbox, link, &memKeys{keys: []*EncryptionKey{ek}}))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
