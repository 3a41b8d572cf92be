package node

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// Supervisors (docs/node.md, "Supervisors"). A party's principal names a
// supervisor in the party's offer or acceptance (TaskSpec, CounterSpec,
// AcceptSpec: Supervisor). The party's node then hands the supervisor a
// proof bundle of the thread, as the parties hand an assigned arbitrator
// theirs, and both parties' nodes address every later envelope of the
// thread to the supervisors it names (engine.Recipients), which keeps the
// supervisor's thread current. The supervisor's node (any Parley node)
// fetches the bundle, checks that its thread names it as the sender's
// supervisor, and holds the thread as an observer; its principal may then
// veto (Veto), a gated act.
//
// The hand-over travels in a supervision notice: a DisputeEvidence with
// dispute id 0 and no task id (no dispute has either), naming the bundle
// and the announcement the thread answers, signed by the party and
// addressed to the supervisor only. It is no envelope of the thread: the
// party's thread does not record it and the supervisor's node answers it
// without applying it (ok once it holds the thread, missing_reference
// while it joins, so that the party's outbox retries).

// supervisorsHanded remembers the supervisors this node handed a thread
// to since it started (nid and supervisor): a restart hands it over again,
// which the supervisor's node answers ok without importing anything.
type supervisorsHanded struct {
	mu     sync.Mutex
	handed map[string]bool
}

// claim reports whether thread nid is yet to be handed to s, and marks it
// handed.
func (h *supervisorsHanded) claim(nid string, s negotiation.Address) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.handed == nil {
		h.handed = map[string]bool{}
	}
	k := nid + "/" + s.String()
	if h.handed[k] {
		return false
	}
	h.handed[k] = true
	return true
}

// forget unmarks a hand-over that failed, so that the next step of the
// thread tries again.
func (h *supervisorsHanded) forget(nid string, s negotiation.Address) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.handed, nid+"/"+s.String())
}

// checkSupervisor refuses a supervisor that is not a third party: this
// node or the counterparty (bad_argument). A nil supervisor names none.
func checkSupervisor(s *negotiation.Address, self, other negotiation.Address) error {
	if s == nil {
		return nil
	}
	if *s == (negotiation.Address{}) || *s == self || *s == other {
		return fail(CodeBadArgument, "the supervisor %s must be a third party, not this node or the counterparty", *s)
	}
	return nil
}

// keepSupervisor hands thread t to the supervisor this node named in it,
// once per supervisor (t.mu held): called after every envelope this node
// sends and every one it takes, so that a supervisor named in an offer, an
// acceptance or an announcement gets the thread as soon as the thread
// names it.
func (n *Node) keepSupervisor(t *thread) {
	sup, ok := t.Th.SupervisorOf(n.self)
	if !ok || t.Observer || !n.supHanded.claim(t.ID, sup) {
		return
	}
	nid := t.ID
	n.spawn(func(ctx context.Context) {
		if err := n.handToSupervisor(ctx, nid, sup); err != nil {
			n.supHanded.forget(nid, sup)
			if ctx.Err() == nil {
				n.log.Warn("hand-over to the supervisor failed", "negotiation", nid, "supervisor", sup, "err", err)
			}
		}
	})
}

