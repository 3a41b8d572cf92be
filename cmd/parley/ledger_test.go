package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/storeguard"
)

// makeLedger writes a ledger under dataDir/ledger holding one negotiation
// of five envelopes, a state change and a rejected input, and returns the
// negotiation id.
func makeLedger(t *testing.T, dataDir string) string {
	t.Helper()
	cfg := ledger.DefaultConfig()
	cfg.Dir = filepath.Join(dataDir, "ledger")
	cfg.MemTableSize = 8 << 20
	cfg.MaxBatchBytes = 1 << 20
	cfg.MaxObjectBytes = 256 << 10
	cfg.MaxEntryBytes = 64 << 10
	l, err := ledger.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	seed := sha256.Sum256([]byte("cli ledger test"))
	key := ed25519.NewKeyFromSeed(seed[:])
	var pub negotiation.PublicKey
	copy(pub[:], key.Public().(ed25519.PublicKey))
	sender := negotiation.Sender{EVMAddress: negotiation.Address{0x11, 0x22}, XMTPPublicKey: pub}
	id := negotiation.NewNegotiationID([16]byte{7, 7, 7})
	t0 := time.Date(2026, 6, 13, 12, 0, 0, 0, time.UTC)
	var prev negotiation.Hash
	for i := range 5 {
		terms := negotiation.Terms{
			Title: "Translate the user guide", ChainID: negotiation.U64(31337),
			Milestones: []negotiation.Milestone{{Amount: negotiation.U64(uint64(100 + i)), Description: "all"}},
			Deadline:   uint64(t0.Add(72 * time.Hour).Unix()), Nonce: negotiation.U64(1),
		}
		var pl negotiation.Payload = &negotiation.TaskProposal{Terms: terms}
		if i > 0 {
			pl = &negotiation.TaskCounterOffer{InReplyTo: prev, Terms: terms}
		}
		h := negotiation.Header{NegotiationID: id, Sequence: uint64(i + 1), PreviousHash: prev, Timestamp: t0.Add(time.Duration(i) * time.Second),
			Sender: sender, Recipients: []negotiation.Address{{0x33}}}
		env, err := negotiation.Build(h, pl, negotiation.Ed25519Key(key), negotiation.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		prev = env.Hash()
		if _, _, err := l.AppendEnvelope(t.Context(), ledger.KindEnvelopeSent, env, "", t0); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := l.Append(t.Context(), ledger.Record{Kind: ledger.KindThreadState, NegotiationID: id, Body: []byte(`{"state":"countered"}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AppendRejected(t.Context(), []byte("{"), negotiation.CodeMalformedJSON, "", t0); err != nil {
		t.Fatal(err)
	}
	return id
}

func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if err != nil {
		return -1
	}
	return 0
}

func TestLedgerCommands(t *testing.T) {
	dir := t.TempDir()
	id := makeLedger(t, dir)

	out, err := runParley(t, "ledger", "verify", "--data-dir", dir)
	if err != nil || !strings.HasPrefix(out, "ok 7 entries, head 0x") {
		t.Fatalf("ledger verify: %q %v", out, err)
	}
	t.Setenv("PARLEY_DATA_DIR", dir)
	if out2, err := runParley(t, "ledger", "verify"); err != nil || out2 != out {
		t.Fatalf("ledger verify from $PARLEY_DATA_DIR: %q %v", out2, err)
	}

	// The test ledger has no keys beside it: a version-2 bundle, which
	// names the node's identity link, cannot be made, and the command
	// says so; --format 1 writes a version-1 bundle (TestLedgerExportV2
	// exports version 2).
	bundle := filepath.Join(t.TempDir(), "bundle.json")
	if _, err := runParley(t, "ledger", "export", "--negotiation", id, "-o", bundle); exitCode(err) != 2 || !strings.Contains(err.Error(), "--format 1") {
		t.Fatalf("a version-2 export without keys: %v", err)
	}
	if _, err := os.Stat(bundle); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the refused export wrote %s: %v", bundle, err)
	}
	out, err = runParley(t, "ledger", "export", "--negotiation", id, "-o", bundle, "--format", "1")
	if err != nil || !strings.Contains(out, "exported negotiation "+id) {
		t.Fatalf("ledger export: %q %v", out, err)
	}
	// The test ledger's envelopes are signed by a key no identity link in
	// it binds: the bundle proves its chain, not who signed it (a node's
	// export carries the links: TestClientCommands verifies one).
	out, err = runParley(t, "bundle", "verify", bundle)
	if exitCode(err) != 1 || !strings.HasPrefix(out, "FAIL missing_link: no valid identity link of 0x1122") {
		t.Fatalf("bundle verify: %q %v", out, err)
	}

	// A changed byte in the bundle fails with status 1 and names the code.
	b, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	tampered := filepath.Join(t.TempDir(), "tampered.json")
	if err := os.WriteFile(tampered, []byte(strings.Replace(string(b), `"code":"ok"`, `"code":"terms_changed"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = runParley(t, "bundle", "verify", tampered)
	if exitCode(err) != 1 || !strings.HasPrefix(out, "FAIL head_mismatch at entry 7") {
		t.Fatalf("tampered bundle: %q %v", out, err)
	}

	if _, err := runParley(t, "ledger", "export", "--negotiation", negotiation.NewNegotiationID([16]byte{9}), "-o", filepath.Join(t.TempDir(), "x")); exitCode(err) != 1 {
		t.Fatalf("export of an unknown negotiation: %v", err)
	}
	if _, err := runParley(t, "ledger", "verify", "--data-dir", t.TempDir()); exitCode(err) != 2 {
		t.Fatalf("verify without a ledger: %v", err)
	}
	if _, err := runParley(t, "bundle", "verify", filepath.Join(dir, "missing.json")); exitCode(err) != 2 {
		t.Fatalf("verify of a missing file: %v", err)
	}
}

// TestLedgerExportV2: an offline export is a version-2 bundle of the
// negotiation alone (another negotiation's entries lie between its own).
// With no signed tree head covering the negotiation it needs the keys'
// passphrase (exit 2, naming --format 1, without it), signs a head with the
// inbox key and records it; a second export uses that head without keys and
// writes the same bytes; once the negotiation has grown past the head, a
// new one is needed again.
func TestLedgerExportV2(t *testing.T) {
	t.Setenv(identity.PassphraseEnv, "")
	dir := t.TempDir()
	kcfg := identity.DefaultConfig(dir)
	kcfg.ScryptWorkFactor = 10
	kcfg.KeystoreScryptN, kcfg.KeystoreScryptP = 1<<8, 1
	keys, err := identity.Create(kcfg, []byte("export v2 test"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	link, err := keys.IssueLink(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	pass := writePass(t, "export v2 test")
	nid, other := negotiation.NewNegotiationID([16]byte{1, 2, 3}), negotiation.NewNegotiationID([16]byte{4, 5, 6})
	appendStates := func(ids ...string) {
		t.Helper()
		cfg := ledger.DefaultConfig()
		cfg.Dir = filepath.Join(dir, "ledger")
		cfg.RecordFile = storeguard.RecordFile(cfg.Dir)
		cfg.Owner = keys.Inbox().PeerID().String()
		l, err := ledger.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		for i, id := range ids {
			body := fmt.Sprintf(`{"state":"proposed","step":%d}`, i)
			if _, _, err := l.Append(t.Context(), ledger.Record{Kind: ledger.KindThreadState, NegotiationID: id, Body: []byte(body)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	appendStates(nid, other, nid, other, nid)

	bundle := filepath.Join(t.TempDir(), "bundle.json")
	if _, err := runParley(t, "ledger", "export", nid, "-o", bundle, "--data-dir", dir); exitCode(err) != 2 || !strings.Contains(err.Error(), "--format 1") || !strings.Contains(err.Error(), "passphrase") {
		t.Fatalf("an export that must sign a head, without the passphrase: %v", err)
	}
	out, err := runParley(t, "ledger", "export", nid, "-o", bundle, "--data-dir", dir, "--passphrase-file", pass)
	if err != nil || !strings.Contains(out, "exported negotiation "+nid+" to "+bundle+" (version 2, tree head 5 0x") {
		t.Fatalf("ledger export: %q %v", out, err)
	}
	b, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := node.VerifyBundle(bytes.NewReader(b), ledger.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Version != 2 || rep.NegotiationID != nid || len(rep.Negotiation) != 3 || rep.TreeHead.Size != 5 || !bytes.Equal(rep.Signer, link.Bytes()) {
		t.Fatalf("the bundle: version %d, negotiation %s, %d entries, head %+v", rep.Version, rep.NegotiationID, len(rep.Negotiation), rep.TreeHead)
	}
	if bytes.Contains(b, []byte(other)) {
		t.Fatal("the bundle names the other negotiation")
	}
	if out, err := runParley(t, "bundle", "verify", bundle); err != nil || !strings.Contains(out, "ok tree head: size 5") {
		t.Fatalf("bundle verify: %q %v", out, err)
	}

	// The head was recorded: the next export needs no keys, and writes the
	// same bundle.
	again := filepath.Join(t.TempDir(), "again.json")
	if out, err := runParley(t, "ledger", "export", nid, "-o", again, "--data-dir", dir); err != nil {
		t.Fatalf("an export against the recorded head: %q %v", out, err)
	}
	if b2, err := os.ReadFile(again); err != nil || !bytes.Equal(b2, b) {
		t.Fatalf("the second export differs from the first (%v)", err)
	}
	if out, err := runParley(t, "ledger", "verify", "--data-dir", dir); err != nil || !strings.HasPrefix(out, "ok 6 entries") {
		t.Fatalf("ledger verify after the export: %q %v", out, err)
	}

	// The negotiation grew past the head: a new one is signed again.
	appendStates(nid)
	if _, err := runParley(t, "ledger", "export", nid, "-o", again, "--data-dir", dir); exitCode(err) != 2 {
		t.Fatalf("an export past the recorded head, without the passphrase: %v", err)
	}
	t.Setenv(identity.PassphraseEnv, "export v2 test")
	if out, err := runParley(t, "ledger", "export", nid, "-o", again, "--data-dir", dir); err != nil || !strings.Contains(out, "(version 2, tree head 7 0x") {
		t.Fatalf("an export past the recorded head, with the passphrase: %q %v", out, err)
	}
	if out, err := runParley(t, "ledger", "export", nid, "-o", again, "--data-dir", dir, "--format", "3"); exitCode(err) != exitUsage {
		t.Fatalf("--format 3: %q %v", out, err)
	}
}
