package api

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ipfs/go-cid"
	mh "github.com/multiformats/go-multihash"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// Well-formed path values that name nothing the test node holds.
const (
	unknownNID  = "0b7e4a4e-3c2d-4f5a-9b8c-1d2e3f4a5b6c"
	unknownReq  = "req_00112233445566778899aabbccddeeff"
	upperNID    = "0B7E4A4E-3C2D-4F5A-9B8C-1D2E3F4A5B6C"
	cidV0       = "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG"
	nidOther    = "7d4c2b1a-0f9e-4d8c-a7b6-5e4d3c2b1a09"
	rulingBody  = `{"ruling":5001}`
	fileData    = `"aGVsbG8="` // "hello"
	unknownHash = "0xabababababababababababababababababababababababababababababababab"
)

func unknownCID(t testing.TB) string {
	c, err := cid.NewPrefixV1(cid.Raw, mh.SHA2_256).Sum([]byte("no such file"))
	if err != nil {
		t.Fatal(err)
	}
	return c.String()
}

func randomAddress(t testing.TB) string {
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return common.BytesToAddress(b[:]).Hex()
}

// routeCase drives one route: a concrete path with well-formed values, a
// body the route accepts, the answer the test node gives, and malformed
// path values.
type routeCase struct {
	pattern  string
	path     string
	body     string // POST only: a valid body
	want     int
	code     string // the error code of want, when it is an error
	badPaths []string
	// stream: the route answers with a stream the table does not read.
	stream bool
	// schema names the OpenAPI schema of a success answer.
	schema string
}

