package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/parleynet/parley/node/api"
)

var apiLineRe = regexp.MustCompile(`(?m)^  api (http://127\.0\.0\.1:\d+)/v1 \(bearer key in (\S+)\)$`)

// checkAPIServed finds the API's URL in node run's startup lines and
// checks that it serves the node: 401 without the key of dir's api.key,
// the status with it, and the public discovery document naming the same
// endpoint.
func checkAPIServed(t *testing.T, out, dir string) {
	t.Helper()
	m := apiLineRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no api line in:\n%s", out)
	}
	base, keyFile := m[1], m[2]
	if keyFile != filepath.Join(dir, APIKeyFileName) {
		t.Fatalf("key file %s", keyFile)
	}
	key, err := readAPIKey(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string, auth bool) (int, []byte) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if auth {
			req.Header.Set("Authorization", "Bearer "+string(key))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, b
	}
	if code, _ := get("/v1/status", false); code != http.StatusUnauthorized {
		t.Fatalf("status without the key: %d", code)
	}
	code, body := get("/v1/status", true)
	if code != http.StatusOK || !strings.Contains(string(body), `"name":"poster"`) {
		t.Fatalf("status: %d %s", code, body)
	}
	code, body = get("/.well-known/parley.json", false)
	var d api.Discovery
	if code != http.StatusOK || json.Unmarshal(body, &d) != nil || d.Endpoint != base+"/v1" || d.Organization.Name != "poster" {
		t.Fatalf("discovery: %d %s", code, body)
	}
	if len(d.Capabilities) != 1 || d.Capabilities[0] != (api.DiscoveryCap{ID: "translation", Effect: "offer"}) {
		t.Fatalf("a poster's capabilities: %+v", d.Capabilities)
	}
}

// TestAPIConfig: the API's keys load from every source, api.listen beyond
// loopback is refused unless api.allow_remote says so, and api.offers must
// be capabilities.
func TestAPIConfig(t *testing.T) {
	dir := t.TempDir()
	env := envOf(map[string]string{"PARLEY_DATA_DIR": dir})
	s, err := loadSettings(flagsWith(t), env)
	if err != nil || s.APIListen != DefaultAPIListen || s.APIMaxBody != api.DefaultMaxBody || s.APIAllowRemote {
		t.Fatalf("defaults: %+v, %v", s, err)
	}
	s, err = loadSettings(flagsWith(t, "api-listen", "127.0.0.1:0", "api-max-body", "512KiB"), env)
	if err != nil || s.APIListen != "127.0.0.1:0" || s.APIMaxBody != 512<<10 {
		t.Fatalf("flags: %+v, %v", s, err)
	}
	file := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(file, []byte("capabilities: [translation]\napi:\n  listen: \"0.0.0.0:7464\"\n  allow_remote: true\n  offers: [translation]\n  max_body: 65536\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = loadSettings(flagsWith(t, "config", file), env)
	if err != nil || s.APIListen != "0.0.0.0:7464" || !s.APIAllowRemote || s.APIMaxBody != 65536 || len(s.APIOffers) != 1 {
		t.Fatalf("file: %+v, %v", s, err)
	}
	for _, tc := range []struct {
		flags []string
		want  []string
	}{
		{[]string{"api-listen", "0.0.0.0:7464"}, []string{"api.listen", "api.allow_remote", "loopback"}},
		{[]string{"api-listen", ":7464"}, []string{"api.listen", "api.allow_remote"}},
		{[]string{"api-listen", "192.168.1.5:7464"}, []string{"api.listen", "api.allow_remote"}},
		{[]string{"api-listen", "127.0.0.1"}, []string{"api.listen", "host:port"}},
		{[]string{"api-max-body", "lots"}, []string{"api.max_body"}},
		{[]string{"api-max-body", "100"}, []string{"api.max_body", "1KiB"}},
		{[]string{"api-allow-remote", "perhaps"}, []string{"api.allow_remote"}},
		{[]string{"capabilities", "translation", "api-offers", "juggling"}, []string{"api.offers", "juggling"}},
	} {
		_, err := loadSettings(flagsWith(t, tc.flags...), env)
		if err == nil {
			t.Fatalf("%v: accepted", tc.flags)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Fatalf("%v: error %q does not say %q", tc.flags, err, w)
			}
		}
	}
	if _, err := loadSettings(flagsWith(t, "api-listen", "[::1]:7464"), env); err != nil {
		t.Fatalf("an IPv6 loopback address: %v", err)
	}
	if _, err := loadSettings(flagsWith(t, "api-listen", "", "api-allow-remote", "false"), env); err != nil {
		t.Fatalf("the API turned off: %v", err)
	}
}

// TestReadAPIKey: the key is the file's text without white space; a
// missing or short key is refused naming the file.
func TestReadAPIKey(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, APIKeyFileName)
	if _, err := readAPIKey(p); err == nil || !strings.Contains(err.Error(), "parley init") {
		t.Fatalf("a missing key: %v", err)
	}
	if err := os.WriteFile(p, []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readAPIKey(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("a short key: %v", err)
	}
	if err := os.WriteFile(p, []byte("  0123456789abcdef0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, err := readAPIKey(p); err != nil || string(k) != "0123456789abcdef0123" {
		t.Fatalf("key %q, %v", k, err)
	}
}

// checkDevnetAPIs: devnet.json names each node's API URL and key file, the
// key file holds a key, and the devnet's summary prints the URL.
func checkDevnetAPIs(t *testing.T, dir, out string) {
	t.Helper()
	st, err := devnetLoadState(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, role := range devnetRoles {
		p := st.Nodes[role]
		if p.API == 0 || p.APIURL != "http://127.0.0.1:"+strconv.Itoa(p.API) || p.APIKeyFile != filepath.Join(dir, role, APIKeyFileName) {
			t.Fatalf("%s in devnet.json: %+v", role, p)
		}
		if _, err := readAPIKey(p.APIKeyFile); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "api "+p.APIURL+"/v1") {
			t.Fatalf("the summary lacks %s's API:\n%s", role, out)
		}
		if p.SoftwareKeyFile != filepath.Join(dir, role+".software-key") || p.WebURL != "http://localhost:"+strconv.Itoa(p.Web) {
			t.Fatalf("%s's software key and pages in devnet.json: %+v", role, p)
		}
		if fi, err := os.Stat(p.SoftwareKeyFile); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s's software key file: %v %v", role, fi, err)
		}
		if _, err := loadSoftwareKey(p.SoftwareKeyFile); err != nil {
			t.Fatal(err)
		}
	}
}
