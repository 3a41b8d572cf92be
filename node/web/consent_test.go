package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/parleynet/parley/node"
)

// TestConsentPage: the counterparties page lists a counterparty with its
// state and counts; its endpoint changes the state (recorded in the
// ledger with via web), under the pages' rules: the Host and the Origin
// are checked, the body is strict JSON, and a bad state or address
// changes nothing.
func TestConsentPage(t *testing.T) {
	poster := newSite(t, nodeSpec{name: "poster", gate: node.AutoApprove("test driver")})
	worker := newSite(t, nodeSpec{name: "worker", bootstrap: []*site{poster}, web: true})
	connect(t, poster, worker)
	proposal(t, poster, worker, "Translate the user guide", eth(300))
	pa := poster.Address().String()

	w := worker.call(t, req{path: "/consent"})
	body := w.Body.String()
	if w.Code != http.StatusOK || !strings.Contains(body, pa) || !strings.Contains(body, `<td class="consent-state">unknown</td>`) ||
		!strings.Contains(w.Header().Get("Content-Security-Policy"), "script-src 'self'") {
		t.Fatalf("GET /consent: %d\n%s", w.Code, body)
	}
	path := "/api/consent/" + strings.ToLower(pa)
	for name, r := range map[string]req{
		"no origin":    {method: http.MethodPost, path: path, body: `{"state":"denied"}`, origin: "-"},
		"cross origin": {method: http.MethodPost, path: path, body: `{"state":"denied"}`, origin: "http://evil.example"},
		"a form":       {method: http.MethodPost, path: path, body: `state=denied`, contentType: "application/x-www-form-urlencoded"},
		"another host": {method: http.MethodPost, path: path, body: `{"state":"denied"}`, host: "evil.example"},
		"bad state":    {method: http.MethodPost, path: path, body: `{"state":"blocked"}`},
		"extra member": {method: http.MethodPost, path: path, body: `{"state":"denied","x":1}`},
		"bad address":  {method: http.MethodPost, path: "/api/consent/0x12", body: `{"state":"denied"}`},
	} {
		if w := worker.call(t, r); w.Code < 400 {
			t.Fatalf("%s: %d %s", name, w.Code, w.Body.String())
		}
	}
	if v, _ := worker.ConsentBook().Of(poster.Address()); v.State != node.ConsentUnknown {
		t.Fatalf("a refused request changed the state: %+v", v)
	}
	var ans struct{ Address, State string }
	if st := worker.post(t, path, map[string]string{"state": "denied"}, &ans); st != http.StatusOK || ans.State != "denied" || ans.Address != pa {
		t.Fatalf("deny: %d %+v", st, ans)
	}
	v, _ := worker.ConsentBook().Of(poster.Address())
	if v.State != node.ConsentDenied || v.Via != node.ConsentViaWeb {
		t.Fatalf("after deny: %+v", v)
	}
	var b struct {
		Via string `json:"via"`
	}
	for e, err := range worker.Ledger().ByKind(t.Context(), node.KindConsent) {
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(e.Body, &b); err != nil || b.Via != "web" {
			t.Fatalf("the consent entry: %s %v", e.Body, err)
		}
	}
	if w := worker.call(t, req{path: "/consent"}); !strings.Contains(w.Body.String(), `<td class="consent-state">denied</td>`) {
		t.Fatalf("GET /consent after deny:\n%s", w.Body.String())
	}
}

// TestBrowserConsent: in a real browser, the principal denies a
// counterparty with the row's button and allows it again by typing its
// address; the page's script runs under the Content-Security-Policy.
func TestBrowserConsent(t *testing.T) {
	exec := chromium(t)
	poster := newSite(t, nodeSpec{name: "poster", gate: node.AutoApprove("test driver")})
	worker := newSite(t, nodeSpec{name: "worker", bootstrap: []*site{poster}, web: true})
	connect(t, poster, worker)
	proposal(t, poster, worker, "Translate the user guide", eth(300))
	pa := poster.Address().String()
	b := newBrowser(t, exec, worker.origin)
	row := `tr[data-address="` + pa + `"]`
	b.do("the counterparties page", chromedp.Navigate(worker.origin+"/consent"), chromedp.WaitVisible(row))
	b.clean("counterparties page")
	b.shot("consent-1-unknown")
	b.do("deny", chromedp.Click(row+` button[data-consent="denied"]`), chromedp.WaitNotPresent(row+` button[data-consent="denied"]`))
	if s := b.text(row + " .consent-state"); s != "denied" {
		t.Fatalf("the row after deny: %q", s)
	}
	if v, _ := worker.ConsentBook().Of(poster.Address()); v.State != node.ConsentDenied {
		t.Fatalf("the node after deny: %+v", v)
	}
	b.do("allow by address",
		chromedp.SendKeys(chromedp.ID("consent-address"), strings.ToLower(pa)),
		chromedp.Click(`button[data-consent-set="allowed"]`),
		chromedp.WaitNotPresent(row+` button[data-consent="allowed"]`))
	b.clean("counterparties page after allow")
	b.shot("consent-2-allowed")
	if v, _ := worker.ConsentBook().Of(poster.Address()); v.State != node.ConsentAllowed || v.Via != node.ConsentViaWeb {
		t.Fatalf("the node after allow: %+v", v)
	}
}
