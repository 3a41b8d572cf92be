package api

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

var harnessPass = []byte("parley api test passphrase")

// apiKey is the bearer key of every test server.
const apiKey = "5f0e2b7c9a1d4e6f8b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a"

// testMaxBody is the test servers' body limit, small enough to exceed
// cheaply.
const testMaxBody = 64 << 10

func harnessLogger(t testing.TB, name string) *slog.Logger {
	if os.Getenv("PARLEY_TEST_LOG") == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelDebug})).With("who", name)
}

type tlog struct{ t testing.TB }

func (w tlog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// startDevchain starts an embedded dev chain for the test.
func startDevchain(t testing.TB) *chain.Devchain {
	t.Helper()
	cfg := chain.DefaultDevchainConfig()
	cfg.Logger = slog.New(slog.DiscardHandler)
	dev, err := chain.StartDevchain(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	return dev
}

// nodeSpec is how a test node is built.
type nodeSpec struct {
	name      string
	dev       *chain.Devchain // nil: no chain (chain id and registry configured, for offers)
	gate      node.Gate       // nil: the operator gate
	bootstrap []*node.Node
	caps      []string
}

// startNode creates keys in a fresh data directory and starts a node on
// loopback.
func startNode(t testing.TB, ns nodeSpec) *node.Node {
	t.Helper()
	dir := t.TempDir()
	kcfg := identity.DefaultConfig(dir)
	kcfg.ScryptWorkFactor = 10
	kcfg.KeystoreScryptN, kcfg.KeystoreScryptP = keystore.LightScryptN, keystore.LightScryptP
	kcfg.KEM = identity.KEMX25519
	if _, err := identity.Create(kcfg, harnessPass, time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg := node.DefaultConfig()
	cfg.DataDir, cfg.Name, cfg.Capabilities = dir, ns.name, ns.caps
	cfg.P2P.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.P2P.DHT = false
	cfg.P2P.RetryMax = 500 * time.Millisecond
	cfg.Chain.PollInterval = 20 * time.Millisecond
	for _, b := range ns.bootstrap {
		cfg.P2P.Bootstrap = append(cfg.P2P.Bootstrap, b.Addrs()[0].String())
	}
	if ns.dev != nil {
		cfg.Chain.RPC, cfg.Chain.ChainID, cfg.Chain.Contracts = ns.dev.URL, ns.dev.ChainID.Uint64(), ns.dev.Contracts
	} else {
		cfg.Chain.ChainID = 1337
		cfg.Chain.Contracts.TaskRegistry = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	}
	opts := []node.Option{
		node.WithPassphrase(harnessPass),
		node.WithLogger(harnessLogger(t, ns.name)),
		node.WithLedgerTuning(func(c *ledger.Config) {
			c.MemTableSize = 16 << 20
			c.BlockCacheSize = 4 << 20
			c.ValueLogFileSize = 16 << 20
			c.MaxObjectBytes = 1 << 20
			c.MaxBatchBytes = 1 << 20
		}),
		node.WithP2PTuning(func(c *p2p.Config) {
			c.RetryMin = 20 * time.Millisecond
			c.DialTimeout = 5 * time.Second
			c.ResourceMemory = 64 << 20
			c.ResourceFDs = 256
		}),
	}
	if ns.gate != nil {
		opts = append(opts, node.WithGate(ns.gate))
	}
	n, err := node.New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

// served is a node behind a test server.
type served struct {
	*node.Node
	api *Server
	url string
	t   testing.TB
}

// serve puts n behind an API server on a loopback test listener.
func serve(t testing.TB, n *node.Node, opts Options) *served {
	t.Helper()
	if opts.Key == nil {
		opts.Key = []byte(apiKey)
	}
	if opts.MaxBody == 0 {
		opts.MaxBody = testMaxBody
	}
	if opts.Logger == nil {
		opts.Logger = harnessLogger(t, "api")
	}
	s, err := New(n, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	ts.Config.RegisterOnShutdown(s.Close)
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	return &served{Node: n, api: s, url: ts.URL, t: t}
}

// reply is one HTTP answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// errCode returns the code of an error answer ("" for another body).
func (r reply) errCode() string {
	var e ErrorBody
	if json.Unmarshal(r.body, &e) != nil {
		return ""
	}
	return e.Error.Code
}

// call is one request: the key is apiKey unless noKey or key is set.
type call struct {
	method, path string
	key          string
	noKey        bool
	idem         string
	body         []byte
}

func (s *served) do(c call) reply {
	s.t.Helper()
	var body io.Reader
	if c.body != nil {
		body = bytes.NewReader(c.body)
	}
	req, err := http.NewRequestWithContext(s.t.Context(), c.method, s.url+c.path, body)
	if err != nil {
		s.t.Fatal(err)
	}
	if !c.noKey {
		k := c.key
		if k == "" {
			k = apiKey
		}
		req.Header.Set("Authorization", "Bearer "+k)
	}
	if c.idem != "" {
		req.Header.Set(HeaderIdempotencyKey, c.idem)
	}
	if c.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// get GETs path with the key and decodes a 200 answer into v.
func (s *served) get(path string, v any) {
	s.t.Helper()
	r := s.do(call{method: http.MethodGet, path: path})
	if r.status != http.StatusOK {
		s.t.Fatalf("GET %s: %d %s", path, r.status, r.body)
	}
	if err := json.Unmarshal(r.body, v); err != nil {
		s.t.Fatalf("GET %s: %v: %s", path, err, r.body)
	}
}

// post POSTs v with a fresh key, wants status, and decodes the answer
// into out (when not nil).
func (s *served) post(path string, v any, want int, out any) reply {
	s.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		s.t.Fatal(err)
	}
	r := s.do(call{method: http.MethodPost, path: path, idem: freshKey(), body: b})
	if r.status != want {
		s.t.Fatalf("POST %s: %d %s, want %d", path, r.status, r.body, want)
	}
	if out != nil {
		if err := json.Unmarshal(r.body, out); err != nil {
			s.t.Fatalf("POST %s: %v: %s", path, err, r.body)
		}
	}
	return r
}

// freshKey returns a random Idempotency-Key.
func freshKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// wei returns n wei.
func wei(n int64) *big.Int { return big.NewInt(n) }

// eventually polls cond every 10 ms until it holds or a generous deadline
// passes (the machine is shared: never a sleep as an assertion).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sseEvent is one event read from a stream.
type sseEvent struct {
	id, kind string
	data     node.Event
}

// stream opens GET /v1/events (with query) and returns its events on a
// channel that closes when the stream ends; the stream is cut when the
// test ends.
func (s *served) stream(query string) <-chan sseEvent {
	s.t.Helper()
	req, err := http.NewRequestWithContext(s.t.Context(), http.MethodGet, s.url+"/v1/events"+query, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		s.t.Fatalf("GET /v1/events%s: %d %s %s", query, resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	out := make(chan sseEvent, 1024)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		var cur sseEvent
		var data string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if data != "" {
					if err := json.Unmarshal([]byte(data), &cur.data); err != nil {
						cur.kind = "undecodable: " + err.Error()
					}
					out <- cur
				}
				cur, data = sseEvent{}, ""
			case strings.HasPrefix(line, ":"):
			case strings.HasPrefix(line, "id: "):
				cur.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				cur.kind = line[7:]
			case strings.HasPrefix(line, "data: "):
				data += line[6:]
			}
		}
	}()
	return out
}