// routeCases covers every route of the table on a node with a chain whose
// principal decides through passkeys (none registered yet), where nothing
// the paths name exists.
func routeCases(t testing.TB) []routeCase {
	cidS := unknownCID(t)
	worker := randomAddress(t)
	deadline := time.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)
	taskBody := `{"title":"Translate the guide","category":"translation","milestones":[{"amount":1000000000000000,"description":"all"}],"deadline":"` + deadline + `"}`
	nidBad := []string{"/v1/negotiations/not-a-uuid", "/v1/negotiations/" + upperNID}
	sub := func(paths []string, suffix string) []string {
		out := make([]string, len(paths))
		for i, p := range paths {
			out[i] = p + suffix
		}
		return out
	}
	neg := "/v1/negotiations/" + unknownNID
	return []routeCase{
		{pattern: RouteDiscovery, path: "/.well-known/parley.json", want: 200, schema: "Discovery"},
		{pattern: RouteLink, path: "/.well-known/parley-link.json", want: 200},
		{pattern: RouteOpenAPI, path: "/v1/openapi.json", want: 200},
		{pattern: RouteStatus, path: "/v1/status", want: 200, schema: "Status"},
		{pattern: RoutePeers, path: "/v1/peers", want: 200, schema: "[]Peer"},
		{pattern: RouteEvents, path: "/v1/events", stream: true, badPaths: []string{"/v1/events?negotiation=nope", "/v1/events?negotiation=" + upperNID}},

		{pattern: RouteTasks, path: "/v1/tasks", want: 200, schema: "[]Announcement"},
		{pattern: RoutePostTask, path: "/v1/tasks", body: taskBody, want: 201, schema: "Announcement"},
		{pattern: RouteProposeTask, path: "/v1/tasks/propose", body: `{"worker":"` + worker + `","task":` + taskBody + `}`, want: 201, schema: "ActResult"},
		{pattern: RouteTask, path: "/v1/tasks/" + unknownHash, want: 404, code: string(node.CodeUnknownTask), badPaths: []string{"/v1/tasks/0xzz", "/v1/tasks/" + strings.ToUpper(unknownHash[2:])}},
		{pattern: RouteTaskCounter, path: "/v1/tasks/" + unknownHash + "/counter", body: `{"reason":"too little"}`, want: 404, code: string(node.CodeUnknownTask), badPaths: []string{"/v1/tasks/0x12/counter"}},
		{pattern: RouteTaskAccept, path: "/v1/tasks/" + unknownHash + "/accept", body: `{}`, want: 404, code: string(node.CodeUnknownTask), badPaths: []string{"/v1/tasks/abab/accept"}},
		{pattern: RouteAnnounce, path: "/v1/tasks/" + unknownHash + "/announce", body: `{}`, want: 404, code: string(node.CodeUnknownTask), badPaths: []string{"/v1/tasks/abab/announce"}},

		{pattern: RouteNegotiations, path: "/v1/negotiations", want: 200, schema: "[]ThreadView", badPaths: []string{"/v1/negotiations?state=bogus"}},
		{pattern: RouteNegotiation, path: neg, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: nidBad},
		{pattern: RouteBundle, path: neg + "/bundle", want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/bundle")},
		{pattern: RouteCounter, path: neg + "/counter", body: `{"reason":"more"}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/counter")},
		{pattern: RouteAccept, path: neg + "/accept", body: `{}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/accept")},
		{pattern: RouteFund, path: neg + "/fund", body: `{}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/fund")},
		{pattern: RouteDeliver, path: neg + "/deliver", body: `{"milestone":0,"name":"a.md","data":` + fileData + `}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/deliver")},
		{pattern: RouteAcceptDelivery, path: neg + "/accept-delivery", body: `{"milestone":0}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/accept-delivery")},
		{pattern: RouteCancel, path: neg + "/cancel", body: `{"reason":"no longer needed"}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/cancel")},
		{pattern: RouteAmend, path: neg + "/amend", body: `{"milestones":[{"amount":1000,"description":"all"}],"deadline":"` + deadline + `"}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/amend")},
		{pattern: RouteReplace, path: neg + "/replace", body: `{"newWorker":"` + worker + `","summary":"hand over"}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/replace")},
		{pattern: RouteDispute, path: neg + "/dispute", body: `{}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/dispute")},
		{pattern: RouteEvidence, path: neg + "/evidence", body: `{"name":"e.txt","data":` + fileData + `,"description":"the log"}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/evidence")},
		{pattern: RouteArbitrator, path: neg + "/arbitrator", body: `{"arbitrator":"` + worker + `"}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/arbitrator")},
		{pattern: RouteRule, path: neg + "/rule", body: rulingBody, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/rule")},
		{pattern: RouteClaimUnanswered, path: neg + "/claim-unanswered", body: `{"milestone":0}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/claim-unanswered")},
		{pattern: RouteReclaimExpired, path: neg + "/reclaim-expired", body: `{}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/reclaim-expired")},
		{pattern: RouteResolveTimedOut, path: neg + "/resolve-timed-out", body: `{}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/resolve-timed-out")},
		{pattern: RouteTimeouts, path: "/v1/timeouts", want: 200, schema: "[]TimeoutExit"},
		{pattern: RouteVeto, path: neg + "/veto", body: `{"party":"` + worker + `","reason":"over budget"}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/veto")},
		{pattern: RouteCapability, path: neg + "/capability", body: `{"capability":"translation","kind":"portfolio","description":"prior work","ref":"https://example.net"}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/capability")},
		{pattern: RouteRevision, path: neg + "/revision", body: `{"milestone":0,"reason":"use the glossary"}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/revision")},
		{pattern: RoutePaymentRequest, path: neg + "/payment-request", body: `{"milestone":0,"basis":"hourly","amount":1000,"units":2}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/payment-request")},
		{pattern: RouteReleasePart, path: neg + "/release-part", body: `{"milestone":0}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/release-part")},

		{pattern: RouteFile, path: "/v1/files/" + cidS, want: 404, code: CodeNotFound, badPaths: []string{"/v1/files/notacid", "/v1/files/" + cidV0, "/v1/files/" + strings.ToUpper(cidS)}},
		{pattern: RouteWithdraw, path: "/v1/withdraw", body: `{}`, want: 409, code: string(node.CodeNothingOwed)},
		// A registration reaches the principal's passkeys, which this node
		// has none of: its body is refused before (the CLI's test acts).
		{pattern: RouteIdentityRegister, path: "/v1/identity/register", body: `{"peerId":"x"}`, want: 400, code: CodeUnknownField},
		{pattern: RouteIdentityRevoke, path: "/v1/identity/revoke", body: `{}`, want: 409, code: string(node.CodeStateForbidden)},
		{pattern: RouteIdentityRotate, path: "/v1/identity/rotate", body: `{}`, want: 409, code: string(node.CodeStateForbidden)},
		{pattern: RouteIdentityLookup, path: "/v1/identity/" + worker, want: 200, schema: "LinkCheck", badPaths: []string{"/v1/identity/0xabc", "/v1/identity/" + strings.ToLower(worker)}},
		{pattern: RouteTaskScope, path: "/v1/tasks/" + unknownHash + "/scope", want: 404, code: string(node.CodeUnknownTask), badPaths: []string{"/v1/tasks/0xzz/scope"}},
		{pattern: RouteRaise, path: neg + "/raise", body: `{}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/raise")},
		{pattern: RouteCourtDocuments, path: neg + "/court", want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/court")},
		{pattern: RouteBalance, path: "/v1/balance", want: 200, schema: "Balance", badPaths: []string{"/v1/balance?token=0xabc", "/v1/balance?token=" + strings.ToLower(worker)}},
		{pattern: RouteVerify, path: "/v1/ledger/verify", want: 200, schema: "LedgerReport"},
		{pattern: RouteConsents, path: "/v1/consent", want: 200, schema: "[]ConsentView"},
		{pattern: RouteConsent, path: "/v1/consent/" + worker, want: 200, schema: "ConsentView", badPaths: []string{"/v1/consent/0xabc", "/v1/consent/" + strings.ToLower(worker)}},
		{pattern: RouteSetConsent, path: "/v1/consent/" + worker, body: `{"state":"denied"}`, want: 200, schema: "ConsentView", badPaths: []string{"/v1/consent/nope"}},

		{pattern: RouteApprovals, path: "/v1/approvals", want: 200, schema: "[]PendingApproval"},
		{pattern: RouteApproval, path: "/v1/approvals/" + unknownReq, want: 404, code: CodeNotFound, badPaths: []string{"/v1/approvals/req_XYZ", "/v1/approvals/enroll-token"}},
		{pattern: RouteApprovalOptions, path: "/v1/approvals/" + unknownReq + "/options", body: `{}`, want: 404, code: CodeNotFound, badPaths: []string{"/v1/approvals/req_XYZ/options", "/v1/approvals/00112233445566778899aabbccddeeff/options"}},
		{pattern: RouteApprovalAssertion, path: "/v1/approvals/" + unknownReq + "/assertion", body: `{"response":{"id":"x"}}`, want: 404, code: CodeNotFound, badPaths: []string{"/v1/approvals/req_1/assertion"}},
		{pattern: RouteDeny, path: "/v1/approvals/" + unknownReq + "/deny", body: `{"reason":"no"}`, want: 404, code: CodeNotFound, badPaths: []string{"/v1/approvals/req_/deny"}},
		{pattern: RoutePasskeyOptions, path: "/v1/passkeys/options", body: `{"label":"laptop"}`, want: 403, code: string(approval.CodeNotAuthorized)},
		{pattern: RoutePasskeyCredential, path: "/v1/passkeys/credential", body: `{"session":"reg_00","response":{"id":"x"}}`, want: 400, code: string(node.CodeBadArgument)},
		{pattern: RoutePasskeys, path: "/v1/passkeys", want: 200, schema: "[]Passkey"},
		{pattern: RoutePasskeyRevoke, path: "/v1/passkeys/" + strings.Repeat("0", 32) + "/revoke", body: `{}`, want: 403, code: string(approval.CodeCredentialUnknown), badPaths: []string{"/v1/passkeys/XYZ/revoke", "/v1/passkeys/" + strings.Repeat("A", 32) + "/revoke"}},
		{pattern: RouteAudit, path: "/v1/audit", want: 200, schema: "[]AuditEvent", badPaths: []string{"/v1/audit?limit=0", "/v1/audit?limit=x", "/v1/audit?limit=1001"}},
		// This node serves no VXP (TestAgentRoutes gives it agents).
		{pattern: RouteAgents, path: "/v1/agents", want: 404, code: CodeVXPOff},
		{pattern: RouteAgentRevoke, path: "/v1/agents/revoke", body: `{"clientId":"https://agent.example/client.json"}`, want: 404, code: CodeVXPOff},

		{pattern: RouteNegotiationCard, path: neg + "/card", want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/card")},
		{pattern: RouteSealNegCard, path: neg + "/card", body: `{"card":` + cardJSON + `}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/card")},
		{pattern: RouteEscalations, path: "/v1/escalations", want: 200, schema: "[]PendingEscalation"},
		{pattern: RouteAnswer, path: neg + "/answer", body: `{"answer":"Yes, up to 0.6 ETH."}`, want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/answer")},
		{pattern: RouteRoom, path: neg + "/room", want: 404, code: string(node.CodeUnknownNegotiation), badPaths: sub(nidBad, "/room")},
		{pattern: RouteBrief, path: neg + "/brief", want: 404, code: string(node.CodeUnknownNegotiation), badPaths: append(sub(nidBad, "/brief"), neg+"/brief?format=pdf")},
		{pattern: RouteCard, path: "/v1/card", want: 404, code: string(node.CodeNoCard)},
		// The API's key never gives the principal's own word (via web);
		// a card via api waits for a passkey (TestPXPOverHTTP).
		{pattern: RouteSealCard, path: "/v1/card", body: `{"card":` + cardJSON + `,"via":"web"}`, want: 403, code: string(node.CodeViaWebRefused)},
		// The ledger's heads, anchors and audits (last: the cases above
		// wrote entries). This node has no gas: its anchor's body is
		// refused before (TestLedgerRoutes anchors).
		{pattern: RouteLedgerAnchor, path: "/v1/ledger/anchor", body: `{"now":true}`, want: 400, code: CodeUnknownField},
		{pattern: RouteLedgerHeads, path: "/v1/ledger/heads", want: 200, schema: "LedgerHeads"},
		{pattern: RouteLedgerConsistency, path: "/v1/ledger/consistency?from=1", want: 200, schema: "Consistency", badPaths: []string{"/v1/ledger/consistency?from=x", "/v1/ledger/consistency?to=-1"}},
		{pattern: RouteLedgerAudit, path: "/v1/ledger/audit", body: `{"peer":"nobody"}`, want: 400, code: string(node.CodeBadArgument)},
	}
}

// cardJSON is a valid intent card (PXP v0 with one rule).
const cardJSON = `{"pxp":"0","principal":{"name":"Dana"},"goal":"Get the guide translated.","must_never":[{"text":"more than 1 ETH","rule":"total > eth(1)"}]}`

func isPost(pattern string) bool { return strings.HasPrefix(pattern, "POST ") }

func isPublic(pattern string) bool { return pattern == RouteDiscovery || pattern == RouteLink }

// withMember adds "zzz_unknown" to a JSON object body.
func withMember(body string) string {
	if body == "{}" {
		return `{"zzz_unknown":1}`
	}
	return `{"zzz_unknown":1,` + body[1:]
}

// TestEveryRoute drives every route of the table on a node with a chain:
// 401 without or with a wrong key (before the body is read), 400 for
// malformed path values, the node's answer for unknown ones; and for every
// POST the Idempotency-Key rules (400 without it, identical replays, 409
// for another request under the key), strict bodies (400 for an unknown
// member, malformed JSON, trailing data) and the size limit (413).
func TestEveryRoute(t *testing.T) {
	dev := startDevchain(t)
	s := serve(t, startNode(t, nodeSpec{name: "routes", dev: dev}), Options{})
	cases := routeCases(t)
	covered := map[string]bool{}
	for _, rc := range cases {
		covered[rc.pattern] = true
	}
	for _, p := range s.api.routes {
		if !covered[p] {
			t.Errorf("route %s has no case", p)
		}
	}
	oversize := []byte(`{"x":"` + strings.Repeat("a", testMaxBody) + `"}`)
	for _, rc := range cases {
		t.Run(rc.pattern, func(t *testing.T) {
			s := *s
			s.t = t
			method := strings.Fields(rc.pattern)[0]
			var body []byte
			if isPost(rc.pattern) {
				body = []byte(rc.body)
			}
			if !isPublic(rc.pattern) {
				for name, c := range map[string]call{
					"no key":       {noKey: true},
					"wrong key":    {key: strings.Repeat("0", len(apiKey))},
					"short key":    {key: apiKey[:16]},
					"key and more": {key: apiKey + "00"},
				} {
					c.method, c.path, c.idem, c.body = method, rc.path, freshKey(), body
					r := s.do(c)
					if r.status != http.StatusUnauthorized || r.errCode() != CodeUnauthorized || r.header.Get("WWW-Authenticate") == "" {
						t.Fatalf("%s: %d %s", name, r.status, r.body)
					}
				}
				// The key is checked before the body is read.
				if r := s.do(call{method: method, path: rc.path, noKey: true, idem: freshKey(), body: oversize}); r.status != http.StatusUnauthorized {
					t.Fatalf("no key, oversize body: %d %s", r.status, r.body)
				}
			} else if r := s.do(call{method: method, path: rc.path, noKey: true}); r.status != rc.want {
				t.Fatalf("public route without a key: %d %s", r.status, r.body)
			}
			for _, bad := range rc.badPaths {
				r := s.do(call{method: method, path: bad, idem: freshKey(), body: body})
				if r.status != http.StatusBadRequest || r.errCode() != CodeBadRequest {
					t.Fatalf("%s %s: %d %s, want 400 bad_request", method, bad, r.status, r.body)
				}
			}
			if rc.stream {
				return
			}
			if !isPost(rc.pattern) {
				r := s.do(call{method: method, path: rc.path})
				if r.status != rc.want || (rc.code != "" && r.errCode() != rc.code) {
					t.Fatalf("GET: %d %s, want %d %s", r.status, r.body, rc.want, rc.code)
				}
				checkAnswer(t, rc, r)
				return
			}
			checkPost(t, &s, rc, oversize)
		})
	}
}

// checkAnswer validates an answer against the OpenAPI document: an error
// against ErrorBody, a success against the route's schema.
func checkAnswer(t *testing.T, rc routeCase, r reply) {
	t.Helper()
	switch {
	case r.status >= 400:
		checkSchema(t, "ErrorBody", r.body)
	case rc.schema != "":
		checkSchema(t, rc.schema, r.body)
	}
}

// checkPost checks a POST route's body and Idempotency-Key rules.
func checkPost(t *testing.T, s *served, rc routeCase, oversize []byte) {
	post := func(key, path string, body []byte) reply {
		return s.do(call{method: http.MethodPost, path: path, idem: key, body: body})
	}
	want400 := func(what string, r reply, code, mentions string) {
		t.Helper()
		if r.status != http.StatusBadRequest || r.errCode() != code || !strings.Contains(string(r.body), mentions) {
			t.Fatalf("%s: %d %s, want 400 %s naming %q", what, r.status, r.body, code, mentions)
		}
	}
	body := []byte(rc.body)
	want400("no Idempotency-Key", s.do(call{method: http.MethodPost, path: rc.path, body: body}), CodeIdempotencyMissing, HeaderIdempotencyKey)
	want400("a bad Idempotency-Key", post("two words", rc.path, body), CodeBadRequest, HeaderIdempotencyKey)
	want400("an unknown member", post(freshKey(), rc.path, []byte(withMember(rc.body))), CodeUnknownField, "zzz_unknown")
	want400("malformed JSON", post(freshKey(), rc.path, []byte(rc.body[:len(rc.body)-1])), CodeMalformedJSON, "body")
	want400("trailing data", post(freshKey(), rc.path, []byte(rc.body+" {}")), CodeMalformedJSON, "after the JSON value")
	want400("not an object", post(freshKey(), rc.path, []byte(`[1,2]`)), CodeSchemaInvalid, "body")
	want400("a member named twice", post(freshKey(), rc.path, []byte(`{"zzz_twice":1,"zzz_twice":2}`)), CodeDuplicateKey, "zzz_twice")
	want400("invalid UTF-8", post(freshKey(), rc.path, []byte("{\"zzz\":\"\xff\"}")), CodeMalformedJSON, "UTF-8")
	want400("a lone surrogate", post(freshKey(), rc.path, []byte(`{"zzz":"\ud800"}`)), CodeMalformedJSON, "surrogate")
	if r := post(freshKey(), rc.path, oversize); r.status != http.StatusRequestEntityTooLarge || r.errCode() != CodeBodyTooLarge {
		t.Fatalf("oversize body: %d %s", r.status, r.body)
	}

	key := freshKey()
	first := post(key, rc.path, body)
	if first.status != rc.want || (rc.code != "" && first.errCode() != rc.code) {
		t.Fatalf("first request: %d %s, want %d %s", first.status, first.body, rc.want, rc.code)
	}
	checkAnswer(t, rc, first)
	again := post(key, rc.path, body)
	if again.status != first.status || !bytes.Equal(again.body, first.body) || again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %s (replayed %q); first %d %s", again.status, again.body, again.header.Get("Idempotent-Replayed"), first.status, first.body)
	}
	other := []byte(rc.body + " ")
	if r := post(key, rc.path, other); r.status != http.StatusConflict || r.errCode() != CodeIdempotencyReused {
		t.Fatalf("same key, another body: %d %s", r.status, r.body)
	}
	elsewhere := "/v1/withdraw"
	if rc.pattern == RouteWithdraw {
		elsewhere = "/v1/negotiations/" + nidOther + "/fund"
	}
	if r := post(key, elsewhere, body); r.status != http.StatusConflict || r.errCode() != CodeIdempotencyReused {
		t.Fatalf("same key, another path: %d %s", r.status, r.body)
	}
	if again := post(key, rc.path, body); !bytes.Equal(again.body, first.body) {
		t.Fatalf("the record changed after a refused reuse: %s", again.body)
	}
}

// TestPostsActOnce: a replayed POST does not act again; an answer with a
// 5xx status is not kept, so a retry acts again.
func TestPostsActOnce(t *testing.T) {
	s := serve(t, startNode(t, nodeSpec{name: "once"}), Options{})
	deadline := time.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)
	task := []byte(`{"title":"Proofread","milestones":[{"amount":5,"description":"all"}],"deadline":"` + deadline + `"}`)
	key := freshKey()
	var first, second node.Announcement
	for i, out := range []*node.Announcement{&first, &second} {
		r := s.do(call{method: http.MethodPost, path: "/v1/tasks", idem: key, body: task})
		if r.status != http.StatusCreated {
			t.Fatalf("post %d: %d %s", i, r.status, r.body)
		}
		if err := json.Unmarshal(r.body, out); err != nil {
			t.Fatal(err)
		}
	}
	if first.Hash != second.Hash || len(s.Board()) != 1 {
		t.Fatalf("a replay posted again: %s, %s, board %d", first.Hash, second.Hash, len(s.Board()))
	}
	// A node without a chain cannot fund: 503, not kept.
	key = freshKey()
	for i := range 2 {
		r := s.do(call{method: http.MethodPost, path: "/v1/negotiations/" + unknownNID + "/fund", idem: key, body: []byte(`{}`)})
		if r.status != http.StatusServiceUnavailable || r.errCode() != string(node.CodeNoChain) || r.header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("attempt %d: %d %s replayed=%q", i, r.status, r.body, r.header.Get("Idempotent-Replayed"))
		}
	}
	if r := s.do(call{method: http.MethodPost, path: "/v1/negotiations/" + unknownNID + "/fund", idem: key, body: []byte(`{ }`)}); r.status != http.StatusServiceUnavailable {
		t.Fatalf("a 5xx answer was kept: another body under its key got %d %s", r.status, r.body)
	}
}

// TestRequiredMembers: members an act cannot do without are refused when
// absent, naming them (a missing ruling must not read as "refuse to
// rule").
func TestRequiredMembers(t *testing.T) {
	s := serve(t, startNode(t, nodeSpec{name: "required"}), Options{})
	neg := "/v1/negotiations/" + unknownNID
	for _, tc := range []struct{ path, body, member string }{
		{neg + "/rule", `{}`, "ruling"},
		{neg + "/rule", ``, "ruling"},
		{neg + "/rule", `{"ruling":null}`, "ruling"},
		{neg + "/accept-delivery", `{}`, "milestone"},
		{neg + "/arbitrator", `{}`, "arbitrator"},
		{neg + "/deliver", `{"milestone":0,"name":"a"}`, "data"},
		{neg + "/evidence", `{"name":"a","data":"aGk="}`, "description"},
		{"/v1/tasks/propose", `{"task":{}}`, "worker"},
		{"/v1/tasks", `{"title":"x","milestones":[]}`, "deadline"},
		{neg + "/amend", `{"milestones":[]}`, "deadline"},
		{neg + "/replace", `{"summary":"x"}`, "newWorker"},
	} {
		r := s.do(call{method: http.MethodPost, path: tc.path, idem: freshKey(), body: []byte(tc.body)})
		if r.status != http.StatusBadRequest || r.errCode() != CodeSchemaInvalid || !strings.Contains(string(r.body), `\"`+tc.member+`\"`) {
			t.Errorf("POST %s %s: %d %s, want 400 naming %s", tc.path, tc.body, r.status, r.body, tc.member)
		}
	}
	// Wrong types name the member.
	r := s.do(call{method: http.MethodPost, path: neg + "/rule", idem: freshKey(), body: []byte(`{"ruling":"5001"}`)})
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "ruling") {
		t.Fatalf("a string ruling: %d %s", r.status, r.body)
	}
	r = s.do(call{method: http.MethodPost, path: neg + "/arbitrator", idem: freshKey(), body: []byte(`{"arbitrator":"` + strings.ToLower(randomAddress(t)) + `"}`)})
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "EIP-55") {
		t.Fatalf("a lowercase address: %d %s", r.status, r.body)
	}
}

// TestUnknownPaths: unknown paths are 401 without the key and 404 with
// it; a path served for another method is 405 with Allow.
func TestUnknownPaths(t *testing.T) {
	s := serve(t, startNode(t, nodeSpec{name: "paths"}), Options{})
	for _, c := range []struct {
		method, path string
		noKey        bool
		want         int
		code, allow  string
	}{
		{"GET", "/v1/nothing", true, 401, CodeUnauthorized, ""},
		{"GET", "/v1/nothing", false, 404, CodeNotFound, ""},
		{"GET", "/elsewhere", true, 401, CodeUnauthorized, ""},
		{"GET", "/elsewhere", false, 404, CodeNotFound, ""},
		{"POST", "/.well-known/parley.json", true, 401, CodeUnauthorized, ""},
		{"POST", "/.well-known/parley.json", false, 405, CodeMethodNotAllowed, "GET, HEAD"},
		{"DELETE", "/v1/status", true, 401, CodeUnauthorized, ""},
		{"DELETE", "/v1/status", false, 405, CodeMethodNotAllowed, "GET, HEAD"},
		{"GET", "/v1/withdraw", false, 405, CodeMethodNotAllowed, "POST"},
		{"PUT", "/v1/tasks", false, 405, CodeMethodNotAllowed, "GET, POST, HEAD"},
	} {
		r := s.do(call{method: c.method, path: c.path, noKey: c.noKey})
		if r.status != c.want || r.errCode() != c.code || r.header.Get("Allow") != c.allow {
			t.Errorf("%s %s (no key %v): %d %s Allow %q; want %d %s %q", c.method, c.path, c.noKey, r.status, r.body, r.header.Get("Allow"), c.want, c.code, c.allow)
		}
	}
}

// TestDiscovery: the public discovery document names the node, its
// limits and capabilities and its identity link by hash and URL; the link
// served there hashes to that hash and verifies; neither carries private
// keys, and the document no public key either.
func TestDiscovery(t *testing.T) {
	n := startNode(t, nodeSpec{name: "discovered", caps: []string{"translation", "proofreading"}})
	s := serve(t, n, Options{BaseURL: "http://127.0.0.1:7464/", Organization: "Example Translations", Offers: []string{"proofreading"}})
	r := s.do(call{method: http.MethodGet, path: "/.well-known/parley.json", noKey: true})
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s", r.status, r.body)
	}
	checkSchema(t, "Discovery", r.body)
	var d Discovery
	if err := json.Unmarshal(r.body, &d); err != nil {
		t.Fatal(err)
	}
	st, err := n.Status()
	if err != nil {
		t.Fatal(err)
	}
	wantCaps := []DiscoveryCap{{ID: "translation", Effect: "take"}, {ID: "proofreading", Effect: "offer"}}
	switch {
	case d.Protocol != "parley" || d.Version != "0.1" || d.Status != "experimental":
		t.Fatalf("protocol, version, status: %+v", d)
	case d.Organization.Name != "Example Translations" || d.Endpoint != "http://127.0.0.1:7464/v1":
		t.Fatalf("organization, endpoint: %+v", d)
	case d.PeerID != st.PeerID || d.EVMAddress != st.Address || len(d.Addresses) == 0 || d.Addresses[0] != st.Addrs[0]:
		t.Fatalf("peer, address: %+v; status %+v", d, st)
	case d.IdentityLink.Hash != st.LinkHash || d.IdentityLink.URL != "http://127.0.0.1:7464/.well-known/parley-link.json" || d.IdentityLink.DHT != "":
		t.Fatalf("identity link: %+v", d.IdentityLink)
	case len(d.Capabilities) != 2 || d.Capabilities[0] != wantCaps[0] || d.Capabilities[1] != wantCaps[1]:
		t.Fatalf("capabilities: %+v", d.Capabilities)
	case d.Limits["max_revisions"] != 3 || d.Limits["proposal_ttl_seconds"] != 900 || d.Limits["max_accept_attempts"] != 3 || len(d.Limits) != 3:
		t.Fatalf("limits: %+v", d.Limits)
	case d.UpdatedAt.IsZero():
		t.Fatal("no updated_at")
	}
	lr := s.do(call{method: http.MethodGet, path: "/.well-known/parley-link.json", noKey: true})
	if lr.status != http.StatusOK {
		t.Fatalf("link: %d %s", lr.status, lr.body)
	}
	if sha256.Sum256(lr.body) != [32]byte(d.IdentityLink.Hash) {
		t.Fatal("the served link does not hash to the document's identity_link.hash")
	}
	l, err := identity.DecodeLink(lr.body, time.Now())
	if err != nil {
		t.Fatalf("the served link does not verify: %v", err)
	}
	if negotiation.Address(l.EVMAddress) != d.EVMAddress || l.PeerID.String() != d.PeerID {
		t.Fatal("the link names another node")
	}
	// The document carries no keys: not the inbox key, not an encryption key.
	doc := strings.ToLower(string(r.body))
	for _, k := range append([][]byte{l.InboxKey}, encKeys(l)...) {
		if strings.Contains(doc, hex.EncodeToString(k)) {
			t.Fatalf("the discovery document carries a public key: %s", r.body)
		}
	}
}

func encKeys(l *identity.Link) [][]byte {
	var out [][]byte
	for _, k := range l.EncryptionKeys {
		out = append(out, k.Bytes())
	}
	return out
}

// TestNewRefuses: New refuses what would make a bad server.
func TestNewRefuses(t *testing.T) {
	n, err := node.New(func() node.Config { c := node.DefaultConfig(); c.DataDir = t.TempDir(); return c }(), node.WithPassphrase(harnessPass))
	if err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]Options{
		"no key":        {},
		"short key":     {Key: []byte("0123456789abcde")},
		"tiny body":     {Key: []byte(apiKey), MaxBody: 100},
		"bad base":      {Key: []byte(apiKey), BaseURL: "127.0.0.1:7464"},
		"foreign offer": {Key: []byte(apiKey), Offers: []string{"juggling"}},
		"negative ttl":  {Key: []byte(apiKey), IdempotencyTTL: -time.Second},
	} {
		if _, err := New(n, o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := New(nil, Options{Key: []byte(apiKey)}); err == nil {
		t.Error("a nil node was accepted")
	}
	// A server of a node not started answers 503 not_started.
	s := serve(t, n, Options{})
	if r := s.do(call{method: http.MethodGet, path: "/v1/status"}); r.status != http.StatusServiceUnavailable || r.errCode() != string(node.CodeNotStarted) {
		t.Fatalf("status of a node not started: %d %s", r.status, r.body)
	}
	if r := s.do(call{method: http.MethodGet, path: "/.well-known/parley.json", noKey: true}); r.status != http.StatusServiceUnavailable {
		t.Fatalf("discovery of a node not started: %d %s", r.status, r.body)
	}
}

// TestPXPOverHTTP plays the escalation through the API: both principals
// seal cards; the worker counters at 0.6 ETH; the poster's acceptance
// crosses its must_never and is refused with 409 escalation_required; the
// question is listed, every other act there is 409 paused; the answer
// (POST .../answer) is sealed into the negotiation's card, the acceptance
// then passes, and the brief (JSON and Markdown) names the amendment.
func TestPXPOverHTTP(t *testing.T) {
	auto := node.AutoApprove("api test")
	poster := serve(t, startNode(t, nodeSpec{name: "poster", gate: auto}), Options{})
	worker := serve(t, startNode(t, nodeSpec{name: "worker", gate: auto, bootstrap: []*node.Node{poster.Node}}), Options{})
	posterCard := `{"pxp":"0","principal":{"name":"Dana"},"goal":"Get the guide translated.","must_never":[{"text":"pay more than 0.55 ETH in total","rule":"total > eth(\"0.55\")"}]}`
	var pc node.CardInfo
	checkSchema(t, "CardInfo", poster.post("/v1/card", map[string]any{"card": json.RawMessage(posterCard)}, http.StatusCreated, &pc).body)
	if pc.Principal != "Dana" || pc.Hash == (negotiation.Hash{}) {
		t.Fatalf("sealed %+v", pc)
	}
	// The API's key is not the principal: via web is refused, and a card
	// through the API (via api) is sealed once the gate confirms it.
	if r := worker.do(call{method: http.MethodPost, path: "/v1/card", idem: freshKey(), body: []byte(`{"card":` + cardJSON + `,"via":"web"}`)}); r.status != http.StatusForbidden || r.errCode() != string(node.CodeViaWebRefused) {
		t.Fatalf("a card via web through the API: %d %s", r.status, r.body)
	}
	worker.post("/v1/card", map[string]any{"card": json.RawMessage(cardJSON), "via": "api"}, http.StatusCreated, nil)
	if r := worker.do(call{method: http.MethodPost, path: "/v1/card", idem: freshKey(), body: []byte(`{"card":{"pxp":"0","principal":{"name":"x"},"goal":"g","must_never":[{"text":"t","rule":"total >"}]}}`)}); r.status != http.StatusBadRequest || r.errCode() != string(negotiation.CodeRuleInvalid) {
		t.Fatalf("a card whose rule does not compile: %d %s", r.status, r.body)
	}

	deadline := time.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)
	var res node.ActResult
	poster.post("/v1/tasks/propose", json.RawMessage(`{"worker":"`+worker.Address().String()+`","task":{"title":"Translate the guide","milestones":[{"amount":500000000000000000,"description":"all"}],"deadline":"`+deadline+`"}}`), http.StatusCreated, &res)
	nid := res.Thread.NegotiationID
	neg := "/v1/negotiations/" + nid
	eventually(t, "the proposal at the worker", func() bool {
		return worker.do(call{method: http.MethodGet, path: neg}).status == http.StatusOK
	})
	worker.post(neg+"/counter", json.RawMessage(`{"milestones":[{"amount":600000000000000000,"description":"all"}],"message":"the glossary is technical"}`), http.StatusOK, nil)
	eventually(t, "the counter at the poster", func() bool {
		var v node.ThreadView
		poster.get(neg, &v)
		return v.State == negotiation.StateCountered
	})

	r := poster.do(call{method: http.MethodPost, path: neg + "/accept", idem: freshKey(), body: []byte(`{}`)})
	if r.status != http.StatusConflict || r.errCode() != string(negotiation.CodeEscalationRequired) || !strings.Contains(string(r.body), "must_never[0]") {
		t.Fatalf("accepting 0.6 ETH: %d %s", r.status, r.body)
	}
	var esc []node.PendingEscalation
	poster.get("/v1/escalations", &esc)
	checkSchema(t, "[]PendingEscalation", poster.do(call{method: http.MethodGet, path: "/v1/escalations"}).body)
	if len(esc) != 1 || esc[0].NegotiationID != nid || esc[0].Title != "Translate the guide" {
		t.Fatalf("escalations: %+v", esc)
	}
	if r := poster.do(call{method: http.MethodPost, path: neg + "/counter", idem: freshKey(), body: []byte(`{"reason":"less"}`)}); r.status != http.StatusConflict || r.errCode() != string(negotiation.CodePaused) {
		t.Fatalf("countering while paused: %d %s", r.status, r.body)
	}
	if r := poster.do(call{method: http.MethodGet, path: neg + "/brief"}); r.status != http.StatusConflict || r.errCode() != string(node.CodeStateForbidden) {
		t.Fatalf("a brief before the agreement: %d %s", r.status, r.body)
	}
	var room node.RoomView
	if r := poster.do(call{method: http.MethodPost, path: neg + "/answer", idem: freshKey(), body: []byte(`{"answer":"Yes.","via":"web"}`)}); r.status != http.StatusForbidden || r.errCode() != string(node.CodeViaWebRefused) {
		t.Fatalf("an answer via web through the API: %d %s", r.status, r.body)
	}
	r = poster.post(neg+"/answer", AnswerRequest{Answer: "Yes, up to 0.6 ETH for this task."}, http.StatusOK, &room)
	checkSchema(t, "RoomView", r.body)
	if room.Escalation != nil || len(room.Answers) != 1 || room.Answers[0].Via != negotiation.ViaAPI || *room.CardHash == pc.Hash {
		t.Fatalf("the room after the answer: %s", r.body)
	}
	eventually(t, "the gate's confirmation of the answer", func() bool {
		poster.get(neg+"/room", &room)
		return len(room.Answers) == 1 && room.Answers[0].Confirmed
	})
	var card node.CardInfo
	poster.get(neg+"/card", &card)
	if card.Hash != *room.CardHash || !bytes.Contains(card.Card, []byte("Yes, up to 0.6 ETH for this task.")) {
		t.Fatalf("the negotiation's card after the answer: %+v", card)
	}
	poster.post(neg+"/accept", node.AcceptSpec{}, http.StatusOK, nil)
	eventually(t, "the poster's acceptance at the worker", func() bool {
		var v node.ThreadView
		worker.get(neg, &v)
		return len(v.Log) == 3
	})
	worker.post(neg+"/accept", node.AcceptSpec{PXPFields: node.PXPFields{Message: "deal"}}, http.StatusOK, nil)
	eventually(t, "the agreement at the poster", func() bool {
		var v node.ThreadView
		poster.get(neg, &v)
		return v.State == negotiation.StateAgreed
	})
	r = poster.do(call{method: http.MethodGet, path: neg + "/brief"})
	if r.status != http.StatusOK {
		t.Fatalf("brief: %d %s", r.status, r.body)
	}
	checkSchema(t, "Brief", r.body)
	if !bytes.Contains(r.body, []byte(`"ref": "amendments[0]"`)) {
		t.Fatalf("the brief names no amendment: %s", r.body)
	}
	r = poster.do(call{method: http.MethodGet, path: neg + "/brief?format=md"})
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/markdown") || !strings.Contains(string(r.body), "Yes, up to 0.6 ETH for this task.") {
		t.Fatalf("brief in Markdown: %d %s %s", r.status, r.header.Get("Content-Type"), r.body)
	}
	var wroom node.RoomView
	worker.get(neg+"/room", &wroom)
	if last := wroom.Envelopes[len(wroom.Envelopes)-1]; !last.Ours || last.Message != "deal" || last.Status != negotiation.StatusAgree {
		t.Fatalf("the worker's acceptance in its room: %+v", last)
	}
}
