package demo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ipfs/go-cid"
	"github.com/multiformats/go-multihash"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
)

// Cards are the principals' intent cards the story seals first:
// cards/poster.json (its must_never: pay more than 0.55 ETH in total) and
// cards/worker.json.
//
//go:embed cards/*.json
var Cards embed.FS

// Answer is what the poster's principal answers when its node asks about
// the worker's counter-offer.
const Answer = "Yes, up to 0.6 ETH for this task."

// Party is one node the story drives, through its HTTP API.
type Party struct {
	// Name is the node's role in the story: poster, worker or arbitrator.
	Name string
	// API is a client of the node's /v1 API.
	API *api.Client
	// Key approves the node's gated acts: a software key registered as
	// one of its principal's passkeys. Each approval is a WebAuthn
	// assertion over the request's intentHash, sent through the API.
	Key api.Signer
	// Saved, when not nil, is called after each approval, once the key's
	// counter advanced, to keep the key's state.
	Saved func() error
}

// Options configure a run.
type Options struct {
	Poster, Worker, Arbitrator Party
	// Wait bounds each wait for something to happen at a node (an
	// announcement to arrive, a state to be reached).
	Wait time.Duration
	// VerifyOnChain, when not nil, runs `parley bundle verify --rpc` of the
	// proof bundle the arbitrator joined from and returns the command it
	// ran and what it printed; an error fails the story.
	VerifyOnChain func(ctx context.Context, bundle []byte) (command, output string, err error)
	// OutsideAgent, when not nil, plays task 3: an outside AI agent
	// answers an offer for the worker's principal through VXP. When nil,
	// task 3 is skipped and OutsideAgentSkipped says why.
	OutsideAgent        OutsideAgent
	OutsideAgentSkipped string
}

// story is one run.
type story struct {
	ctx  context.Context
	w    io.Writer
	mu   sync.Mutex // guards w: approvals print from their own goroutines
	step int
	opts Options

	poster, worker, arb *party
	task1ID             string // the negotiation of task 1, whose briefs end the story
}

type party struct {
	Party
	addr negotiation.Address
}

// Run plays the story over three running nodes' APIs: both principals
// seal their intent cards; task 1 from the public task board through a
// counter-offer that crosses the poster's card (its node pauses and asks
// its principal, who answers through the API as a person would; the
// answer is sealed as an amendment), both signatures on one settlement
// digest, escrow, delivery of a real file (its CID on chain,
// fetched by the poster over the blob protocol and checked), acceptance
// and withdrawal; task 2 through a dispute, an arbitrator both parties
// proposed and which joins from a proof bundle, refuses to rule (the
// contract unassigns it and the parties name it again), evidence on the
// dispute's topic, a 70/30 ruling and withdrawals. Every gated act waits in the
// node's approval gate until the driver approves it through the API with
// the party's software key (WebAuthn options, assertion, receipt), which
// the act then consumes. The story ends with each side's decision brief
// of task 1. Run returns an error as soon as a step did not really
// happen.
func Run(ctx context.Context, w io.Writer, opts Options) error {
	if opts.Wait <= 0 {
		opts.Wait = 60 * time.Second
	}
	s := &story{ctx: ctx, w: w, opts: opts}
	var err error
	for _, p := range []struct {
		dst **party
		in  Party
	}{{&s.poster, opts.Poster}, {&s.worker, opts.Worker}, {&s.arb, opts.Arbitrator}} {
		if p.in.API == nil || p.in.Key == nil {
			return fmt.Errorf("demo: %s has no API client or no key", p.in.Name)
		}
		st, err := p.in.API.Status(ctx)
		if err != nil {
			return fmt.Errorf("demo: %s: %w", p.in.Name, err)
		}
		*p.dst = &party{Party: p.in, addr: st.Address}
		s.printf("%-10s %s  peer %s  ledger head #%d\n", p.in.Name, st.Address, short(st.PeerID), st.Ledger.Seq)
	}
	if err := s.sealCards(); err != nil {
		return err
	}
	before, err := s.balances("balances before")
	if err != nil {
		return err
	}
	if err := s.task1(); err != nil {
		return err
	}
	if err := s.task2(); err != nil {
		return err
	}
	if err := s.task3(); err != nil {
		return err
	}
	after, err := s.balances("balances after")
	if err != nil {
		return err
	}
	for i, p := range []*party{s.poster, s.worker, s.arb} {
		d := new(big.Int).Sub(after[i], before[i])
		s.printf("  %-10s %+.6f ETH (gas included)\n", p.Name, eth(d))
	}
	for _, p := range []*party{s.poster, s.worker, s.arb} {
		rep, err := p.API.VerifyLedger(ctx)
		if err != nil {
			return fmt.Errorf("demo: %s ledger: %w", p.Name, err)
		}
		if !rep.OK {
			return fmt.Errorf("demo: %s ledger does not verify: %s", p.Name, rep.Error)
		}
		s.printf("%-10s ledger verified: %d entries, head %s\n", p.Name, rep.Seq, rep.Head)
	}
	return s.briefs()
}

