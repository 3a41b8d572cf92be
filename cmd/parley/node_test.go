package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/node"
)

// lightKeys lowers the scrypt costs of keys made in tests.
func lightKeys(c *identity.Config) {
	c.ScryptWorkFactor = 10
	c.KeystoreScryptN, c.KeystoreScryptP = 1<<8, 1
	c.KEM = identity.KEMX25519
}

// runInit runs parley init with test-only scrypt costs.
func runInit(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	for _, c := range root.Commands() {
		if c.Name() == "init" {
			root.RemoveCommand(c)
		}
	}
	root.AddCommand(initCmd(lightKeys))
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetIn(strings.NewReader(""))
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestInit(t *testing.T) {
	t.Setenv(identity.PassphraseEnv, "init test passphrase")
	dir := filepath.Join(t.TempDir(), "worker")
	out, err := runInit(t, "init", "--data-dir", dir, "--role", "worker")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"created a worker node in " + dir, "identity link:", "peer id:", "EVM address:", filepath.Join(dir, ConfigFileName), filepath.Join(dir, APIKeyFileName),
		"passkey token: parley-enrol-", "open http://localhost:7482/passkeys"} {
		if !strings.Contains(out, want) {
			t.Fatalf("init output lacks %q:\n%s", want, out)
		}
	}
	k, err := identity.Open(identity.DefaultConfig(dir), []byte("init test passphrase"))
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Link().Verify(time.Now()); err != nil {
		t.Fatalf("the identity link: %v", err)
	}
	s, err := loadSettings(flagsWith(t, "data-dir", dir), envOf(nil))
	if err != nil || s.Node.Name != "worker" || s.File != filepath.Join(dir, ConfigFileName) || s.ApprovalMode != ApprovalPasskey || s.WebListen != "localhost:7482" ||
		len(s.Node.WebAuthn.Origins) != 1 || s.Node.WebAuthn.Origins[0] != "http://localhost:7482" {
		t.Fatalf("the config made: %+v, %v", s, err)
	}
	if key, err := os.ReadFile(filepath.Join(dir, APIKeyFileName)); err != nil || len(bytes.TrimSpace(key)) != 64 {
		t.Fatalf("API key %q, %v", key, err)
	}
	// The printed token is the data directory's, in a file only its owner
	// reads.
	printed := regexp.MustCompile(`passkey token: (parley-enrol-[0-9a-f]{64})`).FindStringSubmatch(out)
	tokFile := filepath.Join(dir, node.EnrolTokenFileName)
	if b, err := os.ReadFile(tokFile); err != nil || printed == nil || strings.TrimSpace(string(b)) != printed[1] || !strings.Contains(out, tokFile) {
		t.Fatalf("the token file %q %v, printed %v", b, err, printed)
	}
	if fi, err := os.Stat(tokFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the token file's mode: %v %v", fi, err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, ConfigFileName))
	out, err = runInit(t, "init", "--data-dir", dir, "--role", "poster")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(err.Error(), "refusing to overwrite") {
		t.Fatalf("a second init: %v\n%s", err, out)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, ConfigFileName)); !bytes.Equal(before, after) {
		t.Fatal("the second init changed the config")
	}
	if _, err := runInit(t, "init", "--data-dir", t.TempDir(), "--role", "judge"); err == nil {
		t.Fatal("an unknown role was accepted")
	}
}

var metricsRe = regexp.MustCompile(`metrics (http://127\.0\.0\.1:\d+/metrics)`)

