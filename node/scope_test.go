package node_test

import (
	"crypto/sha256"
	"testing"
	"time"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// boardSees waits until the announcement ann of poster is on the worker's
// board and returns the worker's view of it (gossip keeps no history:
// the poster publishes again while the mesh forms).
func boardSees(t *testing.T, poster, worker *tnode, ann negotiation.Hash) node.Announcement {
	t.Helper()
	var got node.Announcement
	last := time.Now()
	eventually(t, "the announcement on "+worker.name+"'s board", func() bool {
		if time.Since(last) > 2*time.Second {
			_ = poster.Announce(t.Context(), ann)
			last = time.Now()
		}
		for _, a := range worker.Board() {
			if a.Hash == ann {
				got = a
				return true
			}
		}
		return false
	})
	return got
}

func scopeOf(doc string) *negotiation.Hash {
	h := negotiation.Hash(sha256.Sum256([]byte(doc)))
	return &h
}

// TestPublicTaskScopeOnChain: a poster publishes an announcement's scope
// hash in the TaskScopeRegistry through the gate, before announcing it;
// the worker's board shows the scope published and the worker answers. An
// announcement whose scope is not on chain is flagged (unpublished) and
// may be answered; one whose scope another address published with
// another hash is refused (scope_mismatch). A direct proposal's scope is
// never published.
func TestPublicTaskScopeOnChain(t *testing.T) {
	w := newWorld(t, true)
	gate := &recGate{deny: map[node.Act]bool{}}
	poster := w.add("poster", withGate(gate))
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	eventually(t, "the task board mesh", func() bool { return len(worker.Host().TopicPeers("/parley/taskboard/1")) > 0 })
	ctx := t.Context()

	// Published.
	s := spec("Translate the guide", eth(300))
	s.ScopeHash, s.PublishScope = scopeOf("the guide, 42 pages"), true
	ann, err := poster.PostTask(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if ann.ScopeTx == nil || ann.Scope == nil || ann.Scope.State != node.ScopePublished || *ann.Terms.ScopeHash != *s.ScopeHash {
		t.Fatalf("PostTask = %+v", ann)
	}
	asked := gate.asked(node.ActPublishScope)
	if len(asked) != 1 || argsOf(t, asked[0])["announcementHash"] != ann.Hash.String() || argsOf(t, asked[0])["scopeHash"] != s.ScopeHash.String() {
		t.Fatalf("the gate was asked %+v", asked)
	}
	boardSees(t, poster, worker, ann.Hash)
	eventually(t, "the scope checked on the worker's board", func() bool {
		for _, a := range worker.Board() {
			if a.Hash == ann.Hash {
				return a.Scope != nil && a.Scope.State == node.ScopePublished
			}
		}
		return false
	})
	if _, err := worker.CounterAnnouncement(ctx, ann.Hash, node.CounterSpec{Milestones: []node.MilestoneSpec{{Amount: eth(350), Description: "all"}}}); err != nil {
		t.Fatal(err)
	}

	// Named but not published: flagged, and it may be answered.
	s2 := spec("Index the archive", eth(100))
	s2.ScopeHash = scopeOf("the archive")
	ann2, err := poster.PostTask(ctx, s2)
	if err != nil || ann2.ScopeTx != nil {
		t.Fatalf("PostTask = %+v, %v", ann2, err)
	}
	boardSees(t, poster, worker, ann2.Hash)
	c, err := worker.CheckScope(ctx, ann2.Hash)
	if err != nil || c.State != node.ScopeUnpublished || c.Named != *s2.ScopeHash || c.OnChain != nil {
		t.Fatalf("CheckScope = %+v, %v", c, err)
	}
	if _, err := worker.AcceptAnnouncement(ctx, ann2.Hash); err != nil {
		t.Fatalf("answering an unpublished scope: %v", err)
	}

	// Another address publishes another scope under the announcement's
	// hash first: the worker refuses to answer.
	s3 := spec("Review the contract", eth(200))
	s3.ScopeHash = scopeOf("the contract, 3 pages")
	ann3, err := poster.PostTask(ctx, s3)
	if err != nil {
		t.Fatal(err)
	}
	boardSees(t, poster, worker, ann3.Hash)
	b, err := chain.DialRPC(ctx, w.dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	squatter, err := chain.New(b, w.dev.Deployer.Signer(), w.dev.ClientConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := squatter.PublishScope(ctx, ann3.Hash, *scopeOf("something else")); err != nil {
		t.Fatal(err)
	}
	c, err = worker.CheckScope(ctx, ann3.Hash)
	if err != nil || c.State != node.ScopeMismatch || *c.OnChain != *scopeOf("something else") || *c.Publisher != negotiation.Address(w.dev.Deployer.Address) {
		t.Fatalf("CheckScope = %+v, %v", c, err)
	}
	if _, err := worker.CounterAnnouncement(ctx, ann3.Hash, node.CounterSpec{Milestones: []node.MilestoneSpec{{Amount: eth(250), Description: "all"}}}); node.CodeOf(err) != node.CodeScopeMismatch {
		t.Fatalf("countering a contradicted scope: %v", err)
	}
	if _, err := worker.AcceptAnnouncement(ctx, ann3.Hash); node.CodeOf(err) != node.CodeScopeMismatch {
		t.Fatalf("accepting a contradicted scope: %v", err)
	}
	// Another address publishes the very hash the announcement names:
	// only its poster's publication counts.
	s6 := spec("Sort the photos", eth(100))
	s6.ScopeHash = scopeOf("the photos")
	ann6, err := poster.PostTask(ctx, s6)
	if err != nil {
		t.Fatal(err)
	}
	boardSees(t, poster, worker, ann6.Hash)
	if _, err := squatter.PublishScope(ctx, ann6.Hash, *s6.ScopeHash); err != nil {
		t.Fatal(err)
	}
	if _, err := worker.AcceptAnnouncement(ctx, ann6.Hash); node.CodeOf(err) != node.CodeScopeMismatch {
		t.Fatalf("accepting a scope another address published: %v", err)
	}

	// A denied publication posts nothing.
	gate.mu.Lock()
	gate.deny[node.ActPublishScope] = true
	gate.mu.Unlock()
	s4 := spec("Draw the map", eth(100))
	s4.ScopeHash, s4.PublishScope = scopeOf("the map"), true
	if _, err := poster.PostTask(ctx, s4); node.CodeOf(err) != node.CodeApprovalDenied {
		t.Fatalf("a denied publication: %v", err)
	}
	if n := len(poster.Board()); n != 4 {
		t.Fatalf("the poster's board holds %d announcements, want 4", n)
	}

	// A direct proposal's scope stays in the sealed negotiation.
	s5 := spec("Proofread", eth(100))
	s5.ScopeHash, s5.PublishScope = scopeOf("the letter"), true
	if _, err := poster.ProposeTask(ctx, worker.Address(), s5); node.CodeOf(err) != node.CodeBadArgument {
		t.Fatalf("publishing a direct proposal's scope: %v", err)
	}
	s5.PublishScope = false
	pr, err := poster.ProposeTask(ctx, worker.Address(), s5)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Thread.Current == nil || *pr.Thread.Current.Terms.ScopeHash != *s5.ScopeHash {
		t.Fatalf("the proposal's terms: %+v", pr.Thread.Current)
	}
	if sc, err := squatter.ScopeOf(ctx, pr.Envelope.Hash); err != nil || sc.ScopeHash != [32]byte{} {
		t.Fatalf("the proposal's scope on chain: %+v, %v", sc, err)
	}
}