// sealCards seals the poster's and the worker's intent cards (Cards), as
// `parley card seal` does: through the API (via api), so each card is
// sealed only once its principal's passkey confirmed it (confirm_card,
// approved here with the party's software key).
func (s *story) sealCards() error {
	for _, p := range []*party{s.poster, s.worker} {
		raw, err := Cards.ReadFile("cards/" + p.Name + ".json")
		if err != nil {
			return fmt.Errorf("demo: %s's card: %w", p.Name, err)
		}
		var c node.CardInfo
		_, err = s.gated(p, node.ActConfirmCard, "", func() (node.ActResult, error) {
			var err error
			c, err = p.API.SealCard(s.ctx, raw, negotiation.ViaAPI)
			return node.ActResult{}, err
		})
		if err != nil {
			return s.failed(p.Name+" seals its card", err)
		}
		s.line(fmt.Sprintf("%s's principal %s seals an intent card", p.Name, c.Principal), "card.sealed", c.Hash.String(), "")
	}
	return nil
}

// briefs prints each side's decision brief of task 1 and checks that the
// poster's names the amendment the escalation sealed.
func (s *story) briefs() error {
	for _, p := range []*party{s.poster, s.worker} {
		md, err := p.API.BriefMarkdown(s.ctx, s.task1ID)
		if err != nil {
			return s.failed(p.Name+"'s decision brief", err)
		}
		if p == s.poster && (!strings.Contains(md, Answer) || !strings.Contains(md, "amendments[0]")) {
			return fmt.Errorf("demo: the poster's brief does not name its principal's answer:\n%s", md)
		}
		s.printf("\nDecision brief of task 1, %s's side:\n\n%s\n", p.Name, strings.TrimRight(md, "\n"))
	}
	return nil
}