// TestNodeRun runs the daemon of an initialised data directory against an
// embedded dev chain whose contracts are the ones init configured, scrapes
// its metrics, and stops it as Ctrl-C would.
func TestNodeRun(t *testing.T) {
	t.Setenv(identity.PassphraseEnv, "node run test passphrase")
	dir := t.TempDir()
	initOut, err := runInit(t, "init", "--data-dir", dir, "--role", "poster")
	if err != nil {
		t.Fatalf("%v\n%s", err, initOut)
	}
	token := regexp.MustCompile(`passkey token: (parley-enrol-[0-9a-f]{64})`).FindStringSubmatch(initOut)
	if token == nil {
		t.Fatalf("init printed no token:\n%s", initOut)
	}
	webPort, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	pages := "http://localhost:" + strconv.Itoa(webPort)
	cfg := chain.DefaultDevchainConfig()
	cfg.Logger = slog.New(slog.DiscardHandler)
	dev, err := chain.StartDevchain(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	if dev.Contracts != devchainContracts {
		t.Fatalf("a fresh dev chain deploys %+v; init configures %+v", dev.Contracts, devchainContracts)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- runChainCmd(t, ctx, "", &out, "node", "run", "--data-dir", dir, "--chain-rpc", dev.URL,
			"--p2p-listen", "/ip4/127.0.0.1/tcp/0", "--metrics-listen", "127.0.0.1:0", "--api-listen", "127.0.0.1:0", "--log-format", "json", "--p2p-dht", "false",
			"--p2p-announce", "/ip4/127.0.0.2/tcp/4001", "--p2p-reachability", "private",
			"--web-listen", "localhost:"+strconv.Itoa(webPort))
	}()
	var url string
	eventually(t, "the node to run", func() bool {
		select {
		case err := <-done:
			t.Fatalf("node run returned %v:\n%s", err, out.String())
		default:
		}
		m := metricsRe.FindStringSubmatch(out.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	})
	if !strings.Contains(out.String(), `running: peer 12D3KooW`) || !strings.Contains(out.String(), dev.URL) ||
		!strings.Contains(out.String(), "\n  listening /ip4/127.0.0.1/tcp/") || !strings.Contains(out.String(), "\n  announced /ip4/127.0.0.2/tcp/4001/p2p/12D3KooW") ||
		!strings.Contains(out.String(), "set by p2p.reachability; addresses from p2p.announce)\n") {
		t.Fatalf("output:\n%s", out.String())
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"parley_node_threads", "parley_node_peers", "go_goroutines"} {
		if !strings.Contains(string(body), want) {
			t.Fatalf("/metrics lacks %s", want)
		}
	}
	checkAPIServed(t, out.String(), dir)
	if key, err := readAPIKey(filepath.Join(dir, APIKeyFileName)); err != nil {
		t.Fatal(err)
	} else {
		checkMCPServed(t, out.String(), key)
	}
	// The principal's pages are served at localhost, and the token init
	// printed enrols the first passkey (here a software key, through the
	// API).
	if !strings.Contains(out.String(), "pages "+pages+")") {
		t.Fatalf("the summary lacks the pages:\n%s", out.String())
	}
	if resp, err := http.Get(pages + "/passkeys"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET the passkeys page: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	apiURL := regexp.MustCompile(`api (http://127\.0\.0\.1:\d+)/v1`).FindStringSubmatch(out.String())
	keyFile := filepath.Join(t.TempDir(), "bot.key")
	reg := cli(t, "approvals", "software-key", "new", "--out", keyFile, "--token", token[1], "--api", apiURL[1], "--api-key-file", filepath.Join(dir, APIKeyFileName))
	if reg.e != nil || !strings.Contains(reg.out, "registered") {
		t.Fatalf("registering with init's token: %v\n%s%s", reg.e, reg.out, reg.err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("node run stopped with %v\n%s", err, out.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("node run did not stop")
	}
	if !strings.Contains(out.String(), `parley node "poster" stopped`) {
		t.Fatalf("output:\n%s", out.String())
	}
}

// TestNodeRunBadConfig: a bad value exits 2 and names its key.
func TestNodeRunBadConfig(t *testing.T) {
	var out syncBuffer
	err := runChainCmd(t, t.Context(), "", &out, "node", "run", "--data-dir", t.TempDir(), "--chain-poll-interval", "often")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), "chain.poll_interval") {
		t.Fatalf("node run with a bad value: %v", err)
	}
	for _, tc := range []struct{ flag, value, key string }{
		{"--p2p-announce", "/ip4/0.0.0.0/tcp/4001", "p2p.announce"},
		{"--p2p-announce", "/ip4/203.0.113.7/tcp/4001/p2p/12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN", "p2p.announce"},
		{"--p2p-relays", "/ip4/203.0.113.9/tcp/4001", "p2p.relays"},
		{"--p2p-reachability", "relayed", "p2p.reachability"},
	} {
		err := runChainCmd(t, t.Context(), "", &out, "node", "run", "--data-dir", t.TempDir(), tc.flag, tc.value)
		if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), tc.key) {
			t.Fatalf("node run %s %s: %v, want exit 2 naming %s", tc.flag, tc.value, err, tc.key)
		}
	}
}

func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
