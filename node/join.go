package node

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
	"github.com/parleynet/parley/p2p"
)

// handedOff reports whether this node sent t's arbitrator a proof bundle
// (t.mu held).
func (n *Node) handedOff(t *thread) bool {
	for _, r := range t.Th.Log() {
		if r.Sender != n.self || r.Type != negotiation.TypeDisputeEvidence {
			continue
		}
		if p, ok := t.Th.Envelope(r.Hash).Payload.(*negotiation.DisputeEvidence); ok && bundleFile(p) != nil {
			return true
		}
	}
	return false
}

// handOff gives the arbitrator the chain assigned a proof bundle of the
// thread so far: the node exports the negotiation from its ledger (with
// the identity links of every signer, so the bundle verifies with nothing
// else), stores it as a file, and sends a DisputeEvidence naming it (and
// the announcement the thread answers) to the arbitrator and the other
// party. The arbitrator fetches both over the blob protocol, sealed to it,
// verifies the bundle and starts its thread from it.
func (n *Node) handOff(ctx context.Context, nid string) {
	if err := n.handOffOnce(ctx, nid); err != nil && ctx.Err() == nil {
		n.log.Warn("hand-over to the arbitrator failed", "negotiation", nid, "err", err)
	}
}

func (n *Node) handOffOnce(ctx context.Context, nid string) error {
	var (
		arb  negotiation.Address
		ann  *negotiation.Envelope
		done bool
	)
	err := n.eng.With(nid, func(t *thread) error {
		arb, ann = t.Th.Arbitrator(), t.Params.Announcement
		done = n.handedOff(t) || arb == (negotiation.Address{}) || t.Th.State() != negotiation.StateArbitrated
		return nil
	})
	if err != nil || done {
		return err
	}
	var buf bytes.Buffer
	head, err := n.led.Export(ctx, nid, &buf)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	c, err := n.storeBlob(ctx, nid, "proof-bundle.json", MediaTypeBundle, "", buf.Bytes())
	if err != nil {
		return err
	}
	files := []negotiation.FileRef{{Name: "proof-bundle.json", CID: negotiation.CID(c.String()), Size: uint64(buf.Len()), MediaType: MediaTypeBundle}}
	if ann != nil {
		files = append(files, negotiation.FileRef{Name: "announcement.json", CID: negotiation.CID(ann.CID().String()), Size: uint64(len(ann.Bytes())), MediaType: MediaTypeEnvelope})
	}
	return n.eng.With(nid, func(t *thread) error {
		if n.handedOff(t) {
			return nil
		}
		taskID := taskOf(t)
		p := &negotiation.DisputeEvidence{
			DisputeID: negotiation.NewUint256(chain.DisputeID(taskID)), EvidenceCID: negotiation.CID(c.String()), Files: files,
			Description: fmt.Sprintf("proof bundle of the thread so far (ledger head %d %s), for the arbitrator", head.Seq, head.Hash),
		}
		if _, _, err := n.sendLocked(ctx, t, p, n.eng.Recipients(t, true), false); err != nil {
			return err
		}
		n.log.Info("thread handed over to the arbitrator", "negotiation", nid, "arbitrator", arb, "bundle", c)
		return nil
	})
}

// join starts this node's thread of a negotiation it joins late, as its
// arbitrator, from the proof bundle a party handed over (d names it). It
// runs on a node goroutine; until it is done, envelopes of the
// negotiation are answered with a retryable code.
func (n *Node) join(ctx context.Context, d p2p.Delivery, f negotiation.FileRef) {
	nid := d.Envelope.NegotiationID
	defer func() {
		n.tmu.Lock()
		delete(n.joining, nid)
		n.tmu.Unlock()
	}()
	if err := n.joinFrom(ctx, d, f); err != nil && ctx.Err() == nil {
		n.log.Warn("joining a thread from a proof bundle failed", "negotiation", nid, "from", d.Envelope.Sender.EVMAddress, "err", err)
	}
}

