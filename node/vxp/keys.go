package vxp

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/parleynet/parley/node"
	pure "github.com/parleynet/parley/vxp"
)

// IssuerKeyFile is the issuer's signing key in the node's data directory:
// one ECDSA P-256 private key, PKCS #8 in PEM ("PRIVATE KEY"; an "EC
// PRIVATE KEY" block or a private JWK is read too), mode 0600. It is
// created at the first Start and never overwritten.
const IssuerKeyFile = "vxp-issuer.key"

// IssuerKeyPurpose is the purpose the node's inbox key attests the
// issuer's key for (node.KeyAttestation).
const IssuerKeyPurpose = "vxp-issuer"

// typ values of the JWS the issuer signs.
const (
	TypAccessToken = "at+jwt"        // RFC 9068
	TypProof       = "vxp-proof+jwt" // the proof package (proof.go)
)

// issuerKey is the issuer's signing key with its kid (RFC 7638 thumbprint).
type issuerKey struct {
	priv *ecdsa.PrivateKey
	kid  string
}

// errIssuerKey is bad_issuer_key for the key file at path.
func errIssuerKey(path, format string, args ...any) error {
	return &pure.Error{Code: pure.CodeBadIssuerKey, Field: path, Msg: fmt.Sprintf(format, args...)}
}

// openIssuerKey reads the issuer's key from dir, or creates it there (mode
// 0600, written to a temporary file and linked into place, so an existing
// file is never overwritten and a crash leaves no half-written key). A
// file that is not one P-256 private key is refused (bad_issuer_key):
// the operator decides, the node does not replace a key. An empty dir
// gives a key that lives in memory only (tests that need no restart).
func openIssuerKey(dir string, rnd io.Reader) (*issuerKey, error) {
	if dir == "" {
		priv, err := ecdsa.GenerateKey(elliptic.P256(), rnd)
		if err != nil {
			return nil, fmt.Errorf("vxp: issuer key: %w", err)
		}
		return newIssuerKey(priv)
	}
	path := filepath.Join(dir, IssuerKeyFile)
	raw, err := os.ReadFile(path)
	switch {
	case err == nil:
		priv, err := parseIssuerKey(raw)
		if err != nil {
			return nil, errIssuerKey(path, "%v", err)
		}
		return newIssuerKey(priv)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("vxp: issuer key: %w", err)
	}
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rnd)
	if err != nil {
		return nil, fmt.Errorf("vxp: issuer key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("vxp: issuer key: %w", err)
	}
	if err := writeNew(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})); err != nil {
		if errors.Is(err, fs.ErrExist) {
			// Another Start made it meanwhile: read that one.
			return openIssuerKey(dir, rnd)
		}
		return nil, fmt.Errorf("vxp: issuer key: %w", err)
	}
	return newIssuerKey(priv)
}

// writeNew writes b to a new file path (0600), failing with fs.ErrExist
// when path exists.
func writeNew(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".vxp-issuer-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Link(tmp, path)
}

// parseIssuerKey reads a PEM (PKCS #8 or SEC 1) or JWK P-256 private key.
func parseIssuerKey(raw []byte) (*ecdsa.PrivateKey, error) {
	var key any
	if blk, rest := pem.Decode(raw); blk != nil {
		if len(bytes.TrimSpace(rest)) != 0 {
			return nil, errors.New("more than one PEM block")
		}
		var err error
		switch blk.Type {
		case "PRIVATE KEY":
			key, err = x509.ParsePKCS8PrivateKey(blk.Bytes)
		case "EC PRIVATE KEY":
			key, err = x509.ParseECPrivateKey(blk.Bytes)
		default:
			return nil, fmt.Errorf("PEM block %q", blk.Type)
		}
		if err != nil {
			return nil, err
		}
	} else {
		var jwk jose.JSONWebKey
		if err := json.Unmarshal(raw, &jwk); err != nil {
			return nil, errors.New("neither PEM nor a JWK")
		}
		key = jwk.Key
	}
	priv, ok := key.(*ecdsa.PrivateKey)
	if !ok || priv.Curve != elliptic.P256() {
		return nil, errors.New("not an ECDSA P-256 private key")
	}
	return priv, nil
}

func newIssuerKey(priv *ecdsa.PrivateKey) (*issuerKey, error) {
	kid, err := pure.Thumbprint(&priv.PublicKey)
	if err != nil {
		return nil, err
	}
	return &issuerKey{priv: priv, kid: kid}, nil
}

// publicJWK returns the key's public JWK as jwks_uri serves it.
func (k *issuerKey) publicJWK() jose.JSONWebKey {
	return jose.JSONWebKey{Key: &k.priv.PublicKey, KeyID: k.kid, Use: "sig", Algorithm: string(jose.ES256)}
}

// sign returns the compact JWS of payload with header {alg ES256, kid, typ}.
func (k *issuerKey) sign(typ string, payload []byte) (string, error) {
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: k.priv, KeyID: k.kid}},
		(&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
	if err != nil {
		return "", err
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return obj.CompactSerialize()
}

// issuerJWKS is what jwks_uri serves: the issuer's public key and the
// node's inbox-key attestation of it, so that a holder of the node's
// identity link can check that the key is this node's.
type issuerJWKS struct {
	Keys         []jose.JSONWebKey     `json:"keys"`
	Attestations []node.KeyAttestation `json:"parley_attestations"`
}

// buildJWKS returns the JWKS text of k with the node's attestation.
func buildJWKS(k *issuerKey, b Backend) ([]byte, error) {
	att, err := b.AttestKey(IssuerKeyPurpose, k.kid)
	if err != nil {
		return nil, fmt.Errorf("vxp: attest the issuer key: %w", err)
	}
	return json.Marshal(issuerJWKS{Keys: []jose.JSONWebKey{k.publicJWK()}, Attestations: []node.KeyAttestation{att}})
}

// signJWS returns a compact JWS of payload signed with the issuer's key,
// its protected header {alg: ES256, kid, typ}. The proof package calls it
// with TypProof.
func (s *Server) signJWS(typ string, payload []byte) (string, error) {
	if s.auth == nil {
		return "", errNotStarted()
	}
	return s.auth.key.sign(typ, payload)
}

// IssuerJWKS returns the issuer's JWK Set as jwks_uri serves it: the
// public key (kid, use sig, alg ES256) and parley_attestations, the node's
// inbox-key attestation of that key. It fails before Start.
func (s *Server) IssuerJWKS() ([]byte, error) {
	if s.auth == nil {
		return nil, errNotStarted()
	}
	return append([]byte(nil), s.auth.jwks...), nil
}

func errNotStarted() error {
	return &pure.Error{Code: pure.CodeUnavailable, Msg: "the VXP server is not started"}
}
