package vxp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
	pure "github.com/parleynet/parley/vxp"
)

// holdGate is the worker's approval gate: it approves every act, but
// while held it waits for release (the principal's passkey, in a test),
// so a gated act stays in waiting_human.
type holdGate struct {
	held    atomic.Bool
	release chan struct{}
	asked   atomic.Int32
	// onAsk, when set, runs as the principal is asked.
	onAsk atomic.Pointer[func()]
}

func newHoldGate() *holdGate { return &holdGate{release: make(chan struct{}, 8)} }

func (g *holdGate) Decide(ctx context.Context, req node.ApprovalRequest) (node.Decision, error) {
	g.asked.Add(1)
	if f := g.onAsk.Load(); f != nil {
		(*f)()
	}
	if g.held.Load() {
		select {
		case <-g.release:
		case <-ctx.Done():
			return node.Decision{}, ctx.Err()
		}
	}
	return node.Decision{Approved: true, Method: "test", By: "req test"}, nil
}

// world is a poster node and a worker node that know each other, the
// worker's VXP server on a loopback listener, and the callers the tests
// act as (authHook: a client's token carries every grant the store holds
// for it, so a revoked grant is in the token and refused).
type world struct {
	t      *testing.T
	poster *node.Node
	worker *node.Node
	pcfg   node.Config
	gate   *holdGate
	srv    *Server
	ln     string // the listener's address
	url    string // the public base URL
	ts     *httptest.Server
	skew   atomic.Int64 // the server clock's offset, in ns
	h      *handlerBox
}

// handlerBox lets the listener outlive one server (a restart).
type handlerBox struct {
	mu sync.Mutex
	h  http.Handler
}

func (b *handlerBox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	h := b.h
	b.mu.Unlock()
	h.ServeHTTP(w, r)
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{t: t, gate: newHoldGate(), h: &handlerBox{}}
	w.poster = nodetest.New(t, "poster", nil, node.WithGate(node.AutoApprove("test")))
	w.pcfg = w.poster.Config()
	w.worker = nodetest.New(t, "worker", func(cfg *node.Config) { nodetest.Bootstrap(cfg, w.poster) }, node.WithGate(w.gate))
	nodetest.Connect(t, w.poster, w.worker)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w.ln = l.Addr().String()
	w.url = "http://" + w.ln
	w.ts = httptest.NewUnstartedServer(w.h)
	w.ts.Listener.Close()
	w.ts.Listener = l
	w.ts.Start()
	t.Cleanup(w.ts.Close)
	w.startServer()
	return w
}

// startServer starts a (new) VXP server on the worker node.
func (w *world) startServer() {
	w.t.Helper()
	srv, err := New(w.worker, Config{
		PublicURL: w.url, AllowInsecureLoopback: true, Organization: "Worker",
		Now: func() time.Time { return time.Now().Add(time.Duration(w.skew.Load())) },
	})
	if err != nil {
		w.t.Fatal(err)
	}
	srv.authHook = func(r *http.Request) (*Caller, error) {
		id := r.Header.Get("X-Test-Client")
		if id == "" {
			return nil, &pure.Error{Code: pure.CodeInvalidToken, Msg: "no token"}
		}
		return &Caller{ClientID: id, Subject: w.worker.Address().String(), Grants: srv.Store().Grants(id)}, nil
	}
	if err := srv.Start(w.t.Context()); err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { _ = srv.Close() })
	w.srv = srv
	w.h.mu.Lock()
	w.h.h = srv
	w.h.mu.Unlock()
}

// stopServer closes the VXP server (the node runs on).
func (w *world) stopServer() {
	if err := w.srv.Close(); err != nil {
		w.t.Fatal(err)
	}
}

const agentA = "https://agent-a.example/client.json"
const agentB = "https://agent-b.example/client.json"

