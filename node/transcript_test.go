package node_test

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
	"github.com/parleynet/parley/p2p"
)

var updateTranscripts = flag.Bool("update", false, "rewrite the golden transcripts in testdata/transcripts")

// The node transcript harness, in the style of etcd-io/raft's rafttest
// interaction tests: each file in testdata/transcripts is one story told
// by real nodes (node.Node on loopback, one embedded dev chain per file,
// a scripted approval gate that approves unless told otherwise). A file
// is blocks of one command, a "----" line and the expected output,
// separated by blank lines; "#" lines between blocks are comments. With
// -update the expected output is rewritten from what the nodes now say.
//
// Nothing in the output depends on time, randomness or keys: nodes are
// named by the name they were started with, negotiations T1, T2, ... in
// the order the transcript meets them, announcements A1, ..., files and
// bundles C1, ..., digests D1, ..., tasks K1, ..., other hashes (a chain
// fact's) H1, ...; envelopes by their sender and sequence (poster#2);
// amounts in ETH.
//
// Commands (NODE is a node's name, T a negotiation's name, ms are
// milestone amounts in milli-ETH):
//
//	node NAME [chain=no] [eth=N] [rate=slow]  start a node (funded with N ETH, default 100)
//	gate NODE [deny=ACT,...] [expire=ACT,...]  what NODE's gate decides (no args: approve all)
//	stop NODE                                 close NODE (stabilize leaves it out)
//	post NODE [title=S] ms=300,200            announce a task on the board (names A<n>)
//	announce NODE ann=A                       publish an announcement again
//	propose NODE to=NODE [title=S] ms=...     propose a task directly (names T<n>)
//	counter NODE T|ann=A [ms=...] [title=S] [reason=S]
//	accept NODE T|ann=A
//	fund NODE T
//	deliver NODE T [m=0] [file=S] [name=S]
//	release NODE T [m=0]                      accept a delivery, releasing its milestone
//	dispute NODE T
//	evidence NODE T [file=S] [name=S]
//	propose-arbitrator NODE T arb=NODE
//	rule NODE T ruling=N
//	cancel NODE T [reason=S]
//	amend NODE T [ms=...] [deadline=+96h] [reason=S]   no ms: co-sign the pending amendment
//	replace NODE T [to=NODE] [summary=S]      no to: co-sign the pending replacement
//	withdraw NODE
//	consent NODE of=NODE state=allowed|unknown|denied
//	stabilize [held=NODE:N,...]               wait until every node processed everything in flight
//	                                          (but N envelopes NODE's outbox holds for a later act)
//	thread NODE T [order=sorted]              NODE's view of T (sorted: see showThread)
//	board NODE                                the announcements NODE knows
//	owed                                      what the chain owes each node
//	task T                                    T's task on chain: status, milestones, escrow
//	events NODE [order=sorted]                NODE's events since the last events of it
//
// A T or A argument of "unknown" names a negotiation or announcement no
// node holds. An act prints "ok" and what it did, or "refused CODE".
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, f := range files {
		// Each story has its own chain and nodes, and mostly waits:
		// the stories run side by side.
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			t.Parallel()
			runNodeTranscript(t, f)
		})
	}
}

// tblock is one command of a transcript and its expected output, or a
// run of comment lines.
type tblock struct {
	comments []string
	cmd      string
	want     []string
}

func parseTranscript(t *testing.T, path string) []tblock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []tblock
	var cur *tblock
	inWant := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			if cur != nil {
				out = append(out, *cur)
				cur = nil
			}
			inWant = false
		case cur == nil && strings.HasPrefix(line, "#"):
			if len(out) > 0 && out[len(out)-1].cmd == "" {
				out[len(out)-1].comments = append(out[len(out)-1].comments, line)
			} else {
				out = append(out, tblock{comments: []string{line}})
			}
		case cur == nil:
			cur = &tblock{cmd: line}
		case line == "----" && !inWant:
			inWant = true
		case inWant:
			cur.want = append(cur.want, line)
		default:
			t.Fatalf("%s: unexpected line %q", path, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}

