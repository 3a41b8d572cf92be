package node

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/parleynet/parley/negotiation"
)

// Act names a gated act: one list everywhere (DESIGN.md "Human approval").
type Act string

// The gated acts. Withdrawing what is already owed to oneself and anchoring
// a ledger head are not gated.
const (
	ActSignSettlement    Act = "sign_settlement"    // sign a settlement digest (accept an offer)
	ActFundEscrow        Act = "fund_escrow"        // createTask: move the escrow into the contract
	ActReleaseMilestone  Act = "release_milestone"  // accept a delivery and release its milestone
	ActSignCancel        Act = "sign_cancel"        // sign a mutual cancel
	ActSignAmendment     Act = "sign_amendment"     // sign an amendment of milestones or deadline
	ActSignReplacement   Act = "sign_replacement"   // sign the hand-over to a replacement worker
	ActOpenDispute       Act = "open_dispute"       // open a dispute (posts a bond)
	ActProposeArbitrator Act = "propose_arbitrator" // name the arbitrator one accepts
	ActRule              Act = "rule"               // an arbitrator's ruling
)

// GatedActs lists every gated act in a fixed order.
var GatedActs = []Act{
	ActSignSettlement, ActFundEscrow, ActReleaseMilestone, ActSignCancel, ActSignAmendment,
	ActSignReplacement, ActOpenDispute, ActProposeArbitrator, ActRule,
}

// IntentVersion and IntentTag are the Human Intent Protocol's version and
// the protocol tag inside the hashing payload.
const (
	IntentVersion = "0.1"
	IntentTag     = "dsh-human-intent/0.1"
	// IntentTool is the tool name of every action the node asks about.
	IntentTool = "parley"
)