// grant records a grant of ops on nid to client (as a passkey approval
// would), with relationship rel when not empty.
func (w *world) grant(client, nid, rel string, ops ...string) Grant {
	w.t.Helper()
	now := time.Now().UTC()
	id, _ := w.srv.newID("grant_")
	g := Grant{
		ID: id, ClientID: client, ClientName: "Test Agent " + client[8:15], Details: pure.Required(ops[0], nid),
		Resource: w.srv.Endpoint(), DPoPJKT: "jkt", ApprovalID: "appr", IntentHash: strings.Repeat("ab", 32),
		RelationshipID: rel, GrantedAt: now, ExpiresAt: now.Add(time.Hour),
	}
	g.Details[0].Actions = ops
	if rel != "" {
		g.RelationshipActions = pure.RelationshipActions
	}
	if err := w.srv.Store().PutGrant(w.t.Context(), g); err != nil {
		w.t.Fatal(err)
	}
	return g
}

// propose has the poster propose a task to the worker and returns the
// negotiation id once the worker holds the offer.
func (w *world) propose(amounts ...int64) string {
	w.t.Helper()
	spec := node.TaskSpec{Title: "Translate the guide", Deadline: time.Now().Add(72 * time.Hour)}
	for i, a := range amounts {
		spec.Milestones = append(spec.Milestones, node.MilestoneSpec{Amount: big.NewInt(a), Description: "part " + string(rune('1'+i))})
	}
	res, err := w.poster.ProposeTask(w.t.Context(), w.worker.Address(), spec)
	if err != nil {
		w.t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	w.waitOffer(w.worker, nid, res.Envelope.Hash)
	return nid
}

// waitOffer waits until n's current offer in nid is h.
func (w *world) waitOffer(n *node.Node, nid string, h negotiation.Hash) {
	w.t.Helper()
	nodetest.Eventually(w.t, "the offer at "+n.Config().Name, func() bool {
		v, err := n.Thread(nid)
		return err == nil && v.Current != nil && v.Current.Hash == h
	})
}

// resAnswer is one HTTP answer.
type resAnswer struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

func (a resAnswer) code() string {
	e, _ := a.body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func (a resAnswer) str(path ...string) string {
	v := a.get(path...)
	s, _ := v.(string)
	return s
}

func (a resAnswer) get(path ...string) any {
	var v any = a.body
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// call makes a resource call as client (none: no token) with body and
// an Idempotency-Key when key is not empty.
func (w *world) call(method, path, client, key string, body any) resAnswer {
	w.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			w.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	u := path
	if !strings.HasPrefix(u, "http") {
		u = w.srv.Endpoint() + path
	}
	req, err := http.NewRequestWithContext(w.t.Context(), method, u, rd)
	if err != nil {
		w.t.Fatal(err)
	}
	if client != "" {
		req.Header.Set("X-Test-Client", client)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := resAnswer{status: resp.StatusCode, header: resp.Header, raw: raw}
	_ = json.Unmarshal(raw, &a.body)
	return a
}

// respond is POST /requests of offer.respond on nid.
func (w *world) respond(client, key, nid string) resAnswer {
	return w.call("POST", "/requests", client, key, map[string]any{"operation": "offer.respond", "target": map[string]string{"negotiation_id": nid}})
}

// waitState waits until request id is in state st (read from the store).
func (w *world) waitState(id string, st pure.State) *Request {
	w.t.Helper()
	var r *Request
	nodetest.Eventually(w.t, "request "+id+" "+string(st), func() bool {
		var ok bool
		r, ok = w.srv.Store().Request(id)
		return ok && r.State == st
	})
	return r
}

// negEntries returns the hashes of n's ledger entries of negotiation nid.
func negEntries(t *testing.T, n *node.Node, nid string) []negotiation.Hash {
	t.Helper()
	var out []negotiation.Hash
	for e, err := range n.Ledger().ByNegotiation(t.Context(), nid) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e.Hash)
	}
	return out
}

func mustStatus(t *testing.T, what string, a resAnswer, status int, code string) {
	t.Helper()
	if a.status != status || a.code() != code {
		t.Fatalf("%s: %d %s, want %d %q", what, a.status, a.raw, status, code)
	}
}

// nodeCounter is a counter of one milestone of amount wei.
func nodeCounter(amount int64) node.CounterSpec {
	return node.CounterSpec{Milestones: []node.MilestoneSpec{{Amount: big.NewInt(amount), Description: "all of it"}}, Reason: "the poster's counter"}
}
