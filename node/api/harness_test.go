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
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
)

// harnessPass opens the test nodes' keys.
var harnessPass = nodetest.Passphrase

// apiKey is the bearer key of every test server.
const apiKey = "5f0e2b7c9a1d4e6f8b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a"

// testMaxBody is the test servers' body limit, small enough to exceed
// cheaply.
const testMaxBody = 64 << 10

// harnessLogger is the test nodes' and servers' logger.
func harnessLogger(t testing.TB, name string) *slog.Logger { return nodetest.Logger(t, name) }

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
	var opts []node.Option
	if ns.gate != nil {
		opts = append(opts, node.WithGate(ns.gate))
	}
	return nodetest.New(t, ns.name, func(cfg *node.Config) {
		cfg.Capabilities = ns.caps
		nodetest.Bootstrap(cfg, ns.bootstrap...)
		if ns.dev != nil {
			nodetest.UseChain(cfg, ns.dev)
		}
	}, opts...)
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
	if opts.ActGrace == 0 {
		opts.ActGrace = 200 * time.Millisecond
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

// eventually polls cond until it holds (nodetest.Eventually).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	nodetest.Eventually(t, what, cond)
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
