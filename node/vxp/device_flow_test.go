package vxp

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
	pure "github.com/parleynet/parley/vxp"
)

const authNID = "6f1c1a86-3e55-4d4c-9b8a-2f4f3f0f4a11"

var authUserCodeRE = regexp.MustCompile(`^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$`)

// pollUntil polls dc, moving the clock by the interval before each poll,
// until the answer is not authorization_pending.
func (e *authEnv) pollUntil(a *authAgent, dc string) authAnswer {
	e.t.Helper()
	var ans authAnswer
	nodetest.Eventually(e.t, "the device authorization to be decided", func() bool {
		e.clock.Add(DefaultDeviceInterval)
		ans = e.pollDevice(a, dc)
		return ans.str("error") != string(pure.CodeAuthorizationPending)
	})
	return ans
}

// TestDeviceFlowApproved: pending, then the principal approves: the token
// carries exactly that grant, bound to the agent's key, and a revocation
// refuses it at once.
func TestDeviceFlowApproved(t *testing.T) {
	d := newAuthDecider()
	e := newAuthEnv(t, authEnvOpts{gate: d.gate()})
	a := e.agent
	// A token before any grant carries none.
	before := e.jwtBearer(a)
	c, err := e.s.authenticate(e.resourceRequest("GET", "/vxp/v1/requests", "DPoP", before.str("access_token"), a.dpop, nil))
	if err != nil || len(c.Grants) != 0 || c.ClientID != a.id || c.Subject != e.sub() {
		t.Fatalf("caller before the grant: %+v %v", c, err)
	}

	details := detailsJSON(capDetail("offer.respond", authNID), capDetail("negotiation.read", authNID))
	dev := e.device(a, details)
	if dev.status != 200 {
		t.Fatalf("device: %d %s", dev.status, dev.raw)
	}
	if !authUserCodeRE.MatchString(dev.str("user_code")) || dev.str("verification_uri") != "http://127.0.0.1:9/web/device" ||
		dev.str("verification_uri_complete") != "http://127.0.0.1:9/web/device?user_code="+dev.str("user_code") ||
		dev.body["interval"] != float64(5) || dev.body["expires_in"].(float64) <= 0 || dev.h.Get("DPoP-Nonce") == "" {
		t.Fatalf("device authAnswer: %s", dev.raw)
	}
	dc := dev.str("device_code")
	wantOAuth(t, e.pollDevice(a, dc), 400, pure.CodeAuthorizationPending)
	e.clock.Add(DefaultDeviceInterval)
	// Another client, or another DPoP key, cannot poll it.
	stranger := newAuthAgent(t, e.docs.URL+"/stranger.json")
	e.docs.serveJSON("/stranger.json", stranger.document())
	wantOAuth(t, e.pollDevice(stranger, dc), 400, pure.CodeInvalidGrant)
	thief := newAuthAgent(t, a.id)
	thief.key = a.key
	wantOAuth(t, e.pollDevice(thief, dc), 400, pure.CodeInvalidDPoPProof)

	d.ch <- true
	tok := e.pollUntil(a, dc)
	if tok.status != 200 || tok.str("token_type") != "DPoP" {
		t.Fatalf("token: %d %s", tok.status, tok.raw)
	}
	if _, ok := tok.body["relationship_id"]; ok {
		t.Fatalf("relationship_id without a relationship: %s", tok.raw)
	}
	grants := e.s.store.Grants(a.id)
	if len(grants) != 1 {
		t.Fatalf("grants: %+v", grants)
	}
	g := grants[0]
	if !strings.HasPrefix(g.ID, "grt_") || g.DPoPJKT != e.jkt(a) || g.Resource != e.s.endpoint || g.ClientName != "Test agent" ||
		g.ApprovalID == "" || g.IntentHash == "" || !g.ExpiresAt.Equal(g.GrantedAt.Add(DefaultGrantTTL)) || len(g.Details) != 2 {
		t.Fatalf("grant: %+v", g)
	}
	// The device code is spent.
	e.clock.Add(DefaultDeviceInterval)
	wantOAuth(t, e.pollDevice(a, dc), 400, pure.CodeInvalidGrant)

	at := tok.str("access_token")
	c, err = e.s.authenticate(e.resourceRequest("POST", "/vxp/v1/requests", "DPoP", at, a.dpop, nil))
	if err != nil || len(c.Grants) != 1 || c.Grants[0].ID != g.ID || c.ClientName != "Test agent" {
		t.Fatalf("caller: %+v %v", c, err)
	}
	if !pure.Covers(c.Details(), "offer.respond", authNID) || pure.Covers(c.Details(), "offer.respond", "another") {
		t.Fatalf("details: %+v", c.Details())
	}
	// A jwt-bearer token now carries the grant too; one of another DPoP
	// key does not.
	jb := e.jwtBearer(a)
	if c, err := e.s.authenticate(e.resourceRequest("GET", "/vxp/v1/requests", "DPoP", jb.str("access_token"), a.dpop, nil)); err != nil || len(c.Grants) != 1 {
		t.Fatalf("jwt-bearer after the grant: %+v %v", c, err)
	}
	other := newAuthAgent(t, a.id)
	other.key = a.key
	ob := e.jwtBearer(other)
	if c, err := e.s.authenticate(e.resourceRequest("GET", "/vxp/v1/requests", "DPoP", ob.str("access_token"), other.dpop, nil)); err != nil || len(c.Grants) != 0 {
		t.Fatalf("another key: %+v %v", c, err)
	}

	// Revocation refuses both tokens at once.
	if ok, err := e.s.store.RevokeGrant(t.Context(), g.ID, "test", e.clock.Now()); !ok || err != nil {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	for _, tk := range []string{at, jb.str("access_token")} {
		_, err := e.s.authenticate(e.resourceRequest("GET", "/vxp/v1/requests", "DPoP", tk, a.dpop, nil))
		if ae, ok := err.(*pure.AuthError); !ok || ae.Code != pure.CodeInvalidToken || ae.Reason != "grant_revoked" {
			t.Fatalf("after revocation: %v", err)
		}
		w := &authRecorder{h: http.Header{}}
		e.s.writeAuthError(w, err)
		if w.status != 401 || !strings.Contains(w.h.Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Fatalf("authAnswer after revocation: %d %v", w.status, w.h)
		}
	}
	// And a new jwt-bearer token carries no grant.
	after := e.jwtBearer(a)
	if c, err := e.s.authenticate(e.resourceRequest("GET", "/vxp/v1/requests", "DPoP", after.str("access_token"), a.dpop, nil)); err != nil || len(c.Grants) != 0 {
		t.Fatalf("after revocation, jwt-bearer: %+v %v", c, err)
	}
}

// jkt is the thumbprint of a's DPoP key.
func (e *authEnv) jkt(a *authAgent) string {
	tp, err := pure.Thumbprint(&a.dpop.PublicKey)
	if err != nil {
		e.t.Fatal(err)
	}
	return tp
}

// TestDeviceFlowRelationship: a relationship entry gives the token's
// relationship_id and the grant's company-initiated actions.
func TestDeviceFlowRelationship(t *testing.T) {
	e := newAuthEnv(t, authEnvOpts{gate: node.AutoApprove("test")})
	a := e.agent
	rel := map[string]any{"type": pure.RelationshipType, "company_initiated_actions": []string{"question.ask"}}
	dev := e.device(a, detailsJSON(capDetail("negotiation.read", authNID), rel))
	if dev.status != 200 {
		t.Fatalf("device: %d %s", dev.status, dev.raw)
	}
	tok := e.pollUntil(a, dev.str("device_code"))
	if tok.status != 200 || !strings.HasPrefix(tok.str("relationship_id"), "rel_") {
		t.Fatalf("token: %d %s", tok.status, tok.raw)
	}
	g, ok := e.s.store.GrantByRelationship(tok.str("relationship_id"))
	if !ok || !slices.Equal(g.RelationshipActions, []string{"question.ask"}) {
		t.Fatalf("grant: %+v", g)
	}
}

// TestDeviceFlowDenied: a denial answers access_denied and grants
// nothing.
func TestDeviceFlowDenied(t *testing.T) {
	d := newAuthDecider()
	e := newAuthEnv(t, authEnvOpts{gate: d.gate()})
	dev := e.device(e.agent, detailsJSON(capDetail("offer.respond", authNID)))
	d.ch <- false
	wantOAuth(t, e.pollUntil(e.agent, dev.str("device_code")), 400, pure.CodeAccessDenied)
	if g := e.s.store.Grants(""); len(g) != 0 {
		t.Fatalf("a denial granted %+v", g)
	}
}

// TestDeviceFlowPendingApproval: with the principal's passkeys deciding,
// the device authorization waits among the node's pending approvals as
// the grant act with exactly its arguments; denying it there answers
// access_denied.
func TestDeviceFlowPendingApproval(t *testing.T) {
	e := newAuthEnv(t, authEnvOpts{})
	a := e.agent
	details := []any{capDetail("offer.respond", authNID)}
	dev := e.device(a, detailsJSON(details...))
	if dev.status != 200 {
		t.Fatalf("device: %d %s", dev.status, dev.raw)
	}
	ps := e.n.PendingApprovals()
	if len(ps) != 1 {
		t.Fatalf("pending: %+v", ps)
	}
	p := ps[0]
	if p.Act != node.ActVXPGrant || p.Request.Action.Tool != node.ToolVXPGrant || p.Request.Action.Target != a.id {
		t.Fatalf("pending: %+v", p.Request.Action)
	}
	var args map[string]any
	if err := json.Unmarshal(p.Request.Action.Arguments, &args); err != nil {
		t.Fatal(err)
	}
	jcs, _ := pure.Canonical([]pure.Detail{{Type: pure.CapabilityType, Actions: []string{"offer.respond"}, Identifier: authNID}})
	want := map[string]any{"user_code": dev.str("user_code"), "authorization_details": string(jcs), "resource": e.s.endpoint, "dpop_jkt": e.jkt(a), "grant_ttl_seconds": strconv.FormatInt(int64(e.s.cfg.GrantTTL/time.Second), 10)}
	if len(args) != len(want) {
		t.Fatalf("arguments %v, want %v", args, want)
	}
	for k, v := range want {
		if args[k] != v {
			t.Fatalf("argument %s = %v, want %v", k, args[k], v)
		}
	}
	// The device code expires with the principal's window, not later.
	if exp := dev.body["expires_in"].(float64); time.Duration(exp)*time.Second > p.Request.ExpiresAt.Sub(p.Request.IssuedAt)+time.Second {
		t.Fatalf("expires_in %v beyond the approval's window", exp)
	}
	wantOAuth(t, e.pollDevice(a, dev.str("device_code")), 400, pure.CodeAuthorizationPending)
	if _, err := e.n.Gate().DenyApproval(t.Context(), p.Request.RequestID, "no"); err != nil {
		t.Fatal(err)
	}
	wantOAuth(t, e.pollUntil(a, dev.str("device_code")), 400, pure.CodeAccessDenied)
}

// TestDeviceFlowExpiredAndSlowDown: polling within the interval answers
// slow_down (and the interval grows); a device code past its lifetime
// answers expired_token.
func TestDeviceFlowExpiredAndSlowDown(t *testing.T) {
	d := newAuthDecider()
	e := newAuthEnv(t, authEnvOpts{gate: d.gate()})
	a := e.agent
	dev := e.device(a, detailsJSON(capDetail("offer.respond", authNID)))
	dc := dev.str("device_code")
	wantOAuth(t, e.pollDevice(a, dc), 400, pure.CodeAuthorizationPending)
	wantOAuth(t, e.pollDevice(a, dc), 400, pure.CodeSlowDown)
	e.clock.Add(DefaultDeviceInterval) // the interval is now 10 s
	wantOAuth(t, e.pollDevice(a, dc), 400, pure.CodeSlowDown)
	e.clock.Add(15 * time.Second) // and now 15 s
	wantOAuth(t, e.pollDevice(a, dc), 400, pure.CodeAuthorizationPending)
	e.clock.Add(DefaultDeviceTTL)
	wantOAuth(t, e.pollDevice(a, dc), 400, pure.CodeExpiredToken)
	// A code never issued is invalid_grant.
	e.clock.Add(time.Minute)
	wantOAuth(t, e.pollDevice(a, "nope"), 400, pure.CodeInvalidGrant)
}

// TestDeviceAuthorizationRules: every rule of the device authorization
// request, one row each.
func TestDeviceAuthorizationRules(t *testing.T) {
	e := newAuthEnv(t, authEnvOpts{gate: newAuthDecider().gate(), edit: func(c *Config) {
		c.Capabilities = []string{"board.read", "negotiation.read", "offer.respond"}
	}})
	a := e.agent
	rel := func(actions ...string) map[string]any {
		return map[string]any{"type": pure.RelationshipType, "company_initiated_actions": actions}
	}
	rows := []struct {
		name    string
		details string
		edit    func(f map[string]string)
		status  int
		code    pure.Code
	}{
		{name: "good", details: detailsJSON(capDetail("offer.respond", authNID)), status: 200},
		{name: "good with a relationship", details: detailsJSON(capDetail("negotiation.read", authNID), rel("negotiation.notify", "question.ask")), status: 200},
		{name: "not an array", details: `{"type":"x"}`, status: 400, code: pure.CodeInvalidAuthorizationDetails},
		{name: "empty", details: `[]`, status: 400, code: pure.CodeInvalidAuthorizationDetails},
		{name: "missing", details: "", status: 400, code: pure.CodeInvalidAuthorizationDetails},
		{name: "operation not offered", details: detailsJSON(capDetail("escrow.fund", authNID)), status: 400, code: pure.CodeInvalidAuthorizationDetails},
		{name: "operation unknown", details: detailsJSON(capDetail("wallet.drain", authNID)), status: 400, code: pure.CodeInvalidAuthorizationDetails},
		{name: "public operation", details: detailsJSON(capDetail("board.read", "")), status: 400, code: pure.CodeInvalidAuthorizationDetails},
		{name: "target missing", details: detailsJSON(capDetail("offer.respond", "")), status: 400, code: pure.CodeInvalidAuthorizationDetails},
		{name: "unknown member", details: `[{"type":"` + pure.CapabilityType + `","actions":["offer.respond"],"identifier":"x","locations":["y"]}]`, status: 400, code: pure.CodeInvalidAuthorizationDetails},
		{name: "relationship alone", details: detailsJSON(rel("question.ask")), status: 400, code: pure.CodeInvalidAuthorizationDetails},
		{name: "relationship action unknown", details: detailsJSON(capDetail("offer.respond", authNID), rel("payment.pull")), status: 400, code: pure.CodeInvalidAuthorizationDetails},
		{name: "relationship action twice", details: detailsJSON(capDetail("offer.respond", authNID), rel("question.ask", "question.ask")), status: 400, code: pure.CodeInvalidAuthorizationDetails},
		{name: "relationship without actions", details: detailsJSON(capDetail("offer.respond", authNID), rel()), status: 400, code: pure.CodeInvalidAuthorizationDetails},
		{name: "two relationships", details: detailsJSON(capDetail("offer.respond", authNID), rel("question.ask"), rel("negotiation.notify")), status: 400, code: pure.CodeInvalidAuthorizationDetails},
		{name: "resource another", details: detailsJSON(capDetail("offer.respond", authNID)), edit: func(f map[string]string) { f["resource"] = e.s.issuer }, status: 400, code: pure.CodeInvalidTarget},
		{name: "no dpop", details: detailsJSON(capDetail("offer.respond", authNID)), edit: func(f map[string]string) { f["dpop"] = "" }, status: 400, code: pure.CodeInvalidDPoPProof},
		{name: "dpop without nonce", details: detailsJSON(capDetail("offer.respond", authNID)), edit: func(f map[string]string) {
			f["dpop"] = authProof(t, a.dpop, "POST", e.s.md.DeviceAuthorizationEndpoint, "", "", e.clock.Now(), nil)
		}, status: 400, code: pure.CodeUseDPoPNonce},
		{name: "no client auth", details: detailsJSON(capDetail("offer.respond", authNID)), edit: func(f map[string]string) { f["client_assertion"] = "" }, status: 401, code: pure.CodeInvalidClient},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			f := map[string]string{
				"resource": e.s.endpoint, "authorization_details": r.details,
				"client_id": a.id, "client_assertion_type": ClientAssertionType,
				"client_assertion": a.assertion(t, a.id, e.s.issuer, e.clock.Now(), nil),
				"dpop":             authProof(t, a.dpop, "POST", e.s.md.DeviceAuthorizationEndpoint, e.nonce(), "", e.clock.Now(), nil),
			}
			if r.edit != nil {
				r.edit(f)
			}
			form := map[string][]string{}
			for k, v := range f {
				if k != "dpop" && v != "" {
					form[k] = []string{v}
				}
			}
			before := e.s.auth.devices.len()
			ans := e.post(e.s.md.DeviceAuthorizationEndpoint, form, f["dpop"])
			if r.status == 200 {
				if ans.status != 200 || ans.str("device_code") == "" {
					t.Fatalf("got %d %s", ans.status, ans.raw)
				}
				return
			}
			wantOAuth(t, ans, r.status, r.code)
			if e.s.auth.devices.len() != before {
				t.Fatal("a refused device authorization was kept")
			}
		})
	}
}

