package mcp

import (
	"fmt"
	"math/big"
	"time"

	"github.com/parleynet/parley/negotiation"
)

// What the tools answer. Every answer is JSON (structured content, and the
// same JSON as text for clients that read only text); names follow the PXP
// reference implementation's where it has them.

// roomOut is a room as an agent sees it from its seat.
type roomOut struct {
	RoomID string `json:"room_id" jsonschema:"the negotiation id"`
	Topic  string `json:"topic"`
	// Status is agreed or ended once the negotiation phase is over; else
	// paused (this side's principal must answer), drafting (this side's
	// card is not sealed), paused (the other side's principal must
	// answer) or negotiating, the first that holds.
	Status      string   `json:"status" jsonschema:"drafting, negotiating, paused, agreed or ended"`
	State       string   `json:"state" jsonschema:"the negotiation's state (open, proposed, countered, agreed, funded, ...)"`
	A2A         string   `json:"a2a" jsonschema:"the state's A2A task state"`
	You         partyOut `json:"you"`
	Counterpart partyOut `json:"counterpart"`
	YourTurn    bool     `json:"your_turn"`
	// PendingQuestion is the question this side's principal must answer.
	PendingQuestion       string        `json:"pending_question,omitempty"`
	NextAction            string        `json:"next_action"`
	CurrentOffer          *offerOut     `json:"current_offer,omitempty"`
	Transcript            []envelopeOut `json:"transcript"`
	ClaimsToReview        []claimOut    `json:"claims_to_review"`
	UnverifiedAssumptions []claimOut    `json:"unverified_assumptions"`
	Answers               []answerOut   `json:"answers,omitempty"`
	Refused               []refusedOut  `json:"refused,omitempty" jsonschema:"your envelopes the counterpart's node refused: never delivered"`
	Proofs                []proofOut    `json:"capability_proofs,omitempty" jsonschema:"the worker's capability proofs and what the poster's node checked of them"`
	Version               int           `json:"version" jsonschema:"counts the room's changes"`
	// YourLink is set when the call issued the seat link.
	YourLink string `json:"your_link,omitempty"`
	// TimedOut is set by wait_for_turn.
	TimedOut *bool `json:"timed_out,omitempty"`
}

// proofOut is one capability proof of a room and its checks.
type proofOut struct {
	Capability  string `json:"capability"`
	Kind        string `json:"kind"`
	Description string `json:"description,omitempty"`
	CID         string `json:"cid,omitempty"`
	File        string `json:"file,omitempty" jsonschema:"the file's check: verified, failed, pending, or unchecked on the worker's side"`
	Attester    string `json:"attester,omitempty"`
	Attestation string `json:"attestation,omitempty" jsonschema:"the attestation's check: verified or failed"`
	Checked     bool   `json:"checked" jsonschema:"everything the proof names was verified"`
}

// partyOut is one side of a room.
type partyOut struct {
	Role       string `json:"role"`
	Address    string `json:"address"`
	Peer       string `json:"peer,omitempty"`
	Principal  string `json:"principal,omitempty"`
	Proxy      string `json:"proxy,omitempty" jsonschema:"the agent in the seat, when known"`
	CardSealed bool   `json:"card_sealed"`
	CardHash   string `json:"card_hash,omitempty"`
	Card       any    `json:"card,omitempty" jsonschema:"your principal's sealed card (your side only)"`
}

// envelopeOut is one envelope of the transcript.
type envelopeOut struct {
	Seq        int            `json:"seq"`
	Hash       string         `json:"hash"`
	Type       string         `json:"type"`
	From       string         `json:"from"`
	Ours       bool           `json:"ours"`
	Speaker    string         `json:"speaker"`
	Status     string         `json:"status,omitempty"`
	Message    string         `json:"message,omitempty"`
	Claims     []claimOut     `json:"claims,omitempty"`
	Reviews    []reviewOut    `json:"reviews,omitempty"`
	Proposal   *proposalOut   `json:"proposal,omitempty"`
	Accepts    string         `json:"accepts,omitempty"`
	Escalation *escalationOut `json:"escalation,omitempty"`
	Code       string         `json:"code" jsonschema:"ok, or why the state machine refused its effect"`
	At         string         `json:"at"`
}

// proposalOut is an offer an envelope makes.
type proposalOut struct {
	Terms     termsOut `json:"terms"`
	DependsOn []string `json:"depends_on,omitempty"`
	Hash      string   `json:"hash"`
}

// offerOut is the offer on the table.
type offerOut struct {
	Hash     string   `json:"hash"`
	Revision int      `json:"revision"`
	By       string   `json:"by"`
	Terms    termsOut `json:"terms"`
}

// termsOut are terms in a form people and agents read.
type termsOut struct {
	Title       string         `json:"title"`
	Description string         `json:"description,omitempty"`
	Category    string         `json:"category,omitempty"`
	Token       string         `json:"token" jsonschema:"ETH, or the token's address"`
	Milestones  []milestoneOut `json:"milestones"`
	Total       string         `json:"total"`
	TotalWei    string         `json:"total_wei"`
	Deadline    string         `json:"deadline"`
}

