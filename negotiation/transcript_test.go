package negotiation

import (
	"flag"
	"fmt"
	"math/big"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	golden "github.com/parleynet/parley/internal/transcript"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// The transcript harness replays files in testdata/transcripts: blocks of
// one command, a "----" line and the expected output. With -update it
// rewrites the expected output from what the state machine now says.
//
// Commands (parties: poster worker arbitrator supervisor stranger newworker):
//
//	thread [self=PARTY] [announcement=LABEL]
//	announce ms=100,200 [ttl=S] [maxrev=N] [maxacc=N] as=LABEL
//	send PARTY VERB [key=value ...] as=LABEL
//	fact NAME [key=value ...]   (part_released prints the milestone's running total)
//	resend LABEL
//	clock +DURATION
//
// Send options common to every verb: to=PARTY,PARTY (default: the other
// party), at=+DURATION (from the start; default one second after the last
// envelope), now=+DURATION (the receiver's clock; default the envelope's
// time), fork=LABEL (reuse that envelope's sequence: equivocation),
// skip=N (skip N sequence numbers), prev=zero|LABEL, task=agreed|bad|none,
// hold=1 (build it but deliver it later with resend). PXP fields: claims=,
// reviews=, status=, depends=, card= (transcript_pxp_test.go).
type transcript struct {
	t       *testing.T
	parties map[string]*party
	names   map[Address]string
	labels  map[Hash]string
	envs    map[string]*Envelope
	th      *Thread
	nid     string
	clock   time.Time
	// params are those of the current thread.
	params Params
	// onInput, when set, is called with every input before it is applied
	// (act_check_test.go).
	onInput func(in Input, now time.Time)
}

// newTranscript returns a harness with the six parties and no thread yet.
func newTranscript(t *testing.T) *transcript {
	tr := &transcript{t: t, parties: map[string]*party{}, names: map[Address]string{}, labels: map[Hash]string{}, envs: map[string]*Envelope{}, clock: t0}
	for _, n := range []string{"poster", "worker", "arbitrator", "supervisor", "stranger", "newworker"} {
		p := newParty(t, n)
		tr.parties[n] = p
		tr.names[p.addr] = n
	}
	tr.nid = NewNegotiationID([16]byte{0xa1, 0xb2, 0xc3})
	return tr
}

func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) { runTranscript(t, f) })
	}
}

func runTranscript(t *testing.T, path string) { runTranscriptWith(t, path, newTranscript(t)) }

// runTranscriptWith replays the transcript at path with tr, comparing
// (or, with -update, rewriting) the expected output.
func runTranscriptWith(t *testing.T, path string, tr *transcript) {
	golden.Run(t, path, *update, tr.run)
}

func kv(fields []string) map[string]string {
	m := map[string]string{}
	for _, f := range fields {
		if k, v, ok := strings.Cut(f, "="); ok {
			m[k] = v
		}
	}
	return m
}

func (tr *transcript) dur(s string) time.Duration {
	d, err := time.ParseDuration(strings.TrimPrefix(s, "+"))
	if err != nil {
		tr.t.Fatalf("bad duration %q", s)
	}
	return d
}

func (tr *transcript) env(label string) *Envelope {
	e := tr.envs[label]
	if e == nil {
		tr.t.Fatalf("unknown label %q", label)
	}
	return e
}

func (tr *transcript) label(h Hash) string {
	if l, ok := tr.labels[h]; ok {
		return l
	}
	return h.String()[:10]
}

func (tr *transcript) ms(s string) []Milestone {
	var out []Milestone
	for _, a := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(a, 10, 64)
		if err != nil {
			tr.t.Fatalf("bad amount %q", a)
		}
		out = append(out, Milestone{Amount: U64(v), Description: "work"})
	}
	return out
}

func (tr *transcript) terms(o map[string]string) Terms {
	ms := "100,200"
	if v, ok := o["ms"]; ok {
		ms = v
	}
	terms := testTerms()
	terms.Milestones = tr.ms(ms)
	lim := &Limits{}
	set := false
	for key, dst := range map[string]**int{"ttl": &lim.ProposalTTLSeconds, "maxrev": &lim.MaxRevisions, "maxacc": &lim.MaxAcceptAttempts} {
		if v, ok := o[key]; ok {
			n, _ := strconv.Atoi(v)
			*dst = &n
			set = true
		}
	}
	if set {
		terms.Limits = lim
	}
	return terms
}

