package vxp

import (
	"crypto/elliptic"
	"strings"
	"testing"
	"time"

	pure "github.com/parleynet/parley/vxp"
)

// FuzzIssuerKey: the key file's reader never panics and returns only
// P-256 private keys.
func FuzzIssuerKey(f *testing.F) {
	f.Add([]byte("-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n"))
	f.Add([]byte(`{"kty":"EC","crv":"P-256","x":"AA","y":"AA","d":"AA"}`))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		k, err := parseIssuerKey(b)
		if err != nil {
			return
		}
		if k == nil || k.Curve != elliptic.P256() {
			t.Fatalf("accepted %v", k)
		}
		if d, err := k.Bytes(); err != nil || len(d) != 32 {
			t.Fatalf("accepted %v", k)
		}
	})
}

// FuzzDeviceDetails: a device authorization's authorization_details
// decoder never panics, and what it accepts is offered, delegated and
// canonical.
func FuzzDeviceDetails(f *testing.F) {
	s, err := New(nil, Config{PublicURL: "https://node.example"})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(`[{"type":"` + pure.CapabilityType + `","actions":["offer.respond"],"identifier":"n1"}]`)
	f.Add(`[{"type":"` + pure.CapabilityType + `","actions":["negotiation.read"],"identifier":"n1"},{"type":"` + pure.RelationshipType + `","company_initiated_actions":["question.ask"]}]`)
	f.Add(`[{"type":"x"}]`)
	f.Fuzz(func(t *testing.T, raw string) {
		ds, _, jcs, err := s.parseDeviceDetails(raw)
		if err != nil {
			if pure.CodeOf(err) != pure.CodeInvalidAuthorizationDetails {
				t.Fatalf("refusal of another code: %v", err)
			}
			return
		}
		for _, d := range ds {
			for _, a := range d.Actions {
				if op, ok := s.offeredOp(a); !ok || op.Access != pure.AccessDelegated {
					t.Fatalf("accepted %q", a)
				}
			}
		}
		if !strings.HasPrefix(jcs, "[") {
			t.Fatalf("jcs %q", jcs)
		}
	})
}

// FuzzNonce: only the current and the previous window's nonces hold.
func FuzzNonce(f *testing.F) {
	n := &nonces{window: NonceWindow}
	at := time.Unix(1800000000, 0)
	f.Add(n.current(at))
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		if n.valid(s, at) && s != n.current(at) && s != n.current(at.Add(-NonceWindow)) {
			t.Fatalf("accepted %q", s)
		}
	})
}

// TestRateLimiterForgets: the limiter holds at most its bound of
// addresses, forgetting the one idle longest.
func TestRateLimiterForgets(t *testing.T) {
	rl := newRateLimiter(1, 2)
	now := time.Unix(1800000000, 0)
	if !rl.allow("a", now) || rl.allow("a", now) {
		t.Fatal("a: one call a minute")
	}
	rl.allow("b", now.Add(time.Second))
	rl.allow("c", now.Add(2*time.Second)) // forgets a
	if len(rl.ips) != 2 || rl.ips["a"] != nil {
		t.Fatalf("held %v", rl.ips)
	}
	if !rl.allow("a", now.Add(3*time.Second)) {
		t.Fatal("a forgotten starts with a full bucket")
	}
}
