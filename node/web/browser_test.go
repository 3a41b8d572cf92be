package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// chromiumPath is where Debian's chromium package puts the browser itself
// (/usr/bin/chromium is a wrapper script). PARLEY_CHROMIUM overrides it.
const chromiumPath = "/usr/lib/chromium/chromium"

// chromium returns the browser to run. A missing browser fails the test,
// naming the script that installs it; under -short it skips instead.
func chromium(t *testing.T) string {
	t.Helper()
	p := os.Getenv("PARLEY_CHROMIUM")
	if p == "" {
		p = chromiumPath
	}
	if fi, err := os.Stat(p); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		msg := fmt.Sprintf("Chromium is not installed at %s: run scripts/install-chromium.sh (make test runs it), or set PARLEY_CHROMIUM", p)
		if testing.Short() {
			t.Skip(msg + " (skipped under -short)")
		}
		t.Fatal(msg)
	}
	return p
}

// artifactsDir is where the screenshots go: $PARLEY_ARTIFACTS/browser, or
// artifacts/browser in the repository (ignored by git).
func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("PARLEY_ARTIFACTS")
	if dir == "" {
		root, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
			t.Fatalf("the repository root %s has no go.mod: set PARLEY_ARTIFACTS", root)
		}
		dir = filepath.Join(root, "artifacts")
	}
	dir = filepath.Join(dir, "browser")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browser is a headless Chromium with a DevTools virtual authenticator
// (CTAP2, internal, resident keys, user verification that succeeds, user
// presence simulated), driven over the DevTools protocol.
type browser struct {
	t      *testing.T
	ctx    context.Context
	origin string
	shots  string
	auth   webauthn.AuthenticatorID

	mu       sync.Mutex
	foreign  []string // requests to anywhere but the origin
	problems []string // console errors and uncaught exceptions
}

// violations is set up in every document before its own scripts run: it
// collects the page's Content-Security-Policy violations.
const violations = `window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));`

func newBrowser(t *testing.T, exec, origin string) *browser {
	t.Helper()
	b := &browser{t: t, origin: origin, shots: artifactsDir(t)}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exec),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1100, 900),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(b.listen))
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	b.ctx = ctx
	// The first run starts the browser: no timeout on it (it would stop
	// the browser), the test's own deadline bounds it.
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: violations}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, tg, webauthn.Enable, webauthn.EnableParams{}); err != nil {
			return err
		}
		// Go's zero values would send false: every option is explicit.
		r, err := cdp.Call(ctx, tg, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
			Options: &webauthn.VirtualAuthenticatorOptions{
				Protocol:                    webauthn.AuthenticatorProtocolCtap2,
				Transport:                   webauthn.AuthenticatorTransportInternal,
				HasResidentKey:              true,
				HasUserVerification:         true,
				IsUserVerified:              true,
				AutomaticPresenceSimulation: true,
			},
		})
		if err != nil {
			return err
		}
		b.auth = r.AuthenticatorID
		return nil
	}))
	if err != nil {
		t.Fatalf("starting Chromium with a virtual authenticator: %v", err)
	}
	return b
}

// listen records requests that leave the origin, console errors and
// uncaught exceptions.
func (b *browser) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		u := e.Request.URL
		if u != b.origin && !strings.HasPrefix(u, b.origin+"/") {
			b.foreign = append(b.foreign, u)
		}
	case *runtime.EventExceptionThrown:
		d := e.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		b.problems = append(b.problems, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, msg))
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError {
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, string(a.Value))
			}
			b.problems = append(b.problems, "console.error: "+strings.Join(parts, " "))
		}
	}
}

