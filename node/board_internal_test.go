package node

import (
	"crypto/ed25519"
	"crypto/rand"
	"math/big"
	"testing"
	"time"

	"github.com/parleynet/parley/negotiation"
)

// boardPoster signs announcements for the board tests.
type boardPoster struct {
	key  ed25519.PrivateKey
	addr negotiation.Address
}

func newBoardPoster(t *testing.T) *boardPoster {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p := &boardPoster{key: k}
	if _, err := rand.Read(p.addr[:]); err != nil {
		t.Fatal(err)
	}
	return p
}

// announce returns an announcement of p with the given deadline.
func (p *boardPoster) announce(t *testing.T, at time.Time, deadline time.Time) *negotiation.Envelope {
	t.Helper()
	nid, err := newNegotiationID()
	if err != nil {
		t.Fatal(err)
	}
	var pk negotiation.PublicKey
	copy(pk[:], p.key.Public().(ed25519.PublicKey))
	h := negotiation.Header{NegotiationID: nid, Sequence: 1, Timestamp: at.UTC().Truncate(time.Millisecond),
		Sender: negotiation.Sender{EVMAddress: p.addr, XMTPPublicKey: pk}}
	terms := negotiation.Terms{Title: "Proofread", ChainID: negotiation.NewUint256(big.NewInt(1337)), Registry: p.addr,
		Milestones: []negotiation.Milestone{{Amount: negotiation.NewUint256(big.NewInt(1000)), Description: "all"}},
		Deadline:   uint64(deadline.Unix()), Nonce: negotiation.NewUint256(big.NewInt(at.UnixNano()))}
	env, err := negotiation.Build(h, &negotiation.TaskProposal{Terms: terms}, negotiation.Ed25519Key(p.key), negotiation.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// testBoard is a task board and the consent book it asks, without a
// node: enough for the board's rules, with a clock the test moves.
type testBoard struct {
	*board
	cs  *ConsentBook
	now func() time.Time
}

func boardNode(cfg BoardConfig, now *time.Time) *testBoard {
	clock := func() time.Time { return *now }
	cs := newConsentBook(DefaultConfig().Consent, clock, func() error { return nil }, newBroadcaster(),
		func() (map[negotiation.Address]int, map[string]bool) { return nil, nil })
	return &testBoard{board: newBoard(cfg, cs.stateOf), cs: cs, now: clock}
}

// Board lists the board as Node.Board does.
func (n *testBoard) Board() []Announcement { return n.list(n.now()) }

// take puts env on n's board as takeAnnouncement does.
func take(n *testBoard, env *negotiation.Envelope) { n.take(env, n.now()) }

func onBoard(n *testBoard, envs ...*negotiation.Envelope) []bool {
	out := make([]bool, len(envs))
	for _, e := range n.Board() {
		for j, x := range envs {
			if e.Hash == x.Hash() {
				out[j] = true
			}
		}
	}
	return out
}

// TestBoardIsBounded: the board keeps at most board.max_per_poster
// announcements of one poster and board.max_total of all, evicting the
// oldest first; an announcement past its deadline or older than
// board.max_age leaves; this node's own announcements and those a
// negotiation of this node answers are never evicted nor counted against
// others. A restart applies the same bounds to the board rebuilt from the
// ledger. (Before, the board had no bound: a poster kept 3,215 junk
// announcements.)
func TestBoardIsBounded(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	n := boardNode(BoardConfig{MaxPerPoster: 3, MaxTotal: 5, MaxAge: time.Hour}, &now)
	far := now.Add(30 * 24 * time.Hour)
	junk, other := newBoardPoster(t), newBoardPoster(t)

	// One poster floods: its three newest stay; the first one, answered by
	// a negotiation of this node, stays too.
	var flood []*negotiation.Envelope
	for range 6 {
		now = now.Add(time.Second)
		e := junk.announce(t, now, far)
		take(n, e)
		flood = append(flood, e)
		if len(flood) == 1 {
			n.entries[e.Hash()].answered = true
		}
	}
	got := onBoard(n, flood...)
	want := []bool{true, false, false, true, true, true}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("after the flood the board holds %v, want %v (the answered first one and the newest three)", got, want)
		}
	}
	// Own announcements count for nothing and stay.
	mine := other.announce(t, now, far)
	n.entries[mine.Hash()] = &boardEntry{env: mine, seen: now, own: true}

	// Another poster: the total bound (5 of others, neither the answered
	// nor the own one counted) evicts the oldest unprotected of all.
	var second []*negotiation.Envelope
	for range 3 {
		now = now.Add(time.Second)
		e := other.announce(t, now, far)
		take(n, e)
		second = append(second, e)
	}
	got = onBoard(n, append(append([]*negotiation.Envelope{}, flood...), append(second, mine)...)...)
	want = []bool{true, false, false, false, true, true, true, true, true, true}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("with a second poster the board holds %v, want %v", got, want)
		}
	}
	if len(n.entries) != 7 {
		t.Fatalf("the board holds %d, want 7 (five of others, one answered, one own)", len(n.entries))
	}

	// A deadline passes: that announcement leaves; then the age bound
	// takes every one but the protected.
	soon := junk.announce(t, now, now.Add(2*time.Second))
	take(n, soon)
	if !onBoard(n, soon)[0] {
		t.Fatal("the new announcement is not on the board")
	}
	now = now.Add(3 * time.Second)
	if onBoard(n, soon)[0] {
		t.Fatal("an announcement past its deadline is on the board")
	}
	now = now.Add(time.Hour)
	if got := n.Board(); len(got) != 2 {
		t.Fatalf("after max_age the board holds %d announcements, want 2 (own and answered)", len(got))
	}

	// An answered announcement takes no slot of its poster's.
	one := boardNode(BoardConfig{MaxPerPoster: 1, MaxTotal: 1, MaxAge: time.Hour}, &now)
	a, b := junk.announce(t, now, far), junk.announce(t, now, far)
	take(one, a)
	one.entries[a.Hash()].answered = true
	take(one, b)
	if got := onBoard(one, a, b); !got[0] || !got[1] {
		t.Fatalf("with one slot, an answered announcement and a new one: %v", got)
	}

	// A poster the principal allowed is not bounded: all of its
	// announcements stay, and take no slot of anyone else's.
	trusted := newBoardPoster(t)
	two := boardNode(BoardConfig{MaxPerPoster: 1, MaxTotal: 2, MaxAge: time.Hour}, &now)
	two.cs.states[trusted.addr] = consentRecord{state: ConsentAllowed}
	var kept []*negotiation.Envelope
	for range 4 {
		e := trusted.announce(t, now, far)
		take(two, e)
		kept = append(kept, e)
	}
	stranger := junk.announce(t, now, far)
	take(two, stranger)
	for i, ok := range onBoard(two, append(kept, stranger)...) {
		if !ok {
			t.Fatalf("with an allowed poster's four announcements and a stranger's one, %d is not on the board", i)
		}
	}

	// At start the bounds apply to the board the ledger rebuilt, newest
	// kept first.
	restart := boardNode(BoardConfig{MaxPerPoster: 2, MaxTotal: 3, MaxAge: time.Hour}, &now)
	var all []*negotiation.Envelope
	for i := range 5 {
		p := junk
		if i%2 == 1 {
			p = other
		}
		e := p.announce(t, now, far)
		restart.entries[e.Hash()] = &boardEntry{env: e, seen: now.Add(time.Duration(i-5) * time.Second)}
		all = append(all, e)
	}
	restart.restore(nil, restart.now())
	got = onBoard(restart, all...)
	want = []bool{false, false, true, true, true}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("after loadBoard the board holds %v, want %v", got, want)
		}
	}
}
