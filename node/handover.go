package node

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/multiformats/go-multihash"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
	"github.com/parleynet/parley/p2p"
)

// handover hands threads over and joins them late: a party of a dispute
// the chain assigned an arbitrator hands it a proof bundle of the thread
// (handOff); the arbitrator joins from that bundle (join); the parties of
// a replacement make and check its hand-over package (exportHandoff,
// adoptHandoff); the new worker joins from the package and takes over
// once the chain has replaced the worker (joinReplaced, takeOver); the
// parties and the arbitrator of a dispute join its evidence topic
// (joinEvidence). It owns the negotiations being joined and its lock (a
// leaf, taken under
// receiver.mu); the ledger, this node's address, the chain
// and the transport's links and topics are set at Start, each where the
// node gets it, before anything hands over or joins.
type handover struct {
	eng    *engine.Engine
	blobs  *blobStore
	events *broadcaster
	now    func() time.Time
	spawn  func(func(ctx context.Context)) // runs a goroutine the node owns
	// grace is how long a replacement worker waits for a
	// ReplacementContext before it takes over all the same.
	grace time.Duration
	// send sends p in thread t to the recipients to (t locked; send.go).
	send func(ctx context.Context, t *thread, p negotiation.Payload, to []negotiation.Address) error
	// apply applies a chain fact to thread nid (facts.go).
	apply func(ctx context.Context, nid string, f negotiation.Fact, l types.Log) error

	log    *slog.Logger // set again at Start, with the node's address
	led    *ledger.Ledger
	heads  *treeHeads // the node's signed tree heads (anchor.go), for its bundles
	self   negotiation.Address
	chain  handoverChain  // nil without a chain
	links  linkBook       // the transport's identity links
	topics evidenceTopics // the transport's dispute topics (nil before the transport starts)
	courts *courtFiles    // the negotiations whose arbitrator is a contract (court.go)

	mu      sync.Mutex
	joining map[string]bool
}

// handoverChain is what the hand-over reads of the chain.
type handoverChain interface {
	Dispute(ctx context.Context, taskID [32]byte) (chain.DisputeRecord, error)
	TaskEvents(ctx context.Context, taskID [32]byte) ([]chain.Event, error)
	IsContract(ctx context.Context, account common.Address) (bool, error)
}

// linkBook is what the hand-over reads of the transport: the identity
// links of the peers it knows.
type linkBook interface {
	Link(a negotiation.Address) (*identity.Link, bool)
}

// evidenceTopics is what the hand-over uses of the transport's gossip:
// the evidence topic of a dispute, joined with its members.
type evidenceTopics interface {
	JoinEvidence(disputeID string, members []negotiation.Address) error
}

// joinGrace returns how long a replacement worker waits for a
// ReplacementContext that may never come: twice the longest retry
// backoff, and at least ten seconds.
func joinGrace(retryMax time.Duration) time.Duration { return max(2*retryMax, 10*time.Second) }

// busy reports whether this node is joining negotiation nid; its
// envelopes are then answered with a retryable code.
func (h *handover) busy(nid string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.joining[nid]
}

// joinLater marks nid as being joined and runs join on a node goroutine;
// the mark goes when join returns (receiver.mu held, so that the mark and the
// node's look-up of the thread are one step).
func (h *handover) joinLater(nid string, join func(ctx context.Context)) {
	h.mu.Lock()
	h.joining[nid] = true
	h.mu.Unlock()
	h.spawn(func(ctx context.Context) {
		defer func() {
			h.mu.Lock()
			delete(h.joining, nid)
			h.mu.Unlock()
		}()
		join(ctx)
	})
}

// joinEvidence subscribes to the evidence topic of t's dispute with its
// current members, once a dispute is open and the transport runs (t.mu
// held): when the chain opens the dispute or assigns its arbitrator
// (chainActs.factApplied), when this node submits evidence or joins the
// thread from a bundle, and again at resume.
func (h *handover) joinEvidence(t *thread) {
	id := disputeIDOf(t)
	if id == "" || h.topics == nil {
		return
	}
	members := []negotiation.Address{t.Th.Poster(), t.Th.Worker()}
	if a := t.Th.Arbitrator(); a != (negotiation.Address{}) {
		members = append(members, a)
	}
	if err := h.topics.JoinEvidence(id, members); err != nil {
		h.log.Warn("evidence topic not joined", "negotiation", t.ID, "err", err)
	}
}

