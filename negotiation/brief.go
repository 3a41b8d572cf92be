package negotiation

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"
)

// LedgerHead names the ledger's last entry when a brief is made: the head
// hash identifies the whole history (PXP section 6).
type LedgerHead struct {
	Seq  uint64 `json:"seq"`
	Hash Hash   `json:"hash"`
}

// Brief is a negotiation's decision brief (PXP section 7): what was agreed,
// the authority each term rests on, the unverified assumptions the
// agreement depends on, the escalations and how each principal answered,
// and the ledger head. It is meant to be read alone, without the
// transcript. JSON is its record; Markdown its reading form.
type Brief struct {
	NegotiationID string          `json:"negotiationId"`
	State         State           `json:"state"`
	Parties       []BriefParty    `json:"parties"`
	Agreement     *BriefAgreement `json:"agreement,omitempty"`
	Terms         []BriefTerm     `json:"terms"`
	// Assumptions are the assumed or disputed claims the agreement depends on.
	Assumptions []BriefClaim `json:"assumptions"`
	// Unverified are the other claims of the negotiation that stay unverified.
	Unverified  []BriefClaim      `json:"unverified"`
	Escalations []BriefEscalation `json:"escalations"`
	// Proofs are the worker's capability proofs and which were checked.
	Proofs []BriefProof `json:"proofs,omitempty"`
	Ledger LedgerHead   `json:"ledger"`
}

// BriefParty is one party of the negotiation.
type BriefParty struct {
	Role    Role    `json:"role"`
	Address Address `json:"address"`
	// Principal is the display name of the principal: from the card,
	// where the brief was made with that side's mandate, else the name
	// the party's last envelope carried (PXP: what other parties see).
	Principal string `json:"principal,omitempty"`
	// IntentCardHash is the card hash the party's last envelope carried.
	IntentCardHash *Hash `json:"intentCardHash,omitempty"`
}

// BriefAgreement names the agreed offer and its settlement.
type BriefAgreement struct {
	Offer     Hash    `json:"offer"`
	Revision  int     `json:"revision"`
	By        Address `json:"by"`
	Digest    Hash    `json:"settlementDigest"`
	TaskID    string  `json:"taskId"`
	TermsHash Hash    `json:"termsHash"`
	// DependsOn lists the claims the offer and both acceptances depend on.
	DependsOn []string `json:"dependsOn"`
}

// BriefTerm is one agreed term and the authority it rests on, per side.
type BriefTerm struct {
	Term      string           `json:"term"`
	Value     string           `json:"value"`
	Authority []BriefAuthority `json:"authority"`
}

// BriefAuthority is one clause or amendment of a principal's card that a
// term rests on.
type BriefAuthority struct {
	Party     Address `json:"party"`
	Principal string  `json:"principal"`
	// Ref names the clause ("may_agree_to[0]", "amendments[1]", "goal").
	Ref  string `json:"ref"`
	Text string `json:"text"`
	// Checked is true when a rule of that clause held on the agreed terms.
	Checked bool `json:"checked"`
	// Confirmed is set for an amendment: whether the answer was given on the
	// principal's page or, relayed, confirmed with a passkey.
	Confirmed *bool  `json:"confirmed,omitempty"`
	Note      string `json:"note,omitempty"`
}

// BriefClaim is a claim that stays unverified.
type BriefClaim struct {
	ID     string  `json:"id"`
	Text   string  `json:"text"`
	Origin Origin  `json:"origin"`
	Ref    string  `json:"ref,omitempty"`
	By     Address `json:"by"`
	Role   Role    `json:"role"`
	// Why says why it is unverified (empty for a confirmed assumption).
	Why string `json:"why,omitempty"`
	// VerifiedBy names the principal's confirmation of an assumption the
	// agreement depends on; such a claim is listed, but no longer unverified.
	VerifiedBy string `json:"verifiedBy,omitempty"`
	// Touches lists the must_haves it touches, where a mandate knows.
	Touches []string `json:"touches,omitempty"`
}