func (tr *transcript) run(cmd string) []string {
	f := strings.Fields(cmd)
	o := kv(f[1:])
	switch f[0] {
	case "thread":
		p := Params{NegotiationID: tr.nid}
		if s, ok := o["self"]; ok {
			p.Self = tr.parties[s].addr
		}
		if a, ok := o["announcement"]; ok {
			p.Announcement = tr.env(a)
		}
		th, err := NewThread(p)
		if err != nil {
			return []string{"error " + string(CodeOf(err))}
		}
		tr.th, tr.params = th, p
		return []string{fmt.Sprintf("state %s %s", th.State(), th.State().A2A())}
	case "announce":
		poster := tr.parties["poster"]
		saved := *poster
		e := poster.send(tr.t, NewNegotiationID([16]byte{0xaa}), tr.tick(o), nil, &TaskProposal{Terms: tr.terms(o)})
		poster.seq, poster.prev = saved.seq, saved.prev
		tr.remember(o["as"], e)
		return []string{fmt.Sprintf("%s announcement %s", o["as"], e.Type)}
	case "clock":
		tr.clock = tr.clock.Add(tr.dur(f[1]))
		return []string{fmt.Sprintf("state-at %s %s", tr.th.StateAt(tr.clock), tr.th.StateAt(tr.clock).A2A())}
	case "resend":
		e := tr.env(f[1])
		return tr.apply(f[1], e, e.Timestamp)
	case "fact":
		return tr.fact(f[1], o)
	case "send":
		return tr.send(f[1], f[2], o)
	}
	tr.t.Fatalf("unknown command %q", cmd)
	return nil
}

func (tr *transcript) tick(o map[string]string) time.Time {
	if at, ok := o["at"]; ok {
		tr.clock = t0.Add(tr.dur(at))
	} else {
		tr.clock = tr.clock.Add(time.Second)
	}
	return tr.clock
}

func (tr *transcript) remember(label string, e *Envelope) {
	if label == "" {
		label = fmt.Sprintf("%s#%d", tr.names[e.Sender.EVMAddress], e.Sequence)
	}
	tr.envs[label] = e
	tr.labels[e.Hash()] = label
}

func (tr *transcript) counterpart(name string) []Address {
	switch name {
	case "poster":
		return []Address{tr.parties["worker"].addr}
	case "worker":
		return []Address{tr.parties["poster"].addr}
	}
	return []Address{tr.parties["poster"].addr, tr.parties["worker"].addr}
}

func (tr *transcript) send(who, verb string, o map[string]string) []string {
	p := tr.parties[who]
	if p == nil {
		tr.t.Fatalf("unknown party %q", who)
	}
	at := tr.tick(o)
	now := at
	if v, ok := o["now"]; ok {
		now = t0.Add(tr.dur(v))
	}
	to := tr.counterpart(who)
	if v, ok := o["to"]; ok {
		to = nil
		for _, n := range strings.Split(v, ",") {
			to = append(to, tr.parties[n].addr)
		}
	}
	pl := tr.payload(p, verb, o, at)
	pxpOptions(pl, o)
	h := Header{NegotiationID: tr.nid, Sequence: p.seq + 1, PreviousHash: p.prev, Timestamp: at, Sender: p.sender(), Recipients: to}
	switch task := o["task"]; {
	case task == "bad":
		h.TaskID = ptrU(U64(7))
	case task == "none":
	case tr.th.TaskID() != nil:
		h.TaskID = tr.th.TaskID()
	}
	if v, ok := o["fork"]; ok {
		f := tr.env(v)
		h.Sequence, h.PreviousHash = f.Sequence, f.PreviousHash
	}
	if v, ok := o["skip"]; ok {
		n, _ := strconv.Atoi(v)
		h.Sequence += uint64(n)
	}
	if v, ok := o["prev"]; ok {
		if v == "zero" {
			h.PreviousHash = Hash{}
		} else {
			h.PreviousHash = tr.env(v).Hash()
		}
	}
	e, err := Build(h, pl, Ed25519Key(p.inbox), DecodeOptions{})
	if err != nil {
		return []string{"build error " + string(CodeOf(err)) + ": " + err.Error()}
	}
	if _, ok := o["fork"]; !ok && o["skip"] == "" && o["prev"] == "" {
		p.seq, p.prev = e.Sequence, e.Hash()
	}
	tr.remember(o["as"], e)
	if o["hold"] != "" {
		return []string{fmt.Sprintf("%s %s#%d %s held back (not delivered yet)", tr.label(e.Hash()), who, e.Sequence, e.Type)}
	}
	return tr.apply(tr.label(e.Hash()), e, now)
}

func ptrU(u Uint256) *Uint256 { return &u }

