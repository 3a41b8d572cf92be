package node_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// TestIdentityOnChain: the poster's node registers its identity link in
// the IdentityLink contract through the gate; the worker's node looks it
// up (not registered, then registered and matching the link it holds)
// and its thread view shows it where the poster appears; after the
// poster's keys issue a new link the record differs until the poster
// rotates it; a revoke removes it. What the contract would revert is
// refused before any approval is asked, and a denied approval writes
// nothing.
func TestIdentityOnChain(t *testing.T) {
	w := newWorld(t, true)
	gate := &recGate{deny: map[node.Act]bool{}}
	poster := w.add("poster", withGate(gate))
	wgate := &recGate{deny: map[node.Act]bool{node.ActRegisterIdentity: true}}
	worker := w.add("worker", withBootstrap(poster), withGate(wgate))
	connect(t, poster, worker)
	ctx := t.Context()

	lookup := func(n *tnode, of *tnode, want node.LinkState) node.LinkCheck {
		t.Helper()
		c, err := n.LookupLink(ctx, of.Address())
		if err != nil {
			t.Fatal(err)
		}
		if c.State != want || c.Address != of.Address() {
			t.Fatalf("%s looks up %s: %+v, want %s", n.name, of.name, c, want)
		}
		return c
	}
	lookup(worker, poster, node.LinkNotRegistered)
	if _, err := poster.RotateIdentity(ctx); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("rotating no record: %v", err)
	}
	if _, err := poster.RevokeIdentity(ctx); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("revoking no record: %v", err)
	}
	if n := len(gate.reqs); n != 0 {
		t.Fatalf("the gate was asked %d times for acts the contract would revert", n)
	}

	res, err := poster.RegisterIdentity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	held := negotiation.Hash(poster.Link().Hash())
	if res.Tx == nil || res.Detail["state"] != string(node.LinkMatching) || res.Detail["linkHash"] != held.String() {
		t.Fatalf("RegisterIdentity = %+v", res)
	}
	asked := gate.asked(node.ActRegisterIdentity)
	if len(asked) != 1 || argsOf(t, asked[0])["linkHash"] != held.String() || argsOf(t, asked[0])["peerId"] != poster.PeerID().String() {
		t.Fatalf("the gate was asked %+v", asked)
	}
	if _, err := poster.RegisterIdentity(ctx); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("registering twice: %v", err)
	}
	if _, err := poster.RotateIdentity(ctx); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("rotating to the same link: %v", err)
	}
	c := lookup(worker, poster, node.LinkMatching)
	if *c.LinkHash != held || c.PeerID != poster.PeerID().String() || *c.HeldLinkHash != held {
		t.Fatalf("the worker's look-up: %+v", c)
	}

	// A denied approval writes nothing.
	if _, err := worker.RegisterIdentity(ctx); node.CodeOf(err) != node.CodeApprovalDenied {
		t.Fatalf("a denied registration: %v", err)
	}
	lookup(poster, worker, node.LinkNotRegistered)

	// The worker's thread view shows the poster's record.
	pr, err := poster.ProposeTask(ctx, worker.Address(), spec("Proofread", eth(100)))
	if err != nil {
		t.Fatal(err)
	}
	nid := pr.Thread.NegotiationID
	worker.waitState(nid, negotiation.StateProposed)
	eventually(t, "the poster's record in the worker's thread view", func() bool {
		v, _ := worker.Thread(nid)
		return v.CounterpartyLink != nil && v.CounterpartyLink.State == node.LinkMatching
	})
	eventually(t, "the worker's record in the poster's thread view", func() bool {
		v, _ := poster.Thread(nid)
		return v.CounterpartyLink != nil && v.CounterpartyLink.State == node.LinkNotRegistered
	})

	// The poster's keys issue a new link: the record names the old one.
	addr := poster.Addrs()[0].String()
	if err := poster.Close(); err != nil {
		t.Fatal(err)
	}
	k, err := identity.Open(keyConfig(poster.dir), testPass)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.IssueLink(time.Now().Add(2 * time.Second)); err != nil {
		t.Fatal(err)
	}
	poster.cfg.P2P.Listen = []string{addr[:strings.Index(addr, "/p2p/")]}
	withBootstrap(worker)(poster) // it dials the worker, which learns its new link
	poster.start()
	fresh := poster.Link().Hash()
	if fresh == [32]byte(held) {
		t.Fatal("the new link has the old hash")
	}
	eventually(t, "the worker to hold the poster's new link", func() bool {
		l, ok := worker.Host().Link(poster.Address())
		return ok && l.Hash() == fresh
	})
	c = lookup(worker, poster, node.LinkDifferent)
	if *c.LinkHash != held || *c.HeldLinkHash != negotiation.Hash(fresh) {
		t.Fatalf("the worker's look-up after the new link: %+v", c)
	}
	lookup(poster, poster, node.LinkDifferent)
	rot, err := poster.RotateIdentity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rot.Tx == nil || rot.Detail["state"] != string(node.LinkMatching) {
		t.Fatalf("RotateIdentity = %+v", rot)
	}
	if a := gate.asked(node.ActRotateIdentity); len(a) != 1 || argsOf(t, a[0])["previousLinkHash"] != held.String() {
		t.Fatalf("the gate was asked %+v", a)
	}
	lookup(worker, poster, node.LinkMatching)

	rev, err := poster.RevokeIdentity(ctx)
	if err != nil || rev.Detail["state"] != string(node.LinkNotRegistered) {
		t.Fatalf("RevokeIdentity = %+v, %v", rev, err)
	}
	lookup(worker, poster, node.LinkNotRegistered)
	if rec, err := worker.Chain().LinkOf(ctx, common.Address(poster.Address())); err != nil || rec.LinkHash != [32]byte{} {
		t.Fatalf("the record after the revoke: %+v, %v", rec, err)
	}
	if _, err := poster.RevokeIdentity(ctx); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("revoking twice: %v", err)
	}
}