// handToSupervisor exports thread nid from the ledger as a version-2
// proof bundle (treeHeads.export: its entries only, with the identity
// links of every signer), stores the bundle as a file the supervisor may
// fetch, and queues the supervision notice naming it.
func (n *Node) handToSupervisor(ctx context.Context, nid string, sup negotiation.Address) error {
	var ann *negotiation.Envelope
	if err := n.eng.With(nid, func(t *thread) error { ann = t.Params.Announcement; return nil }); err != nil {
		return err
	}
	var buf bytes.Buffer
	head, err := n.heads.export(ctx, nid, &buf)
	if err != nil {
		return failWrap(CodeStoreFailed, err, "export")
	}
	c, err := n.blobs.store(ctx, nid, "proof-bundle.json", MediaTypeBundle, "", buf.Bytes())
	if err != nil {
		return err
	}
	files := []negotiation.FileRef{{Name: "proof-bundle.json", CID: negotiation.CID(c.String()), Size: uint64(buf.Len()), MediaType: MediaTypeBundle}}
	if ann != nil {
		files = append(files, negotiation.FileRef{Name: "announcement.json", CID: negotiation.CID(ann.CID().String()), Size: uint64(len(ann.Bytes())), MediaType: MediaTypeEnvelope})
	}
	p := &negotiation.DisputeEvidence{
		DisputeID: negotiation.U64(0), EvidenceCID: negotiation.CID(c.String()), Files: files,
		Description: fmt.Sprintf("proof bundle of the thread so far (tree head %d %s), for the supervisor %s named", head.Size, negotiation.Hash(head.Root), n.self),
	}
	var pk negotiation.PublicKey
	copy(pk[:], n.keys.Inbox().PublicKey())
	h := negotiation.Header{
		NegotiationID: nid, Sequence: 1, Timestamp: n.now().UTC().Truncate(time.Millisecond),
		Sender: negotiation.Sender{EVMAddress: n.self, XMTPPublicKey: pk}, Recipients: []negotiation.Address{sup},
	}
	env, err := negotiation.Build(h, p, n.keys.Inbox(), negotiation.DecodeOptions{})
	if err != nil {
		return &Error{Code: CodeOf(err), Msg: "building the supervision notice", Err: err}
	}
	if err := n.snd.host.Send(ctx, env); err != nil {
		return failWrap(Code(p2p.CodeOf(err)), err, "queueing the supervision notice")
	}
	n.log.Info("thread handed over to the supervisor", "negotiation", nid, "supervisor", sup, "bundle", c)
	return nil
}

// supervisionNotice returns the bundle a supervision notice names, or nil
// for any other envelope.
func supervisionNotice(env *negotiation.Envelope) *negotiation.FileRef {
	p, ok := env.Payload.(*negotiation.DisputeEvidence)
	if !ok || env.TaskID != nil || p.DisputeID.Sign() != 0 {
		return nil
	}
	return bundleFile(p)
}

// supervision answers a supervision notice (and reports false for any
// other envelope): ok when this node holds the thread already, otherwise
// missing_reference while it joins the thread from the bundle the notice
// names (the party's outbox retries until it has).
func (h *handover) supervision(d p2p.Delivery) (negotiation.Code, bool) {
	env := d.Envelope
	f := supervisionNotice(env)
	if f == nil {
		return "", false
	}
	if !env.Addressed(h.self) {
		return negotiation.CodeNotAddressed, true
	}
	nid := env.NegotiationID
	h.mu.Lock()
	busy := h.joining[nid]
	held := h.eng.Lookup(nid) != nil
	if !busy && !held {
		h.joining[nid] = true
	}
	h.mu.Unlock()
	switch {
	case held:
		return negotiation.Code(p2p.CodeOK), true
	case busy:
		return negotiation.CodeMissingReference, true
	}
	bundle := *f
	h.spawn(func(ctx context.Context) {
		defer func() {
			h.mu.Lock()
			delete(h.joining, nid)
			h.mu.Unlock()
		}()
		if err := h.joinSupervised(ctx, d, bundle); err != nil && ctx.Err() == nil {
			h.log.Warn("joining a thread as its supervisor failed", "negotiation", nid, "from", env.Sender.EVMAddress, "err", err)
		}
	})
	return negotiation.CodeMissingReference, true
}

// joinSupervised fetches the bundle f of d's supervision notice from its
// sender (sealed to this node, checked against its CID), verifies it
// offline, replays it, and imports it when its thread names this node as
// the supervisor of the sender, a party.
func (h *handover) joinSupervised(ctx context.Context, d p2p.Delivery, f negotiation.FileRef) error {
	b, err := h.fetchDelivered(ctx, d, f)
	if err != nil {
		return err
	}
	th := b.th
	if err := supervisedBy(th, d.Envelope.Sender.EVMAddress, h.self); err != nil {
		return err
	}
	return h.importBundle(ctx, b.params, b.rep, b.cid, b.raw, negotiation.RoleSupervisor)
}

