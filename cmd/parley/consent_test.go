package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

// TestConsentCommands: the worker's principal denies the poster with
// `parley consent deny`; the poster's proposal is refused, and
// `parley negotiation show` on the poster's node says so with the code;
// `parley consent list` shows the poster denied, with the refusal;
// allow and reset change the state, each recorded in the ledger.
func TestConsentCommands(t *testing.T) {
	worker := startAPINode(t, "worker", node.AutoApprove("test"))
	poster := startAPINode(t, "poster", nil, worker)
	P, W := poster.conn(), worker.conn()
	pa := poster.Address().String()

	if out := ok(t, with(W, "consent", "deny", strings.ToLower(pa))...); !strings.Contains(out, pa+" is denied") {
		t.Fatalf("consent deny: %q", out)
	}
	out := ok(t, with(P, "task", "propose", "--worker", worker.Address().String(), "--title", "Proofread", "--milestone", "0.01eth:all", "-q")...)
	nid := regexp.MustCompile(`(?m)^negotiation\s+([0-9a-f-]{36})$`).FindStringSubmatch(out)
	if nid == nil {
		t.Fatalf("task propose:\n%s", out)
	}
	want := regexp.MustCompile(`(?m)^refused\s+` + string(p2p.CodeConsentDenied) + " by " + worker.Address().String() + `: 0x[0-9a-f]{64} \(not delivered\)$`)
	var show string
	for range 300 {
		if show = ok(t, with(P, "negotiation", "show", nid[1])...); want.MatchString(show) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !want.MatchString(show) {
		t.Fatalf("negotiation show on the poster's node does not show the refusal:\n%s", show)
	}
	list := ok(t, with(W, "consent", "list")...)
	if !regexp.MustCompile(pa + `\s+denied\s+0\s+0\s+1\s+\S+ \S+ via api`).MatchString(list) {
		t.Fatalf("consent list:\n%s", list)
	}
	var vs []node.ConsentView
	if err := json.Unmarshal([]byte(ok(t, with(W, "consent", "list", "--json")...)), &vs); err != nil || len(vs) != 1 || vs[0].State != node.ConsentDenied {
		t.Fatalf("consent list --json: %+v %v", vs, err)
	}
	ok(t, with(W, "consent", "allow", pa)...)
	if out := ok(t, with(W, "consent", "reset", pa)...); !strings.Contains(out, pa+" is unknown") {
		t.Fatalf("consent reset: %q", out)
	}
	n := 0
	for e, err := range worker.Ledger().ByKind(t.Context(), node.KindConsent) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		_ = e
	}
	if n != 3 {
		t.Fatalf("%d consent entries in the worker's ledger, want 3", n)
	}
	if r := cli(t, with(W, "consent", "deny", "0x12")...); exitCode(r.e) != exitUsage {
		t.Fatalf("a bad address: %v", r.e)
	}
}

// TestTaskPostShowsTheWait: a post the node refuses beyond the board's
// rate (429 rate_limited with Retry-After) says how long to wait.
func TestTaskPostShowsTheWait(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "2")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"error":{"code":"rate_limited","message":"this node publishes at most 50 announcements a second"}}`))
	}))
	defer ts.Close()
	keyFile := filepath.Join(t.TempDir(), "api.key")
	if err := os.WriteFile(keyFile, []byte("0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := []string{"--api", ts.URL, "--api-key-file", keyFile}
	for _, args := range [][]string{
		with(c, "task", "post", "--title", "T", "--milestone", "1eth:x"),
		with(c, "task", "announce", "0x"+strings.Repeat("ab", 32)),
	} {
		r := cli(t, args...)
		if exitCode(r.e) != exitRefused || !strings.Contains(r.e.Error(), "rate_limited") || !strings.Contains(r.e.Error(), "try again in 2s") {
			t.Fatalf("parley %s: %v", strings.Join(args[4:], " "), r.e)
		}
	}
}
