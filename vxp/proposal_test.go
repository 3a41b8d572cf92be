package vxp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/negotiation"
)

// counting is a deterministic random source: each read fills with the
// next byte value.
type counting struct{ n byte }

func (c *counting) Read(b []byte) (int, error) {
	c.n++
	for i := range b {
		b[i] = c.n
	}
	return len(b), nil
}

// repeating returns the same bytes on every read.
type repeating struct{}

func (repeating) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = 7
	}
	return len(b), nil
}

func draft(action string) Draft {
	return Draft{
		Summary:              "answer the offer: " + action,
		Terms:                []byte(`{"action":"` + action + `","milestones":[{"amount":"1000","description":"all"}]}`),
		Commitment:           Commitment{Mode: CommitmentFirm},
		UserApprovalRequired: action == "accept",
	}
}

func newProposals(t *testing.T, l Limits) (*Proposals, *counting) {
	t.Helper()
	rnd := &counting{}
	p, err := NewProposals("op_XzdILOmlgiae", l, draft("accept"), t0, rnd)
	if err != nil {
		t.Fatal(err)
	}
	return p, rnd
}

// TestRevisionOne: revision 1's id, salt, terms, hash, expiry and limits
// as the seed shows them.
func TestRevisionOne(t *testing.T) {
	p, _ := newProposals(t, DefaultLimits())
	r := p.Current()
	if r.ID != "prop_op_XzdILOmlgiae_r1" || r.Number != 1 {
		t.Fatalf("id %s, revision %d", r.ID, r.Number)
	}
	if len(r.Salt) != 22 {
		t.Fatalf("salt %q is not 128 bits of base64url", r.Salt)
	}
	var terms map[string]any
	if err := json.Unmarshal(r.Terms, &terms); err != nil || terms["vxp_salt"] != r.Salt || terms["action"] != "accept" {
		t.Fatalf("terms %s", r.Terms)
	}
	jcs, err := negotiation.Canonicalize(r.Terms)
	if err != nil || !bytes.Equal(jcs, r.Terms) {
		t.Fatalf("terms are not JCS: %s", r.Terms)
	}
	sum := sha256.Sum256(jcs)
	if r.TermsHash != hex.EncodeToString(sum[:]) {
		t.Fatalf("terms_hash %s", r.TermsHash)
	}
	v := p.View(r, t0)
	if v.State != ProposalProposed || v.ExpiresAt != "2026-10-22T22:45:29.356Z" || !v.UserApprovalRequired {
		t.Fatalf("view %+v", v)
	}
	if v.Limits != (ProposalLimits{MaxRevisions: 3, RevisionsLeft: 2, MaxAcceptAttempts: 3, AcceptAttemptsLeft: 3}) {
		t.Fatalf("limits %+v (the seed: 3, 2, 3, 3)", v.Limits)
	}
	b, _ := json.Marshal(v)
	for _, m := range []string{`"id":`, `"revision":1`, `"state":"proposed"`, `"summary":`, `"terms":{`, `"commitment":{"mode":"firm","requires":[]}`, `"expires_at":`, `"user_approval_required":true`, `"limits":{`} {
		if !bytes.Contains(b, []byte(m)) {
			t.Errorf("the view lacks %s: %s", m, b)
		}
	}
}

// TestDrafts: what a draft may be.
func TestDrafts(t *testing.T) {
	cases := []struct {
		name string
		d    func(*Draft)
		code Code
	}{
		{"fine", func(*Draft) {}, ""},
		{"terms an array", func(d *Draft) { d.Terms = []byte(`[1]`) }, CodeBadTerms},
		{"terms null", func(d *Draft) { d.Terms = []byte(`null`) }, CodeBadTerms},
		{"terms not JSON", func(d *Draft) { d.Terms = []byte(`{`) }, CodeBadTerms},
		{"terms with a duplicate", func(d *Draft) { d.Terms = []byte(`{"a":1,"a":2}`) }, CodeBadTerms},
		{"terms with their own salt", func(d *Draft) { d.Terms = []byte(`{"vxp_salt":"x"}`) }, CodeBadTerms},
		{"no commitment mode", func(d *Draft) { d.Commitment = Commitment{} }, CodeBadCommitment},
		{"a firm commitment requiring", func(d *Draft) { d.Commitment = Commitment{Mode: "firm", Requires: []string{"x"}} }, CodeBadCommitment},
		{"conditional", func(d *Draft) { d.Commitment = Commitment{Mode: "conditional", Requires: []string{"funded"}} }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := draft("accept")
			c.d(&d)
			_, err := NewProposals("op_1", DefaultLimits(), d, t0, &counting{})
			if CodeOf(err) != c.code {
				t.Fatalf("got %v, want %q", err, c.code)
			}
		})
	}
	for _, l := range []Limits{{0, 900, 3}, {3, 0, 3}, {3, 900, 0}} {
		if _, err := NewProposals("op_1", l, draft("accept"), t0, &counting{}); CodeOf(err) != CodeBadLimits {
			t.Errorf("limits %+v: %v", l, err)
		}
	}
	if _, err := NewProposals("op_1", DefaultLimits(), draft("accept"), t0, nil); CodeOf(err) != CodeBadArgument {
		t.Errorf("no random source: %v", err)
	}
	if _, err := NewProposals("op_1", DefaultLimits(), draft("accept"), t0, strings.NewReader("short")); CodeOf(err) != CodeBadArgument {
		t.Errorf("a short random source: %v", err)
	}
	if _, err := NewProposals("op_1", DefaultLimits(), draft("accept"), time.Time{}, &counting{}); CodeOf(err) != CodeBadArgument {
		t.Errorf("no time: %v", err)
	}
}