// BriefEscalation is one question put to a principal and the answer.
type BriefEscalation struct {
	Party     Address  `json:"party"`
	Principal string   `json:"principal,omitempty"`
	Question  string   `json:"question"`
	Reason    string   `json:"reason,omitempty"`
	At        string   `json:"at,omitempty"`
	Triggers  []string `json:"triggers,omitempty"`
	// Answer is empty while unanswered, or when the answer is private to
	// the other side's principal.
	Answer     string `json:"answer,omitempty"`
	AnsweredAt string `json:"answeredAt,omitempty"`
	Via        Via    `json:"via,omitempty"`
	Confirmed  bool   `json:"confirmed,omitempty"`
	Amendment  string `json:"amendment,omitempty"`
	Note       string `json:"note,omitempty"`
}

// threadClaim is a claim as the thread saw it: its latest effective version.
type threadClaim struct {
	Claim
	by       Address
	disputes []string // "challenge by poster", ...
}

func (t *Thread) claimIndex() (map[string]*threadClaim, []string) {
	idx := map[string]*threadClaim{}
	var order []string
	add := func(e *Envelope) {
		px := e.Payload.Proxy()
		for _, c := range px.Claims {
			if old, ok := idx[c.ID]; ok {
				if old.by == e.Sender.EVMAddress && originRank(c.Origin) > originRank(old.Origin) {
					old.Origin, old.Ref = c.Origin, c.Ref
				}
				continue
			}
			idx[c.ID] = &threadClaim{Claim: c, by: e.Sender.EVMAddress}
			order = append(order, c.ID)
		}
	}
	if a := t.p.Announcement; a != nil {
		add(a)
	}
	for _, r := range t.log {
		if r.Code == "" {
			add(t.byHash[r.Hash])
		}
	}
	for _, r := range t.log {
		if r.Code != "" {
			continue
		}
		for _, rv := range t.byHash[r.Hash].Payload.Proxy().Reviews {
			if c, ok := idx[rv.ClaimID]; ok && c.by != r.Sender && rv.Verdict != VerdictAccept {
				c.disputes = append(c.disputes, fmt.Sprintf("%s by the %s", rv.Verdict, t.RoleOf(r.Sender)))
			}
		}
	}
	return idx, order
}

// agreementDeps returns the claims the agreement depends on: the agreed
// offer's dependsOn and those of both acceptances of it.
func (t *Thread) agreementDeps() []string {
	a := t.agreement
	if a == nil {
		return nil
	}
	o := t.offers[a.Offer]
	deps := slices.Clone(o.Envelope.Payload.Proxy().DependsOn)
	for _, r := range t.log {
		if r.Code != "" || r.Type != TypeTaskAcceptance {
			continue
		}
		e := t.byHash[r.Hash]
		if e.Payload.(*TaskAcceptance).AcceptedOfferHash != a.Offer {
			continue
		}
		for _, id := range e.Payload.Proxy().DependsOn {
			if !slices.Contains(deps, id) {
				deps = append(deps, id)
			}
		}
	}
	return deps
}

