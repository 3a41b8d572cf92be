package mcp

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
)

// liveNode is a real node (keys, Badger, libp2p on loopback, no chain,
// every gated act approved by the test gate) with its MCP server on a
// loopback test listener at url, under key.
type liveNode struct {
	*node.Node
	srv *Server
	url string // the MCP endpoint
	key string
}

// startLive creates keys in a fresh data directory, starts a node on
// loopback and serves its MCP endpoint at /mcp as parley node run does.
func startLive(t testing.TB, name, key string, bootstrap ...*liveNode) *liveNode {
	t.Helper()
	return startLiveWith(t, name, key, nil, bootstrap...)
}

// startLiveWith is startLive with edit applied to the node's
// configuration (a chain, for one).
func startLiveWith(t testing.TB, name, key string, edit func(*node.Config), bootstrap ...*liveNode) *liveNode {
	t.Helper()
	n := nodetest.New(t, name, func(cfg *node.Config) {
		for _, b := range bootstrap {
			nodetest.Bootstrap(cfg, b.Node)
		}
		if edit != nil {
			edit(cfg)
		}
	}, node.WithGate(node.AutoApprove("mcp test")))
	dir := n.Config().DataDir
	srv, err := New(NodeBackend(n), n, Options{
		Key: []byte(key), PeerID: n.PeerID().String(), Address: n.Address(),
		SeatFile: filepath.Join(dir, "mcp", "seats.json"), Logger: nodetest.Logger(t, name+"/mcp"),
	})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(Path, srv)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		_ = srv.Close()
		ts.Close()
	})
	return &liveNode{Node: n, srv: srv, url: ts.URL + Path, key: key}
}

// livePair is two nodes that know each other.
func livePair(t testing.TB) (a, b *liveNode) {
	t.Helper()
	a = startLive(t, "alice", testKey)
	b = startLive(t, "bob", "b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0", a)
	nodetest.Connect(t, a.Node, b.Node)
	return a, b
}

// eventually polls cond until it holds (nodetest.Eventually).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	nodetest.Eventually(t, what, cond)
}