func (tr *transcript) apply(label string, e *Envelope, now time.Time) []string {
	if tr.onInput != nil {
		tr.onInput(e, now)
	}
	out := tr.th.Apply(e, now)
	res := "ok"
	if out.Code != "" {
		res = string(out.Code)
	}
	auth := "kept"
	if !out.Authentic {
		auth = "dropped"
	}
	lines := []string{fmt.Sprintf("%s %s#%d %s -> %s (%s) %s->%s %s", label, tr.names[e.Sender.EVMAddress], e.Sequence, e.Type, res, auth, out.From, out.To, out.To.A2A())}
	if a := out.Agreement; a != nil {
		id := a.TaskID()
		lines = append(lines, fmt.Sprintf("agreement offer=%s task=%s…", tr.label(a.Offer), id.String()[:12]))
	}
	if c := out.CoSigned; c != nil {
		lines = append(lines, fmt.Sprintf("cosigned %s by %s and %s", c.Kind, tr.label(c.Envelopes[0]), tr.label(c.Envelopes[1])))
	}
	if q := out.Equivocation; q != nil {
		lines = append(lines, fmt.Sprintf("equivocation %s seq=%d first=%s second=%s", tr.names[q.Sender], q.Sequence, tr.label(q.First), tr.label(q.Second.Hash())))
	}
	return lines
}

func (tr *transcript) payload(p *party, verb string, o map[string]string, at time.Time) Payload {
	ref := func(k string) Hash { return tr.env(o[k]).Hash() }
	optRef := func(k string) *Hash {
		if _, ok := o[k]; !ok {
			return nil
		}
		h := ref(k)
		return &h
	}
	num := func(k string, def int) int {
		if v, ok := o[k]; ok {
			n, _ := strconv.Atoi(v)
			return n
		}
		return def
	}
	var sup *Address
	if v, ok := o["supervisor"]; ok {
		a := tr.parties[v].addr
		sup = &a
	}
	switch verb {
	case "propose":
		return &TaskProposal{Terms: tr.terms(o), Supervisor: sup}
	case "counter":
		return &TaskCounterOffer{InReplyTo: ref("reply"), Terms: tr.terms(o), Supervisor: sup}
	case "accept":
		off := tr.env(o["offer"])
		digest := tr.digestOf(off, p)
		signer := p
		if v, ok := o["signer"]; ok {
			signer = tr.parties[v]
		}
		sig := signer.signDigest(tr.t, digest)
		if o["digest"] == "bad" {
			digest[0] ^= 0xff
		}
		return &TaskAcceptance{AcceptedOfferHash: off.Hash(), InReplyTo: optRef("reply"), SettlementDigest: digest, Signature: sig, Supervisor: sup}
	case "deliver":
		return &DeliveryNotice{Milestone: num("m", 0), ProofCID: CID(CIDOf([]byte("deliverable " + o["m"])).String())}
	case "revise":
		return &RevisionRequest{Milestone: num("m", 0), Reason: "please fix", InReplyTo: optRef("reply")}
	case "acceptdelivery":
		return &AcceptDelivery{Milestone: num("m", 0), DeliveryHash: ref("delivery")}
	case "payreq":
		return &PaymentRequest{Milestone: num("m", 0), Basis: BasisMilestone, Amount: U64(uint64(num("amount", 1)))}
	case "capability":
		return &CapabilityProof{Capability: "translation", Kind: "portfolio", Description: "prior work"}
	case "evidence":
		return &DisputeEvidence{DisputeID: U64(uint64(num("id", 1))), EvidenceCID: CID(CIDOf([]byte("evidence")).String()), Description: "log"}
	case "nominate":
		return &ArbitratorProposal{DisputeID: U64(uint64(num("id", 1))), Arbitrator: tr.parties[o["arbitrator"]].addr}
	case "cancel":
		c := &MutualCancel{Reason: "no longer needed", Nonce: U64(uint64(num("nonce", 1)))}
		if tr.th.Agreement() != nil && o["sig"] != "none" {
			d, _ := Cancel{TaskID: tr.th.taskIDBytes(), Nonce: c.Nonce.Big()}.Digest(tr.th.Agreement().Domain)
			c.Signature = p.signDigest(tr.t, d)
		}
		return c
	case "replace", "amend":
		if tr.th.Agreement() == nil {
			return &CapabilityProof{Capability: "none", Kind: "none", Description: "no agreement to " + verb}
		}
	}
	switch verb {
	case "replace":
		nw := tr.parties[o["new"]].addr
		r := &ReplacementContext{NewWorker: nw, HandoffHash: HashOf([]byte("handoff")), Nonce: U64(uint64(num("nonce", 1))), Summary: "handoff"}
		d, _ := Replacement{TaskID: tr.th.taskIDBytes(), NewWorker: [20]byte(nw), HandoffHash: r.HandoffHash, Nonce: r.Nonce.Big()}.Digest(tr.th.Agreement().Domain)
		r.Signature = p.signDigest(tr.t, d)
		return r
	case "amend":
		m := &MilestoneDefinition{Milestones: tr.ms(o["ms"]), Deadline: uint64(at.Add(96 * time.Hour).Unix()), TermsHash: HashOf([]byte("amended")), Nonce: U64(uint64(num("nonce", 1)))}
		amounts := make([]*big.Int, len(m.Milestones))
		for i := range m.Milestones {
			amounts[i] = m.Milestones[i].Amount.Big()
		}
		d, _ := Amendment{TaskID: tr.th.taskIDBytes(), MilestoneAmounts: amounts, Deadline: m.Deadline, TermsHash: m.TermsHash, Nonce: m.Nonce.Big()}.Digest(tr.th.Agreement().Domain)
		m.Signature = p.signDigest(tr.t, d)
		return m
	case "veto":
		return &SupervisorVeto{Party: tr.parties[o["party"]].addr, Reason: "over budget"}
	}
	tr.t.Fatalf("unknown verb %q", verb)
	return nil
}

