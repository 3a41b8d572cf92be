package node

import (
	"context"
	"fmt"
	"strings"

	"github.com/parleynet/parley/negotiation"
)

// The principal's own words. An answer or a card that arrives through the
// node's API (via api) or over MCP (via mcp) is an agent's: it binds only
// once the principal confirms it with a passkey. Only the principal's
// pages produce via web, the principal's confirmed word, and only through
// a WebAuthn assertion over the exact text: AnswerOnPage and
// SealCardOnPage make an approval request (confirm_answer, confirm_card)
// whose arguments are the question and the typed answer, or the card's
// hash (the request shows the whole card), and seal the words once a
// passkey approved that request and the gate consumed the receipt.

// CodeViaWebRefused refuses via web from anything but the principal's
// pages: an API or MCP caller saying the words are the principal's own.
const CodeViaWebRefused Code = "via_web_refused"

// errViaWeb is the refusal of via web outside the pages.
func errViaWeb(nid string) error {
	page := "/card"
	if nid != "" {
		page = "/escalations/" + nid
	}
	return fail(CodeViaWebRefused, "via web is the principal's own word: only the node's pages give it (%s), after the principal's passkey signed the exact text; "+
		"through the API or MCP send via api or mcp (the default), which binds once a passkey confirms it", page)
}

// draftCard is a card waiting for confirmation and how many requests
// show it.
type draftCard struct {
	card *negotiation.IntentCard
	refs int
}

// holdDraft keeps c shown to the approval requests that confirm it, until
// the returned function is called.
func (s *pxpService) holdDraft(c *negotiation.IntentCard) func() {
	h := c.Seal()
	s.mu.Lock()
	d := s.drafts[h]
	if d == nil {
		d = &draftCard{card: c}
		s.drafts[h] = d
	}
	d.refs++
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		if d.refs--; d.refs == 0 {
			delete(s.drafts, h)
		}
		s.mu.Unlock()
	}
}

// draftOf returns the card with hash hash waiting for confirmation, or nil.
func (s *pxpService) draftOf(hash string) *negotiation.IntentCard {
	h, err := negotiation.ParseHash(hash)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.drafts[h]; d != nil {
		return d.card
	}
	return nil
}

// AnswerOnPage is the principal's pages answering negotiation nid's
// pending question with the text the principal typed: it makes a
// confirm_answer request whose arguments are the question and this exact
// answer and returns it at once (it waits in PendingApprovals). Once the
// principal's passkey approves it and the gate consumes the receipt, the
// answer is sealed into the card via web, confirmed, and the negotiation
// resumes; a denial or an expired window seals nothing. Nothing is sealed
// either when the pending question has changed meanwhile. Only the pages
// call it; through the API or MCP an answer is via api or mcp
// (AnswerEscalation).
func (n *Node) AnswerOnPage(ctx context.Context, nid, answer string) (PendingApproval, error) {
	if err := n.running(); err != nil {
		return PendingApproval{}, err
	}
	if strings.TrimSpace(answer) == "" {
		return PendingApproval{}, fail(CodeBadArgument, "an answer needs text")
	}
	question, err := n.px.pending(nid)
	if err != nil {
		return PendingApproval{}, err
	}
	args := map[string]any{"question": question, "answer": answer, "via": string(negotiation.ViaWeb)}
	p, err := n.gt.Ask(ActConfirmAnswer, nid, args, "seal your answer into this negotiation's intent card: the negotiation resumes on it and binding acts may rest on it", "medium",
		func(ctx context.Context) error {
			if err := n.running(); err != nil {
				return err
			}
			_, err := n.px.answer(ctx, nid, answer, negotiation.ViaWeb, question)
			return err
		})
	return p, fromGate(err)
}

// pending returns the question negotiation nid waits on: CodeNoCard
// without a card, CodeStateForbidden when it waits for no answer.
func (s *pxpService) pending(nid string) (string, error) {
	var question string
	err := s.eng.With(nid, func(t *thread) error {
		s.eng.OpenPXP(t)
		m := t.PXP.Mandate
		if m == nil {
			return fail(CodeNoCard, "negotiation %s runs without an intent card", nid)
		}
		if err := s.may(t, negotiation.ActAnswerEscalation, negotiation.ActArgs{Mandate: m}); err != nil {
			return err
		}
		q, _ := m.Paused()
		question = q.Question
		return nil
	})
	return question, err
}

// SealCardOnPage is the principal's pages sealing card as the default
// intent card: it makes a confirm_card request that shows the whole card
// (every clause) and whose arguments hold its hash, and returns it at
// once. Once the principal's passkey approves it and the gate consumes
// the receipt, the card is sealed via web; a denial or an expired window
// seals nothing. Through the API or MCP a card is via api or mcp
// (SealDefaultCard).
func (n *Node) SealCardOnPage(ctx context.Context, card []byte) (PendingApproval, error) {
	if err := n.running(); err != nil {
		return PendingApproval{}, err
	}
	c, err := parseCard(card)
	if err != nil {
		return PendingApproval{}, err
	}
	args := map[string]any{"cardHash": c.Seal().String(), "principal": c.Principal.Name, "goal": c.Goal, "via": string(negotiation.ViaWeb)}
	release := n.px.holdDraft(c)
	p, err := n.gt.Ask(ActConfirmCard, "", args, "seal this intent card as yours: every negotiation the node opens or joins from now on acts for "+c.Principal.Name+" within it", "medium",
		func(ctx context.Context) error {
			if err := n.running(); err != nil {
				return err
			}
			_, err := n.px.sealDefault(ctx, c.Bytes(), negotiation.ViaWeb)
			return err
		}, release)
	return p, fromGate(err)
}

// CardLines returns card c in plain words: the principal, the goal,
// every clause of every list (with its rule), every known fact and
// amendment, and the hash an approval of the card binds.
func CardLines(c *negotiation.IntentCard) []PlainLine {
	who := c.Principal.Name
	if r := c.Principal.Role; r != "" {
		who += ", " + r
	}
	if o := c.Principal.Org; o != "" {
		who += " (" + o + ")"
	}
	out := []PlainLine{{Label: "Principal", Value: who}, {Label: "Goal", Value: c.Goal}}
	lists := []struct {
		label string
		list  []negotiation.Clause
	}{{"Must have", c.MustHaves}, {"May agree to", c.MayAgreeTo}, {"Must never", c.MustNever}, {"Escalate when", c.EscalateWhen}}
	for _, l := range lists {
		if len(l.list) == 0 {
			out = append(out, PlainLine{Label: l.label, Value: "(none)"})
		}
		for i, cl := range l.list {
			v := cl.Text
			if cl.Rule != "" {
				v += " (rule: " + cl.Rule + ")"
			}
			out = append(out, PlainLine{Label: fmt.Sprintf("%s %d", l.label, i+1), Value: v})
		}
	}
	for i, f := range c.KnownFacts {
		v := f.Text
		if f.Key != "" {
			v += fmt.Sprintf(" (%s = %s)", f.Key, f.Value)
		}
		out = append(out, PlainLine{Label: fmt.Sprintf("Known fact %d", i+1), Value: v})
	}
	for i, a := range c.Amendments {
		out = append(out, PlainLine{Label: fmt.Sprintf("Amendment %d", i+1), Value: fmt.Sprintf("asked %q, answered %q", a.Question, a.Answer)})
	}
	return append(out, PlainLine{Label: "Card hash", Value: c.Seal().String()})
}
