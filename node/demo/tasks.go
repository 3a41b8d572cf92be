package demo

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/contracts/bindings"
	"github.com/parleynet/parley/negotiation"
)

// finney returns n thousandths of an ether in wei.
func finney(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(params.Ether/1000)) }

// fund creates the task on chain from the agreement and applies the fact.
func (t *thread) fund(a *negotiation.Agreement) (*chain.TaskResult, error) {
	res, err := t.s.poster.client.CreateTask(t.s.ctx, a.Settlement, a.PosterSignature, a.WorkerSignature)
	if err != nil {
		return nil, fmt.Errorf("demo: createTask: %w", err)
	}
	if res.TaskID != [32]byte(a.Digest) {
		return nil, fmt.Errorf("demo: the registry's task id %x is not the agreed digest %s", res.TaskID, a.Digest)
	}
	id := negotiation.NewUint256(new(big.Int).SetBytes(res.TaskID[:]))
	if err := t.fact("poster funds escrow (createTask, both signatures)", res.Receipt, negotiation.TaskFunded{TaskID: id}, negotiation.StateFunded); err != nil {
		return nil, err
	}
	t.task = t.th.TaskID()
	fmt.Fprintf(t.s.w, "      escrow holds %.3f ETH for task %s…\n", eth(chain.Escrow(res.Task)), id.String()[:18])
	return res, nil
}

// deliver sends a DeliveryNotice for a real file and submits its CID.
func (t *thread) deliver(res *chain.TaskResult, m int, file []byte) (*chain.TaskResult, *negotiation.Envelope, error) {
	proof := negotiation.CIDOf(file).String()
	e, _, err := t.send(t.s.worker, t.s.poster, fmt.Sprintf("worker delivers milestone %d (%d bytes)", m+1, len(file)),
		&negotiation.DeliveryNotice{Milestone: m, ProofCID: negotiation.CID(proof)}, negotiation.StateDelivered)
	if err != nil {
		return nil, nil, err
	}
	r, err := t.s.worker.client.SubmitProof(t.s.ctx, res.TaskID, res.Task, uint64(m), proof)
	if err != nil {
		return nil, nil, fmt.Errorf("demo: submitProof: %w", err)
	}
	onChain := ""
	for _, ev := range chain.DecodeEvents(t.s.dev.Contracts, r.Receipt.Logs) {
		if p, ok := ev.Value.(*bindings.TaskRegistryProofSubmitted); ok {
			onChain = p.ProofCid
		}
	}
	if onChain != proof {
		return nil, nil, fmt.Errorf("demo: the chain recorded proof %q, want %q", onChain, proof)
	}
	return r, e, t.fact(fmt.Sprintf("proof CID on chain (submitProof %d)", m+1), r.Receipt, negotiation.ProofSubmitted{Milestone: m, ProofCID: negotiation.CID(proof)}, negotiation.StateDelivered)
}

// withdraw pulls what the registry owes a.
func (s *story) withdraw(a *actor) error {
	owed, err := a.client.Owed(s.ctx, common.Address{}, common.Address(a.addr))
	if err != nil {
		return err
	}
	if owed.Sign() == 0 {
		return fmt.Errorf("demo: the registry owes %s nothing", a.name)
	}
	r, err := a.client.Withdraw(s.ctx, common.Address{}, owed)
	if err != nil {
		return fmt.Errorf("demo: %s withdraw: %w", a.name, err)
	}
	s.step++
	fmt.Fprintf(s.w, "%2d. %-50s %-20s tx %s… gas %d\n", s.step, a.name+" withdraws what it is owed", fmt.Sprintf("%.3f ETH", eth(owed)), r.TxHash.Hex()[:12], r.GasUsed)
	left, err := a.client.Owed(s.ctx, common.Address{}, common.Address(a.addr))
	if err != nil || left.Sign() != 0 {
		return fmt.Errorf("demo: %s still owed %v after withdrawing (%v)", a.name, left, err)
	}
	return nil
}

