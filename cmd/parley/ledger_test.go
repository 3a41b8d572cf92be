package main

import (
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
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

	bundle := filepath.Join(t.TempDir(), "bundle.json")
	out, err = runParley(t, "ledger", "export", "--negotiation", id, "-o", bundle)
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
