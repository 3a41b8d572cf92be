package schemas_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/schemas"
)

var update = flag.Bool("update", false, "rewrite fixtures/identity-link from the identity package")

var linkDir = filepath.Join("fixtures", "identity-link", "valid")

// makeLink builds the identity link of a test party with identity.CreateLink
// from the same deterministic keys the negotiation fixtures use.
func makeLink(t *testing.T, name string, kems ...identity.KEM) []byte {
	t.Helper()
	t0 := time.Date(2026, 6, 13, 12, 0, 0, 0, time.UTC)
	seed := sha256.Sum256([]byte("parley test inbox " + name))
	evmSeed := sha256.Sum256([]byte("parley test evm " + name))
	k, err := crypto.ToECDSA(evmSeed[:])
	if err != nil {
		t.Fatal(err)
	}
	evm, err := identity.NewEVMKey(k)
	if err != nil {
		t.Fatal(err)
	}
	inbox, err := identity.NewInboxKeyFromSeed(seed[:])
	if err != nil {
		t.Fatal(err)
	}
	var keys []*identity.PublicEncryptionKey
	for i, kem := range kems {
		ikm := sha256.Sum256(fmt.Appendf(nil, "parley test hpke %s %d", name, i))
		ek, err := identity.DeriveEncryptionKey(kem, ikm[:], t0.Add(time.Duration(30+i*30)*24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, ek.PublicKey())
	}
	l, err := identity.CreateLink(evm, inbox, keys, t0, t0.Add(365*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Verify(t0); err != nil {
		t.Fatal(err)
	}
	return l.Bytes()
}

// TestIdentityLinkMatchesIdentityPackage checks that the links the identity
// package makes are valid against identity-link.schema.json and equal, byte
// for byte, to the committed fixtures (the AJV check reads those), so the
// schema follows identity.Link's JSON.
func TestIdentityLinkMatchesIdentityPackage(t *testing.T) {
	links := map[string][]byte{
		"poster.json": makeLink(t, "poster", identity.KEMMLKEM768X25519),
		"worker.json": makeLink(t, "worker", identity.KEMMLKEM768X25519, identity.KEMX25519),
	}
	set, err := schemas.Compiled()
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range links {
		if *update {
			if err := os.WriteFile(filepath.Join(linkDir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var doc any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		if err := set.Validate(schemas.IdentityLink, doc); err != nil {
			t.Errorf("%s: a link made by identity.CreateLink fails the schema: %v", name, err)
		}
		got, err := os.ReadFile(filepath.Join(linkDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, b) {
			t.Errorf("%s differs from what identity.CreateLink makes now (run with -update)", name)
		}
		if _, err := identity.ParseLink(got); err != nil {
			t.Errorf("%s: identity.ParseLink refuses the fixture: %v", name, err)
		}
	}
}
