package node

import (
	"context"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/engine"
	"github.com/parleynet/parley/node/gate"
)

// The approval of gated acts lives in node/gate: the decider, the
// ceremonies, the passkeys, the tokens, the approval store and the plain
// words of an act. The node builds one gate at Start (startApprovals),
// passes every gated act through it (authorize) and hands it to the pages
// and the API (Gate). The names below keep node's public vocabulary for
// its callers; each is the gate's.

// Act names a gated act: one list everywhere (DESIGN.md "Human approval").
type Act = gate.Act

// The gated acts (gate.GatedActs), and the approvals of a further passkey
// and of a revocation, which are not acts of a negotiation.
const (
	ActSignSettlement    = gate.ActSignSettlement
	ActFundEscrow        = gate.ActFundEscrow
	ActReleaseMilestone  = gate.ActReleaseMilestone
	ActSignCancel        = gate.ActSignCancel
	ActSignAmendment     = gate.ActSignAmendment
	ActSignReplacement   = gate.ActSignReplacement
	ActOpenDispute       = gate.ActOpenDispute
	ActProposeArbitrator = gate.ActProposeArbitrator
	ActRule              = gate.ActRule
	ActClaimUnanswered   = gate.ActClaimUnanswered
	ActReclaimExpired    = gate.ActReclaimExpired
	ActResolveTimedOut   = gate.ActResolveTimedOut
	ActVeto              = gate.ActVeto
	ActRequestRevision   = gate.ActRequestRevision
	ActReleasePart       = gate.ActReleasePart
	ActRegisterPasskey   = gate.ActRegisterPasskey
	ActRevokePasskey     = gate.ActRevokePasskey
)

// GatedActs lists every gated act in a fixed order.
var GatedActs = gate.GatedActs

// The gate's types, by the names node's callers use.
type (
	// Gate decides gated acts without the principal's passkeys (WithGate).
	Gate = gate.Decider
	// GateFunc adapts a function to Gate.
	GateFunc = gate.DeciderFunc
	// ApprovalRequest is one gated act asking for its principal's approval.
	ApprovalRequest = gate.ApprovalRequest
	// Decision is an explicit gate's answer to one request.
	Decision = gate.Decision
	// PendingApproval is one request waiting for the principal, in plain words.
	PendingApproval = gate.PendingApproval
	// PlainLine is one labelled value of a pending approval.
	PlainLine = gate.PlainLine
	// PendingRegistration is the detail of a CodeApprovalPending refusal.
	PendingRegistration = gate.PendingRegistration
	// PasskeyOptions describe a passkey registration.
	PasskeyOptions = gate.PasskeyOptions
)

// Names of the data directory's approval files and tokens.
const (
	ApprovalsDirName      = gate.ApprovalsDirName
	TokensFileName        = gate.TokensFileName
	EnrolTokenFileName    = gate.EnrolTokenFileName
	RevokeTokenPrefix     = gate.RevokeTokenPrefix
	DefaultRevokeTokenTTL = gate.DefaultRevokeTokenTTL
	RegSessionPrefix      = gate.RegSessionPrefix
)

// The gate's functions, by the names node's callers use.
var (
	// ActAction returns the action a request for act names.
	ActAction = gate.ActAction
	// AutoApprove returns a Gate that approves every request (tests, devnet).
	AutoApprove = gate.AutoApprove
	// IsDevChainID reports whether id is one of DevChainIDs.
	IsDevChainID = gate.IsDevChainID
	// DevChainIDs are the chain ids on which approval.mode auto is allowed.
	DevChainIDs = gate.DevChainIDs
	// FormatETH writes wei as ETH with up to 18 decimals.
	FormatETH = gate.FormatETH
	// IssueEnrolToken issues the token that enrols the first passkey.
	IssueEnrolToken = gate.IssueEnrolToken
	// IssueEnrolTokenUntil is IssueEnrolToken that also returns its expiry.
	IssueEnrolTokenUntil = gate.IssueEnrolTokenUntil
	// EnrolTokenOf returns the data directory's redeemable enrolment token.
	EnrolTokenOf = gate.EnrolTokenOf
	// IssueRevokeToken makes the token that revokes the last passkey.
	IssueRevokeToken = gate.IssueRevokeToken
)

// Gate returns the node's approval gate: the requests waiting for the
// principal, the ceremonies, the passkeys and the audit trail, for the
// pages and the API. It is nil before Start; a nil gate refuses every
// call with not_started.
func (n *Node) Gate() *gate.Gate { return n.gt }

// authorize passes a gated act through the gate (gate.Gate.Authorize)
// before the act is performed; nil means it may be.
func (n *Node) authorize(ctx context.Context, act Act, nid string, args map[string]any, reason, risk string) (approval.IntentRequest, error) {
	req, err := n.gt.Authorize(ctx, act, nid, args, reason, risk)
	return req, fromGate(err)
}