// task1 is the happy path from a public announcement.
func (s *story) task1() error {
	fmt.Fprintf(s.w, "\nTask 1: from the task board to payment\n")
	annID, err := newNID()
	if err != nil {
		return err
	}
	ann, err := s.build(s.poster, annID, nil, nil, &negotiation.TaskProposal{Terms: s.terms(finney(300), finney(200))})
	if err != nil {
		return err
	}
	s.line("poster announces a task on the board", string(ann.Type), ann.Hash().String()[:14]+"…", negotiation.StateProposed, "")
	nid, err := newNID()
	if err != nil {
		return err
	}
	th, err := negotiation.NewThread(negotiation.Params{NegotiationID: nid, Announcement: ann})
	if err != nil {
		return err
	}
	t := &thread{s: s, nid: nid, th: th}
	if _, _, err := t.send(s.worker, s.poster, "worker counters the announced terms",
		&negotiation.TaskCounterOffer{InReplyTo: ann.Hash(), Terms: s.terms(finney(350), finney(250)), Reason: "technical glossary"}, negotiation.StateCountered); err != nil {
		return err
	}
	pa, err := t.accept(s.poster, s.worker.addr)
	if err != nil {
		return err
	}
	if _, _, err := t.send(s.poster, s.worker, "poster accepts, signs the settlement digest", pa, negotiation.StateCountered); err != nil {
		return err
	}
	wa, err := t.accept(s.worker, s.worker.addr)
	if err != nil {
		return err
	}
	_, out, err := t.send(s.worker, s.poster, "worker signs the same digest: agreed", wa, negotiation.StateAgreed)
	if err != nil {
		return err
	}
	onChain, err := s.poster.client.SettlementDigestOnChain(s.ctx, out.Agreement.Settlement)
	if err != nil || onChain != [32]byte(out.Agreement.Digest) {
		return fmt.Errorf("demo: the contract computes digest %x, the state machine %s (%v)", onChain, out.Agreement.Digest, err)
	}
	fmt.Fprintf(s.w, "      settlement digest %s (the contract computes the same)\n", out.Agreement.Digest)
	res, err := t.fund(out.Agreement)
	if err != nil {
		return err
	}
	for m, file := range [][]byte{[]byte("Capítulo 1: Instalación\n..."), []byte("Capítulo 2: Primeros pasos\n...")} {
		r, d, err := t.deliver(res, m, file)
		if err != nil {
			return err
		}
		want := negotiation.StateFunded
		if m == 1 {
			want = negotiation.StateCompleted
		}
		if _, _, err := t.send(s.poster, s.worker, fmt.Sprintf("poster accepts delivery %d", m+1), &negotiation.AcceptDelivery{Milestone: m, DeliveryHash: d.Hash()}, want); err != nil {
			return err
		}
		if res, err = s.poster.client.ReleaseMilestone(s.ctx, r.TaskID, r.Task, uint64(m)); err != nil {
			return fmt.Errorf("demo: release: %w", err)
		}
		if err := t.fact(fmt.Sprintf("milestone %d released on chain", m+1), res.Receipt, negotiation.MilestoneReleased{Milestone: m}, want); err != nil {
			return err
		}
	}
	return s.withdraw(s.worker)
}