// do runs the steps, each run bounded by a minute.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// text returns the text of the element sel.
func (b *browser) text(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// clean fails the test if the current page violated its
// Content-Security-Policy, loaded anything from elsewhere, logged an error
// or threw.
func (b *browser) clean(what string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	csp, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__csp`))
	if err != nil {
		b.t.Fatalf("%s: reading CSP violations: %v", what, err)
	}
	if len(csp) > 0 {
		b.t.Errorf("%s: Content-Security-Policy violations: %q", what, csp)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.foreign) > 0 {
		b.t.Errorf("%s: requests beyond %s: %q", what, b.origin, b.foreign)
	}
	if len(b.problems) > 0 {
		b.t.Errorf("%s: script problems: %q", what, b.problems)
	}
	b.foreign, b.problems = nil, nil
}

// shot saves a full-page PNG of the current page as <name>.png.
func (b *browser) shot(name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	p := filepath.Join(b.shots, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", p)
}

// credentials returns the virtual authenticator's credentials.
func (b *browser) credentials() []*webauthn.Credential {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	r, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (webauthn.GetCredentialsResult, error) {
		return cdp.Call(ctx, tg, webauthn.GetCredentials, webauthn.GetCredentialsParams{AuthenticatorID: b.auth})
	})
	if err != nil {
		b.t.Fatalf("the authenticator's credentials: %v", err)
	}
	return r.Credentials
}

// wait returns the result of an act started by accepting.
func wait(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Minute):
		t.Fatal("the act did not finish")
		return nil
	}
}

// auditOf returns the audit events of one request, oldest first.
func auditOf(t *testing.T, n *site, requestID string) []approval.EventKind {
	t.Helper()
	events, err := n.Gate().AuditTrail(t.Context(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []approval.EventKind
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].RequestID == requestID {
			out = append(out, events[i].Event)
		}
	}
	return out
}

// TestBrowser drives the principal's pages in headless Chromium with the
// DevTools virtual authenticator: the principal registers a passkey with
// the enrolment token, approves the worker's signature of a settlement by
// clicking (the authenticator signs the intent hash) and the node then
// signs and sends its acceptance; a second acceptance is denied with a
// reason, and the node signs and sends nothing. Every page is
// screenshotted; none loads anything from elsewhere or breaks its
// Content-Security-Policy.
func TestBrowser(t *testing.T) {
	exec := chromium(t)
	poster := newSite(t, nodeSpec{name: "poster", gate: node.AutoApprove("test driver")})
	worker := newSite(t, nodeSpec{name: "worker", bootstrap: []*site{poster}, web: true})
	connect(t, poster, worker)
	token, err := node.IssueEnrolToken(t.Context(), worker.Config().DataDir, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	nid := proposal(t, poster, worker, "Translate the user guide", eth(300), eth(200))

	start := time.Now()
	b := newBrowser(t, exec, worker.origin)
	started := time.Since(start)

	// The first passkey, with the one-time token.
	b.do("the enrolment form",
		chromedp.Navigate(worker.origin+"/passkeys"),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SetValue(chromedp.ID("token"), token), // pasted, as a person would
		chromedp.SendKeys(chromedp.ID("label"), "laptop"),
	)
	b.clean("passkeys page")
	b.shot("1-passkeys-enrol")
	regStart := time.Now()
	b.do("registering", chromedp.Click(chromedp.ID("register")), chromedp.WaitVisible(chromedp.ID("passkeys")))
	registering := time.Since(regStart)
	b.clean("passkeys page after the registration")
	b.shot("2-passkeys-registered")
	creds, err := worker.Gate().Passkeys(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(creds) != 1 || creds[0].Label != "laptop" || creds[0].Software {
		t.Fatalf("the node's passkeys after the registration: %+v", creds)
	}
	if vc := b.credentials(); len(vc) != 1 || string(vc[0].CredentialID) != string(creds[0].ID()) {
		t.Fatalf("the authenticator holds %d credentials, not the one the node registered", len(vc))
	}
	if s := b.text("#passkeys tbody"); !strings.Contains(s, "laptop") || !strings.Contains(s, creds[0].Ref()) {
		t.Fatalf("the passkeys table: %q", s)
	}

	// Approve the settlement signature by clicking. The pending list is
	// open before the request exists: it shows up without a reload.
	b.do("the empty pending list", chromedp.Navigate(worker.origin+"/"), chromedp.WaitVisible(chromedp.ID("none-pending")))
	p, done := accepting(t, worker, nid)
	if p.Act != node.ActSignSettlement {
		t.Fatalf("pending act %s, want %s", p.Act, node.ActSignSettlement)
	}
	if sent(t, worker, nid) {
		t.Fatal("the worker sent its acceptance before the approval")
	}
	link := chromedp.CSS("#request-" + p.Request.RequestID + " a")
	b.do("the request in the refreshed list", chromedp.WaitVisible(link))
	b.clean("pending list")
	b.shot("3-pending")
	b.do("the approval page", chromedp.Click(link), chromedp.WaitVisible(chromedp.ID("approve")))
	b.clean("approval page")
	b.shot("4-approval")
	page := b.text("#act")
	for _, want := range []string{"Translate the user guide", "0.5 ETH (500000000000000000 wei)", poster.Address().String(), p.Request.IntentHash} {
		if !strings.Contains(page, want) {
			t.Errorf("the approval page does not show %q:\n%s", want, page)
		}
	}
	approveStart := time.Now()
	b.do("approving", chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.CSS("#status.ok, #status.err")))
	approving := time.Since(approveStart)
	wall := time.Since(start)
	if s := b.text("#status"); !strings.HasPrefix(s, "Approved") {
		t.Fatalf("after approving, the page says %q", s)
	}
	b.do("the buttons gone after the decision", chromedp.WaitNotVisible(chromedp.ID("approve")), chromedp.WaitNotVisible(chromedp.ID("deny")))
	b.clean("approval page after approving")
	b.shot("5-approved")
	if err := wait(t, done); err != nil {
		t.Fatalf("the acceptance after the approval: %v", err)
	}
	if !sent(t, worker, nid) {
		t.Fatal("the worker's thread has no acceptance after the approval")
	}
	defer func() {
		if t.Failed() {
			v, err := poster.Thread(nid)
			t.Logf("the poster's thread: %+v %v", v.Log, err)
			v, err = worker.Thread(nid)
			t.Logf("the worker's thread: %+v %v", v.Log, err)
		}
	}()
	eventually(t, "the acceptance at the poster", func() bool {
		v, err := poster.Thread(nid)
		if err != nil {
			return false
		}
		for _, e := range v.Log {
			if e.Sender == worker.Address() && e.Code == "ok" && e.Type == negotiation.TypeTaskAcceptance {
				return true
			}
		}
		return false
	})
	if got := auditOf(t, worker, p.Request.RequestID); !containsAll(got, approval.EventRequestCreated, approval.EventApproved, approval.EventConsumed) {
		t.Fatalf("audit of the approved request: %v", got)
	}
	t.Logf("register + approve in the browser: %v = browser start %v + registration %v (click to the reloaded list) + approval %v (click to the node's answer); %v from the browser's start to the approval with page loads and screenshots",
		(started + registering + approving).Round(time.Millisecond), started.Round(time.Millisecond),
		registering.Round(time.Millisecond), approving.Round(time.Millisecond), wall.Round(time.Millisecond))

	// Deny a second acceptance with a reason.
	nid2 := proposal(t, poster, worker, "Proofread the release notes", eth(120))
	p2, done2 := accepting(t, worker, nid2)
	b.do("the second approval page",
		chromedp.Navigate(worker.origin+"/approvals/"+p2.Request.RequestID),
		chromedp.WaitVisible(chromedp.ID("deny")),
		chromedp.SendKeys(chromedp.ID("reason"), "the fee is too low"),
	)
	b.shot("6-deny")
	b.do("denying", chromedp.Click(chromedp.ID("deny")), chromedp.WaitVisible(chromedp.CSS("#status.denied, #status.err")))
	if s := b.text("#status"); !strings.HasPrefix(s, "Denied") {
		t.Fatalf("after denying, the page says %q", s)
	}
	b.do("the buttons gone after the denial", chromedp.WaitNotVisible(chromedp.ID("approve")), chromedp.WaitNotVisible(chromedp.ID("deny")))
	b.clean("approval page after denying")
	b.shot("7-denied")
	if err := wait(t, done2); node.CodeOf(err) != node.CodeApprovalDenied {
		t.Fatalf("the denied acceptance returned %v, want %s", err, node.CodeApprovalDenied)
	}
	if sent(t, worker, nid2) {
		t.Fatal("the worker's thread holds an acceptance after the denial")
	}
	if got := auditOf(t, worker, p2.Request.RequestID); !containsAll(got, approval.EventRequestCreated, approval.EventDenied) || containsAll(got, approval.EventConsumed) {
		t.Fatalf("audit of the denied request: %v", got)
	}
	if v, err := poster.Thread(nid2); err != nil || len(v.Log) != 1 {
		t.Fatalf("the poster's thread of the denied acceptance: %d records, %v", len(v.Log), err)
	}
	if len(worker.Gate().PendingApprovals()) != 0 {
		t.Fatalf("requests still pending: %+v", worker.Gate().PendingApprovals())
	}

	// The pending list is empty again and the audit trail shows both.
	b.do("the pending list emptied", chromedp.Navigate(worker.origin+"/"), chromedp.WaitVisible(chromedp.ID("none-pending")))
	b.clean("empty pending list")
	b.do("the audit trail", chromedp.Navigate(worker.origin+"/audit"), chromedp.WaitVisible(chromedp.ID("audit")))
	b.clean("audit trail")
	b.shot("8-audit")
	trail := b.text("#audit")
	for _, want := range []string{"approved", "consumed", "denied", "credential-registered", "parley.settlement.sign", p.Request.IntentHash[:16], p2.Request.IntentHash[:16]} {
		if !strings.Contains(trail, want) {
			t.Errorf("the audit trail does not show %q", want)
		}
	}
	if strings.Contains(trail, "the fee is too low") {
		t.Error("the audit trail shows the denial's free text")
	}

	// The principal's own card: pasted on /card, read in full on its
	// approval page, sealed once the passkey approved it.
	const card = `{"pxp":"0","principal":{"name":"Sam"},"goal":"Win translation work.","must_haves":[{"text":"at least 0.3 ETH","rule":"total >= eth(\"0.3\")"}]}`
	b.do("the card page",
		chromedp.Navigate(worker.origin+"/card"),
		chromedp.WaitVisible(chromedp.ID("no-card")),
		chromedp.SetValue(chromedp.ID("card-json"), card),
	)
	b.clean("card page")
	b.do("reviewing the card", chromedp.Click(chromedp.ID("seal-card")), chromedp.WaitVisible(chromedp.ID("approve")))
	b.clean("the card's approval page")
	b.shot("9-card-approval")
	if page := b.text("#act"); !strings.Contains(page, "Seal your intent card for «Sam»") || !strings.Contains(page, `at least 0.3 ETH (rule: total >= eth("0.3"))`) {
		t.Fatalf("the card's approval page:\n%s", page)
	}
	if _, err := worker.DefaultCard(); node.CodeOf(err) != node.CodeNoCard {
		t.Fatalf("the card was sealed before the passkey: %v", err)
	}
	b.do("approving the card", chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.ID("current-card")))
	b.clean("card page after sealing")
	b.shot("10-card-sealed")
	if c, err := worker.DefaultCard(); err != nil || c.Principal != "Sam" {
		t.Fatalf("the card after the passkey: %+v %v", c, err)
	}
}

// containsAll reports whether every one of want is in got.
func containsAll(got []approval.EventKind, want ...approval.EventKind) bool {
	for _, w := range want {
		found := false
		for _, g := range got {
			if g == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