// digestOf computes the settlement digest of an offer as party p sees it.
func (tr *transcript) digestOf(off *Envelope, p *party) [32]byte {
	o := tr.th.offers[off.Hash()]
	if o == nil { // not delivered yet: the sender computes it from the envelope it holds
		var terms *Terms
		switch p := off.Payload.(type) {
		case *TaskProposal:
			terms = &p.Terms
		case *TaskCounterOffer:
			terms = &p.Terms
		default:
			return [32]byte{0xde, 0xad}
		}
		th, _ := off.TermsHash()
		o = &Offer{Envelope: off, Terms: terms, TermsHash: th}
	}
	worker := tr.th.worker
	if worker == (Address{}) {
		worker = p.addr
	}
	s, d, err := tr.th.settlementFor(o, worker)
	if err != nil {
		tr.t.Fatal(err)
	}
	dg, err := s.Digest(d)
	if err != nil {
		tr.t.Fatal(err)
	}
	return dg
}

func (tr *transcript) fact(name string, o map[string]string) []string {
	num := func(k string, def int) int {
		if v, ok := o[k]; ok {
			n, _ := strconv.Atoi(v)
			return n
		}
		return def
	}
	var f Fact
	switch name {
	case "funded":
		id := U64(12345)
		if a := tr.th.Agreement(); a != nil && o["task"] != "bad" {
			id = a.TaskID()
		}
		f = TaskFunded{TaskID: id}
	case "proof":
		f = ProofSubmitted{Milestone: num("m", 0)}
	case "released":
		f = MilestoneReleased{Milestone: num("m", 0)}
	case "dispute":
		f = DisputeOpened{DisputeID: U64(uint64(num("id", 1)))}
	case "assigned":
		f = ArbitratorAssigned{DisputeID: U64(uint64(num("id", 1))), Arbitrator: tr.parties[o["arbitrator"]].addr}
	case "ruled":
		f = Ruled{DisputeID: U64(uint64(num("id", 1))), Ruling: uint64(num("ruling", 1))}
	case "cancelled":
		f = TaskCancelled{}
	case "replaced":
		f = WorkerReplaced{NewWorker: tr.parties[o["new"]].addr}
	case "amended":
		f = MilestonesAmended{Milestones: tr.ms(o["ms"])}
	case "revision_requested":
		f = RevisionRequested{Milestone: num("m", 0)}
	case "part_released":
		f = PartReleased{Milestone: num("m", 0), Amount: U64(uint64(num("amount", 1))), Released: U64(uint64(num("released", 1)))}
	case "reclaimed":
		f = EscrowReclaimed{Amount: U64(uint64(num("amount", 0)))}
	case "timedout":
		f = DisputeTimedOut{DisputeID: U64(uint64(num("id", 1))), WorkerBps: uint64(num("bps", 5000))}
	default:
		tr.t.Fatalf("unknown fact %q", name)
	}
	if tr.onInput != nil {
		tr.onInput(f, tr.clock)
	}
	out := tr.th.Apply(f, tr.clock)
	res := "ok"
	if out.Code != "" {
		res = string(out.Code)
	}
	line := fmt.Sprintf("fact %s -> %s %s->%s %s", FactName(f), res, out.From, out.To, out.To.A2A())
	if a, ok := tr.th.AgreedArbitrator(); ok && name == "assigned" {
		line += " agreed=" + tr.names[a]
	}
	if name == "part_released" {
		line += fmt.Sprintf(" released=%s", tr.th.Released(num("m", 0)))
	}
	return []string{line}
}