// task1 is the happy path from the task board.
func (s *story) task1() error {
	s.printf("\nTask 1: from the task board to payment\n")
	ann, err := s.poster.API.PostTask(s.ctx, node.TaskSpec{
		Title: "Translate the user guide into Spanish", Category: "translation",
		Description: "Two chapters, technical glossary kept in English",
		Milestones:  []node.MilestoneSpec{{Amount: milli(300), Description: "chapter 1"}, {Amount: milli(200), Description: "chapter 2"}},
		Deadline:    time.Now().Add(72 * time.Hour).Truncate(time.Second),
	})
	if err != nil {
		return s.failed("post the task", err)
	}
	s.line("poster posts a task on the board", "TaskProposal", ann.Hash.String(), "0.5 ETH in 2 milestones")
	last := time.Now()
	if err := s.until("the announcement on the worker's board", func() (bool, error) {
		tasks, err := s.worker.API.Tasks(s.ctx)
		if err != nil || slices.ContainsFunc(tasks, func(a node.Announcement) bool { return a.Hash == ann.Hash }) {
			return err == nil, err
		}
		if time.Since(last) > 2*time.Second {
			// Gossip keeps no history: publish again in case the
			// board's mesh was not formed yet, as an operator would.
			last = time.Now()
			_, err = s.poster.API.Announce(s.ctx, ann.Hash)
		}
		return false, err
	}); err != nil {
		return err
	}
	s.line("worker discovers it on the board", "gossipsub", ann.Hash.String(), "")
	res, err := s.worker.API.CounterTask(s.ctx, ann.Hash, node.CounterSpec{
		Milestones: []node.MilestoneSpec{{Amount: milli(350), Description: "chapter 1"}, {Amount: milli(250), Description: "chapter 2"}},
		Reason:     "the glossary is technical",
		PXPFields: node.PXPFields{Claims: []negotiation.Claim{
			{ID: "chapters", Text: "chapter_count = 2", Origin: negotiation.OriginAssumed},
			{ID: "glossary", Text: "The glossary needs a specialist.", Origin: negotiation.OriginAssumed},
		}},
	})
	if err != nil {
		return s.failed("counter", err)
	}
	nid := res.Thread.NegotiationID
	s.task1ID = nid
	s.act("worker counters: 0.35 + 0.25 ETH, two assumed claims", res)
	if _, err := s.state(s.poster, nid, negotiation.StateCountered); err != nil {
		return err
	}
	// The poster's card decides the chapter count (a known fact); the
	// glossary claim is for its agent to review.
	review := node.AcceptSpec{PXPFields: node.PXPFields{Reviews: []negotiation.Review{
		{ClaimID: "glossary", Verdict: negotiation.VerdictAccept, Note: "plausible for a technical guide"},
	}}}
	if err := s.escalation(nid, review); err != nil {
		return err
	}
	if res, err = s.gated(s.poster, node.ActSignSettlement, nid, func() (node.ActResult, error) { return s.poster.API.AcceptWith(s.ctx, nid, review) }); err != nil {
		return s.failed("poster accepts", err)
	}
	s.act("poster accepts and signs the settlement digest", res)
	if err := s.logged(s.worker, nid, 2); err != nil {
		return err
	}
	if res, err = s.gated(s.worker, node.ActSignSettlement, nid, func() (node.ActResult, error) { return s.worker.API.Accept(s.ctx, nid) }); err != nil {
		return s.failed("worker accepts", err)
	}
	s.act("worker signs the same digest", res)
	v, err := s.state(s.poster, nid, negotiation.StateAgreed)
	if err != nil {
		return err
	}
	s.printf("    settlement digest %s, both EVM signatures held\n", v.Agreement.Digest)
	if res, err = s.gated(s.poster, node.ActFundEscrow, nid, func() (node.ActResult, error) { return s.poster.API.Fund(s.ctx, nid) }); err != nil {
		return s.failed("fund", err)
	}
	s.act("poster funds escrow (createTask)", res)
	if _, err := s.state(s.worker, nid, negotiation.StateFunded); err != nil {
		return err
	}
	for m, text := range []string{"Capítulo 1: Instalación\n\nEjecute el instalador...\n", "Capítulo 2: Primeros pasos\n\nAbra la aplicación...\n"} {
		if m == 1 {
			// Two hours of terminology work paid before the chapter:
			// part of the milestone; its acceptance releases the rest.
			if err := s.partialRelease(nid, m, milli(100), 2); err != nil {
				return err
			}
		}
		if err := s.deliverAndAccept(nid, m, fmt.Sprintf("chapter-%d.es.md", m+1), []byte(text)); err != nil {
			return err
		}
	}
	if _, err := s.state(s.worker, nid, negotiation.StateCompleted); err != nil {
		return err
	}
	return s.withdraw(s.worker, milli(600))
}

// escalation is the poster's first acceptance of task 1's counter-offer:
// 0.6 ETH crosses its principal's must_never, so its node refuses to sign
// and pauses the negotiation on one question; every other act there is
// refused; the principal answers through the API (as `parley escalations
// answer` does) and the answer is sealed into the negotiation's card.
func (s *story) escalation(nid string, review node.AcceptSpec) error {
	_, err := s.poster.API.AcceptWith(s.ctx, nid, review)
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Code != string(negotiation.CodeEscalationRequired) {
		return fmt.Errorf("demo: the poster's node accepted 0.6 ETH although its card must never pay more than 0.55 ETH (%v)", err)
	}
	esc, err := s.poster.API.Escalations(s.ctx)
	if err != nil {
		return s.failed("the poster's escalations", err)
	}
	if len(esc) != 1 || esc[0].NegotiationID != nid {
		return fmt.Errorf("demo: the poster's node lists %d escalations, want the one of %s", len(esc), nid)
	}
	s.line("poster's node escalates instead of signing", "escalation", "", strings.Join(esc[0].Triggers, ", "))
	s.printf("    question to %s: %s\n", "the poster's principal", esc[0].Question)
	if _, err := s.poster.API.Counter(s.ctx, nid, node.CounterSpec{Reason: "one moment"}); !errors.As(err, &ae) || ae.Code != string(negotiation.CodePaused) {
		return fmt.Errorf("demo: the paused negotiation took a counter-offer (%v)", err)
	}
	s.line("the negotiation is paused: a counter-offer is refused", "paused", "", "")
	room, err := s.poster.API.Answer(s.ctx, nid, Answer, negotiation.ViaAPI)
	if err != nil {
		return s.failed("the principal answers", err)
	}
	if room.Escalation != nil || len(room.Answers) != 1 || room.CardHash == nil || room.Answers[0].Via != negotiation.ViaAPI {
		return fmt.Errorf("demo: the answer did not resume the negotiation: %+v", room.Escalation)
	}
	s.printf("    the principal answers through the API: %q\n", Answer)
	s.line("answer sealed as amendments[0]: the card's new hash", "card.amended", room.CardHash.String(), "resumed")
	// Through the API the answer is an agent's until the principal's
	// passkey confirms it: acts resting on it wait for that.
	actx, cancel := context.WithTimeout(s.ctx, s.opts.Wait)
	defer cancel()
	if err := s.approve(actx, s.poster, node.ActConfirmAnswer, nid); err != nil {
		return s.failed("the principal confirms the answer", err)
	}
	if err := s.until("the answer to be confirmed", func() (bool, error) {
		r, err := s.poster.API.Room(s.ctx, nid)
		return err == nil && len(r.Answers) == 1 && r.Answers[0].Confirmed, err
	}); err != nil {
		return err
	}
	s.line("the principal confirms the answer with a passkey", "answer.confirmed", "", "")
	return nil
}