// NewBrief makes the decision brief of thread t at ledger head head, with
// the mandates of the sides the caller holds (a node holds its own; a
// devnet or a test may hold both). Claims and reviews come from the thread;
// authority, escalations and answers from the mandates.
func NewBrief(t *Thread, head LedgerHead, mandates ...*Mandate) (*Brief, error) {
	if t == nil {
		return nil, errors.New("negotiation: brief: no thread")
	}
	b := &Brief{NegotiationID: t.NegotiationID(), State: t.State(), Ledger: head,
		Terms: []BriefTerm{}, Assumptions: []BriefClaim{}, Unverified: []BriefClaim{}, Escalations: []BriefEscalation{}}
	byAddr := map[Address]*Mandate{}
	for _, m := range mandates {
		if m == nil {
			return nil, errors.New("negotiation: brief: nil mandate")
		}
		if r := t.RoleOf(m.Self()); r != RolePoster && r != RoleWorker {
			return nil, fmt.Errorf("negotiation: brief: %s is not a party of %s", m.Self(), t.NegotiationID())
		}
		byAddr[m.Self()] = m
	}
	for _, a := range []Address{t.poster, t.worker, t.arbitrator} {
		if a == (Address{}) {
			continue
		}
		p := BriefParty{Role: t.RoleOf(a), Address: a, IntentCardHash: t.lastCardHash(a)}
		if m := byAddr[a]; m != nil {
			p.Principal = m.Card().Principal.Name
		} else {
			p.Principal = t.lastPrincipal(a)
		}
		b.Parties = append(b.Parties, p)
	}

	deps := t.agreementDeps()
	if a := t.agreement; a != nil {
		o := t.offers[a.Offer]
		b.Agreement = &BriefAgreement{Offer: a.Offer, Revision: o.Revision, By: o.By, Digest: a.Digest,
			TaskID: a.TaskID().String(), TermsHash: o.TermsHash, DependsOn: append([]string{}, deps...)}
		for _, term := range agreedTerms(o.Terms) {
			bt := BriefTerm{Term: term.name, Value: term.value, Authority: []BriefAuthority{}}
			for _, m := range mandates {
				bt.Authority = append(bt.Authority, m.authorityFor(o.Terms, term.vars, o.Envelope.Timestamp)...)
			}
			b.Terms = append(b.Terms, bt)
		}
	}

	idx, order := t.claimIndex()
	for _, id := range order {
		c := idx[id]
		why, unverified, verifiedBy := t.unverified(c, mandates)
		dep := slices.Contains(deps, id)
		if !unverified && !(dep && c.Origin == OriginAssumed) {
			continue
		}
		bc := BriefClaim{ID: id, Text: c.Text, Origin: c.Origin, Ref: c.Ref, By: c.by, Role: t.RoleOf(c.by), Why: why, VerifiedBy: verifiedBy}
		for _, m := range mandates {
			for _, ref := range m.Touches(c.Claim) {
				if !slices.Contains(bc.Touches, ref) {
					bc.Touches = append(bc.Touches, ref)
				}
			}
		}
		if dep {
			b.Assumptions = append(b.Assumptions, bc)
		} else {
			b.Unverified = append(b.Unverified, bc)
		}
	}

	for _, m := range mandates {
		b.Escalations = append(b.Escalations, m.briefEscalations()...)
	}
	for _, r := range t.log {
		if r.Code != "" || byAddr[r.Sender] != nil {
			continue
		}
		px := t.byHash[r.Hash].Payload.Proxy()
		if px.Status == StatusEscalate && px.Escalation != nil {
			b.Escalations = append(b.Escalations, BriefEscalation{Party: r.Sender, Question: px.Escalation.Question,
				Reason: px.Escalation.Reason, At: FormatTime(t.byHash[r.Hash].Timestamp),
				Note: "the " + string(t.RoleOf(r.Sender)) + "'s answer is private to its principal"})
		}
	}
	b.Proofs = t.briefProofs()
	return b, nil
}

func (t *Thread) lastCardHash(a Address) *Hash {
	var h *Hash
	for _, r := range t.log {
		if r.Sender == a {
			if x := t.byHash[r.Hash].Payload.Proxy().IntentCardHash; x != nil {
				v := *x
				h = &v
			}
		}
	}
	return h
}

// lastPrincipal returns the principal's display name a's last envelope
// carried ("" when none did): what the other parties see of its card.
func (t *Thread) lastPrincipal(a Address) string {
	name := ""
	for _, r := range t.log {
		if r.Sender == a {
			if x := t.byHash[r.Hash].Payload.Proxy().Principal; x != "" {
				name = x
			}
		}
	}
	return name
}

// unverified reports whether a claim stays unverified, and why: an
// assumption no source was attached to and no principal confirmed (by a
// confirmed answer), or any claim the other side challenged or flagged as a
// conflict (it stays unverified even after a principal cleared the block).
// verifiedBy names the confirmation of an assumption that has one.
func (t *Thread) unverified(c *threadClaim, mandates []*Mandate) (why string, unverified bool, verifiedBy string) {
	var reasons []string
	if c.Origin == OriginAssumed {
		for _, m := range mandates {
			if r, ok := m.claims[c.ID]; ok && r.confirm >= 0 && m.answers[r.confirm].Confirmed {
				verifiedBy = fmt.Sprintf("confirmed by %s (%s)", m.card.Principal.Name, ClauseRef(ClauseAmendments, m.answers[r.confirm].Index))
			}
		}
		if verifiedBy == "" {
			reasons = append(reasons, fmt.Sprintf("assumed by the %s; no source was attached and no principal confirmed it", t.RoleOf(c.by)))
		}
	}
	if len(c.disputes) > 0 {
		reasons = append(reasons, strings.Join(c.disputes, ", "))
	}
	return strings.Join(reasons, "; "), len(reasons) > 0, verifiedBy
}