// milestoneOut is one milestone.
type milestoneOut struct {
	Amount      string `json:"amount"`
	AmountWei   string `json:"amount_wei"`
	Description string `json:"description,omitempty"`
}

// claimOut is a claim.
type claimOut struct {
	ID     string `json:"id"`
	Origin string `json:"origin"`
	Ref    string `json:"ref,omitempty"`
	Text   string `json:"text"`
	By     string `json:"by,omitempty"`
	Why    string `json:"why,omitempty"`
}

// reviewOut is a review.
type reviewOut struct {
	ClaimID string `json:"claim_id"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
}

// escalationOut is an escalation's question.
type escalationOut struct {
	Question string `json:"question"`
	Reason   string `json:"reason,omitempty"`
}

// answerOut is a principal's answer.
type answerOut struct {
	Question  string `json:"question"`
	Answer    string `json:"answer"`
	Via       string `json:"via"`
	At        string `json:"at"`
	Confirmed bool   `json:"confirmed"`
}

// ended reports whether a state is an agreement or after one.
func agreed(s negotiation.State) bool {
	switch s {
	case negotiation.StateAgreed, negotiation.StateFunded, negotiation.StateDelivered, negotiation.StateCompleted,
		negotiation.StateDisputed, negotiation.StateArbitrated, negotiation.StateResolved:
		return true
	}
	return false
}

// status is a room's PXP status.
func status(v *RoomView) string {
	switch {
	case v.Ended && agreed(v.State):
		return "agreed"
	case v.Ended:
		return "ended"
	case v.Escalation != nil:
		return "paused"
	case v.CardHash == nil:
		return "drafting"
	case v.CounterpartPaused:
		return "paused"
	}
	return "negotiating"
}

// actionable reports whether the seat's agent has something to do:
// wait_for_turn returns when it does.
func actionable(v *RoomView) bool {
	return v.CardHash == nil || v.YourTurn || v.Escalation != nil || v.Ended
}

// nextAction tells the agent what to do next.
func nextAction(v *RoomView) string {
	switch {
	case v.Ended && agreed(v.State):
		return "Agreement reached. Call get_brief and tell your principal what was agreed, on whose authority each term rests, and which assumptions remain unverified."
	case v.Ended:
		return fmt.Sprintf("The negotiation ended (%s) without an agreement. Call get_brief and report to your principal.", v.State)
	case v.Escalation != nil:
		return "Paused for your principal. Ask them exactly this and relay their words with answer_escalation: " + v.Escalation.Question
	case len(v.Refused) > 0:
		return "The counterpart's node refused your envelope (" + v.Refused[len(v.Refused)-1].Code + "): it was not delivered and nothing of it is kept there. " +
			"Tell your principal; the counterpart's principal must allow your node (or, for consent_limit, some of its open negotiations with yours must end) before it takes another."
	case v.CardHash == nil:
		return "Ask your principal for every intent card field (do not invent any), confirm the card with them, then call seal_intent_card."
	case v.CounterpartPaused:
		return "Paused while the other principal answers their proxy. Call wait_for_turn."
	case v.YourTurn && len(v.PendingReviews) > 0:
		return "Your turn. Review every claim in claims_to_review, then call send_envelope."
	case v.YourTurn && v.Current == nil:
		return "Your turn. Open the negotiation: call send_envelope with a proposal."
	case v.YourTurn:
		return "Your turn. Call send_envelope: counter with a proposal, agree to the current offer (status agree), or continue."
	}
	return "The other side's turn. Call wait_for_turn."
}

// refusedOut is an envelope of this side the counterpart's node refused.
type refusedOut struct {
	Hash string `json:"hash,omitempty"`
	Code string `json:"code" jsonschema:"consent_denied: its principal denied your node; consent_limit: your node has as many open negotiations there as it takes from a node it does not know"`
}

// roomView converts a room for the agent.
func roomView(v *RoomView) roomOut {
	o := roomOut{
		RoomID: v.ID, Topic: v.Topic, Status: status(v),
		State: string(v.State), A2A: string(v.A2A),
		You: partyOut{
			Role: string(v.Role), Address: v.Self.String(), Principal: v.Principal,
			Proxy: v.Agent, CardSealed: v.CardHash != nil,
		},
		Counterpart: partyOut{
			Role: string(otherRole(v.Role)), Address: v.Counterpart.String(), Peer: v.CounterpartPeer,
			Principal: v.CounterpartPrincipal, Proxy: v.CounterpartProxy,
			CardSealed: v.CounterpartCardHash != nil,
		},
		YourTurn:              v.YourTurn,
		NextAction:            nextAction(v),
		Transcript:            make([]envelopeOut, 0, len(v.Envelopes)),
		ClaimsToReview:        make([]claimOut, 0, len(v.PendingReviews)),
		UnverifiedAssumptions: make([]claimOut, 0, len(v.Unverified)),
		Version:               v.Version,
	}
	if v.CardHash != nil {
		o.You.CardHash = v.CardHash.String()
		if len(v.Card) > 0 {
			o.You.Card = v.Card
		}
	}
	if v.CounterpartCardHash != nil {
		o.Counterpart.CardHash = v.CounterpartCardHash.String()
	}
	for _, p := range v.Proofs {
		po := proofOut{Capability: p.Capability, Kind: p.Kind, Description: p.Description, CID: string(p.CID),
			File: p.File, Attestation: p.Attestation, Checked: p.Checked}
		if p.Attester != nil {
			po.Attester = p.Attester.String()
		}
		o.Proofs = append(o.Proofs, po)
	}
	if v.Escalation != nil {
		o.PendingQuestion = v.Escalation.Question
	}
	if v.Current != nil {
		o.CurrentOffer = &offerOut{
			Hash: v.Current.Hash.String(), Revision: v.Current.Revision,
			By: who(v, v.Current.By), Terms: termsView(&v.Current.Terms),
		}
	}
	for i := range v.Envelopes {
		o.Transcript = append(o.Transcript, envelopeView(v, i))
	}
	for _, c := range v.PendingReviews {
		o.ClaimsToReview = append(o.ClaimsToReview, claimOut{ID: c.ID, Origin: string(c.Origin), Ref: c.Ref, Text: c.Text, By: string(otherRole(v.Role))})
	}
	for _, c := range v.Unverified {
		o.UnverifiedAssumptions = append(o.UnverifiedAssumptions, claimOut{ID: c.ID, Origin: string(c.Origin), Ref: c.Ref, Text: c.Text, By: who(v, c.By), Why: c.Why})
	}
	for _, a := range v.Answers {
		o.Answers = append(o.Answers, answerOut{Question: a.Question, Answer: a.Answer, Via: string(a.Via), At: stamp(a.At), Confirmed: a.Confirmed})
	}
	for _, r := range v.Refused {
		ro := refusedOut{Code: r.Code}
		if r.Envelope != nil {
			ro.Hash = r.Envelope.String()
		}
		o.Refused = append(o.Refused, ro)
	}
	return o
}

// envelopeView converts envelope i of v.
func envelopeView(v *RoomView, i int) envelopeOut {
	e := &v.Envelopes[i]
	from := fmt.Sprintf("%s (%s)", e.Role, e.From)
	if e.Agent != "" {
		from = fmt.Sprintf("%s (%s, %s)", e.Role, e.From, e.Agent)
	}
	o := envelopeOut{
		Seq: i + 1, Hash: e.Hash.String(), Type: string(e.Type), From: from, Ours: e.Ours,
		Speaker: e.Speaker, Status: string(e.Status), Message: e.Message, Code: e.Code, At: stamp(e.At),
	}
	for _, c := range e.Claims {
		o.Claims = append(o.Claims, claimOut{ID: c.ID, Origin: string(c.Origin), Ref: c.Ref, Text: c.Text})
	}
	for _, r := range e.Reviews {
		o.Reviews = append(o.Reviews, reviewOut{ClaimID: r.ClaimID, Verdict: string(r.Verdict), Reason: r.Note})
	}
	if e.Terms != nil {
		o.Proposal = &proposalOut{Terms: termsView(e.Terms), DependsOn: e.DependsOn, Hash: e.Hash.String()}
	}
	if e.Accepts != nil {
		o.Accepts = e.Accepts.String()
	}
	if e.Escalation != nil {
		o.Escalation = &escalationOut{Question: e.Escalation.Question, Reason: e.Escalation.Reason}
	}
	return o
}

// who names an address as this side or the other.
func who(v *RoomView, a negotiation.Address) string {
	switch a {
	case v.Self:
		return "you (" + string(v.Role) + ")"
	case v.Counterpart:
		return "counterpart (" + string(otherRole(v.Role)) + ")"
	}
	return a.String()
}

// otherRole is the role across the table from r.
func otherRole(r negotiation.Role) negotiation.Role {
	switch r {
	case negotiation.RolePoster:
		return negotiation.RoleWorker
	case negotiation.RoleWorker:
		return negotiation.RolePoster
	}
	return negotiation.RoleNone
}

// termsView converts terms for reading.
func termsView(t *negotiation.Terms) termsOut {
	o := termsOut{
		Title: t.Title, Description: t.Description, Category: t.Category,
		Token: "ETH", Milestones: make([]milestoneOut, 0, len(t.Milestones)),
		Deadline: stamp(time.Unix(int64(t.Deadline), 0)),
	}
	if t.Token != (negotiation.Address{}) {
		o.Token = t.Token.String()
	}
	total := new(big.Int)
	for _, m := range t.Milestones {
		a := m.Amount.Big()
		total.Add(total, a)
		o.Milestones = append(o.Milestones, milestoneOut{Amount: formatAmount(a, t.Token), AmountWei: a.String(), Description: m.Description})
	}
	o.Total, o.TotalWei = formatAmount(total, t.Token), total.String()
	return o
}

// stamp writes t as RFC 3339 UTC ("" for the zero time).
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