// deliverAndAccept delivers milestone m as the worker, checks that the
// poster fetched the file over the blob protocol and that it hashes to
// its CID, and releases the milestone as the poster.
func (s *story) deliverAndAccept(nid string, m int, name string, data []byte) error {
	res, err := s.worker.API.Deliver(s.ctx, nid, node.DeliverySpec{Milestone: m, Name: name, MediaType: "text/markdown", Data: data})
	if err != nil {
		return s.failed("deliver", err)
	}
	want := res.Detail["cid"]
	s.act(fmt.Sprintf("worker delivers %s (CID on chain: submitProof)", name), res)
	if err := s.until("the poster to fetch and check the delivery", func() (bool, error) {
		v, err := s.poster.API.Negotiation(s.ctx, nid)
		if err != nil {
			return false, err
		}
		for _, d := range v.Deliveries {
			if d.Milestone == m && d.Fetched && string(d.ProofCID) == want && string(d.ChainProof) == want {
				return true, nil
			}
		}
		return false, nil
	}); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := s.poster.API.File(s.ctx, want, &buf); err != nil {
		return s.failed("read the delivered file at the poster", err)
	}
	got, err := rawCID(buf.Bytes())
	if err != nil {
		return err
	}
	if got != want || !bytes.Equal(buf.Bytes(), data) {
		return fmt.Errorf("demo: the poster holds %s for milestone %d, the worker delivered %s", got, m, want)
	}
	s.line("poster fetched it over /parley/blob/1", "CID checked", want, fmt.Sprintf("%d bytes", buf.Len()))
	res, err = s.gated(s.poster, node.ActReleaseMilestone, nid, func() (node.ActResult, error) { return s.poster.API.AcceptDelivery(s.ctx, nid, m) })
	if err != nil {
		return s.failed("accept the delivery", err)
	}
	s.act(fmt.Sprintf("poster accepts milestone %d (releaseMilestone)", m), res)
	return nil
}

// partialRelease has the worker ask for amount of milestone m for hours
// worked (a PaymentRequest), waits until the poster's node shows the
// request, and releases it as the poster (releasePart, gated:
// release_part); the worker's node then shows the milestone's running
// total.
func (s *story) partialRelease(nid string, m int, amount *big.Int, hours uint64) error {
	res, err := s.worker.API.RequestPayment(s.ctx, nid, node.PaymentSpec{Milestone: m, Basis: negotiation.BasisHourly, Amount: amount, Units: hours, Note: "terminology research"})
	if err != nil {
		return s.failed("the worker asks for a part", err)
	}
	s.act(fmt.Sprintf("worker asks for %.4f ETH of milestone %d (%d hours)", eth(amount), m, hours), res)
	if err := s.until("the poster to show the payment request", func() (bool, error) {
		v, err := s.poster.API.Negotiation(s.ctx, nid)
		if err != nil {
			return false, err
		}
		for _, p := range v.Payments {
			if p.Milestone == m && len(p.Requests) > 0 && !p.Requests[len(p.Requests)-1].Paid {
				return true, nil
			}
		}
		return false, nil
	}); err != nil {
		return err
	}
	res, err = s.gated(s.poster, node.ActReleasePart, nid, func() (node.ActResult, error) {
		return s.poster.API.ReleasePart(s.ctx, nid, node.ReleasePartSpec{Milestone: m})
	})
	if err != nil {
		return s.failed("the poster releases the part", err)
	}
	s.act(fmt.Sprintf("poster releases part of milestone %d (releasePart)", m), res)
	return s.until("the worker to see the part released", func() (bool, error) {
		v, err := s.worker.API.Negotiation(s.ctx, nid)
		if err != nil {
			return false, err
		}
		for _, p := range v.Payments {
			if p.Milestone == m && p.Released == amount.String() {
				s.printf("    milestone %d: %.4f ETH released of %.4f, the rest on acceptance\n", m, eth(amount), eth(mustBig(p.Amount)))
				return true, nil
			}
		}
		return false, nil
	})
}