type agreedTerm struct {
	name, value string
	vars        []string
}

func agreedTerms(t *Terms) []agreedTerm {
	out := []agreedTerm{{name: "title", value: t.Title, vars: []string{RuleVarTitle}}}
	if t.Description != "" {
		out = append(out, agreedTerm{name: "description", value: t.Description})
	}
	if t.Category != "" {
		out = append(out, agreedTerm{name: "category", value: t.Category, vars: []string{RuleVarCategory}})
	}
	native := t.Token == (Address{})
	tok := t.Token.String()
	if native {
		tok = "native ETH"
	}
	out = append(out, agreedTerm{name: "token", value: tok, vars: []string{RuleVarToken}})
	total := new(big.Int)
	for i, m := range t.Milestones {
		total.Add(total, &m.Amount.Int)
		out = append(out, agreedTerm{name: fmt.Sprintf("milestones[%d]", i),
			value: amountText(m.Amount.Big(), native) + ": " + m.Description,
			vars:  []string{RuleVarMilestones, RuleVarMilestoneCount, RuleVarTotal}})
	}
	out = append(out,
		agreedTerm{name: "total", value: amountText(total, native), vars: []string{RuleVarTotal}},
		agreedTerm{name: "deadline", value: time.Unix(int64(min(t.Deadline, 1<<62)), 0).UTC().Format(time.RFC3339), vars: []string{RuleVarDeadline}})
	return out
}

func amountText(v *big.Int, native bool) string {
	if native {
		return FormatEther(v) + " ETH (" + v.String() + " wei)"
	}
	return v.String() + " base units"
}

// authorityFor returns the clauses and amendments of this side's card a
// term (read through vars) rests on: amendments that answered an
// escalation about a rule reading it for these terms; must_haves and
// may_agree_to rules reading it that hold; else the card's goal, unchecked.
func (m *Mandate) authorityFor(terms *Terms, vars []string, at time.Time) []BriefAuthority {
	name := m.card.Principal.Name
	key := TermsKey(terms)
	reads := func(cl Clause) bool {
		if cl.rule == nil {
			return false
		}
		for _, v := range vars {
			if cl.rule.Reads(v) {
				return true
			}
		}
		return false
	}
	var out []BriefAuthority
	for _, e := range m.escalations {
		if e.Answer < 0 {
			continue
		}
		for _, tr := range e.Triggers {
			list, i, ok := ParseClauseRef(tr.Clause)
			if !ok || tr.Terms != key || i < 0 || i >= len(m.card.Clauses(list)) || !reads(m.card.Clauses(list)[i]) {
				continue
			}
			a := m.answers[e.Answer]
			ref := ClauseRef(ClauseAmendments, a.Index)
			text, _ := m.card.Resolve(ref)
			confirmed := a.Confirmed
			out = append(out, BriefAuthority{Party: m.self, Principal: name, Ref: ref, Text: text, Confirmed: &confirmed,
				Note: "answered an escalation: " + tr.Detail})
			break
		}
	}
	in := RuleInput{Terms: terms, Counterparty: m.counterparty, Now: at}
	for _, list := range []string{ClauseMustHaves, ClauseMayAgreeTo} {
		for i, cl := range m.card.Clauses(list) {
			if !reads(cl) {
				continue
			}
			if ok, err := cl.rule.Eval(in); err == nil && ok {
				out = append(out, BriefAuthority{Party: m.self, Principal: name, Ref: ClauseRef(list, i), Text: cl.Text, Checked: true})
			}
		}
	}
	if len(out) == 0 {
		out = append(out, BriefAuthority{Party: m.self, Principal: name, Ref: "goal", Text: m.card.Goal,
			Note: "no rule of the card reads this term: the proxy agreed under the card's goal and clauses as written"})
	}
	return out
}

