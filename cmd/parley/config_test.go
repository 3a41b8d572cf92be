package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

var update = flag.Bool("update", false, "rewrite configs/*.yaml from the code that makes them")

// TestMain lets the test binary run as the parley command (the devnet
// test starts its nodes as separate processes of this binary).
func TestMain(m *testing.M) {
	if os.Getenv("PARLEY_TEST_AS_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// flagsWith returns node run's flags with the given ones set.
func flagsWith(t *testing.T, kv ...string) *pflag.FlagSet {
	t.Helper()
	fs := newNodeRunCmd().Flags()
	for i := 0; i+1 < len(kv); i += 2 {
		if err := fs.Set(kv[i], kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	return fs
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "node.yaml")
	if err := os.WriteFile(file, []byte("name: from-file\np2p:\n  retry_max: 3s\n  bootstrap:\n    - /ip4/127.0.0.1/tcp/4001/p2p/12D3KooWQYhTNQdmr3ArTeUHRYzFg94BKyTkoWBDWez9kSCVe2Xo\nlog:\n  format: json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PARLEY_CONFIG": file, "PARLEY_NAME": "from-env", "PARLEY_P2P_RETRY_MAX": "4s"}
	for _, tc := range []struct {
		name      string
		flags     []string
		env       map[string]string
		wantName  string
		wantRetry time.Duration
		wantDir   string
	}{
		{"defaults", nil, map[string]string{"PARLEY_DATA_DIR": dir}, "", time.Minute, dir},
		{"file", nil, map[string]string{"PARLEY_CONFIG": file}, "from-file", 3 * time.Second, dir},
		{"env over file", nil, env, "from-env", 4 * time.Second, dir},
		{"flags over env", []string{"name", "from-flag", "p2p-retry-max", "5s", "data-dir", "/elsewhere"}, env, "from-flag", 5 * time.Second, "/elsewhere"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := loadSettings(flagsWith(t, tc.flags...), envOf(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			if s.Node.Name != tc.wantName || s.Node.P2P.RetryMax != tc.wantRetry || s.Node.DataDir != tc.wantDir {
				t.Fatalf("name %q retry %v dir %q; want %q %v %q", s.Node.Name, s.Node.P2P.RetryMax, s.Node.DataDir, tc.wantName, tc.wantRetry, tc.wantDir)
			}
			if s.File != "" && (s.LogFormat != "json" || len(s.Node.P2P.Bootstrap) != 1) {
				t.Fatalf("the file's other keys were not applied: %+v", s)
			}
		})
	}
}

func TestConfigBadValueNamesItsKey(t *testing.T) {
	dir := t.TempDir()
	poster, err := os.ReadFile(filepath.Join("..", "..", "configs", "poster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(body string) string {
		f := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, tc := range []struct {
		name  string
		flags []string
		env   map[string]string
		want  []string
	}{
		{"file value", nil, map[string]string{"PARLEY_CONFIG": write("chain:\n  poll_interval: fast\n")}, []string{"chain.poll_interval", "c.yaml:2", "duration"}},
		{"file unknown key", nil, map[string]string{"PARLEY_CONFIG": write("chain:\n  rcp: http://x\n")}, []string{"unknown key chain.rcp"}},
		{"file duplicate key", nil, map[string]string{"PARLEY_CONFIG": write("name: a\nname: b\n")}, []string{"name"}},
		{"file list shape", nil, map[string]string{"PARLEY_CONFIG": write("p2p:\n  listen: /ip4/127.0.0.1/tcp/1\n")}, []string{"p2p.listen", "must be a list"}},
		{"env", nil, map[string]string{"PARLEY_P2P_DHT": "maybe"}, []string{"p2p.dht", "$PARLEY_P2P_DHT"}},
		{"env peers", nil, map[string]string{"PARLEY_P2P_MAX_PEERS": "-3"}, []string{"p2p.max_peers", "$PARLEY_P2P_MAX_PEERS"}},
		{"file peers range", nil, map[string]string{"PARLEY_CONFIG": write("p2p:\n  max_peers: 1000000\n")}, []string{"p2p.max_peers", "0..100000"}},
		{"env chain id", nil, map[string]string{"PARLEY_CHAIN_ID": "-1"}, []string{"chain.chain_id", "$PARLEY_CHAIN_ID"}},
		{"flag", []string{"metrics-listen", "0.0.0.0:9464"}, nil, []string{"metrics.listen", "--metrics-listen", "loopback"}},
		{"flag address", []string{"chain-contracts-task-registry", "0x12"}, nil, []string{"chain.contracts.task_registry"}},
		{"node validation", []string{"chain-rpc", "http://127.0.0.1:8545"}, nil, []string{"chain.contracts"}},
		{"node validation listen", []string{"p2p-listen", "127.0.0.1:4001"}, nil, []string{"p2p.listen"}},
		{"approval mode", []string{"approval-mode", "yolo"}, nil, []string{"approval.mode"}},
		{"operator approval", []string{"approval-mode", "operator"}, nil, []string{"approval.mode", "capability, not authority", "passkey"}},
		{"auto beyond a dev chain", nil, map[string]string{"PARLEY_CONFIG": write(strings.NewReplacer("chain_id: 1337", "chain_id: 1", "mode: passkey", "mode: auto").Replace(string(poster)))},
			[]string{"approval.mode", "only on a dev chain"}},
		{"auto without a chain, chain id 1", []string{"approval-mode", "auto", "chain-id", "1"}, nil, []string{"approval.mode", "only on a dev chain", "is 1"}},
		{"web listen", []string{"web-listen", "0.0.0.0:7480"}, nil, []string{"web.listen", "loopback"}},
		{"web rp id", []string{"web-rp-id", "127.0.0.1"}, nil, []string{"web.rp_id", "IP address"}},
		{"web origins", []string{"web-origins", "http://127.0.0.1:7480"}, nil, []string{"web.origins"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"PARLEY_DATA_DIR": dir}
			for k, v := range tc.env {
				env[k] = v
			}
			_, err := loadSettings(flagsWith(t, tc.flags...), envOf(env))
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
}

// TestRenderConfigRoundTrip: a rendered file loads back to the settings
// it was made from.
func TestRenderConfigRoundTrip(t *testing.T) {
	for _, role := range []string{"poster", "worker", "arbitrator", "node"} {
		s, err := roleSettings(role)
		if err != nil {
			t.Fatal(err)
		}
		s.Node.P2P.Bootstrap = []string{"/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWQYhTNQdmr3ArTeUHRYzFg94BKyTkoWBDWez9kSCVe2Xo"}
		s.PassphraseFile = "pass word"
		dir := t.TempDir()
		f := filepath.Join(dir, ConfigFileName)
		if err := os.WriteFile(f, renderConfig(s, "test"), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := loadSettings(flagsWith(t, "config", f), envOf(nil))
		if err != nil {
			t.Fatalf("%s: %v\n%s", role, err, renderConfig(s, "test"))
		}
		s.Node.DataDir, s.File, s.PassphraseFile = dir, f, filepath.Join(dir, "pass word")
		if !reflect.DeepEqual(got, s) {
			t.Fatalf("%s: loaded\n%+v\nwant\n%+v", role, got, s)
		}
	}
}

// TestConfigExamples: configs/*.yaml are what the code makes for each
// role (go test -update rewrites them) and each loads.
func TestConfigExamples(t *testing.T) {
	examples := map[string][]byte{}
	for _, role := range []string{"poster", "worker", "arbitrator"} {
		s, err := roleSettings(role)
		if err != nil {
			t.Fatal(err)
		}
		examples[role+".yaml"] = renderConfig(s, "Parley node configuration for a "+role+" (what `parley init --role "+role+"` writes).")
	}
	d := devnetSettings("devnet-node", devnetPorts{P2P: 4010, Metrics: 9474, API: 7474, Web: 7490, VXP: 7510}, nil, "http://127.0.0.1:8545", 1337, devchainContracts)
	d.PassphraseFile = ""
	examples["devnet.yaml"] = renderConfig(d, "The settings `parley devnet` gives each of its nodes (with its peers as p2p.bootstrap); also a node against `parley devchain`.")
	for name, want := range examples {
		path := filepath.Join("..", "..", "configs", name)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s differs from what the code makes (go test ./cmd/parley -run TestConfigExamples -update)", path)
		}
		if _, err := loadSettings(flagsWith(t, "config", path, "data-dir", t.TempDir()), envOf(nil)); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
}
