package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
)

func TestEnvelopeValidate(t *testing.T) {
	valid, _ := filepath.Glob("../../schemas/fixtures/valid/*.json")
	invalid, _ := filepath.Glob("../../schemas/fixtures/invalid/*.json")
	if len(valid) < 14 || len(invalid) < 40 {
		t.Fatalf("fixtures missing: %d valid, %d invalid", len(valid), len(invalid))
	}
	for _, f := range valid {
		out, err := runParley(t, "envelope", "validate", f)
		if err != nil || !strings.HasPrefix(out, "ok 0x") {
			t.Errorf("%s: %v %q", f, err, out)
		}
	}
	for _, f := range invalid {
		code, _, _ := strings.Cut(filepath.Base(f), "--")
		out, err := runParley(t, "envelope", "validate", f)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 1 {
			t.Errorf("%s: exit %v, want status 1", f, err)
		}
		if strings.TrimSpace(out) != code {
			t.Errorf("%s: printed %q, want %q", f, out, code)
		}
	}
}

func TestEnvelopeHashAndSign(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(identity.PassphraseEnv, "pw")
	cfg := identity.DefaultConfig(dir)
	cfg.ScryptWorkFactor = 10
	cfg.KeystoreScryptN, cfg.KeystoreScryptP = 1<<8, 1
	kr, err := identity.Create(cfg, []byte("pw"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// Take a valid fixture, make it the keyring's, drop its signature.
	b, err := os.ReadFile("../../schemas/fixtures/valid/02-TaskProposal.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["sender"].(map[string]any)["xmtpPublicKey"] = kr.Inbox().PublicHex()
	m["sender"].(map[string]any)["evmAddress"] = kr.EVM().Address().Hex()
	delete(m, "signature")
	unsigned, _ := json.MarshalIndent(m, "", "  ")
	in := filepath.Join(t.TempDir(), "unsigned.json")
	if err := os.WriteFile(in, unsigned, 0o600); err != nil {
		t.Fatal(err)
	}
	signed, err := runParley(t, "envelope", "sign", "--key", dir, in)
	if err != nil {
		t.Fatalf("sign: %v %s", err, signed)
	}
	out := filepath.Join(t.TempDir(), "signed.json")
	if err := os.WriteFile(out, []byte(strings.TrimSpace(signed)), 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := runParley(t, "envelope", "validate", out)
	if err != nil || !strings.HasPrefix(v, "ok ") {
		t.Fatalf("signed envelope does not validate: %v %s", err, v)
	}
	h, err := runParley(t, "envelope", "hash", out)
	if err != nil {
		t.Fatal(err)
	}
	e, err := negotiation.Decode([]byte(strings.TrimSpace(signed)), negotiation.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := e.Hash().String() + " " + e.CID().String()
	if strings.TrimSpace(h) != want || !strings.Contains(v, want) {
		t.Fatalf("hash %q / validate %q, want %q", h, v, want)
	}
	// Signing an envelope whose sender is another key yields one that does
	// not verify: the command refuses it.
	if _, err := runParley(t, "envelope", "sign", "--key", dir, "../../schemas/fixtures/valid/03-TaskCounterOffer.json"); err == nil {
		t.Fatal("signed another sender's envelope")
	}
}