// supervisedBy refuses (not_party) a thread handed over by party to self
// unless party is the poster or the worker of th and named self its
// supervisor: a node holds no thread it was not named to supervise.
func supervisedBy(th *negotiation.Thread, party, self negotiation.Address) error {
	if r := th.RoleOf(party); r != negotiation.RolePoster && r != negotiation.RoleWorker {
		return fail(CodeNotParty, "the sender %s is no party of the bundle's thread", party)
	}
	if s, ok := th.SupervisorOf(party); !ok || s != self {
		return fail(CodeNotParty, "the bundle's thread names no supervisor %s for %s", self, party)
	}
	return nil
}

// Veto vetoes the task for party, as the supervisor party named, once the
// gate approves: a SupervisorVeto with the reason, to both parties.
// Before funding it ends the negotiation (vetoed); after funding the task
// is halted and the escrow stays in the contract until the parties cancel,
// a dispute rules or the contract's timeouts run (docs/protocol.md,
// "Supervisor veto"). A node that is not party's supervisor in the thread
// is refused (not_party).
func (n *Node) Veto(ctx context.Context, nid string, party negotiation.Address, reason string) (ActResult, error) {
	check := func() error {
		if strings.TrimSpace(reason) == "" {
			return fail(CodeBadArgument, "a veto says why: the reason is empty")
		}
		if len(reason) > 4096 {
			return fail(CodeBadArgument, "the reason has %d bytes; at most 4096", len(reason))
		}
		return nil
	}
	var st negotiation.State
	read := func(t *thread) error { st = t.Th.State(); return nil }
	args := negotiation.ActArgs{Party: party}
	a := actCall{act: negotiation.ActVeto, nid: nid, args: args, check: check, locked: read}
	return n.do(a, func() (ActResult, error) {
		effect := "the negotiation ends (vetoed): nothing is committed on chain yet"
		switch {
		case st == negotiation.StateDisputed || st == negotiation.StateArbitrated:
			effect = "the veto is recorded; the dispute's ruling settles the escrow"
		case st.PostFunding():
			effect = "the funded task is halted: the escrow stays in the contract until the parties cancel, a dispute rules or the contract's timeouts run"
		}
		gargs := map[string]any{"party": party.String(), "reason": reason}
		if _, err := n.authorize(ctx, ActVeto, nid, gargs, "veto the task for "+party.String()+": "+effect, "high"); err != nil {
			return ActResult{}, err
		}
		var r ActResult
		err := n.eng.With(nid, func(t *thread) error {
			if err := n.may(t, negotiation.ActVeto, args); err != nil {
				return err
			}
			env, _, err := n.snd.send(ctx, t, &negotiation.SupervisorVeto{Party: party, Reason: reason}, n.eng.Recipients(t, false), false)
			if err != nil {
				return err
			}
			r = ActResult{Thread: n.viewLocked(t), Envelope: envRef(env)}
			return nil
		})
		return r, err
	})
}

// SupervisorView is a supervisor a party named.
type SupervisorView struct {
	Party      negotiation.Address `json:"party"`
	Supervisor negotiation.Address `json:"supervisor"`
}

// VetoView is a veto the thread took.
type VetoView struct {
	Hash       negotiation.Hash    `json:"hash"`
	Supervisor negotiation.Address `json:"supervisor"`
	Party      negotiation.Address `json:"party"`
	Reason     string              `json:"reason"`
	At         time.Time           `json:"at"`
}

// supervisionViews returns the supervisors th's parties named and the
// vetoes th took.
func supervisionViews(th *negotiation.Thread) ([]SupervisorView, []VetoView) {
	var sups []SupervisorView
	for _, p := range []negotiation.Address{th.Poster(), th.Worker()} {
		if s, ok := th.SupervisorOf(p); ok && p != (negotiation.Address{}) {
			sups = append(sups, SupervisorView{Party: p, Supervisor: s})
		}
	}
	var vetoes []VetoView
	for _, e := range th.Vetoes() {
		p := e.Payload.(*negotiation.SupervisorVeto)
		vetoes = append(vetoes, VetoView{Hash: e.Hash(), Supervisor: e.Sender.EVMAddress, Party: p.Party, Reason: p.Reason, At: e.Timestamp})
	}
	return sups, vetoes
}