// mustBig parses a decimal wei string (0 when it is not one).
func mustBig(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return new(big.Int)
	}
	return v
}

// task2 goes to a dispute and a ruling.
func (s *story) task2() error {
	s.printf("\nTask 2: a dispute, a refusal to rule, a ruling\n")
	res, err := s.poster.API.ProposeTask(s.ctx, s.worker.addr, node.TaskSpec{
		Title: "Compile a technical glossary (A to Z)", Category: "translation",
		Milestones: []node.MilestoneSpec{{Amount: milli(400), Description: "the glossary"}},
		Deadline:   time.Now().Add(48 * time.Hour).Truncate(time.Second),
	})
	if err != nil {
		return s.failed("propose task 2", err)
	}
	nid := res.Thread.NegotiationID
	s.act("poster proposes task 2 to the worker directly", res)
	if _, err := s.state(s.worker, nid, negotiation.StateProposed); err != nil {
		return err
	}
	if res, err = s.gated(s.worker, node.ActSignSettlement, nid, func() (node.ActResult, error) { return s.worker.API.Accept(s.ctx, nid) }); err != nil {
		return s.failed("worker accepts task 2", err)
	}
	s.act("worker accepts and signs", res)
	if err := s.logged(s.poster, nid, 2); err != nil {
		return err
	}
	if res, err = s.gated(s.poster, node.ActSignSettlement, nid, func() (node.ActResult, error) { return s.poster.API.Accept(s.ctx, nid) }); err != nil {
		return s.failed("poster accepts task 2", err)
	}
	s.act("poster signs the same digest", res)
	if res, err = s.gated(s.poster, node.ActFundEscrow, nid, func() (node.ActResult, error) { return s.poster.API.Fund(s.ctx, nid) }); err != nil {
		return s.failed("fund task 2", err)
	}
	s.act("poster funds escrow", res)
	if _, err := s.state(s.worker, nid, negotiation.StateFunded); err != nil {
		return err
	}
	res, err = s.worker.API.Deliver(s.ctx, nid, node.DeliverySpec{Milestone: 0, Name: "glossary.md", MediaType: "text/markdown", Data: []byte("# Glosario técnico\n\nA: API...\nM: middleware\n")})
	if err != nil {
		return s.failed("deliver task 2", err)
	}
	delivered := res.Detail["cid"]
	s.act("worker delivers a glossary that stops at M", res)
	if _, err := s.state(s.poster, nid, negotiation.StateDelivered); err != nil {
		return err
	}
	if res, err = s.gated(s.poster, node.ActOpenDispute, nid, func() (node.ActResult, error) { return s.poster.API.Dispute(s.ctx, nid) }); err != nil {
		return s.failed("open the dispute", err)
	}
	s.act("poster opens a dispute (bond posted)", res)
	if _, err := s.state(s.worker, nid, negotiation.StateDisputed); err != nil {
		return err
	}
	early, err := s.poster.API.Evidence(s.ctx, nid, node.EvidenceSpec{Name: "timeline.txt", MediaType: "text/plain", Data: []byte("The glossary was due A to Z; it stops at M.\n"), Description: "what was delivered"})
	if err != nil {
		return s.failed("poster's evidence", err)
	}
	s.act("poster submits evidence", early)
	joinCtx, stopJoin := context.WithCancel(s.ctx)
	defer stopJoin()
	joined, err := s.arb.API.Events(joinCtx, nid)
	if err != nil {
		return s.failed("follow the arbitrator's events", err)
	}
	if err := s.nameArbitrator(nid, ""); err != nil {
		return err
	}
	av, err := s.state(s.arb, nid, negotiation.StateArbitrated)
	if err != nil {
		return err
	}
	if !av.Observer || av.Role != negotiation.RoleArbitrator {
		return fmt.Errorf("demo: the arbitrator's view of the thread: role %s, observer %v", av.Role, av.Observer)
	}
	s.line("arbitrator joins from a proof bundle", fmt.Sprintf("%d envelopes", len(av.Log)), "dispute "+short(av.DisputeID), string(av.State))
	if err := s.joinedBundle(joined); err != nil {
		return err
	}
	stopJoin()
	for _, c := range []string{early.Detail["cid"], delivered} {
		if err := s.until("the arbitrator to fetch "+c, func() (bool, error) {
			var buf bytes.Buffer
			err := s.arb.API.File(s.ctx, c, &buf)
			if err != nil {
				return false, nil
			}
			got, err := rawCID(buf.Bytes())
			return got == c, err
		}); err != nil {
			return err
		}
	}
	s.line("arbitrator holds the evidence and the delivery", "sealed to it", "CIDs checked", "")
	if res, err = s.gated(s.arb, node.ActRule, nid, func() (node.ActResult, error) { return s.arb.API.Rule(s.ctx, nid, 0) }); err != nil {
		return s.failed("refuse to rule", err)
	}
	s.act("arbitrator refuses to rule (ruling 0)", res)
	for _, p := range []*party{s.poster, s.worker, s.arb} {
		if _, err := s.state(p, nid, negotiation.StateDisputed); err != nil {
			return err
		}
	}
	s.line("the contract unassigns it: disputed again", "every thread", "proposals start over", "")
	if err := s.nameArbitrator(nid, " again"); err != nil {
		return err
	}
	if _, err := s.state(s.arb, nid, negotiation.StateArbitrated); err != nil {
		return err
	}
	s.line("arbitrator assigned again", "it kept the thread", "no new bundle", "")
	events, err := s.arb.API.Events(s.ctx, nid)
	if err != nil {
		return s.failed("follow the arbitrator's events", err)
	}
	late, err := s.worker.API.Evidence(s.ctx, nid, node.EvidenceSpec{Name: "scope.txt", MediaType: "text/plain", Data: []byte("Letters A to M were agreed for this milestone.\n"), Description: "the agreed scope"})
	if err != nil {
		return s.failed("worker's evidence", err)
	}
	s.act("worker submits evidence", late)
	topic := ""
	deadline := time.After(s.opts.Wait)
	for topic == "" {
		select {
		case ev, ok := <-events:
			if !ok {
				return errors.New("demo: the arbitrator's event stream ended")
			}
			if ev.Kind == node.EventTopic && ev.Hash == late.Envelope.Hash.String() {
				topic = ev.Detail
			}
		case <-deadline:
			return fmt.Errorf("demo: the worker's evidence never reached the arbitrator on the dispute topic")
		case <-s.ctx.Done():
			return s.ctx.Err()
		}
	}
	s.line("arbitrator reads it on the evidence topic", "gossipsub", topic, "")
	if res, err = s.gated(s.arb, node.ActRule, nid, func() (node.ActResult, error) { return s.arb.API.Rule(s.ctx, nid, 7001) }); err != nil {
		return s.failed("rule", err)
	}
	s.act("arbitrator rules 70/30 for the worker", res)
	for _, p := range []*party{s.poster, s.worker} {
		if _, err := s.state(p, nid, negotiation.StateResolved); err != nil {
			return err
		}
	}
	if err := s.withdraw(s.worker, milli(280)); err != nil {
		return err
	}
	if err := s.withdraw(s.poster, milli(120)); err != nil {
		return err
	}
	if err := s.withdraw(s.arb, nil); err != nil {
		return err
	}
	var bundle bytes.Buffer
	if err := s.poster.API.Bundle(s.ctx, nid, &bundle); err != nil {
		return s.failed("export the proof bundle", err)
	}
	rep, err := node.VerifyBundle(bytes.NewReader(bundle.Bytes()), ledger.BundleOptions{})
	if err != nil {
		return fmt.Errorf("demo: the proof bundle of task 2 does not verify: %w", err)
	}
	s.line("proof bundle exported and verified offline", fmt.Sprintf("%d envelopes", len(rep.Envelopes)), fmt.Sprintf("%d bytes", bundle.Len()), "identity links included")
	return nil
}

