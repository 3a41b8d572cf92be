package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/parleynet/parley/node"
)

// TestBrowserDevice drives /device and /agents in headless Chromium with
// the DevTools virtual authenticator: the principal registers a passkey,
// types the agent's user code in lower case without its dash, reads the
// grant in words and approves it by clicking (the authenticator signs the
// intent hash), and the node goes on with the grant; a second grant,
// opened by its verification_uri_complete, is denied; a code that
// matches nothing says so; on /agents a grant and then an agent are
// revoked by clicking. No page loads anything from elsewhere or breaks
// its Content-Security-Policy.
func TestBrowserDevice(t *testing.T) {
	exec := chromium(t)
	book := newFakeBook()
	s := newSite(t, nodeSpec{name: "principal", web: true, agents: book, grantTTL: 7 * 24 * time.Hour})
	token, err := node.IssueEnrolToken(t.Context(), s.Config().DataDir, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, exec, s.origin)
	b.do("the first passkey",
		chromedp.Navigate(s.origin+"/passkeys"),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SetValue(chromedp.ID("token"), token),
		chromedp.SendKeys(chromedp.ID("label"), "laptop"),
		chromedp.Click(chromedp.ID("register")),
		chromedp.WaitVisible(chromedp.ID("passkeys")),
	)

	// Enter the code, read the grant, approve it with the passkey.
	g := askGrant(t, s, agentA, agentCode, grantDetails(testNID, false, "negotiation.read", "offer.respond"))
	b.do("the device page",
		chromedp.Navigate(s.origin+"/"),
		chromedp.WaitVisible(chromedp.CSS(`a[href="/device"]`)),
		chromedp.Click(chromedp.CSS(`a[href="/device"]`)),
		chromedp.WaitVisible(chromedp.ID("user_code")),
	)
	b.clean("device page")
	b.shot("device-1-code")
	b.do("entering the code",
		chromedp.SendKeys(chromedp.ID("user_code"), "wdjbmjht"),
		chromedp.Click(chromedp.ID("lookup")),
		chromedp.WaitVisible(chromedp.ID("approve")),
	)
	b.clean("the grant's page")
	b.shot("device-2-grant")
	grant := b.text("#grant")
	for _, want := range []string{
		agentA, agentCode, "calls itself «" + hostile + "»: the agent's own claim",
		"Read negotiation " + testNID, "Answer offers in negotiation " + testNID,
		"accepting signs a settlement only after your own passkey approves it",
		"for 7 days once you approve it", agentJKT,
	} {
		if !strings.Contains(grant, want) {
			t.Errorf("the grant's page does not show %q:\n%s", want, grant)
		}
	}
	if isClosed(g.decided) {
		t.Fatal("the grant was decided before the passkey")
	}
	b.do("approving", chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.CSS("#status.ok, #status.err")))
	if st := b.text("#status"); !strings.HasPrefix(st, "Approved") {
		t.Fatalf("after approving, the page says %q", st)
	}
	b.do("the buttons gone after the decision", chromedp.WaitNotVisible(chromedp.ID("approve")))
	b.clean("the grant's page after approving")
	b.shot("device-3-approved")
	if !closed(g.granted) {
		t.Fatal("the node did not go on with the approved grant")
	}
	if n := len(s.PendingApprovals()); n != 0 {
		t.Fatalf("%d approvals pending after the approval", n)
	}

	// Open a second grant by its complete verification URI and deny it.
	d := askGrant(t, s, agentB, "BCDF-GHJK", grantDetails(testNID, true, "negotiation.read"))
	b.do("the second grant",
		chromedp.Navigate(s.origin+"/device?user_code=BCDF-GHJK"),
		chromedp.WaitVisible(chromedp.ID("deny")),
		chromedp.SendKeys(chromedp.ID("reason"), "I do not know this agent"),
	)
	if grant := b.text("#grant"); !strings.Contains(grant, "Let your node ask the agent closed questions") || strings.Contains(grant, "calls itself") {
		t.Fatalf("the second grant's page:\n%s", grant)
	}
	b.do("denying", chromedp.Click(chromedp.ID("deny")), chromedp.WaitVisible(chromedp.CSS("#status.denied, #status.err")))
	if st := b.text("#status"); !strings.HasPrefix(st, "Denied") {
		t.Fatalf("after denying, the page says %q", st)
	}
	b.clean("the second grant's page after denying")
	b.shot("device-4-denied")
	if !closed(d.decided) || isClosed(d.granted) {
		t.Fatal("the denied grant was not decided, or was granted")
	}

	// A code that matches nothing.
	b.do("a wrong code",
		chromedp.Navigate(s.origin+"/device"),
		chromedp.WaitVisible(chromedp.ID("user_code")),
		chromedp.SendKeys(chromedp.ID("user_code"), "BCDF-GHJK"),
		chromedp.Click(chromedp.ID("lookup")),
		chromedp.WaitVisible(chromedp.ID("device-problem")),
	)
	if p := b.text("#device-problem"); !strings.Contains(p, "No agent waits for your approval with this code") {
		t.Fatalf("a wrong code: %q", p)
	}
	b.clean("device page with a wrong code")
	b.shot("device-5-wrong-code")

	// Revoke one grant, then an agent, on /agents.
	b.do("the agents page",
		chromedp.Navigate(s.origin+"/agents"),
		chromedp.WaitVisible(chromedp.CSS(`button[data-revoke-grant="`+grantA1+`"]`)),
	)
	b.clean("agents page")
	b.shot("agents-1")
	b.do("revoking a grant",
		chromedp.Click(chromedp.CSS(`button[data-revoke-grant="`+grantA1+`"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`button[data-revoke-grant="`+grantA1+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-revoke-client="`+agentB+`"]`)),
	)
	if book.grantActive(grantA1) || !book.grantActive(grantB1) {
		t.Fatal("the book after revoking one grant")
	}
	if st := b.text(`tr[data-grant="` + grantA1 + `"] .grant-state`); !strings.HasPrefix(st, "revoked") {
		t.Fatalf("the revoked grant's state: %q", st)
	}
	b.do("revoking an agent",
		chromedp.Click(chromedp.CSS(`button[data-revoke-client="`+agentB+`"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`button[data-revoke-client="`+agentB+`"]`)),
	)
	b.clean("agents page after revoking")
	b.shot("agents-2-revoked")
	if book.grantActive(grantB1) {
		t.Fatal("the agent's grant is in force after its revocation")
	}
	if got := book.revoked(); len(got) != 2 || got[0] != "grant "+grantA1+" by web" || got[1] != "client "+agentB+" by web" {
		t.Fatalf("the book was asked %q", got)
	}
}
