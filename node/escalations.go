package node

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
)

// Escalations: a negotiation paused on a question to its principal, the
// answer, its confirmation, and the decision brief (docs/pxp.md).

// triggerReason says why the node asks, in a sentence per trigger.
func triggerReason(ts []negotiation.Trigger) string {
	var parts []string
	for _, tr := range ts {
		var p string
		switch tr.Kind {
		case negotiation.TriggerMustNever:
			p = tr.Clause + " is a hard limit: only the principal can lift it"
		case negotiation.TriggerMayAgreeTo:
			p = "the card does not let the node agree to this (" + tr.Clause + ")"
		case negotiation.TriggerMustHave:
			p = "it would give up " + tr.Clause
		case negotiation.TriggerEscalateWhen:
			p = "the card says to ask when " + tr.Clause + " matches"
		case negotiation.TriggerConflict:
			p = "claim " + tr.ClaimID + " conflicts with the card and the node cannot resolve it"
		case negotiation.TriggerAssumption:
			p = "the agreement would rest on the assumption " + tr.ClaimID + ", which touches " + tr.Clause
		case negotiation.TriggerDispute:
			p = "the offer rests on claim " + tr.ClaimID + ", which this side disputed"
		default:
			p = tr.Detail
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

// escalate pauses t on question (t.mu held): the mandate records the
// escalation (with the triggers of the engine.Attempt it refused, if any), the
// ledger keeps it (the question, the reason and the engine.Attempt privately),
// and the other party is told with an envelope of status escalate where
// this side has one that may carry it (a worker's CapabilityProof); a
// poster has none before funding, so its escalation stays local.
func (s *pxpService) escalate(ctx context.Context, t *thread, question, reason string, attemptP negotiation.Payload, now time.Time) error {
	m := t.PXP.Mandate
	at := now.UTC().Truncate(time.Millisecond)
	priv := engine.EscalationPrivate{Question: question, Reason: reason, At: negotiation.FormatTime(at)}
	if acc, ok := attemptP.(*negotiation.TaskAcceptance); ok && len(acc.Signature) == 0 {
		// Judged before it is signed: a placeholder keeps it decodable.
		cp := *acc
		cp.Signature = make(negotiation.EVMSignature, 65)
		attemptP = &cp
	}
	if attemptP != nil {
		raw, err := json.Marshal(attemptP)
		if err != nil {
			return err
		}
		priv.Attempt = &engine.Attempt{Type: attemptP.MessageType(), Payload: raw, At: negotiation.FormatTime(now)}
	}
	if err := m.Escalate(question, reason, at); err != nil {
		return &Error{Code: CodeOf(err), Msg: "escalate", Err: err}
	}
	idx := len(m.Escalations()) - 1
	var triggers []string
	for _, tr := range m.Escalations()[idx].Triggers {
		triggers = append(triggers, triggerName(tr))
	}
	err := func() error {
		obj, id, err := engine.PrivateValueRecord("escalation", priv, s.now())
		if err != nil {
			return err
		}
		body, err := json.Marshal(engine.EscalationBody{Private: id, Triggers: triggers})
		if err != nil {
			return err
		}
		var b batch
		b.Put(obj, nil)
		b.Put(ledger.Record{Kind: ledger.KindEscalation, NegotiationID: t.ID, Body: body, At: at}, nil)
		return s.write(ctx, &b, "escalation")
	}()
	if err != nil {
		if rerr := s.eng.ReplayPXP(ctx, t); rerr != nil {
			s.log.Error("pxp rebuild failed", "negotiation", t.ID, "err", rerr)
		}
		return err
	}
	t.PXP.Events++
	s.log.Info("escalated to the principal", "negotiation", t.ID, "question", question)
	s.events.publish(Event{Kind: EventEscalation, NegotiationID: t.ID, Detail: question, State: t.Th.State(), At: s.now()})
	s.carryEscalation(ctx, t, question, reason)
	return nil
}

func triggerName(tr negotiation.Trigger) string {
	s := string(tr.Kind)
	if tr.Clause != "" {
		s += ":" + tr.Clause
	}
	if tr.ClaimID != "" {
		s += ":" + tr.ClaimID
	}
	return s
}

// carryEscalation tells the other party that t paused (t.mu held), when
// this side is the worker: a CapabilityProof with status escalate and the
// question (docs/pxp.md, "In the node"). A carrier the state machine or
// the mandate refuses is not sent; the pause stands either way.
func (s *pxpService) carryEscalation(ctx context.Context, t *thread, question, reason string) {
	if t.Th.RoleOf(s.self) != negotiation.RoleWorker || s.eng.OtherParty(t) == (negotiation.Address{}) {
		return
	}
	st := t.Th.State()
	if st == negotiation.StateCompleted || st == negotiation.StateResolved || st == negotiation.StateCancelled ||
		st == negotiation.StateVetoed || st == negotiation.StateExpired {
		return
	}
	p := &negotiation.CapabilityProof{
		Capability: "pxp", Kind: "escalation",
		Description: "This side asked its principal and waits for the answer: " + question,
		PXP:         negotiation.PXP{Status: negotiation.StatusEscalate, Escalation: &negotiation.Escalation{Question: question, Reason: reason}},
	}
	if err := s.send(ctx, t, p, s.eng.Recipients(t, false)); err != nil {
		s.log.Info("escalation not carried to the other party", "negotiation", t.ID, "err", err)
	}
}

// pausedErr refuses an act in negotiation nid while it waits for the
// principal's answer (paused). Acts that send an envelope are refused by
// the mandate itself; this covers the gated acts that send none (funding)
// before their approval is asked.
func (s *pxpService) pausedErr(nid string) error {
	var paused error
	_ = s.eng.With(nid, func(t *thread) error { // a negotiation not held is not paused
		if t.PXP == nil || t.PXP.Mandate == nil {
			return nil
		}
		if q, ok := t.PXP.Mandate.Paused(); ok {
			paused = fail(Code(negotiation.CodePaused), "negotiation %s waits for the principal's answer to %q", nid, q.Question)
		}
		return nil
	})
	return paused
}

// PendingEscalation is a question a negotiation waits on: the principal
// answers it with AnswerEscalation (`parley escalations answer`).
type PendingEscalation struct {
	NegotiationID string    `json:"negotiationId"`
	Title         string    `json:"title,omitempty"`
	Question      string    `json:"question"`
	Reason        string    `json:"reason,omitempty"`
	At            time.Time `json:"at"`
	// Triggers name what made the node escalate (trigger kinds and the
	// clauses or claims involved), when the node decided it.
	Triggers []string `json:"triggers,omitempty"`
}

// Escalations returns the questions every paused negotiation waits on,
// oldest first.
func (n *Node) Escalations() []PendingEscalation { return n.px.escalations() }

func (s *pxpService) escalations() []PendingEscalation {
	var out []PendingEscalation
	s.eng.Each(context.Background(), func(t *thread) {
		if e, ok := pendingEscalation(t); ok {
			if cur := t.Th.Current(); cur != nil && cur.Terms != nil {
				e.Title = cur.Terms.Title
			}
			out = append(out, e)
		}
	})
	slices.SortFunc(out, func(a, b PendingEscalation) int { return a.At.Compare(b.At) })
	return out
}

// pendingEscalation returns t's pending question (t.mu held).
func pendingEscalation(t *thread) (PendingEscalation, bool) {
	if t.PXP == nil || t.PXP.Mandate == nil {
		return PendingEscalation{}, false
	}
	if _, ok := t.PXP.Mandate.Paused(); !ok {
		return PendingEscalation{}, false
	}
	es := t.PXP.Mandate.Escalations()
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Answer < 0 {
			e := PendingEscalation{NegotiationID: t.ID, Question: es[i].Question, Reason: es[i].Reason, At: es[i].At}
			for _, tr := range es[i].Triggers {
				e.Triggers = append(e.Triggers, triggerName(tr))
			}
			return e, true
		}
	}
	return PendingEscalation{}, false
}

// AnswerEscalation records an answer to negotiation nid's pending
// question that arrived through the node's API (via api) or an agent
// relayed over MCP (via mcp): it is sealed into the negotiation's card as
// an amendment (the card's hash changes; later envelopes carry the new
// one), recorded as a stated claim with speaker principal, and the
// negotiation resumes, but the answer is unconfirmed until the principal
// confirms it with a passkey (the node asks at once, through the approval
// gate): binding acts resting on it are refused with answer_unconfirmed
// until then. via web is refused with CodeViaWebRefused: only the
// principal's pages give it, after a passkey signed the exact text
// (AnswerOnPage).
func (n *Node) AnswerEscalation(ctx context.Context, nid, answer string, via negotiation.Via) (negotiation.PrincipalAnswer, error) {
	if via == negotiation.ViaWeb {
		return negotiation.PrincipalAnswer{}, errViaWeb(nid)
	}
	if err := n.running(); err != nil {
		return negotiation.PrincipalAnswer{}, err
	}
	return n.px.answer(ctx, nid, answer, via, "")
}

// answer is AnswerEscalation for every via, web included (the
// pages' path, once the passkey confirmed the answer); a question other
// than "" must be the pending one.
func (s *pxpService) answer(ctx context.Context, nid, answer string, via negotiation.Via, question string) (negotiation.PrincipalAnswer, error) {
	if !via.Valid() {
		return negotiation.PrincipalAnswer{}, fail(CodeBadArgument, "via %q: want api or mcp", via)
	}
	if strings.TrimSpace(answer) == "" {
		return negotiation.PrincipalAnswer{}, fail(CodeBadArgument, "an answer needs text")
	}
	var ans negotiation.PrincipalAnswer
	err := s.eng.With(nid, func(t *thread) error {
		s.eng.OpenPXP(t)
		m := t.PXP.Mandate
		if m == nil {
			return fail(CodeNoCard, "negotiation %s runs without an intent card", nid)
		}
		if err := s.may(t, negotiation.ActAnswerEscalation, negotiation.ActArgs{Mandate: m, Question: question}); err != nil {
			return err
		}
		q, _ := m.Paused()
		at := s.now().UTC().Truncate(time.Millisecond)
		a, err := m.Answer(q.Question, answer, via, at)
		if err != nil {
			return &Error{Code: CodeOf(err), Msg: "answer", Err: err}
		}
		err = func() error {
			obj, id, err := engine.PrivateValueRecord("answer", engine.AmendedPrivate{Question: q.Question, Answer: answer, At: negotiation.FormatTime(at)}, s.now())
			if err != nil {
				return err
			}
			body, err := json.Marshal(engine.AmendedBody{Index: len(m.Answers()) - 1, Via: via, CardHash: a.CardHash, Private: id})
			if err != nil {
				return err
			}
			var b batch
			b.Put(obj, nil)
			b.Put(ledger.Record{Kind: ledger.KindCardAmended, NegotiationID: nid, Body: body, At: at}, nil)
			return s.write(ctx, &b, "card.amended")
		}()
		if err != nil {
			if rerr := s.eng.ReplayPXP(ctx, t); rerr != nil {
				s.log.Error("pxp rebuild failed", "negotiation", nid, "err", rerr)
			}
			return err
		}
		t.PXP.Events++
		s.log.Info("the principal answered", "negotiation", nid, "via", via, "card", a.CardHash)
		s.events.publish(Event{Kind: EventAnswer, NegotiationID: nid, Hash: a.CardHash.String(), Detail: string(via), State: t.Th.State(), At: s.now()})
		if !a.Confirmed {
			s.askConfirmations(t)
		}
		ans = a
		return nil
	})
	return ans, err
}

// askConfirmations asks the principal, through the approval gate, to
// confirm every relayed answer of t not confirmed yet and not being
// asked already (t.mu held). Each request waits on a goroutine the node
// owns; an approval records answer.confirmed and confirms the answer.
func (s *pxpService) askConfirmations(t *thread) {
	for i, a := range t.PXP.Mandate.Answers() {
		if a.Confirmed || t.PXP.Asking[i] {
			continue
		}
		t.PXP.Asking[i] = true
		nid, q, ans, via := t.ID, a.Amendment.Question, a.Amendment.Answer, a.Via
		s.spawn(func(ctx context.Context) {
			err := s.confirmAnswer(ctx, nid, i, q, ans, via)
			if err != nil {
				s.log.Info("relayed answer not confirmed", "negotiation", nid, "answer", i, "err", err)
			}
			_ = s.eng.With(nid, func(t *thread) error {
				if t.PXP != nil {
					delete(t.PXP.Asking, i)
				}
				return nil
			})
		})
	}
}

// confirmAnswer asks for the passkey confirmation of relayed answer i of
// nid and records it.
func (s *pxpService) confirmAnswer(ctx context.Context, nid string, i int, question, answer string, via negotiation.Via) error {
	args := map[string]any{"answerIndex": fmt.Sprint(i), "question": question, "answer": answer}
	if via != "" {
		args["via"] = string(via)
	}
	req, err := s.authorize(ctx, ActConfirmAnswer, nid, args, "confirm the answer your agent relayed for you: binding acts may rest on it", "medium")
	if err != nil {
		return err
	}
	return s.eng.With(nid, func(t *thread) error {
		if t.PXP == nil || t.PXP.Mandate == nil || i >= len(t.PXP.Mandate.Answers()) || t.PXP.Mandate.Answers()[i].Confirmed {
			return nil
		}
		body, err := json.Marshal(engine.ConfirmedBody{Index: i, Request: req.RequestID})
		if err != nil {
			return err
		}
		if _, _, err := s.led.Append(ctx, ledger.Record{Kind: KindAnswerConfirmed, NegotiationID: nid, Body: body, At: s.now()}); err != nil {
			return failWrap(CodeStoreFailed, err, "answer.confirmed")
		}
		if err := t.PXP.Mandate.ConfirmAnswer(i); err != nil {
			return err
		}
		t.PXP.Events++
		s.events.publish(Event{Kind: EventAnswer, NegotiationID: nid, Detail: "confirmed", State: t.Th.State(), At: s.now()})
		return nil
	})
}

// resumeConfirmations asks again, after a start, for the confirmation of
// every relayed answer still unconfirmed.
func (s *pxpService) resumeConfirmations() {
	s.eng.Each(context.Background(), func(t *thread) {
		if t.PXP != nil && t.PXP.Mandate != nil {
			s.askConfirmations(t)
		}
	})
}

// BriefView is a negotiation's decision brief: JSON (the record) and
// Markdown (its reading form).
type BriefView struct {
	JSON     json.RawMessage `json:"json"`
	Markdown string          `json:"markdown"`
}

// Brief returns the decision brief of negotiation nid once its
// negotiation phase is over (agreed, or later, or an exit), made from the
// thread, this side's mandate (its card, escalations and answers) and the
// ledger's head now.
func (n *Node) Brief(ctx context.Context, nid string) (BriefView, error) {
	if err := n.running(); err != nil {
		return BriefView{}, err
	}
	return n.px.brief(nid)
}

func (s *pxpService) brief(nid string) (BriefView, error) {
	var brief BriefView
	err := s.eng.With(nid, func(t *thread) error {
		if err := s.may(t, negotiation.ActBrief, negotiation.ActArgs{At: s.now()}); err != nil {
			return err
		}
		s.eng.OpenPXP(t)
		var ms []*negotiation.Mandate
		if m := t.PXP.Mandate; m != nil {
			if r := t.Th.RoleOf(s.self); r == negotiation.RolePoster || r == negotiation.RoleWorker {
				ms = append(ms, m)
			}
		}
		h := s.led.Head()
		b, err := negotiation.NewBrief(t.Th, negotiation.LedgerHead{Seq: h.Seq, Hash: h.Hash}, ms...)
		if err != nil {
			return &Error{Code: CodeOf(err), Msg: "brief", Err: err}
		}
		setBriefChecks(context.Background(), s.led, t, s.self, b)
		raw, err := b.JSON()
		if err != nil {
			return err
		}
		brief = BriefView{JSON: raw, Markdown: b.Markdown()}
		return nil
	})
	return brief, err
}

// ended reports whether the negotiation phase is over in st.
func ended(st negotiation.State) bool {
	switch st {
	case negotiation.StateOpen, negotiation.StateProposed, negotiation.StateCountered:
		return false
	}
	return true
}