// joinedBundle reads the proof bundle the arbitrator joined from (the
// CID its joined event names, fetched from its API), checks that it is a
// version-2 bundle that verifies offline, and prints `parley bundle
// verify --rpc` of it when the story can run it (Options.VerifyOnChain).
func (s *story) joinedBundle(events <-chan node.Event) error {
	c := ""
	deadline := time.After(s.opts.Wait)
	for c == "" {
		select {
		case ev, ok := <-events:
			if !ok {
				return errors.New("demo: the arbitrator's event stream ended before it joined")
			}
			if ev.Kind == node.EventJoined {
				c = ev.CID
			}
		case <-deadline:
			return errors.New("demo: the arbitrator's joined event never came")
		case <-s.ctx.Done():
			return s.ctx.Err()
		}
	}
	var buf bytes.Buffer
	if err := s.arb.API.File(s.ctx, c, &buf); err != nil {
		return s.failed("read the bundle the arbitrator joined from", err)
	}
	rep, err := node.VerifyBundle(bytes.NewReader(buf.Bytes()), ledger.BundleOptions{})
	if err != nil {
		return fmt.Errorf("demo: the bundle the arbitrator joined from does not verify: %w", err)
	}
	if rep.Version != 2 || rep.TreeHead == nil {
		return fmt.Errorf("demo: the arbitrator joined from a version-%d bundle, want 2", rep.Version)
	}
	anchored := "no anchor"
	if rep.Anchor != nil {
		anchored = fmt.Sprintf("anchored at %d", rep.Anchor.Size)
	}
	s.line("the bundle it joined from: "+ledger.BundleFormatV2, fmt.Sprintf("%d entries, %d bytes", len(rep.Negotiation), buf.Len()),
		fmt.Sprintf("head %d", rep.TreeHead.Size), anchored)
	if s.opts.VerifyOnChain == nil {
		return nil
	}
	command, out, err := s.opts.VerifyOnChain(s.ctx, buf.Bytes())
	s.printf("    $ %s\n", command)
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		s.printf("    %s\n", l)
	}
	if err != nil {
		return fmt.Errorf("demo: parley bundle verify --rpc of the arbitrator's bundle: %w", err)
	}
	if !strings.Contains(out, "ok "+node.CheckAnchorConsistency) {
		return fmt.Errorf("demo: parley bundle verify --rpc did not check the anchored head")
	}
	return nil
}