// handedOff reports whether this node sent t's arbitrator a proof bundle
// (t.mu held): a bundle sent to an arbitrator that refused to rule does
// not count for the next one. An arbitrator named again after refusing
// holds the thread and every envelope since (Recipients), so its bundle
// still counts.
func (h *handover) handedOff(t *thread) bool {
	arb := t.Th.Arbitrator()
	for _, r := range t.Th.Log() {
		if r.Sender != h.self || r.Type != negotiation.TypeDisputeEvidence {
			continue
		}
		env := t.Th.Envelope(r.Hash)
		if p, ok := env.Payload.(*negotiation.DisputeEvidence); ok && bundleFile(p) != nil && slices.Contains(env.Recipients, arb) {
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
func (h *handover) handOff(ctx context.Context, nid string) {
	if err := h.handOffOnce(ctx, nid); err != nil && ctx.Err() == nil {
		h.log.Warn("hand-over to the arbitrator failed", "negotiation", nid, "err", err)
	}
}

func (h *handover) handOffOnce(ctx context.Context, nid string) error {
	var (
		arb  negotiation.Address
		ann  *negotiation.Envelope
		done bool
	)
	err := h.eng.With(nid, func(t *thread) error {
		arb, ann = t.Th.Arbitrator(), t.Params.Announcement
		done = h.handedOff(t) || arb == (negotiation.Address{}) || t.Th.State() != negotiation.StateArbitrated
		return nil
	})
	if err != nil || done {
		return err
	}
	if court, err := h.courtArbitrator(ctx, nid, arb); err != nil || court {
		return err // a court reads the ERC-1497 documents (court.go), not a proof bundle
	}
	// A version-2 bundle: the negotiation's entries only, each with its
	// inclusion proof against the node's latest signed tree head.
	var buf bytes.Buffer
	head, err := h.heads.export(ctx, nid, &buf)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	c, err := h.blobs.store(ctx, nid, "proof-bundle.json", MediaTypeBundle, "", buf.Bytes())
	if err != nil {
		return err
	}
	files := []negotiation.FileRef{{Name: "proof-bundle.json", CID: negotiation.CID(c.String()), Size: uint64(buf.Len()), MediaType: MediaTypeBundle}}
	if ann != nil {
		files = append(files, negotiation.FileRef{Name: "announcement.json", CID: negotiation.CID(ann.CID().String()), Size: uint64(len(ann.Bytes())), MediaType: MediaTypeEnvelope})
	}
	return h.eng.With(nid, func(t *thread) error {
		if h.handedOff(t) {
			return nil
		}
		taskID := taskOf(t)
		p := &negotiation.DisputeEvidence{
			DisputeID: negotiation.NewUint256(chain.DisputeID(taskID)), EvidenceCID: negotiation.CID(c.String()), Files: files,
			Description: fmt.Sprintf("proof bundle of the thread so far (tree head %d %s), for the arbitrator", head.Size, negotiation.Hash(head.Root)),
		}
		if err := h.send(ctx, t, p, h.eng.Recipients(t, true)); err != nil {
			return err
		}
		h.log.Info("thread handed over to the arbitrator", "negotiation", nid, "arbitrator", arb, "bundle", c)
		return nil
	})
}

// join starts this node's thread of a negotiation it joins late, as its
// arbitrator, from the proof bundle a party handed over (d names it), on
// a node goroutine; until it is done, envelopes of the negotiation are
// answered with a retryable code (receiver.mu held).
func (h *handover) join(d p2p.Delivery, f negotiation.FileRef) {
	nid := d.Envelope.NegotiationID
	h.joinLater(nid, func(ctx context.Context) {
		if err := h.joinFrom(ctx, d, f); err != nil && ctx.Err() == nil {
			h.log.Warn("joining a thread from a proof bundle failed", "negotiation", nid, "from", d.Envelope.Sender.EVMAddress, "err", err)
		}
	})
}

func (h *handover) joinFrom(ctx context.Context, d p2p.Delivery, f negotiation.FileRef) error {
	b, err := h.fetchDelivered(ctx, d, f)
	if err != nil {
		return err
	}
	th := b.th
	// Only the assigned arbitrator joins (the act table's join_dispute).
	if err := th.May(negotiation.ActJoinDispute, h.self, negotiation.ActArgs{}); err != nil {
		return &Error{Code: Code(negotiation.CodeOf(err)), Msg: "the bundle's thread", Err: err}
	}
	if h.chain != nil {
		var taskID [32]byte
		if id := th.TaskID(); id != nil {
			id.Big().FillBytes(taskID[:])
		}
		rec, err := h.chain.Dispute(ctx, taskID)
		if err != nil {
			return chainErr("dispute", err)
		}
		if rec.Arbitrator != common.Address(h.self) {
			return fail(CodeNotParty, "the chain's arbitrator of the dispute is %s, not this node", rec.Arbitrator)
		}
	}
	if err := h.importBundle(ctx, b.params, b.rep, b.cid, b.raw, negotiation.RoleArbitrator); err != nil {
		return err
	}
	h.checkOnChain(ctx, b.rep.NegotiationID, d.Envelope.Sender.EVMAddress, b)
	return nil
}

// checkOnChain holds a version-2 bundle the arbitrator joined from to the
// chain (VerifyBundleWith with the node's chain: the anchor it carries was
// posted by its signer, and the signer's newest anchor at or below its
// head is proved consistent with it) and records what it found as a
// bundle.checked entry of the negotiation, for the people who rule: the
// join does not wait on it (the thread is joined from the offline checks),
// and a bundle that fails is evidence against its sender, not a reason to
// leave the dispute unjoined. A node without a chain records nothing.
func (h *handover) checkOnChain(ctx context.Context, nid string, from negotiation.Address, b *delivered) {
	ac, ok := h.chain.(AnchorChain)
	if !ok || ac == nil || b.rep.Version != 2 {
		return
	}
	v, err := VerifyBundleWith(ctx, bytes.NewReader(b.raw), BundleVerifyOptions{Chain: ac})
	checks := []string{}
	for _, c := range v.checks() {
		checks = append(checks, c.Name)
	}
	body := map[string]any{"bundle": b.cid.String(), "from": from, "code": "ok", "checks": checks}
	if err != nil {
		body["code"], body["error"] = string(CodeOf(err)), err.Error()
		h.log.Warn("a bundle the arbitrator joined from fails against the chain", "negotiation", nid, "from", from, "code", CodeOf(err), "err", err)
	}
	raw, _ := json.Marshal(body)
	if _, _, err := h.led.Append(ctx, ledger.Record{Kind: KindBundleChecked, NegotiationID: nid, Body: raw, At: h.now()}); err != nil {
		h.log.Warn("recording the bundle's check on chain", "negotiation", nid, "err", err)
	}
}

// delivered is a proof bundle a party handed over in a DisputeEvidence
// (to an arbitrator, or as a supervision notice), fetched, verified and
// replayed.
type delivered struct {
	raw    []byte
	cid    cid.Cid
	rep    *ledger.BundleReport
	params negotiation.Params
	th     *negotiation.Thread
}

// fetchDelivered fetches the bundle f of d from its sender (sealed to
// this node, checked against its CID) with the announcement d names,
// verifies it offline and replays its thread; who may join it is the
// caller's to check.
func (h *handover) fetchDelivered(ctx context.Context, d p2p.Delivery, f negotiation.FileRef) (*delivered, error) {
	if d.Sender == nil {
		return nil, fail(CodeBadBundle, "no sender link")
	}
	nid := d.Envelope.NegotiationID
	from := d.Sender.PeerID
	bc, err := f.CID.Parse()
	if err != nil {
		return nil, failWrap(CodeBadBundle, err, "bundle CID")
	}
	raw, rep, err := h.fetchBundle(ctx, from, nid, bc, "bundle")
	if err != nil {
		return nil, err
	}
	params := negotiation.Params{NegotiationID: nid}
	for _, af := range d.Envelope.Payload.(*negotiation.DisputeEvidence).Files {
		if af.MediaType != MediaTypeEnvelope {
			continue
		}
		ac, err := af.CID.Parse()
		if err != nil {
			return nil, failWrap(CodeBadBundle, err, "announcement CID")
		}
		if params.Announcement, err = h.fetchAnnouncement(ctx, from, ac); err != nil {
			return nil, err
		}
	}
	th, err := rep.ReplayThread(params, engine.ReplayFact)
	if err != nil {
		return nil, failWrap(CodeBadBundle, err, "replaying the bundle")
	}
	return &delivered{raw: raw, cid: bc, rep: rep, params: params, th: th}, nil
}

// importBundle records a verified bundle's negotiation in this node's
// ledger, as received, and starts the thread from it, with this node as an
// observer joining in role (the arbitrator, or a replacement worker).
func (h *handover) importBundle(ctx context.Context, params negotiation.Params, rep *ledger.BundleReport, bc cid.Cid, raw []byte, role negotiation.Role) error {
	nid := params.NegotiationID
	t, err := engine.NewThread(params, role, true)
	if err != nil {
		return err
	}
	t.Lock()
	defer t.Unlock()
	var opened batch
	h.eng.PutOpened(&opened, t)
	if err := h.eng.Write(ctx, &opened); err != nil {
		return failWrap(CodeStoreFailed, err, "recording the thread.opened")
	}
	if ann := params.Announcement; ann != nil {
		if _, _, err := h.led.AppendEnvelope(ctx, ledger.KindEnvelopeReceived, ann, "ok", h.now()); err != nil {
			return failWrap(CodeStoreFailed, err, "announcement")
		}
	}
	if _, err := h.blobs.store(ctx, nid, "proof-bundle.json", MediaTypeBundle, "", raw); err != nil {
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
			if _, _, err := h.led.AppendEnvelope(ctx, ledger.KindEnvelopeReceived, env, negotiation.Code(b.Code), e.At); err != nil {
				return failWrap(CodeStoreFailed, err, "entry %d", e.Seq)
			}
		case ledger.KindChainEvent, KindIdentityLink:
			if _, _, err := h.led.Append(ctx, ledger.Record{Kind: e.Kind, NegotiationID: nid, Body: e.Body, At: e.At}); err != nil {
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
					h.eng.MarkSeen(engine.LogKey(b.Tx, b.LogIndex))
					if b.Fact == "proof_submitted" && b.Milestone != nil {
						t.Proofs[*b.Milestone] = negotiation.CID(b.ProofCID)
					}
				}
			}
		}
	}
	joined := map[string]any{"bundle": bc.String(), "head": rep.Head.Hash, "count": rep.Head.Seq, "from": rep.From, "entries": len(rep.Negotiation)}
	if th := rep.TreeHead; th != nil {
		joined = map[string]any{"bundle": bc.String(), "format": ledger.BundleFormatV2, "treeSize": th.Size, "treeRoot": negotiation.Hash(th.Root), "signer": th.Signer, "from": rep.From, "entries": len(rep.Negotiation)}
	}
	body, _ := json.Marshal(joined)
	if _, _, err := h.led.Append(ctx, ledger.Record{Kind: KindThreadJoined, NegotiationID: nid, Body: body, At: h.now()}); err != nil {
		return failWrap(CodeStoreFailed, err, "thread.joined")
	}
	// The thread is what this node's own ledger replays to: the import is
	// checked by the same replay a restart does.
	th, err := h.led.ReplayThread(ctx, params, engine.ReplayFact)
	if err != nil {
		return failWrap(CodeBadBundle, err, "replaying the imported thread")
	}
	t.Th = th
	var state batch
	h.eng.PutState(&state, t, th.State())
	if err := h.eng.Write(ctx, &state); err != nil {
		return failWrap(CodeStoreFailed, err, "recording the thread.state")
	}
	h.eng.Register(t)
	h.joinEvidence(t)
	h.events.publish(Event{Kind: EventJoined, NegotiationID: nid, State: th.State(), CID: bc.String(), At: h.now()})
	h.log.Info("joined a thread from a proof bundle", "negotiation", nid, "state", th.State(), "envelopes", len(rep.Envelopes))
	h.fetchThreadFiles(t)
	return nil
}

// fetchThreadFiles fetches the delivered and evidence files of t this
// node does not hold, each from the party that sent it (t.mu held).
func (h *handover) fetchThreadFiles(t *thread) {
	role := t.Th.RoleOf(h.self)
	for _, r := range t.Th.Log() {
		if r.Code != "" || r.Sender == h.self {
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
		// The sender's peer id is its inbox key's, which the envelope
		// names: a joining node may not have met the sender yet.
		env := t.Th.Envelope(r.Hash)
		p, err := identity.PeerIDFromInboxKey(ed25519.PublicKey(env.Sender.XMTPPublicKey[:]))
		if err != nil {
			continue
		}
		h.blobs.fetchAll(t.ID, p, files)
	}
}

// fetchBundle fetches the proof bundle c of negotiation nid from p (sealed
// to this node, checked against its CID) and verifies it offline
// (verifyBundleOf); what names it in errors: "bundle", "hand-over
// package".
func (h *handover) fetchBundle(ctx context.Context, p peer.ID, nid string, c cid.Cid, what string) ([]byte, *ledger.BundleReport, error) {
	raw, err := h.blobs.raw(ctx, p, c)
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
func (h *handover) fetchAnnouncement(ctx context.Context, p peer.ID, c cid.Cid) (*negotiation.Envelope, error) {
	b, err := h.blobs.raw(ctx, p, c)
	if err != nil {
		return nil, failWrap(CodeBadBundle, err, "fetching the announcement")
	}
	ann, err := negotiation.Decode(b, negotiation.DecodeOptions{})
	if err != nil || ann.Verify() != nil || !ann.IsAnnouncement() || ann.CID() != c {
		return nil, fail(CodeBadBundle, "the announcement %s does not verify", c)
	}
	return ann, nil
}

// handoff is a replacement's hand-over package: a proof bundle of the
// thread so far, by CID and SHA-256 (the two name the same bytes).
type handoff struct {
	raw     []byte
	cid     cid.Cid
	hash    negotiation.Hash
	from    string // the peer it was fetched from; "" when this node holds it
	ownHead uint64 // the sequence of this node's last envelope it holds
}

// handoffCID returns the CID (raw codec, sha2-256) of a hand-over package
// with hash h.
func handoffCID(h negotiation.Hash) (cid.Cid, error) {
	mh, err := multihash.Encode(h[:], multihash.SHA2_256)
	if err != nil {
		return cid.Undef, err
	}
	return cid.NewCidV1(cid.Raw, mh), nil
}

// exportHandoff makes this node's hand-over package of nid: the
// version-2 proof bundle of its ledger's record of the thread (the
// negotiation's entries only, each proven against the node's signed tree
// head), with the identity links of every signer, so it verifies with
// nothing else.
func (h *handover) exportHandoff(ctx context.Context, nid string) (*handoff, error) {
	var pkg *handoff
	// Nothing is sent in the thread while it is exported.
	err := h.eng.With(nid, func(t *thread) error {
		var buf bytes.Buffer
		if _, err := h.heads.export(ctx, nid, &buf); err != nil {
			return failWrap(CodeStoreFailed, err, "export")
		}
		sum := negotiation.Hash(sha256.Sum256(buf.Bytes()))
		c, err := handoffCID(sum)
		if err != nil {
			return err
		}
		seq, _, _ := t.Th.Head(h.self)
		pkg = &handoff{raw: buf.Bytes(), cid: c, hash: sum, ownHead: seq}
		return nil
	})
	return pkg, err
}

// adoptHandoff fetches (or reads) the hand-over package the other party's
// ReplacementContext names and checks it: its bytes hash to handoffHash
// and to the CID, and it is a proof bundle of this negotiation that
// verifies with nothing else. A nil package and no error mean the package
// is unusable (this node then proposes its own).
func (h *handover) adoptHandoff(ctx context.Context, nid string, from negotiation.Address, p *negotiation.ReplacementContext) (*handoff, error) {
	c, err := p.HandoffCID.Parse()
	if err != nil || p.HandoffCID == "" {
		return nil, nil
	}
	if want, err := handoffCID(p.HandoffHash); err != nil || want != c {
		h.log.Warn("the other party's hand-over CID does not name its hash", "negotiation", nid, "cid", c)
		return nil, nil
	}
	fetchedFrom := ""
	raw, err := h.led.Object(ctx, c)
	if err != nil {
		l, ok := h.links.Link(from)
		if !ok {
			return nil, fail(CodeBadBundle, "the hand-over package %s: the link of %s is unknown", c, from)
		}
		if raw, err = h.blobs.raw(ctx, l.PeerID, c); err != nil {
			return nil, failWrap(CodeBadBundle, err, "fetching the hand-over package %s", c)
		}
		fetchedFrom = l.PeerID.String()
	}
	if sha256.Sum256(raw) != [32]byte(p.HandoffHash) {
		return nil, nil
	}
	rep, err := verifyBundleOf(raw, nid, "hand-over package")
	if err != nil {
		h.log.Warn("the other party's hand-over package does not verify", "negotiation", nid, "cid", c, "err", err)
		return nil, nil
	}
	pkg := &handoff{raw: raw, cid: c, hash: p.HandoffHash, from: fetchedFrom}
	for _, e := range rep.Envelopes {
		if e.Sender.EVMAddress == h.self && e.Sequence > pkg.ownHead {
			pkg.ownHead = e.Sequence
		}
	}
	return pkg, nil
}

// replacementArrived answers a ReplacementContext of a negotiation this
// node does not hold (receiver.mu held). When it names this node as the new
// worker, the node starts joining the thread from the hand-over package
// it names and the sender retries (missing_reference) until it has; the
// join succeeds only once the chain has made the replacement. Any other
// is wrong_negotiation.
func (h *handover) replacementArrived(d p2p.Delivery, p *negotiation.ReplacementContext) negotiation.Code {
	if p.NewWorker != h.self || p.HandoffCID == "" || d.Envelope.TaskID == nil || d.Sender == nil || h.chain == nil {
		return negotiation.CodeWrongNegotiation
	}
	nid := d.Envelope.NegotiationID
	h.joinLater(nid, func(ctx context.Context) {
		err := h.joinReplaced(ctx, d, p)
		switch {
		case err == nil || ctx.Err() != nil:
		case CodeOf(err) == CodeStateForbidden:
			h.log.Debug("not joined as the replacement worker yet (the sender retries)", "negotiation", nid, "err", err)
		default:
			h.log.Warn("not joined as the replacement worker (the sender retries)", "negotiation", nid, "from", d.Envelope.Sender.EVMAddress, "err", err)
		}
	})
	return negotiation.CodeMissingReference
}

// replacement is what a WorkerReplaced event says: the old and the new
// worker and the hand-over package's hash.
type replacement struct {
	OldWorker, NewWorker common.Address
	HandoffHash          [32]byte
}

// replacedBy returns the chain's last WorkerReplaced event of a task, or
// nil.
func (h *handover) replacedBy(ctx context.Context, taskID [32]byte) (*replacement, *chain.Event, error) {
	evs, err := h.chain.TaskEvents(ctx, taskID)
	if err != nil {
		return nil, nil, chainErr("task events", err)
	}
	for i := len(evs) - 1; i >= 0; i-- {
		f, ref, _ := chain.FactOf(evs[i])
		if w, ok := f.(negotiation.WorkerReplaced); ok {
			return &replacement{OldWorker: common.Address(ref.OldWorker), NewWorker: common.Address(w.NewWorker), HandoffHash: ref.Handoff}, &evs[i], nil
		}
	}
	return nil, nil, nil
}

// joinReplaced starts this node's thread of a negotiation whose task the
// chain handed to it, from the hand-over package of the ReplacementContext
// d carries: the chain must name this node as the new worker with that
// package's hash; the package is fetched from the sender (sealed to this
// node, checked against its CID), verified offline, replayed, and imported
// as received, as an arbitrator's bundle is. The thread's envelopes after
// the package (the two ReplacementContexts) then arrive from their
// senders, and the chain's WorkerReplaced makes this node the worker.
func (h *handover) joinReplaced(ctx context.Context, d p2p.Delivery, p *negotiation.ReplacementContext) error {
	env := d.Envelope
	nid := env.NegotiationID
	var taskID [32]byte
	env.TaskID.Big().FillBytes(taskID[:])
	ev, _, err := h.replacedBy(ctx, taskID)
	if err != nil {
		return err
	}
	if ev == nil || ev.NewWorker != common.Address(h.self) {
		return fail(CodeStateForbidden, "the chain has not handed task %s to this node (yet)", chain.TaskIDString(taskID))
	}
	if ev.HandoffHash != [32]byte(p.HandoffHash) {
		return fail(CodeBadBundle, "the chain's hand-over is %s, the envelope names %s", negotiation.Hash(ev.HandoffHash), p.HandoffHash)
	}
	bc, err := p.HandoffCID.Parse()
	if err != nil {
		return failWrap(CodeBadBundle, err, "hand-over CID")
	}
	if want, err := handoffCID(p.HandoffHash); err != nil || want != bc {
		return fail(CodeBadBundle, "the hand-over CID %s does not name the hash %s", bc, p.HandoffHash)
	}
	from := d.Sender.PeerID
	raw, rep, err := h.fetchBundle(ctx, from, nid, bc, "hand-over package")
	if err != nil {
		return err
	}
	params := negotiation.Params{NegotiationID: nid}
	for _, e := range rep.Negotiation {
		var b engine.OpenedBody
		if e.Kind != KindThreadOpened || json.Unmarshal(e.Body, &b) != nil || b.Announcement == "" {
			continue
		}
		ac, err := cid.Decode(b.Announcement)
		if err != nil {
			return failWrap(CodeBadBundle, err, "announcement CID")
		}
		if params.Announcement, err = h.fetchAnnouncement(ctx, from, ac); err != nil {
			return err
		}
		break
	}
	th, err := rep.ReplayThread(params, engine.ReplayFact)
	if err != nil {
		return failWrap(CodeBadBundle, err, "replaying the package")
	}
	var got [32]byte
	if id := th.TaskID(); id != nil {
		id.Big().FillBytes(got[:])
	}
	if got != taskID || th.Worker() != negotiation.Address(ev.OldWorker) {
		return fail(CodeBadBundle, "the package's thread is not task %s of worker %s", chain.TaskIDString(taskID), negotiation.Address(ev.OldWorker))
	}
	if err := h.importBundle(ctx, params, rep, bc, raw, negotiation.RoleWorker); err != nil {
		return err
	}
	return h.eng.With(nid, func(t *thread) error { h.takeOverLocked(t, true); return nil })
}

// takeOverLocked makes this node the worker of a thread it joined as a
// replacement (t.mu held): the chain's WorkerReplaced event, which this
// node's watcher saw before it held the thread, is read again and applied.
// That happens once the thread holds the complete replacement naming this
// node (both ReplacementContexts arrive after the package, from their
// senders); with wait set, also after a grace of twice the longest retry
// backoff, for a ReplacementContext that never comes (the old worker may be
// gone for good).
func (h *handover) takeOverLocked(t *thread, wait bool) {
	if !t.Observer || t.Role != negotiation.RoleWorker || t.Th.RoleOf(h.self) == negotiation.RoleWorker || h.chain == nil {
		return
	}
	if t.Th.TaskID() == nil {
		return
	}
	taskID := taskOf(t)
	nid := t.ID
	ready := false
	if c := t.Th.Ready(negotiation.TypeReplacementContext); c != nil {
		p, ok := t.Th.Envelope(c.Envelopes[0]).Payload.(*negotiation.ReplacementContext)
		ready = ok && p.NewWorker == h.self
	}
	switch {
	case ready:
		h.spawn(func(ctx context.Context) { h.takeOver(ctx, nid, taskID) })
	case wait:
		grace := h.grace
		h.spawn(func(ctx context.Context) {
			select {
			case <-ctx.Done():
				return
			case <-time.After(grace):
			}
			h.takeOver(ctx, nid, taskID)
		})
	}
}

// takeOver applies the chain's replacement of taskID by this node to
// thread nid, unless this node is its worker already.
func (h *handover) takeOver(ctx context.Context, nid string, taskID [32]byte) {
	done := true
	if h.eng.With(nid, func(t *thread) error { done = t.Th.RoleOf(h.self) == negotiation.RoleWorker; return nil }) != nil || done {
		return
	}
	ev, raw, err := h.replacedBy(ctx, taskID)
	if err != nil || ev == nil || ev.NewWorker != common.Address(h.self) {
		if ctx.Err() == nil {
			h.log.Warn("the replacement naming this node is not on chain", "negotiation", nid, "err", err)
		}
		return
	}
	if err := h.apply(ctx, nid, negotiation.WorkerReplaced{NewWorker: h.self}, raw.Log); err != nil {
		if ctx.Err() == nil {
			h.log.Warn("the replacement was not applied", "negotiation", nid, "err", err)
		}
		return
	}
	h.log.Info("took over the task as the replacement worker", "negotiation", nid)
}
