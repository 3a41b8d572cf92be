package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
	"github.com/parleynet/parley/node/nodetest"
	"github.com/parleynet/parley/p2p"
)

// apiNode is a node running in the test with its API served on loopback,
// laid out as `parley init` and `parley node run` lay out a data
// directory: api.key in it.
type apiNode struct {
	*node.Node
	dir, url, keyFile string
}

// conn returns the flags that reach the node.
func (a *apiNode) conn() []string { return []string{"--api", a.url, "--api-key-file", a.keyFile} }

// startAPINode starts a chain-less node (a chain id and registry are
// configured, so it can make offers) and its API server.
func startAPINode(t *testing.T, name string, gate node.Gate, bootstrap ...*apiNode) *apiNode {
	t.Helper()
	var opts []node.Option
	if gate != nil {
		opts = append(opts, node.WithGate(gate))
	}
	n := nodetest.New(t, name, func(cfg *node.Config) {
		for _, b := range bootstrap {
			nodetest.Bootstrap(cfg, b.Node)
		}
	}, opts...)
	dir := n.Config().DataDir
	key := strings.Repeat("c1", 32)
	keyFile := filepath.Join(dir, APIKeyFileName)
	if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := api.New(n, api.Options{Key: []byte(key)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	return &apiNode{Node: n, dir: dir, url: ts.URL, keyFile: keyFile}
}

// cliRun is one command's output and error.
type cliRun struct {
	out, err string
	e        error
}

// runCLI runs parley with args, stdout and stderr captured apart.
func runCLI(ctx context.Context, stdout, stderr io.Writer, args ...string) error {
	root := newRootCmd()
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetIn(strings.NewReader(""))
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

func cli(t *testing.T, args ...string) cliRun {
	t.Helper()
	var out, errb bytes.Buffer
	err := runCLI(t.Context(), &out, &errb, args...)
	return cliRun{out.String(), errb.String(), err}
}

// ok runs a command that must succeed.
func ok(t *testing.T, args ...string) string {
	t.Helper()
	r := cli(t, args...)
	if r.e != nil {
		t.Fatalf("parley %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.e, r.out, r.err)
	}
	return r.out
}

func with(a []string, more ...string) []string { return append(append([]string(nil), a...), more...) }

var (
	annRE = regexp.MustCompile(`(?m)^announcement\s+(0x[0-9a-f]{64})$`)
	negRE = regexp.MustCompile(`(?m)^negotiation\s+([0-9a-f-]{36})$`)
	reqRE = regexp.MustCompile(`waiting for approval (req_[0-9a-f]+) \(sign_settlement\): Sign the settlement of task «.*»; approve it with your passkey on the node's pages, or: parley approvals approve (req_[0-9a-f]+) --software-key FILE --api http`)
)

// TestClientCommands drives a poster and a worker node through their
// APIs with the CLI: status, task post, list and show, a counter-offer on
// the announcement, a software key registered for the poster's principal,
// the poster's acceptance waiting for its approval, given with approvals
// approve --software-key, approvals hash of the request, the worker's
// acceptance, the
// agreement; --json answers byte for byte; the events stream; ledger
// verify and export through the API and bundle verify of the export.
func TestClientCommands(t *testing.T) {
	poster := startAPINode(t, "poster", nil)
	worker := startAPINode(t, "worker", node.AutoApprove("test"), poster)
	P, W := poster.conn(), worker.conn()

	// status, --json and human, once the worker (bootstrapped to the
	// poster) is connected.
	var st node.Status
	eventually(t, "the worker to connect", func() bool {
		if err := json.Unmarshal([]byte(ok(t, with(P, "status", "--json")...)), &st); err != nil {
			t.Fatal(err)
		}
		return st.Network.Direct >= 1
	})
	if st.Address != poster.Address() || st.Network.Reachability != p2p.ReachUnknown || !slices.Equal(st.Network.Announced, st.Addrs) {
		t.Fatalf("status --json: %+v", st)
	}
	out := ok(t, with(P, "status")...)
	for _, want := range []string{"name", "poster", poster.Address().String(), "peer id", poster.PeerID().String(), "ledger", "reachability", "announced"} {
		if !strings.Contains(out, want) {
			t.Fatalf("status lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`(?m)^reachability\s+unknown$`).MatchString(out) || !regexp.MustCompile(`(?m)^listening\s+/ip4/127\.0\.0\.1/`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^peers\s+[1-9]\d* direct \([1-9]\d* inbound, \d+ outbound\), 0 relayed \(0 inbound, 0 outbound\)$`).MatchString(out) {
		t.Fatalf("status lacks the network (reachability, listening, peers by path):\n%s", out)
	}

	// Follow the poster's events from the start.
	evCtx, stopEvents := context.WithCancel(t.Context())
	var evOut, evErr syncBuffer
	evDone := make(chan error, 1)
	go func() { evDone <- runCLI(evCtx, &evOut, &evErr, with(P, "events", "--json")...) }()

	// task post, list, show.
	out = ok(t, with(P, "task", "post", "--title", "Translate the user guide", "--milestone", "0.5eth:first half",
		"--milestone", "250000gwei:second half", "--deadline", "72h", "--category", "translation")...)
	m := annRE.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "0.5 ETH (500000000000000000 wei)  first half") || !strings.Contains(out, "0.00025 ETH (250000000000000 wei)  second half") {
		t.Fatalf("task post:\n%s", out)
	}
	ann, _ := negotiation.ParseHash(m[1])
	out = ok(t, with(P, "task", "list")...)
	if !strings.Contains(out, ann.String()) || !strings.Contains(out, "(own)") || !strings.Contains(out, "Translate the user guide") {
		t.Fatalf("task list:\n%s", out)
	}
	if out = ok(t, with(P, "task", "show", ann.String())...); !strings.Contains(out, "category      translation") {
		t.Fatalf("task show:\n%s", out)
	}
	var board []node.Announcement
	if err := json.Unmarshal([]byte(ok(t, with(P, "task", "list", "--json")...)), &board); err != nil || len(board) != 1 || board[0].Hash != ann ||
		board[0].Terms.Milestones[0].Amount.Big().Cmp(big.NewInt(5e17)) != 0 {
		t.Fatalf("task list --json: %+v %v", board, err)
	}

	// The worker sees the announcement (published again with task
	// announce while the gossip mesh forms) and counters it.
	eventually(t, "the announcement on the worker's board", func() bool {
		if out := ok(t, with(W, "task", "list")...); strings.Contains(out, ann.String()) {
			return true
		}
		if out := ok(t, with(P, "task", "announce", ann.String())...); out != "announced "+ann.String()+" again\n" {
			t.Fatalf("task announce: %q", out)
		}
		time.Sleep(100 * time.Millisecond)
		return false
	})
	out = ok(t, with(W, "offer", "counter", ann.String(), "--milestone", "0.4eth:first half", "--milestone", "0.2eth:second half", "--reason", "cheaper")...)
	m = negRE.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "sent          TaskCounterOffer 0x") || !strings.Contains(out, "state         countered (TASK_STATE_INPUT_REQUIRED)") {
		t.Fatalf("offer counter:\n%s", out)
	}
	nid := m[1]
	eventually(t, "the counter-offer at the poster", func() bool {
		v, err := poster.Thread(nid)
		return err == nil && v.State == negotiation.StateCountered
	})

	// The poster's principal registers a software key (the first
	// credential, with the enrolment token of the node's data directory:
	// the API issues none); a token made afterwards enrols nothing.
	keyFile := filepath.Join(t.TempDir(), "bot.key")
	if out := ok(t, with(P, "approvals", "software-key", "new", "--out", keyFile, "--label", "bot", "--data-dir", poster.dir)...); !strings.Contains(out, `software key "bot" registered`) || !strings.Contains(out, "is a credential") {
		t.Fatalf("software-key new: %q", out)
	}
	if fi, err := os.Stat(keyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the key file: %v %v", fi, err)
	}
	out = ok(t, "approvals", "enrol", "--data-dir", poster.dir)
	later := regexp.MustCompile(`enrolment token: (parley-enrol-[0-9a-f]{64})`).FindStringSubmatch(out)
	if later == nil {
		t.Fatalf("approvals enrol: %q", out)
	}
	if r := cli(t, with(P, "approvals", "software-key", "new", "--out", keyFile+".2", "--token", later[1])...); exitCode(r.e) != exitRefused || !strings.Contains(r.e.Error(), string(approval.CodeNotAuthorized)) {
		t.Fatalf("a second credential with a token, a passkey registered: %v", r.e)
	}

	// The poster accepts: the command waits for the principal, says how
	// to approve, and finishes once approvals approve is run with the key.
	var accOut, accErr syncBuffer
	accDone := make(chan error, 1)
	go func() { accDone <- runCLI(t.Context(), &accOut, &accErr, with(P, "offer", "accept", nid)...) }()
	start := time.Now()
	var req string
	eventually(t, "the waiting line", func() bool {
		if m := reqRE.FindStringSubmatch(accErr.String()); m != nil && m[1] == m[2] {
			req = m[1]
			return true
		}
		select {
		case err := <-accDone:
			t.Fatalf("offer accept returned %v before the approval:\n%s\n%s", err, accOut.String(), accErr.String())
		default:
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("no waiting line:\n%s", accErr.String())
		}
		return false
	})
	out = ok(t, with(P, "approvals", "list")...)
	for _, want := range []string{req, "sign_settlement", nid, "digest  ", "Amount", "ETH"} {
		if !strings.Contains(out, want) {
			t.Fatalf("approvals list lacks %q:\n%s", want, out)
		}
	}
	// hash computes offline the intent hash the node shows.
	shown := ok(t, with(P, "approvals", "show", req, "--json")...)
	var p node.PendingApproval
	if err := json.Unmarshal([]byte(shown), &p); err != nil {
		t.Fatal(err)
	}
	reqFile := filepath.Join(t.TempDir(), "req.json")
	if err := os.WriteFile(reqFile, []byte(shown), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := ok(t, "approvals", "hash", reqFile); out != p.Request.IntentHash+"\n" {
		t.Fatalf("approvals hash: %q, want %s", out, p.Request.IntentHash)
	}
	if err := os.WriteFile(reqFile, []byte(strings.Replace(shown, nid, "00000000-0000-4000-8000-000000000000", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := cli(t, "approvals", "hash", reqFile); exitCode(r.e) != exitRefused || !strings.Contains(r.e.Error(), "it was changed") {
		t.Fatalf("hash of a changed request: %v", r.e)
	}
	if r := cli(t, with(P, "approvals", "approve", req)...); exitCode(r.e) != exitUsage {
		t.Fatalf("approve without a key: %v", r.e)
	}
	if out = ok(t, with(P, "approvals", "approve", req, "--software-key", keyFile)...); !strings.HasPrefix(out, "approved "+req+" (intent "+p.Request.IntentHash+")") {
		t.Fatalf("approvals approve: %q", out)
	}
	select {
	case err := <-accDone:
		if err != nil {
			t.Fatalf("offer accept: %v\n%s\n%s", err, accOut.String(), accErr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("offer accept did not finish after the approval")
	}
	if !strings.Contains(accOut.String(), "sent          TaskAcceptance 0x") || !strings.Contains(accErr.String(), "approved: sign_settlement") ||
		!strings.Contains(accErr.String(), "sent TaskAcceptance") {
		t.Fatalf("offer accept:\nstdout:\n%s\nstderr:\n%s", accOut.String(), accErr.String())
	}
	if p := poster.Gate().PendingApprovals(); len(p) != 0 {
		t.Fatalf("requests still pending: %+v", p)
	}

	// The worker accepts with --json: the answer decodes as the act's
	// result and the negotiation becomes agreed on both sides.
	var res node.ActResult
	if err := json.Unmarshal([]byte(ok(t, with(W, "offer", "accept", nid, "--json")...)), &res); err != nil ||
		res.Envelope == nil || res.Envelope.Type != negotiation.TypeTaskAcceptance || res.Thread.NegotiationID != nid {
		t.Fatalf("offer accept --json: %+v %v", res, err)
	}
	for _, n := range []*apiNode{poster, worker} {
		eventually(t, "the agreement", func() bool {
			v, err := n.Thread(nid)
			return err == nil && v.State == negotiation.StateAgreed
		})
	}
	out = ok(t, with(W, "negotiation", "show", nid, "--log")...)
	for _, want := range []string{"state         agreed (" + string(negotiation.StateAgreed.A2A()) + ")", "role          worker", "0.6 ETH (600000000000000000 wei), digest 0x", "TaskAcceptance"} {
		if !strings.Contains(out, want) {
			t.Fatalf("negotiation show lacks %q:\n%s", want, out)
		}
	}
	if out = ok(t, with(P, "negotiation", "list")...); !strings.Contains(out, nid) || !strings.Contains(out, string(negotiation.StateAgreed.A2A())) {
		t.Fatalf("negotiation list:\n%s", out)
	}

	// --json prints the API's answer byte for byte.
	raw := getRaw(t, poster, "/v1/negotiations/"+nid)
	if out = ok(t, with(P, "task", "show", nid, "--json")...); out != string(raw) && out != string(raw)+"\n" {
		t.Fatalf("task show --json:\n%s\nthe API:\n%s", out, raw)
	}

	// The events the poster's stream saw, one JSON object per line.
	stopEvents()
	if err := <-evDone; err != nil {
		t.Fatalf("events: %v", err)
	}
	kinds := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(evOut.String()))
	for sc.Scan() {
		var ev node.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("events line %q: %v", sc.Text(), err)
		}
		kinds[string(ev.Kind)+" "+ev.Code+ev.Direction] = true
	}
	for _, want := range []string{"announcement sent", "envelope okreceived", "approval request-created", "approval consumed", "envelope oksent", "state "} {
		if !kinds[want] {
			t.Errorf("the event stream lacks %q: %v", want, kinds)
		}
	}

	// The ledger through the API, and the exported bundle verified offline
	// with its identity links.
	if out = ok(t, with(P, "ledger", "verify")...); !strings.HasPrefix(out, "ok ") || !strings.Contains(out, " entries, head 0x") {
		t.Fatalf("ledger verify: %q", out)
	}
	bundle := filepath.Join(t.TempDir(), "b.json")
	if out = ok(t, with(P, "ledger", "export", nid, "-o", bundle)...); !strings.Contains(out, "exported negotiation "+nid+" to "+bundle) {
		t.Fatalf("ledger export: %q", out)
	}
	if out = ok(t, "bundle", "verify", bundle); !strings.Contains(out, "ok negotiation "+nid) || !strings.Contains(out, "identity links verified") {
		t.Fatalf("bundle verify: %q", out)
	}
	// Both parties' bundles agree envelope by envelope.
	wbundle := filepath.Join(t.TempDir(), "w.json")
	ok(t, with(W, "ledger", "export", nid, "-o", wbundle)...)
	var cmp node.BundleComparison
	if out = ok(t, "bundle", "compare", bundle, wbundle); json.Unmarshal([]byte(out), &cmp) != nil || !cmp.Agree || cmp.Same == 0 || cmp.NegotiationID != nid {
		t.Fatalf("bundle compare: %q", out)
	}

	// The data directory's ledger is held by the running node: the ledger
	// commands ask the API its parley.yaml names, and say so; when that
	// API does not answer, the error says why and names --api.
	closed := closedPort(t)
	writeAPIListen(t, poster.dir, closed)
	r := cli(t, "ledger", "verify", "--data-dir", poster.dir)
	if exitCode(r.e) != exitUnreachable || !strings.Contains(r.e.Error(), "in use by a running node") || !strings.Contains(r.e.Error(), "--api") {
		t.Fatalf("ledger verify on a running node's data directory: %v\n%s", r.e, r.out)
	}
	writeAPIListen(t, poster.dir, strings.TrimPrefix(poster.url, "http://"))
	r = cli(t, "ledger", "verify", "--data-dir", poster.dir)
	if r.e != nil || !strings.HasPrefix(r.out, "ok ") || !strings.Contains(r.err, "in use by a running node; asking its API at "+poster.url) {
		t.Fatalf("ledger verify on a running node's data directory: %v\n%s\n%s", r.e, r.out, r.err)
	}
	// Every client command finds the node from its data directory alone.
	if out = ok(t, "status", "--data-dir", poster.dir); !strings.Contains(out, poster.Address().String()) {
		t.Fatalf("status --data-dir:\n%s", out)
	}
	t.Setenv("PARLEY_DATA_DIR", poster.dir)
	if out = ok(t, "negotiation", "show", nid); !strings.Contains(out, nid) {
		t.Fatalf("negotiation show with $PARLEY_DATA_DIR:\n%s", out)
	}

	// A refused act: exit 1 with the node's code; with --json the error
	// body is printed as the node sent it.
	r = cli(t, with(P, "fund", nid)...)
	if exitCode(r.e) != exitRefused || !strings.Contains(r.e.Error(), "no_chain") {
		t.Fatalf("fund on a chain-less node: %v", r.e)
	}
	r = cli(t, with(P, "fund", nid, "--json")...)
	var eb api.ErrorBody
	if exitCode(r.e) != exitRefused || json.Unmarshal([]byte(r.out), &eb) != nil || eb.Error.Code != string(node.CodeNoChain) {
		t.Fatalf("fund --json: %v %q", r.e, r.out)
	}
	r = cli(t, with(W, "offer", "accept", "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b")...)
	if exitCode(r.e) != exitRefused || !strings.Contains(r.e.Error(), string(node.CodeUnknownNegotiation)) {
		t.Fatalf("accept of an unknown negotiation: %v", r.e)
	}
	r = cli(t, with(P, "approvals", "deny", "req_00", "--reason", "no")...)
	if exitCode(r.e) != exitRefused {
		t.Fatalf("deny of an unknown request: %v", r.e)
	}
}

// writeAPIListen writes a parley.yaml in dir whose api.listen is addr.
func writeAPIListen(t *testing.T, dir, addr string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, ConfigFileName), []byte("api:\n  listen: "+addr+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// getRaw GETs path from the node's API and returns the body as sent.
func getRaw(t *testing.T, a *apiNode, path string) []byte {
	t.Helper()
	key, _ := os.ReadFile(a.keyFile)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, a.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(key)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return b
}

// TestClientCommandUsage: bad arguments and flag values exit 2 and name
// what is wrong, before anything is sent; a node that does not answer
// exits 3.
func TestClientCommandUsage(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "api.key")
	if err := os.WriteFile(keyFile, []byte("0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Nothing listens here: every usage error must come before a call.
	url := "http://" + closedPort(t)
	c := []string{"--api", url, "--api-key-file", keyFile}
	nid := "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"
	// Files whose names the other party's screens would show otherwise
	// than they are: refused before anything is read or sent.
	badName := func(name string) string {
		f := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	backslash, bidi, tab := badName(`..\report.md`), badName("invoice\u202efdp.exe"), badName("a\tb.md")
	dupCard := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(dupCard, []byte(`{"pxp":"0","goal":"a","goal":"b","principal":{"name":"P"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{with(c, "deliver", nid, "--milestone", "0", "--file", backslash), "bad_file_name"},
		{with(c, "deliver", nid, "--milestone", "0", "--file", bidi), "bidirectional control"},
		{with(c, "dispute", "evidence", nid, "--file", tab, "--description", "d"), "control character"},
		{with(c, "card", "seal", dupCard), "duplicate_key"},
		{with(c, "task", "post", "--title", "T", "--milestone", "abc:x"), `--milestone "abc:x"`},
		{with(c, "task", "post", "--title", "T", "--milestone", "0.5btc:x"), `unknown unit "btc"`},
		{with(c, "task", "post", "--title", "T", "--milestone", "1.5gwei5:x"), `--milestone`},
		{with(c, "task", "post", "--title", "T", "--milestone", "0.0000000000000000001eth:x"), "more than 18 decimals"},
		{with(c, "task", "post", "--title", "T", "--milestone", "0eth:x"), "positive"},
		{with(c, "task", "post", "--milestone", "1eth:x"), "--title is required"},
		{with(c, "task", "post", "--title", "T"), "--milestone is required"},
		{with(c, "task", "post", "--title", "T", "--milestone", "1eth:x", "--deadline", "soon"), `--deadline "soon"`},
		{with(c, "task", "post", "--title", "T", "--milestone", "1eth:x", "--deadline", "-3h"), `--deadline "-3h"`},
		{with(c, "task", "post", "--bogus"), "unknown flag: --bogus"},
		{with(c, "task", "propose", "--worker", "0x12", "--title", "T", "--milestone", "1eth:x"), `--worker "0x12"`},
		{with(c, "task", "show"), "accepts 1 arg(s)"},
		{with(c, "task", "announce", nid), `announcement "` + nid + `" is not an announcement hash`},
		{with(c, "task", "show", "nonsense"), "neither a negotiation id"},
		{with(c, "offer", "accept", "0x1234"), "neither a negotiation id"},
		{with(c, "offer", "counter", nid), "a counter-offer changes something"},
		{with(c, "deliver", nid, "--milestone", "0"), "--file is required"},
		{with(c, "deliver", nid, "--milestone", "-1", "--file", keyFile), `--milestone "-1"`},
		{with(c, "deliver", nid, "--milestone", "x"), `invalid argument "x" for "--milestone"`},
		{with(c, "cancel", nid), "--reason is required"},
		{with(c, "amend", nid, "--deadline", "3d"), "both --milestone (every milestone) and --deadline"},
		{with(c, "amend", nid, "--milestone", "1eth:x", "--deadline", "later"), `--deadline "later"`},
		{with(c, "replace", nid, "--worker", "0xzz"), `--worker "0xzz"`},
		{with(c, "dispute", "rule", nid), "--worker-bps BPS (0..10000) or --refuse"},
		{with(c, "dispute", "rule", nid, "--worker-bps", "10001"), `--worker-bps "10001"`},
		{with(c, "dispute", "rule", nid, "--worker-bps", "5000", "--refuse"), "not both"},
		{with(c, "dispute", "propose-arbitrator", nid), "accepts 2 arg(s)"},
		{with(c, "dispute", "propose-arbitrator", nid, "bob"), `arbitrator "bob"`},
		{with(c, "approvals", "deny", "req_1"), "--reason is required"},
		{with(c, "withdraw", "--token", "eth"), `--token "eth"`},
		{with(c, "ledger", "export", nid), "-o FILE is required"},
		{[]string{"status", "--api", "127.0.0.1:7464", "--api-key-file", keyFile}, "want http://host:port"},
		{[]string{"status", "--api", url, "--api-key-file", filepath.Join(t.TempDir(), "none")}, "reading the API key"},
	} {
		r := cli(t, tc.args...)
		if exitCode(r.e) != exitUsage || !strings.Contains(r.e.Error(), tc.want) {
			t.Errorf("parley %s: exit %d, %v; want 2 and %q", strings.Join(tc.args, " "), exitCode(r.e), r.e, tc.want)
		}
	}
	for _, args := range [][]string{with(c, "status"), with(c, "offer", "accept", nid, "--quiet")} {
		r := cli(t, args...)
		if exitCode(r.e) != exitUnreachable || !strings.Contains(r.e.Error(), "cannot reach the node at "+url) {
			t.Errorf("parley %s: exit %d, %v; want 3", strings.Join(args, " "), exitCode(r.e), r.e)
		}
	}
	// An act names the key that repeats it safely.
	r := cli(t, with(c, "cancel", nid, "--reason", "r", "--idempotency-key", "k-1")...)
	if exitCode(r.e) != exitUnreachable || !strings.Contains(r.e.Error(), "--idempotency-key k-1") {
		t.Fatalf("cancel: %v", r.e)
	}
}

func TestParseAmountAndDeadline(t *testing.T) {
	for in, want := range map[string]string{
		"1": "1", "1wei": "1", "0.5eth": "500000000000000000", "0.5 ETH": "500000000000000000", "2ether": "2000000000000000000",
		"250gwei": "250000000000", "1.000000001gwei": "1000000001", "0.000000000000000001eth": "1",
	} {
		v, err := parseAmount(in)
		if err != nil || v.String() != want {
			t.Errorf("parseAmount(%q) = %v, %v; want %s", in, v, err, want)
		}
	}
	for _, in := range []string{"", "eth", "-1", "1.5", "0.1wei", "1e18", "0", "1 btc", "0x10"} {
		if v, err := parseAmount(in); err == nil {
			t.Errorf("parseAmount(%q) = %v", in, v)
		}
	}
	for wei, want := range map[string]string{"1": "0.000000000000000001", "500000000000000000": "0.5", "3000000000000000000": "3", "0": "0"} {
		v, _ := new(big.Int).SetString(wei, 10)
		if got := node.FormatETH(v); got != want {
			t.Errorf("node.FormatETH(%s) = %s, want %s", wei, got, want)
		}
	}
	now := time.Date(2026, 6, 13, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"72h": now.Add(72 * time.Hour), "3d": now.Add(72 * time.Hour), "90m": now.Add(90 * time.Minute),
		"2026-07-01T12:00:00Z": time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC), "2026-07-01T14:00:00+02:00": time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC),
	} {
		if got, err := parseDeadline(in, now); err != nil || !got.Equal(want) {
			t.Errorf("parseDeadline(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if rulingOf(7000, false) != 7001 || rulingOf(0, false) != 1 || rulingOf(0, true) != 0 {
		t.Error("rulingOf")
	}
}

// TestCommandsHaveExamples: every command of the binary (cobra's own
// help and completion aside) shows an example of itself in --help.
func TestCommandsHaveExamples(t *testing.T) {
	root := newRootCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && !strings.Contains(c.Example, c.CommandPath()+" ") && !strings.HasSuffix(strings.TrimSpace(c.Example), c.CommandPath()) {
			t.Errorf("%s: no example of itself in %q", c.CommandPath(), c.Example)
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	for _, c := range root.Commands() {
		if c.Name() != "help" && c.Name() != "completion" {
			walk(c)
		}
	}
}
