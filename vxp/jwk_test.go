package vxp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readVectors decodes vxp/testdata/auth/<name>, written by
// scripts/vxp-vectors.mjs with npm jose and oauth4webapi.
func readVectors(t *testing.T, name string, v any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "auth", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// jwkRefusalWhy names the rule some invalid vectors must be refused by,
// where a later rule would refuse them too.
var jwkRefusalWhy = map[string]string{
	"x_leading_zero_stripped": "x is 31 bytes, want 32",
	"x_33_bytes":              "x is 33 bytes, want 32",
	"not_on_curve":            "not on P-256",
	"private_d":               `private member "d"`,
}

type jwkVectors struct {
	Cases []struct {
		Name       string          `json:"name"`
		JWK        json.RawMessage `json:"jwk"`
		Thumbprint string          `json:"thumbprint"`
		Invalid    bool            `json:"invalid"`
	} `json:"cases"`
}

// TestJWKVectors parses every JWK jose wrote: the valid ones give jose's
// RFC 7638 thumbprint, the others are refused.
func TestJWKVectors(t *testing.T) {
	var v jwkVectors
	readVectors(t, "jwk.json", &v)
	if len(v.Cases) < 10 {
		t.Fatalf("only %d cases", len(v.Cases))
	}
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			k, err := ParsePublicJWK(c.JWK)
			if c.Invalid {
				if !errors.Is(err, ErrInvalidJWK) {
					t.Fatalf("err = %v, want ErrInvalidJWK", err)
				}
				if why, ok := jwkRefusalWhy[c.Name]; ok && !strings.Contains(err.Error(), why) {
					t.Fatalf("err = %v, want it to say %q", err, why)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if k.Thumbprint != c.Thumbprint {
				t.Fatalf("thumbprint %s, jose says %s", k.Thumbprint, c.Thumbprint)
			}
			if c.Name == "valid_with_kid_alg_use" && k.KeyID != "agent-1" {
				t.Fatalf("kid %q", k.KeyID)
			}
		})
	}
}

// TestThumbprintLeadingZero holds the zero-byte key to RFC 7638 by hand:
// its x is hashed at 32 bytes although the big.Int holding it is shorter.
func TestThumbprintLeadingZero(t *testing.T) {
	var v jwkVectors
	readVectors(t, "jwk.json", &v)
	for _, c := range v.Cases {
		if c.Name != "valid_zero" {
			continue
		}
		var m struct{ X, Y string }
		if err := json.Unmarshal(c.JWK, &m); err != nil {
			t.Fatal(err)
		}
		x, _ := base64.RawURLEncoding.DecodeString(m.X)
		if len(x) != 32 || x[0] != 0 {
			t.Fatalf("vector's x does not start with a zero byte: %x", x)
		}
		k, err := ParsePublicJWK(c.JWK)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := k.Key.Bytes(); len(b) != 65 || b[1] != 0 {
			t.Fatalf("parsed key %x", b)
		}
		sum := sha256.Sum256([]byte(`{"crv":"P-256","kty":"EC","x":"` + m.X + `","y":"` + m.Y + `"}`))
		want := base64.RawURLEncoding.EncodeToString(sum[:])
		got, err := Thumbprint(k.Key)
		if err != nil {
			t.Fatal(err)
		}
		if got != want || got != c.Thumbprint {
			t.Fatalf("thumbprint %s, by hand %s, jose %s", got, want, c.Thumbprint)
		}
		return
	}
	t.Fatal("no valid_zero vector")
}

