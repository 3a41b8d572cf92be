package gate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleynet/parley/approval"
)

// TestDirTokens: the enrolment half of approval.TokenStore on the data
// directory's record: ErrNotFound before a token, one redemption of the
// current hash (another hash is ErrNotFound), the record and the token's
// text written with mode 0600, the text removed once redeemed, every
// change on disk for a fresh reader (another process), and a damaged
// record reported as damaged, never read as empty.
func TestDirTokens(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	d := newDirTokens(dir)
	if _, err := d.EnrolToken(ctx); !errors.Is(err, approval.ErrNotFound) {
		t.Fatalf("no token yet: %v", err)
	}
	if _, err := d.RedeemEnrolToken(ctx, "h1", time.Now()); !errors.Is(err, approval.ErrNotFound) {
		t.Fatalf("redeeming without a token: %v", err)
	}
	now := time.Now()
	tok, exp, err := d.issueEnrol(ctx, now, 0)
	if err != nil || !strings.HasPrefix(tok, approval.EnrolTokenPrefix) || !exp.Equal(now.UTC().Add(approval.DefaultEnrolTokenTTL)) {
		t.Fatalf("issued %q until %v: %v", tok, exp, err)
	}
	for _, name := range []string{TokensFileName, EnrolTokenFileName} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", name, fi.Mode(), err)
		}
	}
	rec, _ := os.ReadFile(filepath.Join(dir, TokensFileName))
	if strings.Contains(string(rec), tok) {
		t.Fatal("the record holds the token's text")
	}
	if txt, _ := os.ReadFile(filepath.Join(dir, EnrolTokenFileName)); strings.TrimSpace(string(txt)) != tok {
		t.Fatalf("the text file holds %q", txt)
	}
	if got, _, err := EnrolTokenOf(dir, now); err != nil || got != tok {
		t.Fatalf("EnrolTokenOf: %q %v", got, err)
	}
	if got, _, _ := EnrolTokenOf(dir, exp); got != "" {
		t.Fatal("an expired token is offered")
	}
	h := tokenHash(tok)
	if _, err := d.RedeemEnrolToken(ctx, "h2", time.Now()); !errors.Is(err, approval.ErrNotFound) {
		t.Fatalf("redeeming another token: %v", err)
	}
	other := newDirTokens(dir) // another process
	for i, want := range []bool{false, true, true} {
		s := d
		if i%2 == 1 {
			s = other
		}
		if already, err := s.RedeemEnrolToken(ctx, h, time.Now()); err != nil || already != want {
			t.Fatalf("redemption %d: %v %v", i, already, err)
		}
	}
	if rt, err := newDirTokens(dir).EnrolToken(ctx); err != nil || rt.RedeemedAt.IsZero() {
		t.Fatalf("the redeemed token read afresh: %+v %v", rt, err)
	}
	if _, err := os.Stat(filepath.Join(dir, EnrolTokenFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the redeemed token's text is still there: %v", err)
	}
	if got, _, _ := EnrolTokenOf(dir, now); got != "" {
		t.Fatal("a redeemed token is offered")
	}

	if err := os.WriteFile(filepath.Join(dir, TokensFileName), []byte(`{"format":"parley-tokens/1","enrol":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := d.EnrolToken(ctx); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("a cut record: %v", err)
	}
	if _, err := IssueEnrolToken(ctx, dir, now, 0); CodeOf(err) != CodeStoreFailed {
		t.Fatalf("issuing over a damaged record: %v", err)
	}
}

// TestDirTokensRedeemOnce: many concurrent redemptions of one token, from
// as many readers of the data directory (each its own lock descriptor, as
// separate processes have): exactly one spends it.
func TestDirTokensRedeemOnce(t *testing.T) {
	dir := t.TempDir()
	tok, _, err := newDirTokens(dir).issueEnrol(t.Context(), time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	const k = 20
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for range k {
		wg.Go(func() {
			already, err := newDirTokens(dir).RedeemEnrolToken(t.Context(), tokenHash(tok), time.Now())
			if err != nil {
				t.Error(err)
				return
			}
			if !already {
				mu.Lock()
				won++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if won != 1 {
		t.Fatalf("%d redemptions won, want 1", won)
	}
}

// TestIssueEnrolTokenArguments: a data directory that does not exist and
// a window under a minute are refused.
func TestIssueEnrolTokenArguments(t *testing.T) {
	if _, err := IssueEnrolToken(t.Context(), filepath.Join(t.TempDir(), "missing"), time.Now(), 0); CodeOf(err) != CodeBadArgument {
		t.Fatalf("a missing data directory: %v", err)
	}
	if _, err := IssueEnrolToken(t.Context(), t.TempDir(), time.Now(), time.Second); CodeOf(err) != CodeBadArgument {
		t.Fatalf("a one-second token: %v", err)
	}
}

// TestRevokeToken: a revocation token revokes only the credential it was
// made for, once, within its window.
func TestRevokeToken(t *testing.T) {
	dir := t.TempDir()
	ref := approval.CredentialRef([]byte("credential"))
	now := time.Now()
	if _, err := IssueRevokeToken(dir, "not-a-ref", now, 0); CodeOf(err) != CodeBadArgument {
		t.Fatalf("a bad reference: %v", err)
	}
	d := newDirTokens(dir)
	if err := d.redeemRevoke("parley-revoke-00", ref, now); CodeOf(err) != Code(approval.CodeTokenInvalid) {
		t.Fatalf("no token made: %v", err)
	}
	tok, err := IssueRevokeToken(dir, ref, now, 0)
	if err != nil || !strings.HasPrefix(tok, RevokeTokenPrefix) {
		t.Fatalf("token %q %v", tok, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, TokensFileName)); strings.Contains(string(b), tok) {
		t.Fatal("the record holds the token's text")
	}
	cases := []struct {
		name, token, ref string
		at               time.Time
		want             Code
	}{
		{"another token", tok + "0", ref, now, Code(approval.CodeTokenInvalid)},
		{"another credential", tok, approval.CredentialRef([]byte("other")), now, Code(approval.CodeTokenInvalid)},
		{"after its window", tok, ref, now.Add(DefaultRevokeTokenTTL), Code(approval.CodeTokenExpired)},
		{"the token", tok, ref, now, ""},
		{"again", tok, ref, now, Code(approval.CodeTokenUsed)},
	}
	for _, c := range cases {
		if err := d.redeemRevoke(c.token, c.ref, c.at); CodeOf(err) != c.want {
			t.Fatalf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
