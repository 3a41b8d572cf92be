package node_test

import (
	"errors"
	"testing"
	"time"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

// withTopicRate gives a node the test transport tuning (nodetest.Options)
// and a task-board rate of perSecond with burst: what its receivers allow
// one peer, and what it allows itself.
func withTopicRate(perSecond float64, burst int) nodeOpt {
	return func(n *tnode) {
		n.extra = append(n.extra, node.WithP2PTuning(func(c *p2p.Config) {
			c.RetryMin = 20 * time.Millisecond
			c.AckTimeout = 10 * time.Second
			c.DialTimeout = 5 * time.Second
			c.ResourceMemory = 64 << 20
			c.ResourceFDs = 256
			c.TopicRate, c.TopicBurst = perSecond, burst
		}))
	}
}

// TestOwnPostsKeepTheBoardRate: a poster posting faster than the board's
// rate is refused (rate_limited, with the wait) instead of having its
// announcements dropped by the receivers' per-peer limit: every post it
// accepted reaches the other node, and publishing again follows the same
// rule. Before, 300 posts through the API got 201 and only 103 reached
// the other nodes.
func TestOwnPostsKeepTheBoardRate(t *testing.T) {
	w := newWorld(t, false)
	worker := w.add("worker", withTopicRate(4, 3))
	poster := w.add("poster", withTopicRate(4, 3), withBootstrap(worker))
	connect(t, poster, worker)
	// The first announcement waits until the board has a peer.
	first, err := poster.PostTask(t.Context(), spec("Proofread 0", eth(10)))
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the first announcement on the worker's board", func() bool { return onBoard(worker, first.Hash) })

	posted := []negotiation.Hash{first.Hash}
	limited := 0
	for len(posted) < 12 {
		a, err := poster.PostTask(t.Context(), spec("Proofread", eth(10)))
		if err != nil {
			if node.CodeOf(err) != node.CodeRateLimited {
				t.Fatal(err)
			}
			wait := node.RetryAfter(err)
			if wait < time.Second || wait > 2*time.Second {
				t.Fatalf("rate_limited with a wait of %v, want a second: %v", wait, err)
			}
			limited++
			time.Sleep(250 * time.Millisecond) // under the wait: the next try may be refused too
			continue
		}
		posted = append(posted, a.Hash)
	}
	if limited == 0 {
		t.Fatal("12 posts at once were never refused at a rate of 4/s with a burst of 3")
	}
	for _, h := range posted {
		eventually(t, "every accepted announcement on the worker's board", func() bool { return onBoard(worker, h) })
	}
	// Publishing again spends the same rate.
	again := 0
	for range 6 {
		if err := poster.Announce(t.Context(), first.Hash); node.CodeOf(err) == node.CodeRateLimited && node.RetryAfter(err) > 0 {
			again++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if again == 0 {
		t.Fatal("publishing an announcement again 6 times at once was never refused")
	}
	var ne *node.Error
	if _, err := poster.PostTask(t.Context(), spec("one more", eth(10))); !errors.As(err, &ne) || ne.Code != node.CodeRateLimited {
		t.Fatalf("a post right after: %v", err)
	}
}

func onBoard(n *tnode, h negotiation.Hash) bool {
	for _, a := range n.Board() {
		if a.Hash == h {
			return true
		}
	}
	return false
}

// TestStrangersAnnouncementsCostTheLedgerNothing: an announcement from a
// poster the principal has not allowed is on the worker's board but not
// in its ledger; once the worker answers it, it is recorded (revision 1
// of the negotiation), and the negotiation replays after a restart. An
// allowed poster's announcement is recorded when it arrives. Before, each
// announcement taken cost an entry, so throw-away identities publishing
// within their rate wrote thousands.
func TestStrangersAnnouncementsCostTheLedgerNothing(t *testing.T) {
	w := newWorld(t, false)
	poster := w.add("poster")
	worker := w.add("worker", withBootstrap(poster))
	connect(t, poster, worker)
	eventually(t, "the worker on the task board", func() bool { return len(worker.Host().TopicPeers("/parley/taskboard/1")) > 0 })
	eventually(t, "the poster on the task board", func() bool { return len(poster.Host().TopicPeers("/parley/taskboard/1")) > 0 })
	post := func(title string) node.Announcement {
		t.Helper()
		ann, err := poster.PostTask(t.Context(), spec(title, eth(300)))
		if err != nil {
			t.Fatal(err)
		}
		last := time.Now()
		eventually(t, "the announcement on the worker's board", func() bool {
			if time.Since(last) > 2*time.Second {
				_ = poster.Announce(t.Context(), ann.Hash)
				last = time.Now()
			}
			return onBoard(worker, ann.Hash)
		})
		return ann
	}
	stored := func(a node.Announcement) bool {
		_, err := worker.Ledger().ByCID(t.Context(), mustCID(t, a.CID))
		return err == nil
	}

	stranger := post("Translate the guide")
	if stored(stranger) {
		t.Fatal("a stranger's announcement was written to the worker's ledger on arrival")
	}
	res, err := worker.CounterAnnouncement(t.Context(), stranger.Hash, node.CounterSpec{
		Milestones: []node.MilestoneSpec{{Amount: eth(350), Description: "all of it"}}, Reason: "glossary",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !stored(stranger) {
		t.Fatal("the announcement the worker answered is not in its ledger")
	}
	nid := res.Thread.NegotiationID
	worker.restart()
	if v, err := worker.Thread(nid); err != nil || v.State != negotiation.StateCountered || *v.Announcement != stranger.Hash {
		t.Fatalf("after a restart the negotiation answering the announcement is %+v, %v", v, err)
	}

	if _, err := worker.ConsentBook().Set(t.Context(), poster.Address(), node.ConsentAllowed, "api"); err != nil {
		t.Fatal(err)
	}
	connect(t, poster, worker)
	eventually(t, "the worker on the task board again", func() bool { return len(worker.Host().TopicPeers("/parley/taskboard/1")) > 0 })
	if known := post("Proofread the guide"); !stored(known) {
		t.Fatal("an allowed poster's announcement was not recorded on arrival")
	}
}