// ApprovalRequest is one request for a person's decision, shaped as the
// Human Intent Protocol's IntentRequest: the action names the act
// (operation), the negotiation (target) and every value the act will use
// (arguments), and IntentHash binds them, so a later passkey approval
// signs exactly this act.
type ApprovalRequest struct {
	// Version is IntentVersion.
	Version string `json:"version"`
	// RequestID is unique per request.
	RequestID string `json:"requestId"`
	// Nonce is 256 random bits, lowercase hex.
	Nonce string `json:"nonce"`
	// Action is the exact act.
	Action IntentAction `json:"action"`
	// Context explains the act to the person.
	Context IntentContext `json:"context"`
	// Agent names the node that asks (its EVM address).
	Agent string `json:"agent,omitempty"`
	// IssuedAt and ExpiresAt bound the request's window.
	IssuedAt  time.Time `json:"issuedAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	// IntentHash is lowercase hex SHA-256 of the JCS hashing payload.
	IntentHash string `json:"intentHash"`
}

// IntentAction is the act a request is about.
type IntentAction struct {
	// Tool is IntentTool.
	Tool string `json:"tool"`
	// Operation is the Act.
	Operation Act `json:"operation"`
	// Target is the negotiationId (or "" for acts outside one).
	Target string `json:"target,omitempty"`
	// Arguments are the exact values the act uses; every value is a string
	// or a list of strings (amounts in wei as decimal strings, hashes and
	// addresses as the wire writes them).
	Arguments map[string]any `json:"arguments"`
}

// IntentContext is shown to the person deciding.
type IntentContext struct {
	// Reason says in a sentence what the act does.
	Reason string `json:"reason,omitempty"`
	// Risk is low, medium, high or critical.
	Risk string `json:"risk,omitempty"`
}

// Decision is a gate's answer to one request.
type Decision struct {
	// Approved is true for an approval; false is a denial.
	Approved bool `json:"approved"`
	// Method says how the decision was taken: "operator" for a person
	// through the CLI or the API, "auto" for an auto-approver a driver
	// configured.
	Method string `json:"method"`
	// By names who decided.
	By string `json:"by,omitempty"`
	// Reason is a denial's reason, if given.
	Reason string `json:"reason,omitempty"`
}

// Gate decides gated acts. Every gated act of the node passes through the
// one Gate it was given; the node records each request, decision and
// consumption in its ledger around the call, so no implementation can skip
// the record. Decide blocks until a decision or until ctx ends (the
// request's window).
type Gate interface {
	Decide(ctx context.Context, req ApprovalRequest) (Decision, error)
}

// GateFunc adapts a function to Gate.
type GateFunc func(ctx context.Context, req ApprovalRequest) (Decision, error)

// Decide calls f.
func (f GateFunc) Decide(ctx context.Context, req ApprovalRequest) (Decision, error) {
	return f(ctx, req)
}

// AutoApprove returns a Gate that approves every request, for tests, the
// devnet and the demo driver, which configure it explicitly; by names the
// driver in the ledger's record of each decision.
func AutoApprove(by string) Gate {
	return GateFunc(func(context.Context, ApprovalRequest) (Decision, error) {
		return Decision{Approved: true, Method: "auto", By: by}, nil
	})
}

// newRequest builds a request for act in negotiation target with the exact
// arguments, valid for ttl from now, and computes its intent hash.
func newRequest(act Act, target, agent string, args map[string]any, reason, risk string, now time.Time, ttl time.Duration) (ApprovalRequest, error) {
	var id [16]byte
	var n32 [32]byte
	if _, err := rand.Read(id[:]); err != nil {
		return ApprovalRequest{}, err
	}
	if _, err := rand.Read(n32[:]); err != nil {
		return ApprovalRequest{}, err
	}
	now = now.UTC().Truncate(time.Millisecond)
	if args == nil {
		args = map[string]any{}
	}
	r := ApprovalRequest{
		Version: IntentVersion, RequestID: "req_" + hex.EncodeToString(id[:]), Nonce: hex.EncodeToString(n32[:]),
		Action:  IntentAction{Tool: IntentTool, Operation: act, Target: target, Arguments: args},
		Context: IntentContext{Reason: reason, Risk: risk}, Agent: agent,
		IssuedAt: now, ExpiresAt: now.Add(ttl),
	}
	h, err := r.computeHash()
	if err != nil {
		return ApprovalRequest{}, err
	}
	r.IntentHash = h
	return r, nil
}

// computeHash returns lowerhex(SHA-256(JCS(hashing payload))): the
// protocol tag, requestId, nonce, window, the full action, agent and
// context, with empty optional members omitted.
func (r ApprovalRequest) computeHash() (string, error) {
	payload := map[string]any{
		"v": IntentTag, "requestId": r.RequestID, "nonce": r.Nonce,
		"issuedAt": negotiation.FormatTime(r.IssuedAt), "expiresAt": negotiation.FormatTime(r.ExpiresAt),
		"action": r.Action,
	}
	if r.Agent != "" {
		payload["agent"] = map[string]string{"id": r.Agent}
	}
	if r.Context != (IntentContext{}) {
		payload["context"] = r.Context
	}
	b, err := json.Marshal(payload)
	if err != nil {
		return "", err
	}
	h, err := negotiation.HashCanonical(b)
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h[:]), nil
}

// Verify recomputes the intent hash from the request's own fields: a
// request whose action, window or nonce was changed fails.
func (r ApprovalRequest) Verify() error {
	h, err := r.computeHash()
	if err != nil {
		return err
	}
	if h != r.IntentHash {
		return fail(CodeApprovalDenied, "action_mismatch: the request hashes to %s, not %s", h, r.IntentHash)
	}
	return nil
}

// OperatorGate is the default gate until passkeys arrive: each request
// waits in memory for the operator's decision, which the CLI prompt or the
// HTTP API gives with Approve or Deny. It is safe for concurrent use.
type OperatorGate struct {
	mu      sync.Mutex
	pending map[string]*waiting
	subs    map[chan ApprovalRequest]struct{}
}

type waiting struct {
	req  ApprovalRequest
	done chan Decision
}

var _ Gate = (*OperatorGate)(nil)

// NewOperatorGate returns an operator gate with nothing pending.
func NewOperatorGate() *OperatorGate {
	return &OperatorGate{pending: map[string]*waiting{}, subs: map[chan ApprovalRequest]struct{}{}}
}

// Decide registers req and waits for Approve or Deny, or until ctx ends.
func (g *OperatorGate) Decide(ctx context.Context, req ApprovalRequest) (Decision, error) {
	w := &waiting{req: req, done: make(chan Decision, 1)}
	g.mu.Lock()
	g.pending[req.RequestID] = w
	for ch := range g.subs {
		select {
		case ch <- req:
		default: // a slow subscriber still sees it in Pending
		}
	}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		delete(g.pending, req.RequestID)
		g.mu.Unlock()
	}()
	select {
	case d := <-w.done:
		return d, nil
	case <-ctx.Done():
		return Decision{}, ctx.Err()
	}
}

// Pending returns the requests waiting for a decision, oldest first.
func (g *OperatorGate) Pending() []ApprovalRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]ApprovalRequest, 0, len(g.pending))
	for _, w := range g.pending {
		out = append(out, w.req)
	}
	slices.SortFunc(out, func(a, b ApprovalRequest) int { return a.IssuedAt.Compare(b.IssuedAt) })
	return out
}

// Approve approves the pending request id on behalf of by.
func (g *OperatorGate) Approve(id, by string) error {
	return g.resolve(id, Decision{Approved: true, Method: "operator", By: by})
}

// Deny denies the pending request id on behalf of by, with a reason.
func (g *OperatorGate) Deny(id, by, reason string) error {
	return g.resolve(id, Decision{Approved: false, Method: "operator", By: by, Reason: reason})
}

func (g *OperatorGate) resolve(id string, d Decision) error {
	g.mu.Lock()
	w, ok := g.pending[id]
	if ok {
		delete(g.pending, id)
	}
	g.mu.Unlock()
	if !ok {
		return fail(CodeBadArgument, "no pending approval request %q", id)
	}
	w.done <- d
	return nil
}

// Subscribe returns a channel that receives each new request (buffered;
// a request missed by a slow reader is still in Pending) and a function
// that ends the subscription.
func (g *OperatorGate) Subscribe() (<-chan ApprovalRequest, func()) {
	ch := make(chan ApprovalRequest, 16)
	g.mu.Lock()
	g.subs[ch] = struct{}{}
	g.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			g.mu.Lock()
			delete(g.subs, ch)
			g.mu.Unlock()
		})
	}
}