// TestSaltPerRevision: every revision draws a fresh salt, so equal terms
// hash differently; a source that repeats is refused.
func TestSaltPerRevision(t *testing.T) {
	p, rnd := newProposals(t, DefaultLimits())
	r1 := p.Current()
	r2, err := p.Counter(r1.ID, draft("accept"), t0.Add(time.Minute), rnd)
	if err != nil {
		t.Fatal(err)
	}
	if r1.Salt == r2.Salt || r1.TermsHash == r2.TermsHash {
		t.Fatalf("revisions 1 and 2 share salt %s or hash %s", r1.Salt, r1.TermsHash)
	}
	q, err := NewProposals("op_2", DefaultLimits(), draft("accept"), t0, repeating{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Counter(q.Current().ID, draft("counter"), t0, repeating{}); CodeOf(err) != CodeSaltReused {
		t.Fatalf("a repeated salt: %v", err)
	}
	if len(q.Revisions) != 1 {
		t.Fatal("a refused revision was kept")
	}
}

// TestCounters: max_revisions counts revisions (3: two counters), a
// counter answers the current revision only, before it expires, and not
// after an acceptance.
func TestCounters(t *testing.T) {
	p, rnd := newProposals(t, DefaultLimits())
	r1 := p.Current()
	r2, err := p.Counter(r1.ID, draft("counter"), t0, rnd)
	if err != nil {
		t.Fatal(err)
	}
	if r2.ID != "prop_op_XzdILOmlgiae_r2" || p.StateOf(r1, t0) != ProposalSuperseded {
		t.Fatalf("revision 2 %s, revision 1 %s", r2.ID, p.StateOf(r1, t0))
	}
	if v := p.View(r2, t0); v.Limits.RevisionsLeft != 1 {
		t.Fatalf("revisions_left %d", v.Limits.RevisionsLeft)
	}
	if _, err := p.Counter(r1.ID, draft("counter"), t0, rnd); CodeOf(err) != CodeTermsChanged {
		t.Fatalf("a counter to a superseded revision: %v", err)
	}
	if _, err := p.Counter("prop_x_r9", draft("counter"), t0, rnd); CodeOf(err) != CodeProposalNotFound {
		t.Fatalf("a counter to nothing: %v", err)
	}
	if _, err := p.Counter(r2.ID, draft("counter"), r2.ExpiresAt.Add(time.Millisecond), rnd); CodeOf(err) != CodeProposalExpired {
		t.Fatalf("a counter after expiry: %v", err)
	}
	r3, err := p.Counter(r2.ID, draft("counter"), r2.ExpiresAt, rnd) // at expires_at still holds
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Counter(r3.ID, draft("counter"), r3.CreatedAt, rnd); CodeOf(err) != CodeRevisionLimit {
		t.Fatalf("a fourth revision of 3: %v", err)
	}
	if _, err := p.Revise(draft("counter"), r3.CreatedAt, rnd); CodeOf(err) != CodeRevisionLimit {
		t.Fatalf("a fourth revision of 3, by the negotiation: %v", err)
	}
	if v := p.View(r3, r3.CreatedAt); v.Limits.RevisionsLeft != 0 {
		t.Fatalf("revisions_left %d", v.Limits.RevisionsLeft)
	}
	if _, err := p.Accept(r3.ID, "", r3.CreatedAt); err != nil {
		t.Fatal(err)
	}
	q, rnd := newProposals(t, DefaultLimits())
	if _, err := q.Accept(q.Current().ID, "", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Counter(q.Current().ID, draft("counter"), t0, rnd); CodeOf(err) != CodeAlreadyAccepted {
		t.Fatalf("a counter after acceptance: %v", err)
	}
	if _, err := q.Revise(draft("counter"), t0, rnd); CodeOf(err) != CodeAlreadyAccepted {
		t.Fatalf("a revision after acceptance: %v", err)
	}
	if err := q.Supersede(); CodeOf(err) != CodeAlreadyAccepted {
		t.Fatalf("superseding an accepted revision: %v", err)
	}
}

// TestAccept: accept-once, terms_changed counting an attempt, expiry,
// exhaustion, and approved_by recorded as agent_asserted without
// approving.
func TestAccept(t *testing.T) {
	type step struct {
		rev        int // the revision accepted; 0: a name of none
		approvedBy string
		after      time.Duration // after the revision's creation
		code       Code
	}
	cases := []struct {
		name       string
		revisions  int // made before the steps (1..3)
		superseded bool
		steps      []step
		refused    []Code
		left       int // accept_attempts_left after
	}{
		{"the current revision", 1, false, []step{{1, "", 0, ""}}, nil, 0},
		{"a second accept of it", 1, false, []step{{1, "", 0, ""}, {1, "", 0, CodeAlreadyAccepted}}, nil, 0},
		{"a superseded revision", 2, false, []step{{1, "", 0, CodeTermsChanged}}, []Code{CodeTermsChanged}, 2},
		{"a superseded revision, then the current", 2, false, []step{{1, "", 0, CodeTermsChanged}, {2, "", 0, ""}}, []Code{CodeTermsChanged}, 0},
		{"superseded under it by the negotiation", 1, true, []step{{1, "", 0, CodeTermsChanged}}, []Code{CodeTermsChanged}, 2},
		{"a stale accept after the acceptance", 2, false, []step{{2, "", 0, ""}, {1, "", 0, CodeTermsChanged}}, []Code{CodeTermsChanged}, 0},
		{"expired", 1, false, []step{{1, "", 901 * time.Second, CodeProposalExpired}}, []Code{CodeProposalExpired}, 2},
		{"at expires_at", 1, false, []step{{1, "", 900 * time.Second, ""}}, nil, 0},
		{"exhausted", 2, false, []step{{1, "", 0, CodeTermsChanged}, {1, "", 0, CodeTermsChanged}, {1, "", 0, CodeTermsChanged}, {2, "", 0, CodeAcceptAttemptsExhausted}}, []Code{CodeTermsChanged, CodeTermsChanged, CodeTermsChanged}, 0},
		{"the third attempt succeeds", 2, false, []step{{1, "", 0, CodeTermsChanged}, {1, "", 0, CodeTermsChanged}, {2, "", 0, ""}}, []Code{CodeTermsChanged, CodeTermsChanged}, 0},
		{"a name of nothing", 1, false, []step{{0, "", 0, CodeProposalNotFound}}, nil, 3},
		{"approved_by other than user", 1, false, []step{{1, "principal", 0, CodeBadApprovedBy}}, nil, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, rnd := newProposals(t, DefaultLimits())
			for range c.revisions - 1 {
				if _, err := p.Counter(p.Current().ID, draft("counter"), t0, rnd); err != nil {
					t.Fatal(err)
				}
			}
			if c.superseded {
				if err := p.Supersede(); err != nil {
					t.Fatal(err)
				}
			}
			for i, s := range c.steps {
				id := "prop_op_XzdILOmlgiae_r9"
				at := t0.Add(s.after)
				if s.rev > 0 {
					id = p.Revisions[s.rev-1].ID
				}
				before := p.Accepted
				a, err := p.Accept(id, s.approvedBy, at)
				if CodeOf(err) != s.code {
					t.Fatalf("step %d: %v, want %q", i, err, s.code)
				}
				if err != nil {
					if p.Accepted != before {
						t.Fatalf("step %d: a refused accept changed the acceptance", i)
					}
					continue
				}
				if a.ProposalID != id || a.Revision != s.rev || p.Accepted == nil || p.Accepted.ProposalID != id {
					t.Fatalf("step %d: acceptance %+v", i, a)
				}
				if p.StateOf(p.Revisions[s.rev-1], at) != ProposalAccepted {
					t.Fatalf("step %d: revision not accepted", i)
				}
			}
			var got []Code
			for _, r := range p.Refused {
				got = append(got, r.Code)
			}
			if len(got) != len(c.refused) {
				t.Fatalf("refused %v, want %v", got, c.refused)
			}
			for i := range got {
				if got[i] != c.refused[i] {
					t.Fatalf("refused %v, want %v", got, c.refused)
				}
			}
			if v := p.View(p.Revisions[len(p.Revisions)-1], t0); v.Limits.AcceptAttemptsLeft != c.left {
				t.Fatalf("accept_attempts_left %d, want %d", v.Limits.AcceptAttemptsLeft, c.left)
			}
		})
	}
}

// TestApprovedBy: "user" from an agent is agent_asserted and never lifts
// the need for the principal's approval; absent is none.
func TestApprovedBy(t *testing.T) {
	for _, c := range []struct {
		approvedBy, class string
	}{{"user", ApprovedByClassAgentAsserted}, {"", ApprovedByClassNone}} {
		p, _ := newProposals(t, DefaultLimits()) // revision 1 needs the principal
		a, err := p.Accept(p.Current().ID, c.approvedBy, t0)
		if err != nil {
			t.Fatal(err)
		}
		if a.ApprovedByClass != c.class || a.ApprovedBy != c.approvedBy {
			t.Fatalf("%q: %+v", c.approvedBy, a)
		}
		if !a.NeedsHuman {
			t.Fatalf("approved_by %q approved a gated act", c.approvedBy)
		}
		b, _ := json.Marshal(a.Proof())
		if c.approvedBy == "user" && string(b) != `{"proposal_id":"prop_op_XzdILOmlgiae_r1","revision":1,"approved_by":"user","approved_by_class":"agent_asserted"}` {
			t.Fatalf("the proof's acceptance: %s", b)
		}
	}
	p, _ := NewProposals("op_3", DefaultLimits(), draft("counter"), t0, &counting{})
	if a, _ := p.Accept(p.Current().ID, "user", t0); a.NeedsHuman {
		t.Fatal("a revision without user_approval_required needs the human")
	}
}

// TestProofProposals: every revision with its terms and terms_hash.
func TestProofProposals(t *testing.T) {
	p, rnd := newProposals(t, DefaultLimits())
	if _, err := p.Counter(p.Current().ID, draft("counter"), t0, rnd); err != nil {
		t.Fatal(err)
	}
	pp := p.ProofProposals()
	if len(pp) != 2 || pp[0].Revision != 1 || pp[1].Revision != 2 {
		t.Fatalf("%+v", pp)
	}
	for _, x := range pp {
		sum := sha256.Sum256(x.Terms)
		if x.TermsHash != hex.EncodeToString(sum[:]) {
			t.Fatalf("%s: terms_hash %s", x.ID, x.TermsHash)
		}
	}
}

// TestProposalsStore: proposals survive the node's store (JSON) and decide
// afterwards as before: a superseded revision is still terms_changed, the
// refused attempts still count, the accepted one is still accepted.
func TestProposalsStore(t *testing.T) {
	p, rnd := newProposals(t, DefaultLimits())
	r1 := p.Current()
	d := draft("counter")
	d.Terms = []byte(`{"action":"counter","reason":"R&D <costs> \u2028 more"}`)
	if _, err := p.Counter(r1.ID, d, t0, rnd); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Accept(r1.ID, "user", t0); CodeOf(err) != CodeTermsChanged {
		t.Fatal(err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var q Proposals
	if err := json.Unmarshal(b, &q); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Accept(r1.ID, "", t0); CodeOf(err) != CodeTermsChanged {
		t.Fatalf("restored: a superseded revision: %v", err)
	}
	if len(q.Refused) != 2 || q.View(q.Current(), t0).Limits.AcceptAttemptsLeft != 1 {
		t.Fatalf("restored: refused %+v", q.Refused)
	}
	a, err := q.Accept(q.Current().ID, "user", t0)
	if err != nil || a.NeedsHuman != q.Current().UserApprovalRequired {
		t.Fatalf("restored: %+v %v", a, err)
	}
	b, _ = json.Marshal(&q)
	var r Proposals
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Accept(r.Current().ID, "", t0); CodeOf(err) != CodeAlreadyAccepted {
		t.Fatalf("restored: a second accept: %v", err)
	}
	if !bytes.Equal(r.Current().Terms, p.Current().Terms) || TermsHash(r.Current().Terms) != r.Current().TermsHash {
		t.Fatalf("terms changed in the store: %s", r.Current().Terms)
	}
}

// TestEmptyProposals: a value without revisions (a damaged store) answers
// instead of panicking.
func TestEmptyProposals(t *testing.T) {
	var p Proposals
	if p.Current() != nil {
		t.Fatal("a current revision of nothing")
	}
	if err := p.Supersede(); CodeOf(err) != CodeBadArgument {
		t.Fatal(err)
	}
	if _, err := p.Accept("prop_x_r1", "", t0); CodeOf(err) != CodeProposalNotFound {
		t.Fatal(err)
	}
}