// nameArbitrator has both parties propose the story's arbitrator in
// dispute nid (the poster first, then the worker once it holds the
// poster's proposal); again is said after the act.
func (s *story) nameArbitrator(nid, again string) error {
	res, err := s.gated(s.poster, node.ActProposeArbitrator, nid, func() (node.ActResult, error) {
		return s.poster.API.ProposeArbitrator(s.ctx, nid, s.arb.addr)
	})
	if err != nil {
		return s.failed("poster proposes the arbitrator"+again, err)
	}
	s.act("poster proposes the arbitrator"+again, res)
	if err := s.logged(s.worker, nid, len(res.Thread.Log)); err != nil {
		return err
	}
	if res, err = s.gated(s.worker, node.ActProposeArbitrator, nid, func() (node.ActResult, error) {
		return s.worker.API.ProposeArbitrator(s.ctx, nid, s.arb.addr)
	}); err != nil {
		return s.failed("worker proposes the arbitrator"+again, err)
	}
	s.act("worker proposes the same arbitrator"+again, res)
	return nil
}

// withdraw withdraws what the registry owes p and checks the amount, when
// want is not nil.
func (s *story) withdraw(p *party, want *big.Int) error {
	res, err := p.API.Withdraw(s.ctx, negotiation.Address{})
	if err != nil {
		return s.failed(p.Name+" withdraws", err)
	}
	got, _ := new(big.Int).SetString(res.Detail["amount"], 10)
	if got == nil {
		return fmt.Errorf("demo: %s's withdrawal names no amount: %v", p.Name, res.Detail)
	}
	if want != nil && got.Cmp(want) != 0 {
		return fmt.Errorf("demo: %s withdrew %s wei, want %s", p.Name, got, want)
	}
	s.step++
	s.printf("%2d. %-52s %-22s %s\n", s.step, p.Name+" withdraws "+fmt.Sprintf("%.4f ETH", eth(got)), "withdraw", txDesc(res.Tx))
	return nil
}

// gated runs a gated act of p and, concurrently, approves the one request
// it makes through p's API with p's key.
func (s *story) gated(p *party, act node.Act, nid string, do func() (node.ActResult, error)) (node.ActResult, error) {
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	approved := make(chan error, 1)
	go func() { approved <- s.approve(ctx, p, act, nid) }()
	res, err := do()
	cancel()
	aerr := <-approved
	if err != nil {
		return res, err
	}
	if aerr != nil {
		return res, fmt.Errorf("approval of %s: %w", act, aerr)
	}
	return res, nil
}

