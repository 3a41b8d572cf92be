package node_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// TestEnrolTokenFromDataDir: the first passkey's token is made in the
// data directory while the node runs (the Badger store it holds locked is
// not touched) and read from its 0600 file; the registration redeems it
// once, durably: its text file goes, and after a restart the same token
// is token_used. A token made meanwhile replaces an earlier one, which
// then enrols nothing.
func TestEnrolTokenFromDataDir(t *testing.T) {
	w := newWorld(t, false)
	n := w.add("principal", withPasskeys())
	ctx := t.Context()
	old, err := node.IssueEnrolToken(ctx, n.dir, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	token, err := node.IssueEnrolToken(ctx, n.dir, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(n.dir, node.EnrolTokenFileName)
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the token's file: %v %v", fi, err)
	}
	if got, _, err := node.EnrolTokenOf(n.dir, time.Now()); err != nil || got != token {
		t.Fatalf("the data directory's token: %q %v", got, err)
	}
	if _, _, err := n.Gate().BeginPasskey(ctx, old, "laptop"); node.CodeOf(err) != node.Code(approval.CodeTokenInvalid) {
		t.Fatalf("a replaced token: %v", err)
	}
	register(t, n, node.PasskeyOptions{Token: token, Label: "first", Software: true})
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the redeemed token's file is still there: %v", err)
	}
	n.restart()
	creds, err := n.Gate().Passkeys(ctx)
	if err != nil || len(creds) != 1 {
		t.Fatalf("passkeys after the restart: %+v %v", creds, err)
	}
	if got, _, err := node.EnrolTokenOf(n.dir, time.Now()); err != nil || got != "" {
		t.Fatalf("the redeemed token is offered after a restart: %q %v", got, err)
	}
	if _, _, err := n.Gate().BeginPasskey(ctx, token, "again"); node.CodeOf(err) != node.Code(approval.CodeNotAuthorized) {
		t.Fatalf("the token after the first passkey, after a restart: %v", err)
	}
}

// pageAnswer answers nid's pending question at n as the principal's
// pages do and waits until the answer is sealed (n's gate decides the
// confirm_answer request), returning the room then.
func pageAnswer(t testing.TB, n *tnode, nid, answer string) node.RoomView {
	t.Helper()
	before, err := n.Room(t.Context(), nid)
	if err != nil {
		t.Fatal(err)
	}
	p, err := n.AnswerOnPage(t.Context(), nid, answer)
	if err != nil {
		t.Fatal(err)
	}
	if p.Act != node.ActConfirmAnswer || !strings.Contains(p.Title, answer) {
		t.Fatalf("the page's request: %+v", p)
	}
	var room node.RoomView
	eventually(t, "the page's answer sealed", func() bool {
		room, err = n.Room(t.Context(), nid)
		return err == nil && len(room.Answers) > len(before.Answers)
	})
	return room
}

// passkeyPXPPair is newPXPPair with a poster whose principal decides
// through a passkey (returned): its default card, sent through the API,
// is sealed once that passkey confirmed it.
func passkeyPXPPair(t *testing.T) (*pxpPair, *approval.SoftwareKey) {
	t.Helper()
	w := newWorld(t, false)
	p := &pxpPair{worker: w.add("worker")}
	p.poster = w.add("poster", withBootstrap(p.worker), withPasskeys())
	connect(t, p.poster, p.worker)
	key := enrol(t, p.poster, "laptop")
	var pc node.CardInfo
	sealed := runAct(func() (err error) {
		pc, err = p.poster.SealDefaultCard(t.Context(), []byte(pxpPosterCard), negotiation.ViaAPI)
		return err
	})
	approveWith(t, p.poster, key, pending(t, p.poster, 1)[0].Request.RequestID)
	if err := sealed(); err != nil {
		t.Fatal(err)
	}
	wc, err := p.worker.SealDefaultCard(t.Context(), []byte(pxpWorkerCard), negotiation.ViaAPI)
	if err != nil {
		t.Fatal(err)
	}
	p.posterCard, p.workerCard = pc.Hash, wc.Hash
	res, err := p.poster.ProposeTask(t.Context(), p.worker.Address(), spec("Translate the user guide", eth(300), eth(200)))
	if err != nil {
		t.Fatal(err)
	}
	p.nid = res.Thread.NegotiationID
	p.worker.waitState(p.nid, negotiation.StateProposed)
	return p, key
}

