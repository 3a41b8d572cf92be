package node_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math/big"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleynet/parley/internal/transcript"

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
//	post NODE [title=S] ms=300,200 [supervisor=NODE]  announce a task on the board (names A<n>)
//	announce NODE ann=A                       publish an announcement again
//	propose NODE to=NODE [title=S] ms=... [supervisor=NODE]  propose a task directly (names T<n>)
//	counter NODE T|ann=A [ms=...] [title=S] [reason=S] [supervisor=NODE]
//	accept NODE T|ann=A
//	fund NODE T
//	deliver NODE T [m=0] [file=S] [name=S]
//	release NODE T [m=0]                      accept a delivery, releasing its milestone
//	dispute NODE T
//	evidence NODE T [file=S] [name=S]
//	propose-arbitrator NODE T arb=NODE
//	rule NODE T ruling=N
//	veto NODE T party=NODE [reason=S]         veto for party, as the supervisor it named
//	cancel NODE T [reason=S]
//	amend NODE T [ms=...] [deadline=+96h] [reason=S]   no ms: co-sign the pending amendment
//	replace NODE T [to=NODE] [summary=S]      no to: co-sign the pending replacement
//	withdraw NODE
//	claim NODE T [m=0]                        claim a delivery the poster left unanswered (claimUnanswered)
//	reclaim NODE T                            take back, after the deadline, what was never delivered
//	resolve-timeout NODE T                    resolve a stalled dispute by its timeout
//	later DURATION                            move the chain's clock on (such as 169h)
//	consent NODE of=NODE state=allowed|unknown|denied
//	capability NODE T [file=S] [cid=C] [ref=S] [cap=S] [kind=S] [desc=S]   a capability proof
//	revise NODE T [m=0] [reason=S]            send a delivery back to work
//	request-payment NODE T [m=0] [basis=hourly] [units=N] amount=MILLI [note=S]
//	release-part NODE T [m=0]                 release the milestone's pending payment request
//	stabilize [held=NODE:N,...]               wait until every node processed everything in flight
//	                                          (but N envelopes NODE's outbox holds for a later act)
//	thread NODE T [order=sorted]              NODE's view of T (sorted: see showThread)
//	board NODE                                the announcements NODE knows
//	owed                                      what the chain owes each node
//	task T                                    T's task on chain: status, milestones, escrow
//	events NODE [order=sorted]                NODE's events since the last events of it
//	identity-register|identity-rotate|identity-revoke NODE   NODE's IdentityLink record
//	link NODE of=NODE                         NODE's look-up of the other's record
//	relink NODE                               restart NODE with a newly issued identity link
//	post-scope NODE scope=S [publish=no] ...  post with terms.scopeHash = SHA-256(S), published on chain
//	scope NODE ann=A                          NODE's check of A's scope on chain
//	court NAME by=NODE [fee=N]                NODE deploys a TestCourt (ERC-792) named NAME (fee in wei)
//	raise NODE T                              raise T's dispute with its arbitrator contract
//	court-rule NAME ruling=N [id=0]           the court's operator rules on the court's dispute id
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