// approve waits for p's pending request for act on nid and approves it
// with p's key: the node's WebAuthn options for the request, the key's
// assertion over its intentHash, the receipt.
func (s *story) approve(ctx context.Context, p *party, act node.Act, nid string) error {
	for {
		reqs, err := p.API.Approvals(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return errors.New("the act ended before its approval request appeared")
			}
			return err
		}
		for _, r := range reqs {
			if r.Act != act || r.Request.Action.Target != nid {
				continue
			}
			rc, err := p.API.Approve(ctx, r.Request.RequestID, p.Key)
			if p.Saved != nil {
				if serr := p.Saved(); serr != nil && err == nil {
					err = serr
				}
			}
			if err != nil {
				return err
			}
			kind := "passkey"
			if rc.Authenticator != nil && rc.Authenticator.Software {
				kind = "software key"
			}
			s.printf("    %s's passkey: %s approved (%s, intent %s…)\n", p.Name, act, kind, rc.IntentHash[:16])
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.New("the act ended before its approval request appeared")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// state waits until p's view of nid is in state want.
func (s *story) state(p *party, nid string, want negotiation.State) (node.ThreadView, error) {
	var v node.ThreadView
	err := s.until(fmt.Sprintf("%s's thread to be %s", p.Name, want), func() (bool, error) {
		var err error
		v, err = p.API.Negotiation(s.ctx, nid)
		var ae *api.Error
		if errors.As(err, &ae) && ae.Status == 404 {
			return false, nil
		}
		return err == nil && v.State == want, err
	})
	return v, err
}

// logged waits until p's thread nid records at least n envelopes.
func (s *story) logged(p *party, nid string, n int) error {
	return s.until(fmt.Sprintf("%s to record %d envelopes", p.Name, n), func() (bool, error) {
		v, err := p.API.Negotiation(s.ctx, nid)
		var ae *api.Error
		if errors.As(err, &ae) && ae.Status == 404 {
			return false, nil
		}
		return err == nil && len(v.Log) >= n, err
	})
}

// until polls cond until it holds, fails, or the wait ends.
func (s *story) until(what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(s.opts.Wait)
	for {
		ok, err := cond()
		if err != nil {
			return fmt.Errorf("demo: waiting for %s: %w", what, err)
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("demo: %s did not happen within %s", what, s.opts.Wait)
		}
		select {
		case <-s.ctx.Done():
			return s.ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
}

func (s *story) balances(title string) ([]*big.Int, error) {
	out := make([]*big.Int, 3)
	parts := make([]string, 3)
	for i, p := range []*party{s.poster, s.worker, s.arb} {
		b, err := p.API.Balance(s.ctx, negotiation.Address{})
		if err != nil {
			return nil, fmt.Errorf("demo: %s balance: %w", p.Name, err)
		}
		v, ok := new(big.Int).SetString(b.Balance, 10)
		if !ok {
			return nil, fmt.Errorf("demo: %s balance %q", p.Name, b.Balance)
		}
		out[i] = v
		parts[i] = fmt.Sprintf("%s %.6f ETH", p.Name, eth(v))
	}
	s.printf("%s: %s\n", title, strings.Join(parts, ", "))
	return out, nil
}

func (s *story) act(desc string, r node.ActResult) {
	what, ref := "", ""
	if r.Envelope != nil {
		what, ref = string(r.Envelope.Type), short(r.Envelope.Hash.String())
	}
	if r.Tx != nil {
		if what == "" {
			what = "transaction"
		}
		ref = strings.TrimSpace(ref + " " + txDesc(r.Tx))
	}
	s.step++
	s.printf("%2d. %-52s %-22s %s -> %s (%s)\n", s.step, desc, what, ref, r.Thread.State, r.Thread.A2A)
}

func (s *story) line(desc, what, ref, note string) {
	s.step++
	s.printf("%2d. %-52s %-22s %s %s\n", s.step, desc, what, short(ref), note)
}

func (s *story) failed(step string, err error) error {
	return fmt.Errorf("demo: %s: %w", step, err)
}

func (s *story) printf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.w, format, args...)
}

func txDesc(t *node.TxRef) string {
	if t == nil {
		return ""
	}
	return fmt.Sprintf("tx %s block %d gas %d", short(t.Hash), t.Block, t.GasUsed)
}

// short abbreviates a long hash for a line; the full values are in the
// ledgers and the API.
func short(s string) string {
	if len(s) > 22 && !strings.Contains(s, " ") {
		return s[:12] + "…" + s[len(s)-6:]
	}
	return s
}

// rawCID is the CIDv1 (raw codec, SHA-256) of a file, as nodes store them.
func rawCID(b []byte) (string, error) {
	sum := sha256.Sum256(b)
	mh, err := multihash.Encode(sum[:], multihash.SHA2_256)
	if err != nil {
		return "", err
	}
	return cid.NewCidV1(cid.Raw, mh).String(), nil
}

// milli is n thousandths of an ether, in wei.
func milli(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e15)) }

func eth(wei *big.Int) float64 {
	f, _ := new(big.Float).Quo(new(big.Float).SetInt(wei), big.NewFloat(1e18)).Float64()
	return f
}