// TestViaNeverDefaultsToThePrincipal: with the principal's passkeys, an
// answer that arrives through the API (via api) or an agent (via mcp) is
// sealed unconfirmed and the acceptance resting on it is refused with
// answer_unconfirmed until a passkey confirms it; a caller claiming via
// web is refused (via_web_refused) and seals nothing; only the pages'
// answer (AnswerOnPage) is via web, sealed only after a passkey approved
// a request holding the question and that exact text, and refused while
// the request waits, is denied, or names a question no longer asked.
func TestViaNeverDefaultsToThePrincipal(t *testing.T) {
	p, key := passkeyPXPPair(t)
	if _, err := p.worker.Counter(t.Context(), p.nid, counter06(node.PXPFields{})); err != nil {
		t.Fatal(err)
	}
	p.poster.waitState(p.nid, negotiation.StateCountered)
	if _, err := p.poster.Accept(t.Context(), p.nid); node.CodeOf(err) != node.Code(negotiation.CodeEscalationRequired) {
		t.Fatalf("accept = %v", err)
	}
	head := p.poster.Ledger().Head()
	for _, f := range []func() error{
		func() error {
			_, err := p.poster.AnswerEscalation(t.Context(), p.nid, "Yes.", negotiation.ViaWeb)
			return err
		},
		func() error { _, err := p.poster.Answer(t.Context(), p.nid, "Yes.", negotiation.ViaWeb); return err },
		func() error {
			_, err := p.poster.SealDefaultCard(t.Context(), []byte(pxpPosterCard), negotiation.ViaWeb)
			return err
		},
	} {
		if err := f(); node.CodeOf(err) != node.CodeViaWebRefused {
			t.Fatalf("via web outside the pages = %v", err)
		}
	}
	if wrote := actWrote(t, p.poster, head); wrote != "" || len(p.poster.Gate().PendingApprovals()) != 0 {
		t.Fatalf("a refused via web wrote %q", wrote)
	}

	// The page's answer: sealed only once the passkey approved its exact
	// text; a denial seals nothing.
	pa, err := p.poster.AnswerOnPage(t.Context(), p.nid, "No, 0.55 ETH at most.")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Join(linesOf(pa), "\n")
	for _, want := range []string{"Question: " + p.poster.Escalations()[0].Question, "Answer: No, 0.55 ETH at most.", "How it arrived: typed on your pages"} {
		if !strings.Contains(lines, want) {
			t.Fatalf("the page's request lacks %q:\n%s", want, lines)
		}
	}
	if room, _ := p.poster.Room(t.Context(), p.nid); len(room.Answers) != 0 {
		t.Fatal("the page's answer was sealed before the passkey")
	}
	if _, err := p.poster.Gate().DenyApproval(t.Context(), pa.Request.RequestID, ""); err != nil {
		t.Fatal(err)
	}
	// Via the API: sealed at once but unconfirmed; the acceptance waits.
	room, err := p.poster.Answer(t.Context(), p.nid, "Yes, up to 0.6 ETH for this task.", negotiation.ViaAPI)
	if err != nil {
		t.Fatal(err)
	}
	if len(room.Answers) != 1 || room.Answers[0].Confirmed || room.Answers[0].Via != negotiation.ViaAPI {
		t.Fatalf("an answer via api: %+v", room.Answers)
	}
	if _, err := p.poster.Accept(t.Context(), p.nid); node.CodeOf(err) != node.Code(negotiation.CodeAnswerUnconfirmed) {
		t.Fatalf("accepting on an unconfirmed answer via api = %v", err)
	}
	cp := pending(t, p.poster, 1)[0]
	if cp.Act != node.ActConfirmAnswer || !strings.Contains(strings.Join(linesOf(cp), "\n"), "How it arrived: through the node's API") {
		t.Fatalf("the confirmation request: %+v", cp)
	}
	approveWith(t, p.poster, key, cp.Request.RequestID)
	eventually(t, "the confirmation", func() bool {
		r, _ := p.poster.Room(t.Context(), p.nid)
		return len(r.Answers) == 1 && r.Answers[0].Confirmed
	})
	accepted := runAct(func() error { _, err := p.poster.Accept(t.Context(), p.nid); return err })
	approveWith(t, p.poster, key, pending(t, p.poster, 1)[0].Request.RequestID)
	if err := accepted(); err != nil {
		t.Fatalf("accepting on the confirmed answer: %v", err)
	}
}