func runNodeTranscript(t *testing.T, path string) {
	s := newStory(t)
	transcript.Run(t, path, *updateTranscripts, func(cmd string) []string {
		got := s.run(cmd)
		t.Logf("%s -> %s", cmd, strings.Join(got, " | "))
		return got
	})
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
	// courts are the story's arbitrator contracts, by name.
	courts map[string]*storyCourt
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
	return &story{t: t, dev: dev, nodes: map[string]*actor{}, names: newNamer(), own: map[negotiation.Hash]string{}, courts: map[string]*storyCourt{}}
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
	case "later":
		if len(a.pos) != 1 {
			badScript("later DURATION")
		}
		d, err := time.ParseDuration(a.pos[0])
		if err != nil {
			badScript("later %q: %v", a.pos[0], err)
		}
		if err := s.dev.AdjustTime(d); err != nil {
			s.t.Fatal(err)
		}
		return []string{"ok"}
	case "link", "relink", "scope", "court", "court-rule":
		return s.onchain(cmd, a)
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
	} else {
		// Without a chain client, offers for the story's chain: a node
		// signs for its own chain only (foreign_domain).
		cfg.Chain.ChainID, cfg.Chain.Contracts.TaskRegistry = s.dev.ChainID.Uint64(), s.dev.Contracts.TaskRegistry
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

// envelopeOf returns the hash of the envelope ref names in n's thread nid
// (sender#sequence, as the thread views write it), or nil for ""; a
// hash of no envelope for "unknown".
func (s *story) envelopeOf(n *actor, nid, ref string) *negotiation.Hash {
	switch ref {
	case "":
		return nil
	case "unknown":
		return &negotiation.Hash{0xde, 0xad}
	}
	name, seq, ok := strings.Cut(ref, "#")
	k, err := strconv.ParseUint(seq, 10, 64)
	if !ok || err != nil {
		badScript("reply-to=%q: want sender#sequence", ref)
	}
	v, err := n.n.Thread(nid)
	if err != nil {
		badScript("reply-to=%q: %v", ref, err)
	}
	for _, r := range v.Log {
		if r.Sender == s.addrOf(name) && r.Seq == k {
			return &r.Hash
		}
	}
	badScript("reply-to=%q: no such envelope in %s's thread", ref, n.name)
	return nil
}

func (s *story) addrOf(name string) negotiation.Address {
	if c := s.courts[name]; c != nil {
		return negotiation.Address(c.addr)
	}
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
	spec := node.TaskSpec{
		Title: a.get("title", "Translate the user guide"), Category: "translation",
		Deadline: time.Now().Add(72 * time.Hour), Milestones: milestones(a.get("ms", "300,200")),
	}
	// limits=R,T,A: at most R revisions, offers valid T seconds, A
	// acceptance attempts.
	if v, ok := a.kv["limits"]; ok {
		var l [3]int
		if _, err := fmt.Sscanf(v, "%d,%d,%d", &l[0], &l[1], &l[2]); err != nil {
			badScript("limits=%q: want revisions,ttl,attempts", v)
		}
		spec.Limits = &negotiation.Limits{MaxRevisions: &l[0], ProposalTTLSeconds: &l[1], MaxAcceptAttempts: &l[2]}
	}
	return spec
}

// supervisorOf returns the address of the node a's supervisor= names, or
// nil.
func (s *story) supervisorOf(a args) *negotiation.Address {
	v, ok := a.kv["supervisor"]
	if !ok {
		return nil
	}
	addr := s.addrOf(v)
	return &addr
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
		spec := taskSpec(a)
		spec.Supervisor = s.supervisorOf(a)
		ann, err = n.n.PostTask(ctx, spec)
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
		spec := taskSpec(a)
		spec.Supervisor = s.supervisorOf(a)
		res, err = n.n.ProposeTask(ctx, s.addrOf(a.get("to", "worker")), spec)
	case "counter":
		spec := counterSpec(a)
		spec.Supervisor = s.supervisorOf(a)
		if _, ok := a.kv["ann"]; ok {
			res, err = n.n.CounterAnnouncement(ctx, s.ann(a), spec)
		} else {
			res, err = n.n.Counter(ctx, s.nid(a, 1), spec)
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
			Note: a.get("note", ""),
		})
	case "release":
		m, _ := strconv.Atoi(a.get("m", "0"))
		res, err = n.n.AcceptDeliveryWith(ctx, s.nid(a, 1), node.AcceptDeliverySpec{Milestone: m, Note: a.get("note", "")})
	case "dispute":
		res, err = n.n.OpenDispute(ctx, s.nid(a, 1))
	case "evidence":
		res, err = n.n.SubmitEvidence(ctx, s.nid(a, 1), node.EvidenceSpec{
			Name: a.get("name", "timeline.txt"), Data: []byte(a.get("file", "what happened")), Description: "evidence",
			InReplyTo: s.envelopeOf(n, s.nid(a, 1), a.get("reply-to", "")),
		})
	case "propose-arbitrator":
		res, err = n.n.ProposeArbitratorWith(ctx, s.nid(a, 1), node.ArbitratorSpec{Arbitrator: s.addrOf(a.get("arb", "arbitrator")), Reason: a.get("reason", "")})
	case "rule":
		r, perr := strconv.ParseUint(a.get("ruling", "0"), 10, 64)
		if perr != nil {
			badScript("ruling=%q", a.get("ruling", ""))
		}
		res, err = n.n.Rule(ctx, s.nid(a, 1), r)
	case "veto":
		res, err = n.n.Veto(ctx, s.nid(a, 1), s.addrOf(a.get("party", "poster")), a.get("reason", "over budget"))
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
	case "claim":
		m, _ := strconv.Atoi(a.get("m", "0"))
		res, err = n.n.ClaimUnanswered(ctx, s.nid(a, 1), m)
	case "reclaim":
		res, err = n.n.ReclaimExpired(ctx, s.nid(a, 1))
	case "resolve-timeout":
		res, err = n.n.ResolveTimedOut(ctx, s.nid(a, 1))
	case "capability":
		res, err = n.n.Capability(ctx, s.nid(a, 1), node.CapabilitySpec{
			Capability: a.get("cap", "translation:en-de"), Kind: a.get("kind", "portfolio"), Description: a.get("desc", "prior work"),
			Ref: a.get("ref", ""), Name: "portfolio.md", MediaType: "text/markdown", Data: []byte(a.get("file", "")),
			CID: negotiation.CID(a.get("cid", "")),
		})
	case "revise":
		m, _ := strconv.Atoi(a.get("m", "0"))
		res, err = n.n.RequestRevision(ctx, s.nid(a, 1), node.RevisionSpec{Milestone: m, Reason: a.get("reason", "use the glossary")})
	case "request-payment":
		m, _ := strconv.Atoi(a.get("m", "0"))
		units, _ := strconv.ParseUint(a.get("units", "0"), 10, 64)
		amount, _ := strconv.ParseInt(a.get("amount", "0"), 10, 64)
		res, err = n.n.RequestPayment(ctx, s.nid(a, 1), node.PaymentSpec{Milestone: m, Basis: a.get("basis", negotiation.BasisHourly),
			Amount: milliETH(amount), Units: units, Note: a.get("note", "")})
	case "release-part":
		m, _ := strconv.Atoi(a.get("m", "0"))
		res, err = n.n.ReleasePart(ctx, s.nid(a, 1), node.ReleasePartSpec{Milestone: m})
	case "identity-register":
		res, err = n.n.RegisterIdentity(ctx)
	case "identity-rotate":
		res, err = n.n.RotateIdentity(ctx)
	case "identity-revoke":
		res, err = n.n.RevokeIdentity(ctx)
	case "post-scope":
		var ann node.Announcement
		spec := taskSpec(a)
		h := negotiation.Hash(sha256.Sum256([]byte(a.get("scope", "the scope"))))
		spec.ScopeHash, spec.PublishScope = &h, a.get("publish", "yes") != "no"
		ann, err = n.n.PostTask(ctx, spec)
		if err == nil {
			s.own[ann.Hash] = n.name
			w := []string{"ok " + s.names.name("A", ann.Hash.String())}
			if ann.ScopeTx != nil {
				w = append(w, "tx")
			}
			if ann.Scope != nil {
				w = append(w, "scope="+string(ann.Scope.State))
			}
			return []string{strings.Join(w, " ")}
		}
	case "raise":
		res, err = n.n.RaiseWithArbitrator(ctx, s.nid(a, 1))
	case "consent":
		var v node.ConsentView
		v, err = n.n.ConsentBook().Set(ctx, s.addrOf(a.get("of", "")), node.Consent(a.get("state", "")), node.ConsentViaAPI)
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