func (m *Mandate) briefEscalations() []BriefEscalation {
	var out []BriefEscalation
	for _, e := range m.escalations {
		be := BriefEscalation{Party: m.self, Principal: m.card.Principal.Name, Question: e.Question, Reason: e.Reason, At: FormatTime(e.At)}
		for _, t := range e.Triggers {
			be.Triggers = append(be.Triggers, t.Detail)
		}
		if e.Answer >= 0 {
			a := m.answers[e.Answer]
			be.Answer, be.AnsweredAt, be.Via, be.Confirmed = a.Amendment.Answer, a.Amendment.At, a.Via, a.Confirmed
			be.Amendment = ClauseRef(ClauseAmendments, a.Index)
		}
		out = append(out, be)
	}
	for _, a := range m.answers {
		if strings.HasPrefix(a.Amendment.Question, "Is it true that ") && !m.answeredEscalation(a) {
			out = append(out, BriefEscalation{Party: m.self, Principal: m.card.Principal.Name, Question: a.Amendment.Question,
				Answer: a.Amendment.Answer, AnsweredAt: a.Amendment.At, Via: a.Via, Confirmed: a.Confirmed,
				Amendment: ClauseRef(ClauseAmendments, a.Index), Note: "the principal confirmed an assumption"})
		}
	}
	return out
}

func (m *Mandate) answeredEscalation(a *PrincipalAnswer) bool {
	for _, e := range m.escalations {
		if e.Answer >= 0 && m.answers[e.Answer] == a {
			return true
		}
	}
	return false
}

// JSON returns the brief as indented JSON.
func (b *Brief) JSON() ([]byte, error) { return json.MarshalIndent(b, "", "  ") }

// Check applies PXP's design test to the brief of thread t, mechanically:
// every agreed term names its authority (a clause or amendment, with its
// text, for every side the brief was made with), and every assumed claim
// the agreement depends on that no principal confirmed and no source backs
// is listed among the assumptions.
func (b *Brief) Check(t *Thread) error {
	var errs []error
	if b.Agreement != nil && len(b.Terms) == 0 {
		errs = append(errs, errors.New("an agreement without terms"))
	}
	sides := map[Address]bool{}
	for _, p := range b.Parties {
		if p.Principal != "" {
			sides[p.Address] = true
		}
	}
	for _, term := range b.Terms {
		named := map[Address]bool{}
		for _, a := range term.Authority {
			if a.Ref == "" || a.Text == "" {
				errs = append(errs, fmt.Errorf("term %s: an authority without clause or text", term.Term))
				continue
			}
			named[a.Party] = true
		}
		for s := range sides {
			if !named[s] {
				errs = append(errs, fmt.Errorf("term %s names no authority of %s", term.Term, s))
			}
		}
	}
	listed := map[string]bool{}
	for _, c := range b.Assumptions {
		listed[c.ID] = true
	}
	idx, _ := t.claimIndex()
	for _, id := range t.agreementDeps() {
		c, ok := idx[id]
		if !ok {
			errs = append(errs, fmt.Errorf("the agreement depends on claim %q, which no envelope made", id))
			continue
		}
		if c.Origin == OriginAssumed && !listed[id] {
			errs = append(errs, fmt.Errorf("the agreement depends on the assumption %q, which the brief does not list", id))
		}
	}
	return errors.Join(errs...)
}