// fromGate returns the gate's refusal err as the node's error with the
// same code, message and cause, so that an act refused by the gate reads
// as every other refusal of the node ("node: <code>: ..."); any other
// error as it is. (node.CodeOf and errors.Is with the node's sentinels
// also read the gate's errors, for the pages and the API, which call the
// gate directly.)
func fromGate(err error) error {
	if ge, ok := err.(*gate.Error); ok {
		return &Error{Code: Code(ge.Code), Msg: ge.Msg, Err: ge.Err}
	}
	return err
}

// startApprovals opens the approval store in the data directory and
// builds the gate over it, with the principal's ceremonies and the
// consumption gate recording their audit events in the ledger.
func (n *Node) startApprovals() error {
	cfg := approval.DefaultConfig()
	cfg.RPID = n.cfg.WebAuthn.RPID
	cfg.Origins = slices.Clone(n.cfg.WebAuthn.Origins)
	cfg.UserID = append([]byte(nil), n.self[:]...)
	if n.cfg.Name != "" {
		cfg.UserName = "parley-" + n.cfg.Name
		cfg.UserDisplayName = "Parley " + n.cfg.Name + " (" + n.self.String() + ")"
	} else {
		cfg.UserName = "parley-" + strings.ToLower(n.self.String())
		cfg.UserDisplayName = "Parley " + n.self.String()
	}
	cfg.Now = n.now
	if err := cfg.Validate(); err != nil {
		return failWrap(CodeBadConfig, err, "web")
	}
	store, err := n.stores.approvals(n.ctx, n.cfg.DataDir, n.led)
	if err != nil {
		if store != nil {
			store.Close()
		}
		return err
	}
	n.gt, err = gate.New(gate.Config{
		WebAuthn: cfg,
		Store:    store,
		DataDir:  n.cfg.DataDir,
		Agent:    n.self.String(),
		TTL:      n.cfg.ApprovalTTL,
		Decider:  n.o.gate,
		Journal:  ledgerJournal{n.led},
		Context:  n.ctx,
		Now:      n.now,
		Log:      n.log,
		Running:  n.running,
		Guard: func(ctx context.Context, nid string, before bool) error {
			if before {
				if err := n.px.pausedErr(nid); err != nil {
					return err
				}
			}
			return n.check.restsOn(ctx, n.led, nid, before)
		},
		Publish: func(e gate.Notice) {
			n.events.publish(Event{Kind: EventApproval, NegotiationID: e.NegotiationID, Detail: string(e.Act), Code: e.Code, Hash: e.Hash, At: e.At})
		},
		Count: func(act Act, outcome string) { n.m.approvals.WithLabelValues(string(act), outcome).Inc() },
		Spawn: n.spawn,
		Title: func(nid string, args map[string]any) string { return taskTitle(n.eng, n.board, nid, args) },
		Draft: func(h string) []PlainLine {
			if c := n.px.draftOf(h); c != nil {
				return CardLines(c)
			}
			return nil
		},
	})
	if err != nil {
		_ = store.Close()
		return err
	}
	if n.o.gate != nil {
		n.log.Warn("approvals are decided by an explicit gate, not by the principal's passkeys (tests and devnet only)")
	}
	return nil
}

// ledgerJournal is the gate's audit trail in the node's ledger: approval
// entries, under their negotiation when the event's target is one.
type ledgerJournal struct{ led *ledger.Ledger }

func (j ledgerJournal) AppendApproval(ctx context.Context, nid string, body []byte, at time.Time) error {
	rec := ledger.Record{Kind: ledger.KindApproval, Body: body, At: at}
	if _, err := negotiation.ParseNegotiationID(nid); err == nil {
		rec.NegotiationID = nid
	}
	_, _, err := j.led.Append(ctx, rec)
	return err
}

func (j ledgerJournal) Approvals(ctx context.Context) iter.Seq2[gate.Entry, error] {
	return func(yield func(gate.Entry, error) bool) {
		for e, err := range j.led.ByKind(ctx, ledger.KindApproval) {
			if err != nil {
				yield(gate.Entry{}, err)
				return
			}
			if !yield(gate.Entry{Seq: e.Seq, Body: e.Body, At: e.At}, nil) {
				return
			}
		}
	}
}

// taskTitle returns the title of the task negotiation nid is about, from
// its thread in eng or, for an answer to an announcement not yet
// registered, from the board b; "" when neither knows it.
func taskTitle(eng *engine.Engine, b *board, nid string, args map[string]any) string {
	var title string
	_ = eng.With(nid, func(t *thread) error { // a negotiation not held has no title here
		if cur := t.Th.Current(); cur != nil && cur.Terms != nil {
			title = cur.Terms.Title
		}
		return nil
	})
	if title != "" {
		return title
	}
	if s, ok := args["acceptedOfferHash"].(string); ok {
		if h, err := negotiation.ParseHash(s); err == nil {
			if e, err := b.announcement(h); err == nil {
				if p, ok := e.env.Payload.(*negotiation.TaskProposal); ok {
					return p.Terms.Title
				}
			}
		}
	}
	return ""
}