func (n *Node) joinFrom(ctx context.Context, d p2p.Delivery, f negotiation.FileRef) error {
	if d.Sender == nil {
		return fail(CodeBadBundle, "no sender link")
	}
	nid := d.Envelope.NegotiationID
	from := d.Sender.PeerID
	bc, err := f.CID.Parse()
	if err != nil {
		return failWrap(CodeBadBundle, err, "bundle CID")
	}
	raw, rep, err := n.fetchBundle(ctx, from, nid, bc, "bundle")
	if err != nil {
		return err
	}
	params := negotiation.Params{NegotiationID: nid}
	for _, af := range d.Envelope.Payload.(*negotiation.DisputeEvidence).Files {
		if af.MediaType != MediaTypeEnvelope {
			continue
		}
		ac, err := af.CID.Parse()
		if err != nil {
			return failWrap(CodeBadBundle, err, "announcement CID")
		}
		if params.Announcement, err = n.fetchAnnouncement(ctx, from, ac); err != nil {
			return err
		}
	}
	th, err := rep.ReplayThread(params, engine.ReplayFact)
	if err != nil {
		return failWrap(CodeBadBundle, err, "replaying the bundle")
	}
	// Only the assigned arbitrator joins (the act table's join_dispute).
	if err := th.May(negotiation.ActJoinDispute, n.self, negotiation.ActArgs{}); err != nil {
		return &Error{Code: Code(negotiation.CodeOf(err)), Msg: "the bundle's thread", Err: err}
	}
	if n.client != nil {
		var taskID [32]byte
		if id := th.TaskID(); id != nil {
			id.Big().FillBytes(taskID[:])
		}
		rec, err := n.client.Dispute(ctx, taskID)
		if err != nil {
			return chainErr("dispute", err)
		}
		if rec.Arbitrator != common.Address(n.self) {
			return fail(CodeNotParty, "the chain's arbitrator of the dispute is %s, not this node", rec.Arbitrator)
		}
	}
	return n.importBundle(ctx, params, rep, bc, raw, negotiation.RoleArbitrator)
}

// importBundle records a verified bundle's negotiation in this node's
// ledger, as received, and starts the thread from it, with this node as an
// observer joining in role (the arbitrator, or a replacement worker).
func (n *Node) importBundle(ctx context.Context, params negotiation.Params, rep *ledger.BundleReport, bc cid.Cid, raw []byte, role negotiation.Role) error {
	nid := params.NegotiationID
	t, err := engine.NewThread(params, role, true)
	if err != nil {
		return err
	}
	t.Lock()
	defer t.Unlock()
	var opened batch
	n.eng.PutOpened(&opened, t)
	if err := n.write(ctx, &opened, "thread.opened"); err != nil {
		return err
	}
	if ann := params.Announcement; ann != nil {
		if _, _, err := n.led.AppendEnvelope(ctx, ledger.KindEnvelopeReceived, ann, "ok", n.now()); err != nil {
			return failWrap(CodeStoreFailed, err, "announcement")
		}
	}
	if _, err := n.storeBlob(ctx, nid, "proof-bundle.json", MediaTypeBundle, "", raw); err != nil {
		return err
	}
	envs := make(map[cid.Cid]*negotiation.Envelope, len(rep.Envelopes))
	for _, e := range rep.Envelopes {
		envs[e.CID()] = e
	}
	for _, e := range rep.Negotiation {
		switch e.Kind {
		case ledger.KindEnvelopeSent, ledger.KindEnvelopeReceived:
			var b struct {
				Code string `json:"code"`
			}
			env := envs[e.CID]
			if env == nil || json.Unmarshal(e.Body, &b) != nil {
				return fail(CodeBadBundle, "entry %d: envelope %s", e.Seq, e.CID)
			}
			if _, _, err := n.led.AppendEnvelope(ctx, ledger.KindEnvelopeReceived, env, negotiation.Code(b.Code), e.At); err != nil {
				return failWrap(CodeStoreFailed, err, "entry %d", e.Seq)
			}
		case ledger.KindChainEvent, KindIdentityLink:
			if _, _, err := n.led.Append(ctx, ledger.Record{Kind: e.Kind, NegotiationID: nid, Body: e.Body, At: e.At}); err != nil {
				return failWrap(CodeStoreFailed, err, "entry %d", e.Seq)
			}
			if e.Kind == KindIdentityLink {
				var b engine.LinkBody
				if json.Unmarshal(e.Body, &b) == nil {
					t.Links[b.Address] = true
				}
			} else {
				var b engine.FactBody
				if json.Unmarshal(e.Body, &b) == nil {
					n.eng.MarkSeen(engine.LogKey(b.Tx, b.LogIndex))
					if b.Fact == "proof_submitted" && b.Milestone != nil {
						t.Proofs[*b.Milestone] = negotiation.CID(b.ProofCID)
					}
				}
			}
		}
	}
	body, _ := json.Marshal(map[string]any{"bundle": bc.String(), "head": rep.Head.Hash, "count": rep.Head.Seq, "from": rep.From, "entries": len(rep.Negotiation)})
	if _, _, err := n.led.Append(ctx, ledger.Record{Kind: KindThreadJoined, NegotiationID: nid, Body: body, At: n.now()}); err != nil {
		return failWrap(CodeStoreFailed, err, "thread.joined")
	}
	// The thread is what this node's own ledger replays to: the import is
	// checked by the same replay a restart does.
	th, err := n.led.ReplayThread(ctx, params, engine.ReplayFact)
	if err != nil {
		return failWrap(CodeBadBundle, err, "replaying the imported thread")
	}
	t.Th = th
	var state batch
	n.eng.PutState(&state, t, th.State())
	if err := n.write(ctx, &state, "thread.state"); err != nil {
		return err
	}
	n.eng.Register(t)
	n.joinEvidenceLocked(t)
	n.events.publish(Event{Kind: EventJoined, NegotiationID: nid, State: th.State(), CID: bc.String(), At: n.now()})
	n.log.Info("joined a thread from a proof bundle", "negotiation", nid, "state", th.State(), "envelopes", len(rep.Envelopes))
	n.fetchThreadFiles(t)
	return nil
}