// Markdown renders the brief for people.
func (b *Brief) Markdown() string {
	var s strings.Builder
	names := map[Address]string{}
	for _, p := range b.Parties {
		names[p.Address] = string(p.Role)
		if p.Principal != "" {
			names[p.Address] = p.Principal + " (" + string(p.Role) + ")"
		}
	}
	title := "negotiation " + b.NegotiationID
	for _, t := range b.Terms {
		if t.Term == "title" {
			title = t.Value
		}
	}
	fmt.Fprintf(&s, "# Decision brief: %s\n\n", title)
	fmt.Fprintf(&s, "Negotiation `%s` is **%s** (%s).\n\n## Parties\n\n", b.NegotiationID, b.State, b.State.A2A())
	for _, p := range b.Parties {
		fmt.Fprintf(&s, "- %s `%s`", names[p.Address], p.Address)
		if p.IntentCardHash != nil {
			fmt.Fprintf(&s, ", acting under intent card `%s`", p.IntentCardHash)
		}
		s.WriteString("\n")
	}
	s.WriteString("\n## What was agreed\n\n")
	if b.Agreement == nil {
		s.WriteString("Nothing was agreed.\n")
	} else {
		a := b.Agreement
		fmt.Fprintf(&s, "Revision %d, offered by %s, accepted by both: offer `%s`, settlement digest `%s`.\n\n", a.Revision, names[a.By], a.Offer, a.Digest)
		s.WriteString("| Term | Value | On whose authority |\n| --- | --- | --- |\n")
		for _, t := range b.Terms {
			var auth []string
			for _, x := range t.Authority {
				line := fmt.Sprintf("%s: %s \"%s\"", x.Principal, x.Ref, x.Text)
				switch {
				case x.Confirmed != nil && *x.Confirmed:
					line += " (answer confirmed)"
				case x.Confirmed != nil:
					line += " (relayed answer, not confirmed)"
				case x.Checked:
					line += " (rule holds)"
				default:
					line += " (not machine-checked)"
				}
				auth = append(auth, line)
			}
			fmt.Fprintf(&s, "| %s | %s | %s |\n", cell(t.Term), cell(t.Value), cell(strings.Join(auth, "; ")))
		}
	}
	s.WriteString("\n## Assumptions the agreement depends on\n\n")
	claimList(&s, b.Assumptions, names)
	s.WriteString("\n## Other unverified claims\n\n")
	claimList(&s, b.Unverified, names)
	s.WriteString("\n## Escalations\n\n")
	if len(b.Escalations) == 0 {
		s.WriteString("None.\n")
	}
	for i, e := range b.Escalations {
		who := names[e.Party]
		if e.Principal != "" {
			who = e.Principal
		}
		fmt.Fprintf(&s, "%d. %s was asked: \"%s\"", i+1, who, e.Question)
		if e.Reason != "" {
			fmt.Fprintf(&s, " (%s)", e.Reason)
		}
		switch {
		case e.Answer != "":
			how := "on their own page"
			if e.Via.Relayed() {
				how = "relayed by their agent, "
				if e.Via == ViaAPI {
					how = "sent through their node's API, "
				}
				if e.Confirmed {
					how += "confirmed with a passkey"
				} else {
					how += "NOT confirmed"
				}
			}
			fmt.Fprintf(&s, "\n   Answer (%s, %s): \"%s\", sealed as %s.", how, e.AnsweredAt, e.Answer, e.Amendment)
		case e.Note != "":
			fmt.Fprintf(&s, "\n   %s.", e.Note)
		default:
			s.WriteString("\n   Not answered.")
		}
		for _, tr := range e.Triggers {
			fmt.Fprintf(&s, "\n   - because %s", tr)
		}
		s.WriteString("\n")
	}
	b.proofsMarkdown(&s, names)
	fmt.Fprintf(&s, "\n## Ledger\n\nHead `%s` at entry %d.\n", b.Ledger.Hash, b.Ledger.Seq)
	return s.String()
}

func claimList(s *strings.Builder, cs []BriefClaim, names map[Address]string) {
	if len(cs) == 0 {
		s.WriteString("None.\n")
		return
	}
	for _, c := range cs {
		fmt.Fprintf(s, "- `%s` by %s (%s): \"%s\"", c.ID, names[c.By], c.Origin, c.Text)
		if c.Why != "" {
			fmt.Fprintf(s, ": %s", c.Why)
		}
		if c.VerifiedBy != "" {
			fmt.Fprintf(s, ": %s", c.VerifiedBy)
		}
		if len(c.Touches) > 0 {
			fmt.Fprintf(s, "; touches %s", strings.Join(c.Touches, ", "))
		}
		s.WriteString(".\n")
	}
}

func cell(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}
