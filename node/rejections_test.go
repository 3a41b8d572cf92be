package node_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	libp2ppeer "github.com/libp2p/go-libp2p/core/peer"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
	"github.com/parleynet/parley/p2p/hostile"
)

// TestFloodsWriteBoundedEvidence floods a node over loopback from three
// hostile peers: one that never identifies itself sends 20,000 garbage
// frames, an identified one sends 20,000 garbage frames, and another
// identified one sends 2,000 valid envelopes the node refuses (a
// negotiation it does not hold). The first writes nothing; the others
// write one input.rejected entry each when the window ends, whose totals
// are every rejection the metric counted.
func TestFloodsWriteBoundedEvidence(t *testing.T) {
	reg := prometheus.NewRegistry()
	w := newWorld(t, false)
	n := w.add("worker", func(n *tnode) {
		n.extra = append(n.extra, node.WithRegisterer(reg))
		// One window for the whole test: only the flush below ends it
		// (at the default minute, a loaded machine ended one mid-flood
		// and a peer's rejections came in two entries).
		n.cfg.RejectionWindow = time.Hour
	})
	info := libp2ppeer.AddrInfo{ID: n.PeerID(), Addrs: n.Host().Libp2p().Addrs()}
	head := n.Ledger().Head().Seq
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	start := func(id *hostile.Identity) *hostile.Peer {
		p, err := hostile.Start(ctx, hostile.Config{Identity: id})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		if err := p.Connect(ctx, info); err != nil {
			t.Fatal(err)
		}
		return p
	}
	identify := func() (*hostile.Peer, *hostile.Identity) {
		id, err := hostile.NewIdentity(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		p := start(id)
		if _, err := p.Identify(ctx, n.PeerID()); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the handshake", func() bool { return n.Host().Identified(p.ID()) })
		return p, id
	}

	stranger := start(nil)
	res := stranger.Flood(ctx, n.PeerID(), 20_000, hostile.Garbage)
	t.Logf("stranger: %d written, acks %v in %v", res.Written, res.Acks, res.Elapsed)
	// Past 256 unknown_link answers it is banned and cut off; on a loaded
	// machine the connection can close before any answer left the node's
	// queues, so none is required then, but every one that came is
	// unknown_link.
	_, banned := n.Host().Banned(stranger.ID())
	if (res.Acked == 0 && !banned) || res.Acks[p2p.CodeUnknownLink] != res.Acked {
		t.Fatalf("stranger's acks %v (banned %v), want only unknown_link", res.Acks, banned)
	}

	garbler, _ := identify()
	res = garbler.Flood(ctx, n.PeerID(), 20_000, hostile.Garbage)
	t.Logf("garbler: %d written, acks %v in %v", res.Written, res.Acks, res.Elapsed)
	if _, banned := n.Host().Banned(garbler.ID()); !banned {
		t.Fatal("the garbage flooder is not banned")
	}

	judged, jid := identify()
	link := n.Link()
	const refused = 2000
	frames := make([][]byte, refused)
	for i := range frames {
		env, err := jid.Envelope(hostile.NewNegotiationID(), time.Now(), n.Address())
		if err != nil {
			t.Fatal(err)
		}
		// A delivery notice: in a negotiation the node does not hold,
		// the node refuses it (wrong_negotiation).
		env, err = notice(jid, env.NegotiationID, n.Address())
		if err != nil {
			t.Fatal(err)
		}
		if frames[i], err = jid.Seal(link, env, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	res = judged.Flood(ctx, n.PeerID(), refused, func(i int) []byte { return frames[i] })
	t.Logf("judged: %d written, acks %v in %v (%v)", res.Written, res.Acks, res.Elapsed, res.Err)
	if res.Acks[p2p.Code(negotiation.CodeWrongNegotiation)] != refused {
		t.Fatalf("acks %v, want %d wrong_negotiation", res.Acks, refused)
	}

	n.FlushRejectionsForTest(ctx)
	byPeer := map[string]uint64{}
	entries := 0
	for e, err := range n.Ledger().Entries(ctx, head+1) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind != node.KindInputRejected {
			continue
		}
		entries++
		var b struct {
			Peer  string
			Total uint64
			Codes map[string]uint64
		}
		if err := json.Unmarshal(e.Body, &b); err != nil {
			t.Fatal(err)
		}
		byPeer[b.Peer] += b.Total
	}
	counted := rejectedMetric(t, reg)
	t.Logf("%d input.rejected entries: %v; metric %v", entries, byPeer, counted)
	if entries != 2 || byPeer[garbler.ID().String()] == 0 || byPeer[judged.ID().String()] != refused {
		t.Fatalf("%d entries %v: want one for the garbage flooder and one for the %d refused envelopes", entries, byPeer, refused)
	}
	if _, ok := byPeer[stranger.ID().String()]; ok {
		t.Fatal("the unidentified peer's frames were recorded")
	}
	var sum uint64
	for _, v := range byPeer {
		sum += v
	}
	if sum != counted {
		t.Fatalf("the entries count %d rejections, the metric %d", sum, counted)
	}
}

// notice builds id's next envelope in nid: a delivery notice.
func notice(id *hostile.Identity, nid string, to negotiation.Address) (*negotiation.Envelope, error) {
	var pk negotiation.PublicKey
	copy(pk[:], id.Inbox.PublicKey())
	return negotiation.Build(negotiation.Header{
		NegotiationID: nid, Sequence: 2, PreviousHash: negotiation.Hash{1}, Timestamp: time.Now(),
		Sender: negotiation.Sender{EVMAddress: id.Address(), XMTPPublicKey: pk}, Recipients: []negotiation.Address{to},
	}, &negotiation.DeliveryNotice{ProofCID: negotiation.CID(negotiation.CIDOf([]byte("x")).String())}, id.Inbox, negotiation.DecodeOptions{})
}

// rejectedMetric sums parley_node_input_rejected_total over its codes.
func rejectedMetric(t *testing.T, reg *prometheus.Registry) uint64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() == "parley_node_input_rejected_total" {
			for _, m := range mf.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return uint64(sum)
}
