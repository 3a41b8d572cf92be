package node

import (
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/parleynet/parley/negotiation"
)

// TestSupervisedBy: a supervisor's node imports a handed-over thread only
// when its sender is a party that named this node its supervisor.
func TestSupervisedBy(t *testing.T) {
	addr := func(b byte) negotiation.Address { return negotiation.Address{19: b} }
	poster, worker, sup, other := addr(1), addr(2), addr(3), addr(4)
	_, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	nid := negotiation.NewNegotiationID([16]byte{0x42, 6: 0x40, 8: 0x80})
	th, err := negotiation.NewThread(negotiation.Params{NegotiationID: nid})
	if err != nil {
		t.Fatal(err)
	}
	var pk negotiation.PublicKey
	copy(pk[:], key.Public().(ed25519.PublicKey))
	now := time.Now().UTC().Truncate(time.Millisecond)
	h := negotiation.Header{NegotiationID: nid, Sequence: 1, Timestamp: now, Sender: negotiation.Sender{EVMAddress: poster, XMTPPublicKey: pk}, Recipients: []negotiation.Address{worker}}
	p := &negotiation.TaskProposal{Supervisor: &sup, Terms: negotiation.Terms{
		Title: "t", ChainID: negotiation.U64(1337), Registry: addr(9), Deadline: uint64(now.Add(time.Hour).Unix()), Nonce: negotiation.U64(1),
		Milestones: []negotiation.Milestone{{Amount: negotiation.U64(100), Description: "all"}},
	}}
	env, err := negotiation.Build(h, p, negotiation.Ed25519Key(key), negotiation.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out := th.Apply(env, now); !out.Effective() {
		t.Fatalf("the proposal: %v", out.Err)
	}
	for _, tc := range []struct {
		party, self negotiation.Address
		want        Code
	}{
		{poster, sup, ""},
		{poster, other, CodeNotParty}, // the poster named another supervisor
		{worker, sup, CodeNotParty},   // the worker named none
		{other, sup, CodeNotParty},    // no party of the thread
		{sup, sup, CodeNotParty},      // the supervisor is no party
	} {
		if got := CodeOf(supervisedBy(th, tc.party, tc.self)); got != tc.want {
			t.Errorf("handed by %s to %s: %q, want %q", tc.party, tc.self, got, tc.want)
		}
	}
}