// task2 goes to a dispute and a 70/30 ruling.
func (s *story) task2() error {
	fmt.Fprintf(s.w, "\nTask 2: a dispute, an arbitrator both chose, a 70/30 ruling\n")
	nid, err := newNID()
	if err != nil {
		return err
	}
	th, err := negotiation.NewThread(negotiation.Params{NegotiationID: nid})
	if err != nil {
		return err
	}
	t := &thread{s: s, nid: nid, th: th}
	if _, _, err := t.send(s.poster, s.worker, "poster proposes a task to the worker", &negotiation.TaskProposal{Terms: s.terms(finney(400))}, negotiation.StateProposed); err != nil {
		return err
	}
	wa, err := t.accept(s.worker, s.worker.addr)
	if err != nil {
		return err
	}
	if _, _, err := t.send(s.worker, s.poster, "worker accepts the proposal as it stands", wa, negotiation.StateProposed); err != nil {
		return err
	}
	pa, err := t.accept(s.poster, s.worker.addr)
	if err != nil {
		return err
	}
	_, out, err := t.send(s.poster, s.worker, "poster accepts too: agreed", pa, negotiation.StateAgreed)
	if err != nil {
		return err
	}
	res, err := t.fund(out.Agreement)
	if err != nil {
		return err
	}
	if res, _, err = t.deliver(res, 0, []byte("Glosario técnico (incompleto)")); err != nil {
		return err
	}
	r, err := s.poster.client.OpenDispute(s.ctx, res.TaskID, res.Task)
	if err != nil {
		return fmt.Errorf("demo: openDispute: %w", err)
	}
	disputeID := negotiation.NewUint256(chain.DisputeID(res.TaskID))
	if err := t.fact("poster opens a dispute (posts the bond)", r.Receipt, negotiation.DisputeOpened{DisputeID: disputeID, By: s.poster.addr}, negotiation.StateDisputed); err != nil {
		return err
	}
	for _, a := range []*actor{s.poster, s.worker} {
		other := s.worker
		if a == s.worker {
			other = s.poster
		}
		if _, _, err := t.send(a, other, a.name+" proposes the arbitrator", &negotiation.ArbitratorProposal{DisputeID: disputeID, Arbitrator: s.arbitrator.addr}, negotiation.StateDisputed); err != nil {
			return err
		}
		rc, err := a.client.ProposeArbitrator(s.ctx, res.TaskID, common.Address(s.arbitrator.addr))
		if err != nil {
			return fmt.Errorf("demo: proposeArbitrator: %w", err)
		}
		s.line("  and names it on chain", "proposeArbitrator", "tx "+rc.TxHash.Hex()[:12]+"…", t.th.State(), "")
	}
	if agreed, ok := t.th.AgreedArbitrator(); !ok || agreed != s.arbitrator.addr {
		return fmt.Errorf("demo: the parties did not agree on the arbitrator")
	}
	d, err := s.poster.client.Dispute(s.ctx, res.TaskID)
	if err != nil || d.Arbitrator != common.Address(s.arbitrator.addr) {
		return fmt.Errorf("demo: the chain has not assigned the arbitrator: %+v %v", d, err)
	}
	if err := t.fact("the chain assigns the arbitrator both named", nil, negotiation.ArbitratorAssigned{DisputeID: disputeID, Arbitrator: s.arbitrator.addr}, negotiation.StateArbitrated); err != nil {
		return err
	}
	for _, a := range []*actor{s.poster, s.worker} {
		other := s.worker
		if a == s.worker {
			other = s.poster
		}
		ev := negotiation.CIDOf([]byte(a.name + "'s account of the glossary"))
		if _, _, err := t.send(a, other, a.name+" submits evidence", &negotiation.DisputeEvidence{DisputeID: disputeID, EvidenceCID: negotiation.CID(ev.String()), Description: "timeline and messages"}, negotiation.StateArbitrated); err != nil {
			return err
		}
		if _, err := a.client.SubmitEvidence(s.ctx, res.TaskID, ev.String()); err != nil {
			return fmt.Errorf("demo: submitEvidence: %w", err)
		}
	}
	rr, err := s.arbitrator.client.Rule(s.ctx, res.TaskID, 7001)
	if err != nil {
		return fmt.Errorf("demo: rule: %w", err)
	}
	if err := t.fact("arbitrator rules 70% to the worker (ruling 7001)", rr, negotiation.Ruled{DisputeID: disputeID, Ruling: 7001}, negotiation.StateResolved); err != nil {
		return err
	}
	owedW, _ := s.worker.client.Owed(s.ctx, common.Address{}, common.Address(s.worker.addr))
	owedP, _ := s.poster.client.Owed(s.ctx, common.Address{}, common.Address(s.poster.addr))
	if want := finney(280); owedW.Cmp(want) != 0 || owedP.Cmp(finney(120)) != 0 {
		return fmt.Errorf("demo: after the ruling worker is owed %v and poster %v, want 0.28 and 0.12 ETH", owedW, owedP)
	}
	for _, a := range []*actor{s.worker, s.poster, s.arbitrator} {
		if err := s.withdraw(a); err != nil {
			return err
		}
	}
	return nil
}