func TestParsePublicJWKRules(t *testing.T) {
	x := "DZQkSL-mLiXSWth89rTtX8DBgrQ4328lwO-LIrxjayI"
	y := "hVzwbK4SxG4jjHKQ9ld_QDtCxm13iwONUshyzfc11zA"
	key := func(extra string) []byte {
		return []byte(`{"kty":"EC","crv":"P-256","x":"` + x + `","y":"` + y + `"` + extra + `}`)
	}
	for _, c := range []struct {
		name string
		raw  []byte
		ok   bool
	}{
		{"public", key(""), true},
		{"unknown member ignored", key(`,"ext":true,"key_ops":["verify"]`), true},
		{"private d", key(`,"d":"8svhSqWQlMKtKapjTI5VLDUALjKfq1h966AeEk_L3QE"`), false},
		{"private p", key(`,"p":"AA"`), false},
		{"oth", key(`,"oth":[]`), false},
		{"k", key(`,"k":"AA"`), false},
		{"alg ES256", key(`,"alg":"ES256"`), true},
		{"alg none", key(`,"alg":"none"`), false},
		{"use sig", key(`,"use":"sig"`), true},
		{"use enc", key(`,"use":"enc"`), false},
		{"kty", []byte(`{"kty":"OKP","crv":"P-256","x":"` + x + `","y":"` + y + `"}`), false},
		{"crv", []byte(`{"kty":"EC","crv":"P-384","x":"` + x + `","y":"` + y + `"}`), false},
		{"duplicate member", key(`,"x":"` + x + `"`), false},
		{"not an object", []byte(`[]`), false},
		{"x not base64url", []byte(`{"kty":"EC","crv":"P-256","x":"` + x[:42] + `+","y":"` + y + `"}`), false},
		{"y short", []byte(`{"kty":"EC","crv":"P-256","x":"` + x + `","y":"` + y[:40] + `"}`), false},
		{"x with non-canonical trailing bits", []byte(`{"kty":"EC","crv":"P-256","x":"` + x[:42] + "J" + `","y":"` + y + `"}`), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParsePublicJWK(c.raw)
			if c.ok != (err == nil) {
				t.Fatalf("err = %v, want ok %v", err, c.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalidJWK) {
				t.Fatalf("err = %v, not ErrInvalidJWK", err)
			}
		})
	}
}

func TestParseJWKS(t *testing.T) {
	var v struct {
		JWKS json.RawMessage `json:"jwks"`
	}
	readVectors(t, "assertions.json", &v)
	keys, err := ParseJWKS(v.JWKS)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 3 || keys[0].KeyID != "agent-1" || keys[2].KeyID != "agent-zero" {
		t.Fatalf("keys %+v", keys)
	}
	for _, c := range []struct{ name, raw string }{
		{"empty", `{"keys":[]}`},
		{"no keys", `{}`},
		{"not a set", `[]`},
		{"one bad key", `{"keys":[{"kty":"oct","k":"AA"}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := ParseJWKS([]byte(c.raw)); !errors.Is(err, ErrInvalidJWK) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestThumbprintRefusesOtherCurves(t *testing.T) {
	k, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Thumbprint(&k.PublicKey); !errors.Is(err, ErrInvalidJWK) {
		t.Fatalf("err = %v", err)
	}
	if _, err := Thumbprint(nil); !errors.Is(err, ErrInvalidJWK) {
		t.Fatalf("nil: err = %v", err)
	}
}

// FuzzParsePublicJWK: whatever it accepts is a P-256 key whose
// thumbprint Thumbprint recomputes.
func FuzzParsePublicJWK(f *testing.F) {
	var v jwkVectors
	raw, err := os.ReadFile(filepath.Join("testdata", "auth", "jwk.json"))
	if err == nil && json.Unmarshal(raw, &v) == nil {
		for _, c := range v.Cases {
			f.Add([]byte(c.JWK))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		k, err := ParsePublicJWK(raw)
		if err != nil {
			if !errors.Is(err, ErrInvalidJWK) {
				t.Fatalf("err = %v, not ErrInvalidJWK", err)
			}
			return
		}
		tp, err := Thumbprint(k.Key)
		if err != nil || tp != k.Thumbprint {
			t.Fatalf("thumbprint %s, %v; parsed %s", tp, err, k.Thumbprint)
		}
	})
}
