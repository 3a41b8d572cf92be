package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/strictjson"
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
	var out, errOut syncBuffer
	done := make(chan error, 1)
	go func() {
		// The nodes' stderr (why one exited) goes to errOut, shown when
		// the devnet fails.
		root := newRootCmd()
		root.SetOut(&out)
		root.SetErr(&errOut)
		root.SetIn(strings.NewReader(""))
		root.SetArgs([]string{"devnet", "--dir", dir, "--chain-port", "0", "--insecure-light-keys"})
		done <- root.ExecuteContext(ctx)
	}()
	peers := map[string]string{}
	var urls map[string]string
	eventually(t, "the devnet's nodes to run", func() bool {
		select {
		case err := <-done:
			t.Fatalf("devnet returned %v:\n%s\nits stderr:\n%s", err, out.String(), errOut.String())
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
	checkDevnetVXP(t, dir, out.String())
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

// checkDevnetVXP: devnet.json names each node's VXP base URL, on loopback
// and its own port; the node prints it; vxp.json and the issuer's RFC 8414
// metadata are served there, public, the issuer <vxp_url>/vxp equal
// character by character in both; a request for another Host is refused.
func checkDevnetVXP(t *testing.T, dir, out string) {
	t.Helper()
	st := readDevnetState(t, dir)
	seen := map[int]bool{}
	for _, role := range devnetRoles {
		p := st.Nodes[role]
		if p.VXP == 0 || p.VXPURL != "http://127.0.0.1:"+strconv.Itoa(p.VXP) || seen[p.VXP] ||
			!regexp.MustCompile(`(?m)^`+role+`\s+peer \S+\s+EVM `+p.EVMAddress+` `).MatchString(out) {
			t.Fatalf("%s's VXP in devnet.json: %+v", role, p)
		}
		seen[p.VXP] = true
		for _, other := range []int{p.P2P, p.API, p.Web, p.Metrics} {
			if other == p.VXP {
				t.Fatalf("%s's VXP port is another listener's: %+v", role, p)
			}
		}
		if !strings.Contains(out, "["+role+"]   vxp "+p.VXPURL+" ("+p.VXPURL+"/.well-known/vxp.json, issuer "+p.VXPURL+"/vxp;") ||
			!strings.Contains(out, " vxp "+p.VXPURL+"  data ") {
			t.Fatalf("the output does not name %s's VXP URL %s:\n%s", role, p.VXPURL, out)
		}
		get := func(url, host string) (int, map[string]any) {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
			if err != nil {
				t.Fatal(err)
			}
			if host != "" {
				req.Host = host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var m map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
				t.Fatalf("%s: %v", url, err)
			}
			return resp.StatusCode, m
		}
		issuer := p.VXPURL + "/vxp"
		code, doc := get(p.VXPURL+"/.well-known/vxp.json", "")
		org, _ := doc["organization"].(map[string]any)
		if code != http.StatusOK || doc["issuer"] != issuer || doc["endpoint"] != issuer+"/v1" || org["domain"] != "127.0.0.1" || org["name"] != role {
			t.Fatalf("%s's vxp.json: %d %v", role, code, doc)
		}
		code, md := get(p.VXPURL+"/.well-known/oauth-authorization-server/vxp", "")
		if code != http.StatusOK || md["issuer"] != issuer || md["token_endpoint"] != issuer+"/oauth/token" || md["device_authorization_endpoint"] != issuer+"/oauth/device" {
			t.Fatalf("%s's issuer metadata: %d %v", role, code, md)
		}
		code, e := get(p.VXPURL+"/.well-known/vxp.json", "evil.example")
		if ee, _ := e["error"].(map[string]any); code != http.StatusBadRequest || ee["code"] != "wrong_host" {
			t.Fatalf("%s's vxp.json for another Host: %d %v", role, code, e)
		}
	}
}

// readDevnetState reads a running devnet's devnet.json once it names
// every node's registered software key (it is rewritten then).
func readDevnetState(t *testing.T, dir string) devnetState {
	t.Helper()
	var st devnetState
	eventually(t, "devnet.json to name every node's software key", func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "devnet.json"))
		if err != nil || strictjson.Unmarshal(b, &st) != nil {
			return false
		}
		for _, role := range devnetRoles {
			if st.Nodes[role].SoftwareKeyFile == "" {
				return false
			}
		}
		return true
	})
	return st
}