// TestDeviceAuthorizationBounds: at most maxDevicesPerClient undecided
// device authorizations per client.
func TestDeviceAuthorizationBounds(t *testing.T) {
	e := newAuthEnv(t, authEnvOpts{gate: newAuthDecider().gate()})
	for i := range maxDevicesPerClient {
		if ans := e.device(e.agent, detailsJSON(capDetail("offer.respond", authNID))); ans.status != 200 {
			t.Fatalf("device %d: %d %s", i, ans.status, ans.raw)
		}
	}
	wantOAuth(t, e.device(e.agent, detailsJSON(capDetail("offer.respond", authNID))), 429, pure.CodeRateLimited)
	// Another client still may.
	b := newAuthAgent(t, e.docs.URL+"/b.json")
	e.docs.serveJSON("/b.json", b.document())
	if ans := e.device(b, detailsJSON(capDetail("offer.respond", authNID))); ans.status != 200 {
		t.Fatalf("another client: %d %s", ans.status, ans.raw)
	}
	// Once they expire, the client may again.
	e.clock.Add(DefaultDeviceTTL)
	if ans := e.device(e.agent, detailsJSON(capDetail("offer.respond", authNID))); ans.status != 200 {
		t.Fatalf("after expiry: %d %s", ans.status, ans.raw)
	}
}

// authRecorder is a minimal http.ResponseWriter.
type authRecorder struct {
	h      http.Header
	status int
	body   []byte
}

func (r *authRecorder) Header() http.Header { return r.h }
func (r *authRecorder) Write(b []byte) (int, error) {
	r.body = append(r.body, b...)
	return len(b), nil
}
func (r *authRecorder) WriteHeader(s int) { r.status = s }

// TestDeviceAuthorizationNodeStopped: a principal who cannot be asked
// answers temporarily_unavailable and keeps nothing.
func TestDeviceAuthorizationNodeStopped(t *testing.T) {
	e := newAuthEnv(t, authEnvOpts{gate: newAuthDecider().gate()})
	e.jwtBearer(e.agent) // the client's document is cached
	if err := e.n.Close(); err != nil {
		t.Fatal(err)
	}
	wantOAuth(t, e.device(e.agent, detailsJSON(capDetail("offer.respond", authNID))), 503, pure.CodeUnavailable)
	if n := e.s.auth.devices.len(); n != 0 {
		t.Fatalf("kept %d device authorizations", n)
	}
}
