package vxp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"testing"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
	pure "github.com/parleynet/parley/vxp"
)

// TestIssuerKeyFile: the issuer's key is made once (0600), kept across
// restarts, read as PEM or JWK, and a malformed file is refused and left
// as it is.
func TestIssuerKeyFile(t *testing.T) {
	n := nodetest.New(t, "keys", nil, node.WithGate(node.AutoApprove("test")))
	start := func(dir string) (*Server, error) {
		s, err := New(n, Config{PublicURL: "http://127.0.0.1:1", AllowInsecureLoopback: true, DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s, s.Start(t.Context())
	}
	dir := t.TempDir()
	s1, err := start(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, IssuerKeyFile)
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	raw, _ := os.ReadFile(path)
	if blk, _ := pem.Decode(raw); blk == nil || blk.Type != "PRIVATE KEY" {
		t.Fatalf("key file is not PKCS #8 PEM: %s", raw)
	}
	s2, err := start(dir)
	if err != nil || s2.auth.key.kid != s1.auth.key.kid {
		t.Fatalf("restart: %v, kid %s then %s", err, s1.auth.key.kid, s2.auth.key.kid)
	}
	if after, _ := os.ReadFile(path); string(after) != string(raw) {
		t.Fatal("the key file was rewritten")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}

	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	der384, _ := x509.MarshalPKCS8PrivateKey(p384)
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der256, _ := x509.MarshalPKCS8PrivateKey(p256)
	sec1, _ := x509.MarshalECPrivateKey(p256)
	pemOf := func(typ string, der []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}) }
	privJWK, _ := json.Marshal(jose.JSONWebKey{Key: p256})
	pubJWK, _ := json.Marshal(jose.JSONWebKey{Key: &p256.PublicKey})
	kid256, _ := pure.Thumbprint(&p256.PublicKey)
	rows := []struct {
		name string
		file []byte
		kid  string // "" for a refusal
	}{
		{"PKCS #8 PEM", pemOf("PRIVATE KEY", der256), kid256},
		{"SEC 1 PEM", pemOf("EC PRIVATE KEY", sec1), kid256},
		{"private JWK", privJWK, kid256},
		{"empty", nil, ""},
		{"garbage", []byte("not a key"), ""},
		{"P-384", pemOf("PRIVATE KEY", der384), ""},
		{"public JWK", pubJWK, ""},
		{"two PEM blocks", append(pemOf("PRIVATE KEY", der256), pemOf("PRIVATE KEY", der256)...), ""},
		{"certificate block", pemOf("CERTIFICATE", der256), ""},
		{"truncated PEM", pemOf("PRIVATE KEY", der256[:40]), ""},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, IssuerKeyFile)
			if err := os.WriteFile(path, r.file, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := start(dir)
			if r.kid != "" {
				if err != nil || s.auth.key.kid != r.kid {
					t.Fatalf("got %v, kid %v", err, s.auth)
				}
				return
			}
			var pe *pure.Error
			if !errors.As(err, &pe) || pe.Code != pure.CodeBadIssuerKey {
				t.Fatalf("got %v, want bad_issuer_key", err)
			}
			if after, _ := os.ReadFile(path); string(after) != string(r.file) {
				t.Fatal("a malformed key file was overwritten")
			}
		})
	}
}