// fetchThreadFiles fetches the delivered and evidence files of t this
// node does not hold, each from the party that sent it (t.mu held).
func (n *Node) fetchThreadFiles(t *thread) {
	role := t.Th.RoleOf(n.self)
	for _, r := range t.Th.Log() {
		if r.Code != "" || r.Sender == n.self {
			continue
		}
		var files []fileRef
		switch p := t.Th.Envelope(r.Hash).Payload.(type) {
		case *negotiation.DeliveryNotice:
			if role == negotiation.RolePoster || role == negotiation.RoleArbitrator {
				files = deliveryFiles(p)
			}
		case *negotiation.DisputeEvidence:
			if bundleFile(p) == nil {
				files = evidenceFiles(p)
			}
		}
		if len(files) == 0 {
			continue
		}
		l, ok := n.host.Link(r.Sender)
		if !ok {
			continue
		}
		n.fetchFiles(t.ID, l.PeerID, files)
	}
}

// fetchBundle fetches the proof bundle c of negotiation nid from p (sealed
// to this node, checked against its CID) and verifies it offline
// (verifyBundleOf); what names it in errors: "bundle", "hand-over
// package".
func (n *Node) fetchBundle(ctx context.Context, p peer.ID, nid string, c cid.Cid, what string) ([]byte, *ledger.BundleReport, error) {
	raw, err := n.fetchRaw(ctx, p, c)
	if err != nil {
		return nil, nil, failWrap(CodeBadBundle, err, "fetching the %s", what)
	}
	rep, err := verifyBundleOf(raw, nid, what)
	if err != nil {
		return nil, nil, err
	}
	return raw, rep, nil
}

// verifyBundleOf verifies raw as a proof bundle (VerifyBundle) of
// negotiation nid.
func verifyBundleOf(raw []byte, nid, what string) (*ledger.BundleReport, error) {
	rep, err := VerifyBundle(bytes.NewReader(raw), ledger.BundleOptions{})
	if err != nil {
		return nil, err
	}
	if rep.NegotiationID != nid {
		return nil, fail(CodeBadBundle, "the %s is about %s, not %s", what, rep.NegotiationID, nid)
	}
	return rep, nil
}

// fetchAnnouncement fetches the announcement c a bundle's thread answers
// from p and checks it: it decodes, its signature verifies, it is an
// announcement, and its CID is c.
func (n *Node) fetchAnnouncement(ctx context.Context, p peer.ID, c cid.Cid) (*negotiation.Envelope, error) {
	b, err := n.fetchRaw(ctx, p, c)
	if err != nil {
		return nil, failWrap(CodeBadBundle, err, "fetching the announcement")
	}
	ann, err := negotiation.Decode(b, negotiation.DecodeOptions{})
	if err != nil || ann.Verify() != nil || !ann.IsAnnouncement() || ann.CID() != c {
		return nil, fail(CodeBadBundle, "the announcement %s does not verify", c)
	}
	return ann, nil
}

// VerifyBundle checks a proof bundle offline: everything ledger.VerifyBundle
// checks (the hash chain to its head, every object against its CID, every
// envelope's decoding and signature), and that the bundle carries, for
// every envelope, the identity link of its signer: a link that verifies at
// the envelope's timestamp and binds its sender's EVM address to its inbox
// key. A bundle that lacks one fails with CodeMissingLink.
func VerifyBundle(r io.Reader, opts ledger.BundleOptions) (*ledger.BundleReport, error) {
	rep, err := ledger.VerifyBundle(r, opts)
	if err != nil {
		return nil, failWrap(CodeBadBundle, err, "verification")
	}
	links := map[negotiation.Address][]*identity.Link{}
	for _, e := range rep.Negotiation {
		if e.Kind != KindIdentityLink {
			continue
		}
		var b engine.LinkBody
		if err := json.Unmarshal(e.Body, &b); err != nil {
			return nil, failWrap(CodeBadBundle, err, "entry %d", e.Seq)
		}
		l, err := identity.ParseLink(b.Link)
		if err != nil || negotiation.Address(l.EVMAddress) != b.Address {
			return nil, fail(CodeBadBundle, "entry %d: identity link does not parse or names another address", e.Seq)
		}
		links[b.Address] = append(links[b.Address], l)
	}
	for _, env := range rep.Envelopes {
		ok := false
		for _, l := range links[env.Sender.EVMAddress] {
			if bytes.Equal(l.InboxKey, env.Sender.XMTPPublicKey[:]) && l.Verify(env.Timestamp) == nil {
				ok = true
				break
			}
		}
		if !ok {
			return nil, fail(CodeMissingLink, "no valid identity link of %s for envelope %s", env.Sender.EVMAddress, env.Hash())
		}
	}
	return rep, nil
}