func runNodeTranscript(t *testing.T, path string) {
	blocks := parseTranscript(t, path)
	s := newStory(t)
	var b strings.Builder
	for i, bl := range blocks {
		if bl.cmd == "" {
			b.WriteString(strings.Join(bl.comments, "\n") + "\n")
			continue
		}
		got := s.run(bl.cmd)
		t.Logf("%s -> %s", bl.cmd, strings.Join(got, " | "))
		b.WriteString(bl.cmd + "\n----\n")
		for _, g := range got {
			b.WriteString(g + "\n")
		}
		if i < len(blocks)-1 {
			b.WriteString("\n")
		}
		if !*updateTranscripts && strings.Join(got, "\n") != strings.Join(bl.want, "\n") {
			t.Errorf("%s: %s\n got: %s\nwant: %s", path, bl.cmd, strings.Join(got, "\n      "), strings.Join(bl.want, "\n      "))
		}
	}
	if *updateTranscripts {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// splitCommand splits a command line into words; a value may be quoted
// (reason="not this week").
func splitCommand(line string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inQuote, have := false, false
	for _, r := range line {
		switch {
		case r == '"':
			inQuote, have = !inQuote, true
		case r == ' ' && !inQuote:
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if inQuote {
		return nil, fmt.Errorf("unterminated quote in %q", line)
	}
	if have {
		out = append(out, cur.String())
	}
	return out, nil
}

// story is one transcript's world: its dev chain, its nodes and the names
// it gives to what the nodes report.
type story struct {
	t     *testing.T
	dev   *chain.Devchain
	nodes map[string]*actor
	order []string
	names *namer
	// own are the announcements each node posted, which stabilize waits
	// to see on every other node's board.
	own map[negotiation.Hash]string
}

// actor is one node of a story.
type actor struct {
	name string
	cfg  node.Config
	gate *scriptGate
	n    *node.Node
	up   bool
	slow bool // rate=slow: one announcement per 100 s

	mu     sync.Mutex
	events []node.Event
	last   time.Time // when the last event arrived
	read   int       // events already printed
}

func newStory(t *testing.T) *story {
	cfg := chain.DefaultDevchainConfig()
	cfg.Logger = slog.New(slog.DiscardHandler)
	dev, err := chain.StartDevchain(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	return &story{t: t, dev: dev, nodes: map[string]*actor{}, names: newNamer(), own: map[negotiation.Hash]string{}}
}

// scriptGate approves every act but those the transcript told it to deny
// or to let expire.
type scriptGate struct {
	mu     sync.Mutex
	deny   map[node.Act]bool
	expire map[node.Act]bool
}

func (g *scriptGate) Decide(_ context.Context, r node.ApprovalRequest) (node.Decision, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.expire[r.Act]:
		return node.Decision{}, context.DeadlineExceeded
	case g.deny[r.Act]:
		return node.Decision{Approved: false, Method: "operator", By: "transcript", Reason: "no"}, nil
	}
	return node.Decision{Approved: true, Method: "auto", By: "transcript"}, nil
}

// args are a command's key=value words and its positional ones.
type args struct {
	pos []string
	kv  map[string]string
}

func parseArgs(words []string) args {
	a := args{kv: map[string]string{}}
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok {
			a.kv[k] = v
		} else {
			a.pos = append(a.pos, w)
		}
	}
	return a
}

func (a args) get(k, def string) string {
	if v, ok := a.kv[k]; ok {
		return v
	}
	return def
}

// errBadScript is a mistake in the transcript itself.
type errBadScript struct{ msg string }

func (e errBadScript) Error() string { return e.msg }

func badScript(format string, v ...any) { panic(errBadScript{fmt.Sprintf(format, v...)}) }

func (s *story) run(line string) (out []string) {
	words, err := splitCommand(line)
	if err != nil || len(words) == 0 {
		s.t.Fatalf("bad command %q: %v", line, err)
	}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(errBadScript); ok {
				s.t.Fatalf("%s: %s", line, e.msg)
			}
			panic(r)
		}
	}()
	cmd, a := words[0], parseArgs(words[1:])
	switch cmd {
	case "node":
		return s.startNode(a)
	case "gate":
		n := s.actor(a, 0)
		n.gate.mu.Lock()
		n.gate.deny, n.gate.expire = actSet(a.get("deny", "")), actSet(a.get("expire", ""))
		n.gate.mu.Unlock()
		return []string{"ok"}
	case "stop":
		n := s.actor(a, 0)
		if err := n.n.Close(); err != nil {
			s.t.Fatal(err)
		}
		n.up = false
		return []string{"ok"}
	case "stabilize":
		held := map[string]int{}
		for _, h := range strings.Split(a.get("held", ""), ",") {
			if name, k, ok := strings.Cut(h, ":"); ok {
				held[name], _ = strconv.Atoi(k)
			}
		}
		s.stabilize(held)
		return []string{"ok"}
	case "thread":
		return s.showThread(s.actor(a, 0), a)
	case "board":
		return s.showBoard(s.actor(a, 0))
	case "owed":
		return s.showOwed()
	case "task":
		return s.showTask(s.nid(a, 0))
	case "events":
		return s.showEvents(s.actor(a, 0), a)
	}
	if _, ok := transcriptActs()[cmd]; ok {
		return s.act(cmd, s.actor(a, 0), a)
	}
	badScript("unknown command %q", cmd)
	return nil
}

func actSet(list string) map[node.Act]bool {
	m := map[node.Act]bool{}
	for _, a := range strings.Split(list, ",") {
		if a != "" {
			m[node.Act(a)] = true
		}
	}
	return m
}

// actor returns the node the i-th positional argument names.
func (s *story) actor(a args, i int) *actor {
	if len(a.pos) <= i {
		badScript("a node name is missing")
	}
	return s.named(a.pos[i])
}

func (s *story) named(name string) *actor {
	n := s.nodes[name]
	if n == nil {
		badScript("no node %q", name)
	}
	return n
}

// startNode starts a node on loopback, bootstrapped to and connected
// with every node already started, on the story's chain unless chain=no,
// funded with eth= ETH (100 unless set); rate=slow gives it a board rate
// of one announcement per 100 s.
func (s *story) startNode(a args) []string {
	t := s.t
	if len(a.pos) != 1 {
		badScript("node NAME")
	}
	name := a.pos[0]
	if s.nodes[name] != nil {
		badScript("node %q started twice", name)
	}
	cfg := nodetest.Config(nodetest.Keys(t), name)
	cfg.FetchTimeout = 10 * time.Second
	withChain := a.get("chain", "yes") != "no"
	if withChain {
		nodetest.UseChain(&cfg, s.dev)
	}
	for _, other := range s.order {
		if o := s.nodes[other]; o.up {
			nodetest.Bootstrap(&cfg, o.n)
		}
	}
	n := &actor{name: name, cfg: cfg, gate: &scriptGate{}}
	opts := []node.Option{node.WithGate(n.gate)}
	if a.get("rate", "") == "slow" {
		n.slow = true
		opts = append(opts, node.WithP2PTuning(func(c *p2p.Config) {
			c.RetryMin = 20 * time.Millisecond
			c.AckTimeout = 10 * time.Second
			c.DialTimeout = 5 * time.Second
			c.ResourceMemory = 64 << 20
			c.ResourceFDs = 256
			c.TopicRate, c.TopicBurst = 0.01, 1
		}))
	}
	n.n = nodetest.Start(t, cfg, opts...)
	n.up = true
	events, stop := n.n.Subscribe(4096)
	t.Cleanup(stop)
	go func() {
		for ev := range events {
			n.mu.Lock()
			n.events = append(n.events, ev)
			n.last = time.Now()
			n.mu.Unlock()
		}
	}()
	s.names.set(strings.ToLower(n.n.Address().String()), name)
	if withChain {
		ethers, err := strconv.ParseInt(a.get("eth", "100"), 10, 64)
		if err != nil {
			badScript("eth=%q", a.get("eth", ""))
		}
		if ethers > 0 {
			s.fund(n.n.Address(), new(big.Int).Mul(big.NewInt(ethers), big.NewInt(params.Ether)))
		}
	}
	for _, other := range s.order {
		if o := s.nodes[other]; o.up {
			nodetest.Connect(t, o.n, n.n)
		}
	}
	s.nodes[name] = n
	s.order = append(s.order, name)
	return []string{"ok"}
}

// fund sends amount wei to addr from the dev chain's deployer.
func (s *story) fund(addr negotiation.Address, amount *big.Int) {
	t := s.t
	b, err := chain.DialRPC(t.Context(), s.dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c, err := chain.New(b, s.dev.Deployer.Signer(), s.dev.ClientConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	to := common.Address(addr)
	if _, err := c.Transact(t.Context(), &to, amount, nil); err != nil {
		t.Fatal(err)
	}
}

// nid returns the negotiation a positional argument names.
func (s *story) nid(a args, i int) string {
	if len(a.pos) <= i {
		badScript("a negotiation name is missing")
	}
	if a.pos[i] == "unknown" {
		return "00000000-0000-4000-8000-000000000000"
	}
	id, ok := s.names.lookup(a.pos[i])
	if !ok {
		badScript("no negotiation %q", a.pos[i])
	}
	return id
}

// ann returns the announcement ann= names.
func (s *story) ann(a args) negotiation.Hash {
	l := a.get("ann", "")
	if l == "unknown" {
		return negotiation.Hash{0xaa}
	}
	id, ok := s.names.lookup(l)
	if !ok {
		badScript("no announcement %q", l)
	}
	h, err := negotiation.ParseHash(id)
	if err != nil {
		s.t.Fatal(err)
	}
	return h
}

func (s *story) addrOf(name string) negotiation.Address {
	return s.named(name).n.Address()
}

// milestones parses ms=300,200 (milli-ETH).
func milestones(v string) []node.MilestoneSpec {
	var out []node.MilestoneSpec
	for i, m := range strings.Split(v, ",") {
		x, err := strconv.ParseInt(m, 10, 64)
		if err != nil {
			badScript("ms=%q", v)
		}
		out = append(out, node.MilestoneSpec{Amount: milliETH(x), Description: "part " + strconv.Itoa(i+1)})
	}
	return out
}

func milliETH(m int64) *big.Int {
	return new(big.Int).Mul(big.NewInt(m), big.NewInt(params.Ether/1000))
}

func taskSpec(a args) node.TaskSpec {
	return node.TaskSpec{
		Title: a.get("title", "Translate the user guide"), Category: "translation",
		Deadline: time.Now().Add(72 * time.Hour), Milestones: milestones(a.get("ms", "300,200")),
	}
}

func counterSpec(a args) node.CounterSpec {
	c := node.CounterSpec{Title: a.get("title", ""), Reason: a.get("reason", "")}
	if v, ok := a.kv["ms"]; ok {
		c.Milestones = milestones(v)
	}
	return c
}

// act performs one act and prints what it did.
func (s *story) act(name string, n *actor, a args) []string {
	ctx := s.t.Context()
	var (
		res node.ActResult
		err error
	)
	switch name {
	case "post":
		var ann node.Announcement
		ann, err = n.n.PostTask(ctx, taskSpec(a))
		if err == nil {
			if !n.slow {
				// A slow node cannot publish it again: stabilize does
				// not wait for it on the boards.
				s.own[ann.Hash] = n.name
			}
			return []string{"ok " + s.names.name("A", ann.Hash.String())}
		}
	case "announce":
		err = n.n.Announce(ctx, s.ann(a))
	case "propose":
		res, err = n.n.ProposeTask(ctx, s.addrOf(a.get("to", "worker")), taskSpec(a))
	case "counter":
		if _, ok := a.kv["ann"]; ok {
			res, err = n.n.CounterAnnouncement(ctx, s.ann(a), counterSpec(a))
		} else {
			res, err = n.n.Counter(ctx, s.nid(a, 1), counterSpec(a))
		}
	case "accept":
		if _, ok := a.kv["ann"]; ok {
			res, err = n.n.AcceptAnnouncement(ctx, s.ann(a))
		} else {
			res, err = n.n.Accept(ctx, s.nid(a, 1))
		}
	case "fund":
		res, err = n.n.Fund(ctx, s.nid(a, 1))
	case "deliver":
		m, _ := strconv.Atoi(a.get("m", "0"))
		res, err = n.n.Deliver(ctx, s.nid(a, 1), node.DeliverySpec{
			Milestone: m, Name: a.get("name", "chapter.md"), MediaType: "text/markdown", Data: []byte(a.get("file", "chapter "+strconv.Itoa(m+1))),
		})
	case "release":
		m, _ := strconv.Atoi(a.get("m", "0"))
		res, err = n.n.AcceptDelivery(ctx, s.nid(a, 1), m)
	case "dispute":
		res, err = n.n.OpenDispute(ctx, s.nid(a, 1))
	case "evidence":
		res, err = n.n.SubmitEvidence(ctx, s.nid(a, 1), node.EvidenceSpec{
			Name: a.get("name", "timeline.txt"), Data: []byte(a.get("file", "what happened")), Description: "evidence",
		})
	case "propose-arbitrator":
		res, err = n.n.ProposeArbitrator(ctx, s.nid(a, 1), s.addrOf(a.get("arb", "arbitrator")))
	case "rule":
		r, perr := strconv.ParseUint(a.get("ruling", "0"), 10, 64)
		if perr != nil {
			badScript("ruling=%q", a.get("ruling", ""))
		}
		res, err = n.n.Rule(ctx, s.nid(a, 1), r)
	case "cancel":
		res, err = n.n.Cancel(ctx, s.nid(a, 1), a.get("reason", "the scope changed"))
	case "amend":
		spec := node.AmendSpec{Reason: a.get("reason", "")}
		if v, ok := a.kv["ms"]; ok {
			spec.Milestones = milestones(v)
			d, perr := time.ParseDuration(strings.TrimPrefix(a.get("deadline", "+96h"), "+"))
			if perr != nil {
				badScript("deadline=%q", a.get("deadline", ""))
			}
			spec.Deadline = time.Now().Add(d).Truncate(time.Second)
		}
		res, err = n.n.Amend(ctx, s.nid(a, 1), spec)
	case "replace":
		spec := node.ReplaceSpec{Summary: a.get("summary", "")}
		if to, ok := a.kv["to"]; ok {
			spec.NewWorker = s.addrOf(to)
		}
		res, err = n.n.Replace(ctx, s.nid(a, 1), spec)
	case "withdraw":
		res, err = n.n.Withdraw(ctx, negotiation.Address{})
	case "consent":
		var v node.ConsentView
		v, err = n.n.SetConsent(ctx, s.addrOf(a.get("of", "")), node.Consent(a.get("state", "")), node.ConsentViaAPI)
		if err == nil {
			return []string{"ok " + s.names.value("", strings.ToLower(v.Address.String())) + " " + string(v.State)}
		}
	default:
		badScript("act %q has no command", name)
	}
	if err != nil {
		return []string{"refused " + refusalCode(err)}
	}
	return []string{s.result(res)}
}

// refusalCode is the code of a refused act; an error without one fails
// the transcript with its message, which is not deterministic.
func refusalCode(err error) string {
	if c := node.CodeOf(err); c != "" {
		return string(c)
	}
	if errors.Is(err, context.Canceled) {
		return "canceled"
	}
	return "error: " + err.Error()
}

// result writes an act's result: the thread's name and state after it,
// the envelope sent, whether a transaction was made, and the act's
// details.
func (s *story) result(r node.ActResult) string {
	w := []string{"ok"}
	if r.Thread.NegotiationID != "" {
		w = append(w, s.names.name("T", r.Thread.NegotiationID), string(r.Thread.State))
	}
	if r.Envelope != nil {
		w = append(w, "sent="+string(r.Envelope.Type))
	}
	if r.Tx != nil {
		w = append(w, "tx")
	}
	keys := make([]string, 0, len(r.Detail))
	for k := range r.Detail {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		w = append(w, k+"="+s.names.detail(k, r.Detail[k]))
	}
	return strings.Join(w, " ")
}

// stabilize waits until every running node has processed everything in
// flight: no outbox holds an envelope (but held[node] envelopes in that
// node's outbox, which wait for an act of another node: a replacement's
// ReplacementContext to the new worker, retried until the chain made it),
// no thread waits for facts, the poster and the arbitrator fetched every
// delivery, every node a thread names as a party holds it and the
// parties agree on it (state, log length, task, dispute, ruling,
// milestones, deliveries and their chain proofs: a chain fact one node
// applied the others applied too), every announcement is on every board
// (published again while it is not), and no node reported an event for a
// quarter of a second.
func (s *story) stabilize(held map[string]int) {
	const quiet = 250 * time.Millisecond
	deadline := time.Now().Add(60 * time.Second)
	lastAnnounce := time.Now()
	for {
		why := s.unsettled(held)
		if why == "" {
			last := time.Time{}
			for _, name := range s.order {
				n := s.nodes[name]
				n.mu.Lock()
				if n.last.After(last) {
					last = n.last
				}
				n.mu.Unlock()
			}
			if time.Since(last) >= quiet {
				return
			}
			why = "events still arriving"
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("stabilize: still unsettled after a minute: %s", why)
		}
		if strings.HasPrefix(why, "announcement") && time.Since(lastAnnounce) > 1500*time.Millisecond {
			// Gossip keeps no history: publish again in case the mesh
			// was not formed yet (an operator would, too).
			for h, by := range s.own {
				_ = s.nodes[by].n.Announce(s.t.Context(), h)
			}
			lastAnnounce = time.Now()
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fingerprint is what the parties of a thread must agree on.
func fingerprint(v node.ThreadView) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d %s %s %v %v", v.State, len(v.Log), v.TaskID, v.DisputeID, v.Worker, v.Arbitrator)
	if v.Ruling != nil {
		fmt.Fprintf(&b, " ruling=%d", *v.Ruling)
	}
	for _, m := range v.Milestones {
		fmt.Fprintf(&b, " %s", m.Amount.String())
	}
	for _, d := range v.Deliveries {
		fmt.Fprintf(&b, " m%d:%s:%s:%v", d.Milestone, d.ProofCID, d.ChainProof, d.Accepted)
	}
	return b.String()
}

// unsettled says what is still in flight, "" when nothing is.
func (s *story) unsettled(held map[string]int) string {
	views := map[string]map[string]node.ThreadView{} // nid -> node -> view
	for _, name := range s.order {
		n := s.nodes[name]
		if !n.up {
			continue
		}
		st, err := n.n.Status()
		if err != nil {
			return name + ": " + err.Error()
		}
		if st.Outbox != held[name] {
			return fmt.Sprintf("%s's outbox holds %d, not %d", name, st.Outbox, held[name])
		}
		for _, v := range n.n.Threads() {
			if v.Pending > 0 {
				return fmt.Sprintf("%s's thread %s waits for %d facts", name, v.NegotiationID, v.Pending)
			}
			for _, d := range v.Deliveries {
				// The poster and the arbitrator fetch every delivery; a
				// new worker does not fetch its predecessor's.
				if !d.Fetched && (v.Role == negotiation.RolePoster || v.Role == negotiation.RoleArbitrator) {
					return fmt.Sprintf("%s has not fetched milestone %d of %s", name, d.Milestone, v.NegotiationID)
				}
			}
			if views[v.NegotiationID] == nil {
				views[v.NegotiationID] = map[string]node.ThreadView{}
			}
			views[v.NegotiationID][name] = v
		}
	}
	for h, by := range s.own {
		for _, name := range s.order {
			n := s.nodes[name]
			if name == by || !n.up || !s.nodes[by].up {
				continue
			}
			if !slices.ContainsFunc(n.n.Board(), func(a node.Announcement) bool { return a.Hash == h }) {
				return fmt.Sprintf("announcement %s not on %s's board", h, name)
			}
		}
	}
	for nid, byNode := range views {
		// The parties are the nodes the views name as poster, worker and
		// arbitrator now; each holds the thread and they agree on it.
		parties := map[string]bool{}
		for _, v := range byNode {
			for _, a := range []*negotiation.Address{v.Poster, v.Worker, v.Arbitrator} {
				if a == nil {
					continue
				}
				if name, ok := s.names.lookupName(strings.ToLower(a.String())); ok && s.nodes[name] != nil && s.nodes[name].up {
					parties[name] = true
				}
			}
		}
		want := ""
		for _, name := range s.order {
			if !parties[name] {
				continue
			}
			v, ok := byNode[name]
			if !ok {
				return fmt.Sprintf("%s does not hold %s", name, nid)
			}
			if v.Observer && v.Role != negotiation.RoleArbitrator {
				continue
			}
			f := fingerprint(v)
			if want == "" {
				want = f
			} else if f != want {
				return fmt.Sprintf("the parties of %s disagree: %q, %s has %q", nid, want, name, f)
			}
		}
	}
	return ""
}

// showThread prints NODE's view of a thread.
func (s *story) showThread(n *actor, a args) []string {
	v, err := n.n.Thread(s.nid(a, 1))
	if err != nil {
		return []string{"refused " + refusalCode(err)}
	}
	nm := s.names
	w := []string{"state=" + string(v.State), "a2a=" + string(v.A2A), "role=" + string(v.Role)}
	for _, p := range []struct {
		k string
		a *negotiation.Address
	}{{"poster", v.Poster}, {"worker", v.Worker}, {"arbitrator", v.Arbitrator}} {
		if p.a != nil {
			w = append(w, p.k+"="+nm.value("", strings.ToLower(p.a.String())))
		}
	}
	if v.Observer {
		w = append(w, "observer")
	}
	out := []string{strings.Join(w, " ")}
	w = nil
	if v.Announcement != nil {
		w = append(w, "announcement="+nm.name("A", v.Announcement.String()))
	}
	if c := v.Current; c != nil {
		w = append(w, fmt.Sprintf("offer=r%d by=%s", c.Revision, nm.value("", strings.ToLower(c.By.String()))))
	}
	if ag := v.Agreement; ag != nil {
		amt, _ := new(big.Int).SetString(ag.Amount, 10)
		w = append(w, "agreed="+node.FormatETH(amt), "digest="+nm.name("D", ag.Digest.String()))
	}
	if v.TaskID != "" {
		w = append(w, "task="+nm.name("K", v.TaskID))
	}
	if v.DisputeID != "" {
		w = append(w, "dispute="+nm.name("K", v.DisputeID))
	}
	if v.Ruling != nil {
		w = append(w, fmt.Sprintf("ruling=%d", *v.Ruling))
	}
	if len(v.Milestones) > 0 {
		var ms []string
		for _, m := range v.Milestones {
			ms = append(ms, node.FormatETH(m.Amount.Big()))
		}
		w = append(w, "milestones="+strings.Join(ms, ","))
	}
	if len(w) > 0 {
		out = append(out, strings.Join(w, " "))
	}
	// order=sorted writes the log by sender and sequence, without the
	// state each record left the thread in: for envelopes two nodes send
	// at once, whose order and states differ from run to run (the proof
	// bundles both parties hand an assigned arbitrator, the
	// ReplacementContexts a new worker takes from both senders' retries
	// once it joined).
	sorted := a.get("order", "") == "sorted"
	type line struct {
		sender string
		seq    uint64
		text   string
	}
	var log []line
	for _, r := range v.Log {
		sender := nm.value("", strings.ToLower(r.Sender.String()))
		l := fmt.Sprintf("  %s %s#%d %s", r.Type, sender, r.Seq, r.Code)
		if !sorted {
			l += " " + string(r.State)
		}
		log = append(log, line{sender, r.Seq, l})
	}
	if sorted {
		slices.SortStableFunc(log, func(x, y line) int {
			if c := strings.Compare(x.sender, y.sender); c != 0 {
				return c
			}
			return int(x.seq) - int(y.seq)
		})
	}
	for _, l := range log {
		out = append(out, l.text)
	}
	for _, d := range v.Deliveries {
		l := fmt.Sprintf("  delivery m%d proof=%s", d.Milestone, nm.name("C", string(d.ProofCID)))
		if d.ChainProof != "" {
			l += " chain=" + nm.name("C", string(d.ChainProof))
		}
		if d.Fetched {
			l += " fetched"
		}
		if d.Accepted {
			l += " accepted"
		}
		out = append(out, l)
	}
	for _, r := range v.Refused {
		out = append(out, fmt.Sprintf("  refused %+v", r))
	}
	return out
}

// showBoard prints the announcements a node knows, by name, in the order
// the transcript named them.
func (s *story) showBoard(n *actor) []string {
	var out []string
	for _, a := range n.n.Board() {
		out = append(out, s.names.name("A", a.Hash.String())+" by "+s.names.value("", strings.ToLower(a.Poster.String())))
	}
	slices.Sort(out)
	if len(out) == 0 {
		return []string{"empty"}
	}
	return out
}

// showOwed prints what the chain owes each node with a chain.
func (s *story) showOwed() []string {
	var out []string
	for _, name := range s.order {
		n := s.nodes[name]
		if !n.up || n.n.Chain() == nil {
			continue
		}
		owed, err := n.n.Owed(s.t.Context(), negotiation.Address{})
		if err != nil {
			out = append(out, name+" refused "+refusalCode(err))
			continue
		}
		out = append(out, name+" "+node.FormatETH(owed))
	}
	return out
}

// showTask prints a negotiation's task as the chain holds it: its status,
// worker and nonce, each milestone's state and amount, and the escrow
// left.
func (s *story) showTask(nid string) []string {
	var c *chain.Client
	var id string
	for _, name := range s.order {
		n := s.nodes[name]
		if !n.up || n.n.Chain() == nil {
			continue
		}
		if v, err := n.n.Thread(nid); err == nil && v.TaskID != "" {
			c, id = n.n.Chain(), v.TaskID
			break
		}
	}
	if c == nil {
		return []string{"no task"}
	}
	taskID, err := chain.ParseTaskID(id)
	if err != nil {
		s.t.Fatal(err)
	}
	task, err := c.TaskState(s.t.Context(), taskID)
	if err != nil {
		s.t.Fatalf("the task of %s: %v", nid, err)
	}
	if h, err := c.TaskStateHash(s.t.Context(), taskID); err == nil && h == chain.ClosedByDispute {
		// The registry keeps no milestones of a task a ruling paid out.
		return []string{s.names.name("K", id) + " status=closed by=ruling"}
	}
	status := map[uint8]string{chain.TaskNone: "none", chain.TaskActive: "active", chain.TaskDisputed: "disputed", chain.TaskClosed: "closed"}
	state := map[uint8]string{chain.MilestoneOpen: "open", chain.MilestoneSubmitted: "submitted", chain.MilestoneReleased: "released", chain.MilestoneRefunded: "refunded"}
	out := []string{fmt.Sprintf("%s status=%s worker=%s nonce=%d escrow=%s", s.names.name("K", id), status[task.Status],
		s.names.value("", strings.ToLower(task.Worker.Hex())), task.Nonce, node.FormatETH(chain.Escrow(task)))}
	for i, m := range task.Milestones {
		out = append(out, fmt.Sprintf("  m%d %s %s", i, node.FormatETH(m.Amount), state[m.State]))
	}
	return out
}

// showEvents prints a node's events since the last time they were shown
// (order=sorted: sorted, for events of concurrent sends).
// Envelopes on a dispute's evidence topic are left out: gossip may or may
// not bring a copy of what arrived directly.
func (s *story) showEvents(n *actor, a args) []string {
	n.mu.Lock()
	evs := slices.Clone(n.events[n.read:])
	n.read = len(n.events)
	n.mu.Unlock()
	envs := s.envelopeNames()
	nm := s.names
	var out []string
	for _, ev := range evs {
		if ev.Kind == node.EventTopic {
			continue
		}
		w := []string{string(ev.Kind)}
		if ev.NegotiationID != "" {
			w = append(w, nm.name("T", ev.NegotiationID))
		}
		if ev.Direction != "" {
			w = append(w, ev.Direction)
		}
		if ev.Type != "" {
			w = append(w, string(ev.Type))
		}
		if ev.Hash != "" {
			switch {
			case envs[ev.Hash] != "":
				w = append(w, envs[ev.Hash])
			case ev.Kind == node.EventAnnouncement:
				w = append(w, nm.name("A", ev.Hash))
			case ev.Kind != node.EventApproval: // an approval's hash is its intent's
				w = append(w, nm.name("H", ev.Hash))
			}
		}
		if ev.From != "" || ev.State != "" {
			if ev.From != "" {
				w = append(w, string(ev.From)+"->"+string(ev.State))
			} else {
				w = append(w, string(ev.State))
			}
		}
		if ev.Fact != "" {
			w = append(w, "fact="+ev.Fact)
		}
		if ev.Code != "" {
			w = append(w, "code="+ev.Code)
		}
		if ev.CID != "" {
			w = append(w, "cid="+nm.name("C", ev.CID))
		}
		if ev.Detail != "" {
			// A recipient's address, a file's name, an act.
			w = append(w, "detail="+nm.value("", strings.ToLower(ev.Detail)))
		}
		out = append(out, strings.Join(w, " "))
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	if a.get("order", "") == "sorted" {
		slices.Sort(out)
	}
	return out
}

// envelopeNames names every envelope any node holds by its sender and
// sequence.
func (s *story) envelopeNames() map[string]string {
	out := map[string]string{}
	for _, name := range s.order {
		n := s.nodes[name]
		if !n.up {
			continue
		}
		for _, v := range n.n.Threads() {
			for _, r := range v.Log {
				out[r.Hash.String()] = fmt.Sprintf("%s#%d", s.names.value("", strings.ToLower(r.Sender.String())), r.Seq)
			}
		}
	}
	return out
}

// namer gives stable names to the ids, hashes, addresses and CIDs a
// transcript meets, in the order it meets them.
type namer struct {
	byValue map[string]string
	byName  map[string]string
	next    map[string]int
}

func newNamer() *namer {
	n := &namer{byValue: map[string]string{}, byName: map[string]string{}, next: map[string]int{}}
	n.set(strings.ToLower(negotiation.Address{}.String()), "eth")
	return n
}

func (n *namer) set(value, name string) {
	n.byValue[value], n.byName[name] = name, value
}

// name returns value's name, giving it the next one with prefix if it has
// none.
func (n *namer) name(prefix, value string) string {
	if value == "" {
		return "-"
	}
	if l, ok := n.byValue[value]; ok {
		return l
	}
	if l, ok := n.byValue[strings.ToLower(value)]; ok {
		return l
	}
	n.next[prefix]++
	l := prefix + strconv.Itoa(n.next[prefix])
	n.set(value, l)
	return l
}

// lookup returns the value a name stands for.
func (n *namer) lookup(name string) (string, bool) {
	v, ok := n.byName[name]
	return v, ok
}

// lookupName returns the name of value, if it has one.
func (n *namer) lookupName(value string) (string, bool) {
	l, ok := n.byValue[value]
	return l, ok
}

// value returns a value's name if it has one, the value itself if it is
// plain (a number, a word), else a new name with prefix.
func (n *namer) value(prefix, v string) string {
	if l, ok := n.lookupName(v); ok {
		return l
	}
	if l, ok := n.lookupName(strings.ToLower(v)); ok {
		return l
	}
	if plain(v) || prefix == "" {
		return v
	}
	return n.name(prefix, v)
}

// plain reports whether v is a number, a boolean or a short word, which
// a transcript prints as it is.
func plain(v string) bool {
	if _, err := strconv.ParseUint(v, 10, 64); err == nil {
		return true
	}
	if len(v) > 24 || strings.HasPrefix(v, "0x") {
		return false
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// detail writes an act's detail value: amounts in ETH, ids and hashes by
// name.
func (n *namer) detail(key, v string) string {
	switch key {
	case "amount", "bond", "refund", "topUp":
		if x, ok := new(big.Int).SetString(v, 10); ok {
			return node.FormatETH(x)
		}
	case "taskId", "disputeId":
		return n.name("K", v)
	case "digest":
		return n.name("D", v)
	case "cid", "handoffCid", "proofCid", "bundleCid":
		return n.name("C", v)
	}
	if strings.HasPrefix(v, "0x") && len(v) == 42 {
		return n.value("", strings.ToLower(v))
	}
	return n.value("V", v)
}
