package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	vxpsrv "github.com/parleynet/parley/node/vxp"
	"github.com/parleynet/parley/vxp"
)

// writeTLSPair writes a self-signed certificate for vxp.example and its
// key into dir as cert.pem and key.pem.
func writeTLSPair(t *testing.T, dir string) (string, string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "vxp.example"}, DNSNames: []string{"vxp.example"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:   time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// TestConfigVXP: the vxp.* keys have their defaults (VXP off), load from
// every source, and every rule that keeps VXP's listener, the first one
// meant for other machines, from being served insecurely refuses at load
// naming its key; each accepted row is a setting a deployment uses.
func TestConfigVXP(t *testing.T) {
	dir := t.TempDir()
	cert, key := writeTLSPair(t, dir)
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a PEM file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := loadSettings(flagsWith(t), envOf(map[string]string{"PARLEY_DATA_DIR": dir}))
	if err != nil {
		t.Fatal(err)
	}
	v := s.VXP
	if v.Enabled || v.Listen != DefaultVXPListen || v.PublicURL != "" || v.AllowInsecureLoopback || v.BehindProxy ||
		!slices.Equal(v.Capabilities, vxp.DefaultCapabilities) || v.TokenTTL != vxpsrv.DefaultTokenTTL || v.GrantTTL != vxpsrv.DefaultGrantTTL ||
		v.DeviceTTL != vxpsrv.DefaultDeviceTTL || v.DeviceInterval != vxpsrv.DefaultDeviceInterval || v.RatePerMinute != vxpsrv.DefaultRatePerMinute {
		t.Fatalf("defaults: %+v", v)
	}
	on := []string{"vxp-enabled", "true"}
	https := append(slices.Clone(on), "vxp-public-url", "https://vxp.example")
	devnet := append(slices.Clone(on), "vxp-public-url", "http://127.0.0.1:7510", "vxp-listen", "127.0.0.1:7510", "vxp-allow-insecure-loopback", "true")
	remote := append(slices.Clone(https), "vxp-listen", "0.0.0.0:443")
	for _, tc := range []struct {
		name  string
		flags []string
		want  []string // nil: accepted
	}{
		{"off: nothing else is checked", []string{"vxp-public-url", "http://example.com", "vxp-listen", "0.0.0.0:80"}, nil},
		{"devnet: http on loopback", devnet, nil},
		{"https behind a proxy on this machine", https, nil},
		{"beyond loopback with TLS", append(slices.Clone(remote), "vxp-tls-cert-file", cert, "vxp-tls-key-file", key), nil},
		{"beyond loopback behind a proxy", append(slices.Clone(remote), "vxp-behind-proxy", "true"), nil},
		{"some capabilities", append(slices.Clone(https), "vxp-capabilities", "negotiation.read,offer.respond"), nil},

		{"enabled without public_url", on, []string{"vxp.public_url"}},
		{"http public_url", append(slices.Clone(on), "vxp-public-url", "http://127.0.0.1:7510"), []string{"vxp.public_url", "https only"}},
		{"http public_url beyond loopback", append(slices.Clone(on), "vxp-public-url", "http://vxp.example", "vxp-allow-insecure-loopback", "true"), []string{"vxp.public_url", "loopback"}},
		{"public_url with a path", append(slices.Clone(on), "vxp-public-url", "https://vxp.example/agents"), []string{"vxp.public_url", "origin"}},
		{"enabled without listen", append(slices.Clone(https), "vxp-listen", ""), []string{"vxp.listen"}},
		{"insecure loopback beyond loopback", append(slices.Clone(devnet), "vxp-listen", "0.0.0.0:7510", "vxp-tls-cert-file", cert, "vxp-tls-key-file", key), []string{"vxp.allow_insecure_loopback", "beyond loopback"}},
		{"beyond loopback without TLS", remote, []string{"vxp.listen", "without TLS", "vxp.behind_proxy"}},
		{"a proxy for an http public_url", append(slices.Clone(devnet), "vxp-behind-proxy", "true"), []string{"vxp.behind_proxy", "is http"}},
		{"a certificate without its key", append(slices.Clone(remote), "vxp-tls-cert-file", cert), []string{"vxp.tls_key_file", "both or neither"}},
		{"a key without its certificate", append(slices.Clone(remote), "vxp-tls-key-file", key), []string{"vxp.tls_cert_file", "both or neither"}},
		{"TLS files that do not load", append(slices.Clone(remote), "vxp-tls-cert-file", garbage, "vxp-tls-key-file", key), []string{"vxp.tls_cert_file"}},
		{"TLS files that are missing", append(slices.Clone(remote), "vxp-tls-cert-file", filepath.Join(dir, "none.pem"), "vxp-tls-key-file", key), []string{"vxp.tls_cert_file", "no such file"}},
		{"TLS for an http public_url", append(slices.Clone(devnet), "vxp-tls-cert-file", cert, "vxp-tls-key-file", key), []string{"vxp.tls_cert_file", "is http"}},
		{"unknown capability", []string{"vxp-capabilities", "offer.respond,wallet.drain"}, []string{"vxp.capabilities", "wallet.drain"}},
		{"capability twice", []string{"vxp-capabilities", "offer.respond,offer.respond"}, []string{"vxp.capabilities", "twice"}},
		{"token ttl", []string{"vxp-token-ttl", "48h"}, []string{"vxp.token_ttl", "1m..24h"}},
		{"grant ttl", []string{"vxp-grant-ttl", "10s"}, []string{"vxp.grant_ttl"}},
		{"device ttl", []string{"vxp-device-ttl", "2h"}, []string{"vxp.device_ttl"}},
		{"device interval", []string{"vxp-device-interval", "100ms"}, []string{"vxp.device_interval"}},
		{"rate", []string{"vxp-rate-per-minute", "0"}, []string{"vxp.rate_per_minute"}},
		{"listen", []string{"vxp-listen", "7500"}, []string{"vxp.listen", "host:port"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadSettings(flagsWith(t, tc.flags...), envOf(map[string]string{"PARLEY_DATA_DIR": dir}))
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("error %q does not say %q", err, w)
				}
			}
		})
	}

	// From a file: the TLS files are relative to it, the capabilities a
	// list; from the environment: PARLEY_VXP_*.
	file := filepath.Join(dir, "node.yaml")
	body := "vxp:\n  enabled: true\n  listen: 0.0.0.0:8443\n  public_url: https://vxp.example\n  tls_cert_file: cert.pem\n  tls_key_file: key.pem\n  capabilities:\n    - offer.respond\n  grant_ttl: 24h\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = loadSettings(flagsWith(t, "config", file), envOf(map[string]string{"PARLEY_VXP_RATE_PER_MINUTE": "30", "PARLEY_VXP_TOKEN_TTL": "5m"}))
	if err != nil {
		t.Fatal(err)
	}
	v = s.VXP
	if !v.Enabled || v.TLSCertFile != cert || v.TLSKeyFile != key || !slices.Equal(v.Capabilities, []string{"offer.respond"}) ||
		v.GrantTTL != 24*time.Hour || v.RatePerMinute != 30 || v.TokenTTL != 5*time.Minute {
		t.Fatalf("from the file and the environment: %+v", v)
	}
}
