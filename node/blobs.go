package node

import (
	"context"

	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

var _ p2p.BlobProvider = (*Node)(nil)

// fileRef is one file to fetch: its CID and what the envelope says of it.
type fileRef struct {
	c   cid.Cid
	ref negotiation.FileRef
}

func refsOf(proof negotiation.CID, files []negotiation.FileRef) []fileRef {
	var out []fileRef
	seen := map[cid.Cid]bool{}
	for _, f := range files {
		if c, err := f.CID.Parse(); err == nil && !seen[c] {
			seen[c] = true
			out = append(out, fileRef{c: c, ref: f})
		}
	}
	if c, err := proof.Parse(); err == nil && !seen[c] {
		out = append(out, fileRef{c: c, ref: negotiation.FileRef{Name: "proof", CID: proof}})
	}
	return out
}

func deliveryFiles(p *negotiation.DeliveryNotice) []fileRef { return refsOf(p.ProofCID, p.Files) }

func evidenceFiles(p *negotiation.DisputeEvidence) []fileRef {
	return refsOf(p.EvidenceCID, p.Files)
}

// bundleFile returns the proof bundle a hand-over carries, or nil.
func bundleFile(p *negotiation.DisputeEvidence) *negotiation.FileRef {
	for i := range p.Files {
		if p.Files[i].MediaType == MediaTypeBundle {
			return &p.Files[i]
		}
	}
	return nil
}

// Blob serves a file by CID over /parley/blob/1 (p2p.BlobProvider): a
// public announcement to anyone; a file or envelope of a negotiation only
// to its parties, its arbitrator (assigned, or agreed by both parties) and
// the supervisors its parties named, and a court's ERC-1497 documents and
// their files to its operator (court.go).
func (n *Node) Blob(ctx context.Context, requester *identity.Link, c cid.Cid) ([]byte, error) {
	e, err := n.led.ByCID(ctx, c)
	if err != nil {
		return nil, p2p.ErrNotFound
	}
	data, err := n.led.Object(ctx, c)
	if err != nil {
		return nil, p2p.ErrNotFound
	}
	if e.Kind == ledger.KindEnvelopeSent || e.Kind == ledger.KindEnvelopeReceived {
		if env, err := negotiation.Decode(data, negotiation.DecodeOptions{MaxBytes: len(data)}); err == nil && env.IsAnnouncement() {
			return data, nil
		}
	}
	if e.NegotiationID == "" || requester == nil {
		return nil, p2p.ErrNotFound
	}
	party := false
	err = n.eng.With(e.NegotiationID, func(t *thread) error {
		who := negotiation.Address(requester.EVMAddress)
		// A nominee is served only once both parties named it: one party's
		// proposal alone gives its nominee nothing.
		agreed, both := t.Th.AgreedArbitrator()
		party = who != (negotiation.Address{}) && (who == t.Th.Poster() || who == t.Th.Worker() || who == t.Th.Arbitrator() || (both && who == agreed) ||
			t.Th.RoleOf(who) == negotiation.RoleSupervisor)
		return nil
	})
	if err == nil && !party {
		party = n.courts.serves(e.NegotiationID, negotiation.Address(requester.EVMAddress), c) // court.go
	}
	if err != nil || !party {
		return nil, p2p.ErrNotFound
	}
	return data, nil
}

// File returns a file the node stores (delivered, evidence, or its own)
// by CID, with the negotiation it belongs to.
func (n *Node) File(ctx context.Context, c cid.Cid) ([]byte, error) {
	if err := n.running(); err != nil {
		return nil, err
	}
	data, err := n.led.Object(ctx, c)
	if err != nil {
		return nil, fail(CodeBadArgument, "no file %s", c)
	}
	return data, nil
}
