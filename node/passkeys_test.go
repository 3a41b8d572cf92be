package node_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// argsOf decodes the arguments of an approval request.
func argsOf(t testing.TB, r node.ApprovalRequest) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Request.Action.Arguments, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// withPasskeys makes the node decide through its principal's passkeys
// (no explicit gate).
func withPasskeys() nodeOpt { return withGate(nil) }

// skewClock is the machine's clock moved by an offset a test sets.
type skewClock struct{ off atomic.Int64 }

func (c *skewClock) Now() time.Time { return time.Now().Add(time.Duration(c.off.Load())) }

func (c *skewClock) advance(d time.Duration) { c.off.Add(int64(d)) }

func withClock(c *skewClock) nodeOpt {
	return func(n *tnode) { n.extra = append(n.extra, node.WithClock(c.Now)) }
}

// enrol registers a new software key as n's first passkey, with a
// one-time enrolment token made in its data directory while it runs, and
// returns it.
func enrol(t testing.TB, n *tnode, label string) *approval.SoftwareKey {
	t.Helper()
	token, err := node.IssueEnrolToken(t.Context(), n.dir, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return register(t, n, node.PasskeyOptions{Token: token, Label: label, Software: true})
}

// register runs a registration ceremony with a new software key under o
// and returns the key.
func register(t testing.TB, n *tnode, o node.PasskeyOptions) *approval.SoftwareKey {
	t.Helper()
	cfg := n.Gate().WebAuthnConfig()
	key, err := approval.NewSoftwareKey(cfg, cfg.Origins[0])
	if err != nil {
		t.Fatal(err)
	}
	creation, sess, err := n.Gate().BeginPasskeyWith(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := key.Create(creation)
	if err != nil {
		t.Fatal(err)
	}
	cred, err := n.Gate().FinishPasskey(t.Context(), sess, resp)
	if err != nil {
		t.Fatal(err)
	}
	if !cred.Software || cred.Label != o.Label {
		t.Fatalf("registered %+v", cred)
	}
	return key
}

// assertion answers the approval options of the pending request id with
// key.
func assertion(t testing.TB, n *tnode, key *approval.SoftwareKey, id string) []byte {
	t.Helper()
	opts, err := n.Gate().ApprovalOptions(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := key.Get(opts)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// approveWith approves the pending request id with key.
func approveWith(t testing.TB, n *tnode, key *approval.SoftwareKey, id string) *approval.IntentReceipt {
	t.Helper()
	r, err := n.Gate().FinishApproval(t.Context(), id, assertion(t, n, key, id))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// pending waits until k requests wait at n and returns them.
func pending(t testing.TB, n *tnode, k int) []node.PendingApproval {
	t.Helper()
	var out []node.PendingApproval
	eventually(t, "pending approvals", func() bool {
		out = n.Gate().PendingApprovals()
		return len(out) >= k
	})
	return out
}

// runAct runs f in the background; the returned function waits for its
// error.
func runAct(f func() error) func() error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	return func() error { return <-ch }
}

// TestPasskeyApprovalSigns: with passkeys a gated act waits in
// PendingApprovals, in plain words, and nothing is signed; a software
// key's WebAuthn assertion approves it, the act consumes the receipt and
// signs once; the audit trail and the ledger's approval entries hold the
// labels and the hash but no argument value.
func TestPasskeyApprovalSigns(t *testing.T) {
	w := newWorld(t, false)
	poster := w.add("poster")
	worker := w.add("worker", withBootstrap(poster), withPasskeys())
	connect(t, poster, worker)
	key := enrol(t, worker, "automation")
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Proofread the manual", eth(350), eth(250)))
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	worker.waitState(nid, negotiation.StateProposed)

	wait := runAct(func() error { _, err := worker.Accept(context.Background(), nid); return err })
	p := pending(t, worker, 1)[0]
	if p.Act != node.ActSignSettlement || p.Request.Action.Tool != approval.ToolSettlementSign || p.Request.Action.Target != nid {
		t.Fatalf("pending %+v", p)
	}
	if p.Title != "Sign the settlement of task «Proofread the manual»" {
		t.Fatalf("title %q", p.Title)
	}
	lines := map[string]string{}
	for _, l := range p.Lines {
		lines[l.Label] = l.Value
	}
	for label, want := range map[string]string{
		"Amount":       "0.6 ETH (600000000000000000 wei)",
		"Token":        "ETH (native)",
		"Counterparty": poster.Address().String(),
		"Task":         "Proofread the manual",
		"Milestones":   "0.35 ETH (350000000000000000 wei); 0.25 ETH (250000000000000000 wei)",
		"Intent hash":  p.Request.IntentHash,
	} {
		if lines[label] != want {
			t.Errorf("line %s = %q, want %q", label, lines[label], want)
		}
	}
	if !strings.HasPrefix(lines["Expires"], "in ") || lines["What this means"] == "" {
		t.Errorf("lines %+v", p.Lines)
	}
	if got, err := worker.Gate().PendingApproval(p.Request.RequestID); err != nil || got.Request.IntentHash != p.Request.IntentHash {
		t.Fatalf("PendingApproval: %+v %v", got, err)
	}
	if _, err := worker.Gate().PendingApproval("req_00112233445566778899aabbccddeeff"); !errors.Is(err, node.ErrBadArgument) {
		t.Fatalf("an unknown request: %v", err)
	}
	if k := kinds(t, worker, nid); k["envelope.sent"] != 0 {
		t.Fatalf("something was signed before the approval: %v", k)
	}

	// The options' challenge is the intentHash.
	opts, err := worker.Gate().ApprovalOptions(t.Context(), p.Request.RequestID)
	if err != nil {
		t.Fatal(err)
	}
	if ch, _ := p.Request.Challenge(); string(opts.Response.Challenge) != string(ch) {
		t.Fatalf("challenge %x, want the intent hash %s", []byte(opts.Response.Challenge), p.Request.IntentHash)
	}
	// A response to another request's options is refused and changes
	// nothing: the request still waits.
	if _, err := worker.Gate().FinishApproval(t.Context(), p.Request.RequestID, []byte(`{"id":"x"}`)); node.CodeOf(err) != node.Code(approval.CodeVerificationFailed) {
		t.Fatalf("a malformed assertion: %v", err)
	}
	r := approveWith(t, worker, key, p.Request.RequestID)
	if !r.Approved() || r.Authenticator == nil || !r.Authenticator.Software || r.IntentHash != p.Request.IntentHash {
		t.Fatalf("receipt %+v", r)
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if k := kinds(t, worker, nid); k["envelope.sent"] != 1 {
		t.Fatalf("the acceptance was not sent once: %v", k)
	}
	if left := worker.Gate().PendingApprovals(); len(left) != 0 {
		t.Fatalf("still pending: %+v", left)
	}
	if ev := approvalEvents(t, worker, nid); strings.Join(ev, ",") != "request-created,assertion-rejected,approved,consumed" {
		t.Fatalf("approval records: %v", ev)
	}
	trail, err := worker.Gate().AuditTrail(t.Context(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(trail) != 3 || trail[0].Event != approval.EventConsumed || trail[1].Event != approval.EventApproved ||
		!trail[0].Software || trail[0].CredentialRef == "" ||
		trail[2].Event != approval.EventAssertionRejected || trail[2].Code != approval.CodeVerificationFailed {
		t.Fatalf("audit trail %+v", trail)
	}
	// No entry holds an argument value: not the digest, the amount, the
	// counterparty or the terms hash.
	args := argsOf(t, node.ApprovalRequest{Request: p.Request})
	for e, err := range worker.Ledger().ByKind(t.Context(), ledger.KindApproval) {
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"digest", "amount", "counterparty", "termsHash", "nonce", "acceptedOfferHash"} {
			if v, _ := args[k].(string); v == "" || strings.Contains(strings.ToLower(string(e.Body)), strings.ToLower(v)) {
				t.Fatalf("approval entry #%d holds the %s %q: %s", e.Seq, k, v, e.Body)
			}
		}
	}
}

// TestPasskeyDenialSignsNothing: a denial of the pending act makes it fail
// with approval_denied: nothing is signed, stored as sent or queued, and
// the denied receipt carries no signature.
func TestPasskeyDenialSignsNothing(t *testing.T) {
	w := newWorld(t, false)
	poster := w.add("poster")
	worker := w.add("worker", withBootstrap(poster), withPasskeys())
	connect(t, poster, worker)
	enrol(t, worker, "automation")
	res, err := poster.ProposeTask(t.Context(), worker.Address(), spec("Index", eth(100)))
	if err != nil {
		t.Fatal(err)
	}
	nid := res.Thread.NegotiationID
	before := worker.waitState(nid, negotiation.StateProposed)
	wait := runAct(func() error { _, err := worker.Accept(context.Background(), nid); return err })
	p := pending(t, worker, 1)[0]
	if _, err := worker.Gate().DenyApproval(t.Context(), p.Request.RequestID, "bad\x00reason"); !errors.Is(err, node.ErrBadArgument) {
		t.Fatalf("a reason with a NUL: %v", err)
	}
	r, err := worker.Gate().DenyApproval(t.Context(), p.Request.RequestID, "not at this price")
	if err != nil {
		t.Fatal(err)
	}
	if r.Approved() || r.Assertion != nil || r.Authenticator != nil || r.DeniedReason != "not at this price" {
		t.Fatalf("denied receipt %+v", r)
	}
	if err := wait(); !errors.Is(err, node.ErrApprovalDenied) {
		t.Fatalf("a denied accept: %v", err)
	}
	after, _ := worker.Thread(nid)
	if len(after.Log) != len(before.Log) || after.State != negotiation.StateProposed {
		t.Fatalf("the thread changed: %+v", after)
	}
	if k := kinds(t, worker, nid); k["envelope.sent"] != 0 || k["outbox.queued"] != 0 {
		t.Fatalf("something was sent: %v", k)
	}
	if ev := approvalEvents(t, worker, nid); strings.Join(ev, ",") != "request-created,denied" {
		t.Fatalf("approval records: %v", ev)
	}
	// Decided: neither a second denial nor an approval finds it.
	if _, err := worker.Gate().DenyApproval(t.Context(), p.Request.RequestID, ""); !errors.Is(err, node.ErrBadArgument) {
		t.Fatalf("a second denial: %v", err)
	}
}

// TestReceiptRefusedForAnotherAct: a receipt authorises one act once. The
// same receipt presented again (also after a restart) is already_consumed,
// for other arguments action_mismatch, after its window approval_expired;
// an approval after the request's window is refused. No refused act runs.
func TestReceiptRefusedForAnotherAct(t *testing.T) {
	clk := &skewClock{}
	w := newWorld(t, false)
	n := w.add("principal", withPasskeys(), withClock(clk))
	key := enrol(t, n, "automation")
	const nid = "0b7e4a4e-3c2d-4f5a-9b8c-1d2e3f4a5b6c"
	argsX := map[string]any{"taskId": "0x01", "amount": "1000"}
	argsY := map[string]any{"taskId": "0x01", "amount": "1001"}
	var acts atomic.Int32
	act := func(args map[string]any) func() error {
		return runAct(func() error {
			err := n.AuthorizeForTest(context.Background(), node.ActFundEscrow, nid, args)
			if err == nil {
				acts.Add(1)
			}
			return err
		})
	}
	waitFor := func(k int) node.PendingApproval {
		t.Helper()
		ps := pending(t, n, k)
		return ps[len(ps)-1]
	}

	first := act(argsX)
	receipt := approveWith(t, n, key, waitFor(1).Request.RequestID)
	if err := first(); err != nil || acts.Load() != 1 {
		t.Fatalf("the approved act: %v (%d acts)", err, acts.Load())
	}
	for _, tc := range []struct {
		name  string
		args  map[string]any
		setup func()
		want  node.Code
	}{
		{"replay", argsX, nil, node.CodeAlreadyConsumed},
		{"other arguments", argsY, nil, node.Code(approval.CodeActionMismatch)},
		{"replay after a restart", argsX, func() { n.restart() }, node.CodeAlreadyConsumed},
		{"after its window", argsX, func() { clk.advance(11 * time.Minute) }, node.CodeApprovalExpired},
	} {
		if tc.setup != nil {
			tc.setup()
		}
		done := act(tc.args)
		p := waitFor(1)
		if err := n.PresentForTest(p.Request.RequestID, receipt); err != nil {
			t.Fatal(err)
		}
		if err := done(); node.CodeOf(err) != tc.want {
			t.Fatalf("%s: %v, want %s", tc.name, err, tc.want)
		}
		if acts.Load() != 1 {
			t.Fatalf("%s: a refused receipt acted", tc.name)
		}
	}

	// An approval after the request's window is refused; the act keeps
	// waiting until its own window ends on the machine's clock.
	ctx, cancel := context.WithCancel(context.Background())
	late := runAct(func() error { return n.AuthorizeForTest(ctx, node.ActFundEscrow, nid, argsX) })
	p := waitFor(1)
	resp := assertion(t, n, key, p.Request.RequestID)
	clk.advance(11 * time.Minute)
	if _, err := n.Gate().FinishApproval(t.Context(), p.Request.RequestID, resp); !errors.Is(err, node.ErrApprovalExpired) {
		t.Fatalf("an approval after the window: %v", err)
	}
	cancel()
	if err := late(); !errors.Is(err, node.ErrApprovalExpired) || acts.Load() != 1 {
		t.Fatalf("the cancelled act: %v (%d acts)", err, acts.Load())
	}
}

// TestUndecidedRequestExpires: a request nobody decides expires with its
// window (the protocol's shortest, 5 s); the act fails with
// approval_expired and the trail records it.
func TestUndecidedRequestExpires(t *testing.T) {
	w := newWorld(t, false)
	n := w.add("principal", withPasskeys(), func(n *tnode) { n.cfg.ApprovalTTL = approval.MinTTL })
	const nid = "0b7e4a4e-3c2d-4f5a-9b8c-1d2e3f4a5b6c"
	if err := n.AuthorizeForTest(t.Context(), node.ActOpenDispute, nid, map[string]any{"bond": "1"}); !errors.Is(err, node.ErrApprovalExpired) {
		t.Fatalf("an undecided request: %v", err)
	}
	if ev := approvalEvents(t, n, nid); strings.Join(ev, ",") != "request-created,expired" {
		t.Fatalf("approval records: %v", ev)
	}
	if left := n.Gate().PendingApprovals(); len(left) != 0 {
		t.Fatalf("an expired request is still pending: %+v", left)
	}
}

// TestConcurrentConsumptionActsOnce: one receipt presented to 100 acts of
// the same action at once authorises exactly one; the other 99 get
// already_consumed.
func TestConcurrentConsumptionActsOnce(t *testing.T) {
	w := newWorld(t, false)
	n := w.add("principal", withPasskeys())
	key := enrol(t, n, "automation")
	const nid = "0b7e4a4e-3c2d-4f5a-9b8c-1d2e3f4a5b6c"
	args := map[string]any{"taskId": "0x02", "amount": "5"}
	const k = 100
	errs := make([]func() error, k)
	for i := range k {
		errs[i] = runAct(func() error { return n.AuthorizeForTest(context.Background(), node.ActFundEscrow, nid, args) })
	}
	ps := pending(t, n, k)
	r, err := n.ApproveOnlyForTest(t.Context(), ps[0].Request.RequestID, assertion(t, n, key, ps[0].Request.RequestID))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, p := range ps {
		wg.Go(func() {
			<-start
			if err := n.PresentForTest(p.Request.RequestID, r); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	var ok, consumed int
	for _, e := range errs {
		switch err := e(); {
		case err == nil:
			ok++
		case errors.Is(err, node.ErrAlreadyConsumed):
			consumed++
		default:
			t.Errorf("unexpected refusal: %v", err)
		}
	}
	if ok != 1 || consumed != k-1 {
		t.Fatalf("%d acts authorised, %d already_consumed; want 1 and %d", ok, consumed, k-1)
	}
}

// TestFurtherPasskeyNeedsApproval: the first passkey is enrolled with the
// one-time token; a token enrols nothing once a passkey exists; a
// further passkey waits for an existing one's approval of its very
// ceremony, and then approves acts itself.
func TestFurtherPasskeyNeedsApproval(t *testing.T) {
	w := newWorld(t, false)
	n := w.add("principal", withPasskeys())
	ctx := t.Context()
	if _, _, err := n.Gate().BeginPasskey(ctx, "", "laptop"); node.CodeOf(err) != node.Code(approval.CodeNotAuthorized) {
		t.Fatalf("a first passkey without a token: %v", err)
	}
	if _, _, err := n.Gate().BeginPasskey(ctx, "parley-enrol-00", "laptop"); node.CodeOf(err) != node.Code(approval.CodeTokenInvalid) {
		t.Fatalf("a token never issued: %v", err)
	}
	token, err := node.IssueEnrolToken(ctx, n.dir, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := n.Gate().BeginPasskey(ctx, token+"0", "laptop"); node.CodeOf(err) != node.Code(approval.CodeTokenInvalid) {
		t.Fatalf("a wrong token: %v", err)
	}
	first := register(t, n, node.PasskeyOptions{Token: token, Label: "first", Software: true})
	if _, _, err := n.Gate().BeginPasskey(ctx, token, "again"); node.CodeOf(err) != node.Code(approval.CodeNotAuthorized) {
		t.Fatalf("the token after the first passkey: %v", err)
	}
	// A new token from the data directory enrols nothing either while a
	// passkey exists.
	later, err := node.IssueEnrolToken(ctx, n.dir, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := n.Gate().BeginPasskey(ctx, later, "again"); node.CodeOf(err) != node.Code(approval.CodeNotAuthorized) {
		t.Fatalf("a new token while a passkey exists: %v", err)
	}

	_, sess, err := n.Gate().BeginPasskeyWith(ctx, node.PasskeyOptions{Label: "second", Software: true})
	var pr *node.PendingRegistration
	if !errors.Is(err, node.ErrApprovalPending) || !errors.As(err, &pr) || pr.Session != sess || !strings.HasPrefix(sess, node.RegSessionPrefix) {
		t.Fatalf("a further passkey: %v", err)
	}
	p, err := n.Gate().PendingApproval(pr.RequestID)
	if err != nil || p.Act != node.ActRegisterPasskey || p.Request.Action.Tool != approval.ToolPasskeyRegister || !strings.Contains(p.Title, "«second»") {
		t.Fatalf("the registration's request: %+v %v", p, err)
	}
	if _, _, err := n.Gate().BeginPasskey(ctx, sess, ""); !errors.Is(err, node.ErrApprovalPending) {
		t.Fatalf("going on before the approval: %v", err)
	}
	if _, err := n.Gate().FinishPasskey(ctx, sess, []byte(`{}`)); !errors.Is(err, node.ErrApprovalPending) {
		t.Fatalf("finishing before the approval: %v", err)
	}
	approveWith(t, n, first, pr.RequestID)
	cfg := n.Gate().WebAuthnConfig()
	second, err := approval.NewSoftwareKey(cfg, cfg.Origins[0])
	if err != nil {
		t.Fatal(err)
	}
	creation, again, err := n.Gate().BeginPasskey(ctx, sess, "")
	if err != nil || again != sess {
		t.Fatalf("going on after the approval: %v", err)
	}
	resp, err := second.Create(creation)
	if err != nil {
		t.Fatal(err)
	}
	cred, err := n.Gate().FinishPasskey(ctx, sess, resp)
	if err != nil || cred.Label != "second" || !cred.Software {
		t.Fatalf("the second passkey: %+v %v", cred, err)
	}
	creds, err := n.Gate().Passkeys(ctx)
	if err != nil || len(creds) != 2 || creds[0].Label != "first" || creds[1].Label != "second" {
		t.Fatalf("passkeys %+v %v", creds, err)
	}
	trail, err := n.Gate().AuditTrail(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, e := range trail {
		if e.Event == approval.EventCredentialRegistered {
			methods = append(methods, e.Method)
		}
	}
	if strings.Join(methods, ",") != approval.MethodApprovedAct+","+approval.MethodEnrolToken {
		t.Fatalf("registrations audited as %v", methods)
	}
	// The second passkey approves an act.
	const nid = "0b7e4a4e-3c2d-4f5a-9b8c-1d2e3f4a5b6c"
	done := runAct(func() error {
		return n.AuthorizeForTest(context.Background(), node.ActRule, nid, map[string]any{"ruling": "7001"})
	})
	p = pending(t, n, 1)[0]
	if !strings.Contains(strings.Join(linesOf(p), "\n"), "the worker gets 70.00% of the escrow") {
		t.Fatalf("the ruling in plain words: %v", p.Lines)
	}
	approveWith(t, n, second, p.Request.RequestID)
	if err := done(); err != nil {
		t.Fatal(err)
	}
}

func linesOf(p node.PendingApproval) []string {
	out := make([]string, len(p.Lines))
	for i, l := range p.Lines {
		out[i] = l.Label + ": " + l.Value
	}
	return out
}
