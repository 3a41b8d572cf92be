package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	devnetMetricsRe = regexp.MustCompile(`(?m)^(\w+)\s+peer (\S+)\s+EVM (\S+)\s+p2p \S+\s+metrics (\S+)`)
	peersRe         = regexp.MustCompile(`(?m)^parley_node_peers (\d+)`)
)

// runDevnetOnce runs parley devnet in dir until every node is up and
// connected to the other two, then stops it as Ctrl-C would, and returns
// its output and the peer id of each role.
func runDevnetOnce(t *testing.T, dir string) (string, map[string]string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- runChainCmd(t, ctx, "", &out, "devnet", "--dir", dir, "--chain-port", "0", "--insecure-light-keys")
	}()
	peers := map[string]string{}
	var urls map[string]string
	eventually(t, "the devnet's nodes to run", func() bool {
		select {
		case err := <-done:
			t.Fatalf("devnet returned %v:\n%s", err, out.String())
		default:
		}
		urls = map[string]string{}
		for _, m := range devnetMetricsRe.FindAllStringSubmatch(out.String(), -1) {
			peers[m[1]], urls[m[1]] = m[2], m[4]
		}
		return len(urls) == 3 && strings.Count(out.String(), "running: peer") == 3 &&
			strings.Count(out.String(), "approves with the software key") == 3
	})
	for role, u := range urls {
		eventually(t, role+" to connect to the other two", func() bool {
			resp, err := http.Get(u)
			if err != nil {
				return false
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			m := peersRe.FindStringSubmatch(string(b))
			if m == nil {
				return false
			}
			n, _ := strconv.Atoi(m[1])
			return n >= 2
		})
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("devnet stopped with %v:\n%s", err, out.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("devnet did not stop:\n%s", out.String())
	}
	for _, role := range devnetRoles {
		if !strings.Contains(out.String(), `[`+role+`] parley node "`+role+`" stopped`) {
			t.Fatalf("%s did not stop cleanly:\n%s", role, out.String())
		}
	}
	if !strings.Contains(out.String(), "devnet stopped") {
		t.Fatalf("output:\n%s", out.String())
	}
	return out.String(), peers
}

// TestDevnet runs the devnet twice on one directory: three node processes
// on loopback, bootstrapped to each other, stopped cleanly; the second run
// keeps the keys, the funding and the chain.
func TestDevnet(t *testing.T) {
	t.Setenv("PARLEY_TEST_AS_MAIN", "1") // the nodes are this binary, run as parley
	dir := t.TempDir()
	first, peers1 := runDevnetOnce(t, dir)
	if strings.Count(first, "created keys") != 3 || strings.Count(first, " funded ") != 3 {
		t.Fatalf("first run:\n%s", first)
	}
	checkDevnetAPIs(t, dir, first)
	second, peers2 := runDevnetOnce(t, dir)
	if strings.Contains(second, "created keys") || strings.Contains(second, " funded ") {
		t.Fatalf("the second run made keys or funded again:\n%s", second)
	}
	for _, role := range devnetRoles {
		if peers1[role] == "" || peers1[role] != peers2[role] {
			t.Fatalf("%s's peer id changed across runs: %q, %q", role, peers1[role], peers2[role])
		}
	}
}
