package api

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/node"
)

// TestAPIKeyCannotEnrol: the bearer key (which is also the MCP agent
// key) obtains no enrolment token: POST /v1/approvals/enroll-token is no
// route, a registration without a token or with a guessed one is refused,
// and nothing the API answered holds a token. Only the token the data
// directory holds enrols the first passkey, while the node runs.
func TestAPIKeyCannotEnrol(t *testing.T) {
	s := serve(t, startNode(t, nodeSpec{name: "principal"}), Options{})
	for _, path := range []string{"/v1/approvals/enroll-token", "/v1/approvals/enrol-token", "/v1/passkeys/token"} {
		r := s.do(call{method: http.MethodPost, path: path, idem: freshKey(), body: []byte(`{}`)})
		if r.status != http.StatusNotFound && r.status != http.StatusMethodNotAllowed {
			t.Fatalf("POST %s: %d %s, want no such route", path, r.status, r.body)
		}
		if strings.Contains(string(r.body), approval.EnrolTokenPrefix) {
			t.Fatalf("POST %s answered a token: %s", path, r.body)
		}
	}
	if r := s.do(call{method: http.MethodPost, path: "/v1/passkeys/options", idem: freshKey(), body: []byte(`{"label":"agent","software":true}`)}); r.status != http.StatusForbidden || r.errCode() != string(approval.CodeNotAuthorized) {
		t.Fatalf("a first passkey without a token: %d %s", r.status, r.body)
	}
	guess := approval.EnrolTokenPrefix + strings.Repeat("0", 64)
	if r := s.do(call{method: http.MethodPost, path: "/v1/passkeys/options", idem: freshKey(), body: []byte(`{"token":"` + guess + `","label":"agent","software":true}`)}); r.status != http.StatusForbidden || r.errCode() != string(approval.CodeTokenInvalid) {
		t.Fatalf("a guessed token: %d %s", r.status, r.body)
	}
	var pks []Passkey
	if s.get("/v1/passkeys", &pks); len(pks) != 0 {
		t.Fatalf("passkeys registered: %+v", pks)
	}
	if _, err := os.Stat(filepath.Join(s.Config().DataDir, node.TokensFileName)); err == nil {
		t.Fatal("a call through the API wrote a token record")
	}
	// The data directory's token enrols, through the API, while the node
	// runs; spent once, it enrols nothing again.
	tok, err := node.IssueEnrolToken(t.Context(), s.Config().DataDir, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	s.enrol("principal's automation") // with a fresh data-directory token
	if r := s.do(call{method: http.MethodPost, path: "/v1/passkeys/options", idem: freshKey(), body: []byte(`{"token":"` + tok + `","label":"again","software":true}`)}); r.status != http.StatusForbidden {
		t.Fatalf("an older token once a passkey exists: %d %s", r.status, r.body)
	}
}

// TestCardThroughAPIWaitsForPasskey: a card posted without via is an
// agent's (via api), not the principal's: the call waits until a
// confirm_card request, which shows every clause of the card, is approved
// with a passkey, and only then is the card sealed.
func TestCardThroughAPIWaitsForPasskey(t *testing.T) {
	s := serve(t, startNode(t, nodeSpec{name: "principal"}), Options{})
	key := s.enrol("laptop")
	done := make(chan reply, 1)
	go func() {
		done <- s.do(call{method: http.MethodPost, path: "/v1/card", idem: freshKey(), body: []byte(`{"card":` + cardJSON + `}`)})
	}()
	p := approveWhenAsked(s, key, node.ActConfirmCard)
	var lines []string
	for _, l := range p.Lines {
		lines = append(lines, l.Label+": "+l.Value)
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{"Goal: Get the guide translated.", "Must never 1: more than 1 ETH (rule: total > eth(1))", "How it arrived: through the node's API"} {
		if !strings.Contains(all, want) {
			t.Fatalf("the confirm_card request lacks %q:\n%s", want, all)
		}
	}
	r := <-done
	if r.status != http.StatusCreated {
		t.Fatalf("the card once confirmed: %d %s", r.status, r.body)
	}
	var c node.CardInfo
	s.get("/v1/card", &c)
	if c.Principal != "Dana" {
		t.Fatalf("the sealed card: %+v", c)
	}
}

// further registers a new software key as a further passkey of s's node
// over HTTP, approved by approver.
func (s *served) further(approver *approval.SoftwareKey, label string) *approval.SoftwareKey {
	s.t.Helper()
	var o PasskeyOptions
	s.post("/v1/passkeys/options", PasskeyRequest{Label: label, Software: true}, http.StatusAccepted, &o)
	approveWhenAsked(s, approver, node.ActRegisterPasskey)
	s.post("/v1/passkeys/options", PasskeyRequest{Token: o.Session}, http.StatusOK, &o)
	key := newKey(s.t, o.WebAuthn)
	resp, err := key.Create(o.Creation)
	if err != nil {
		s.t.Fatal(err)
	}
	s.post("/v1/passkeys/credential", PasskeyCredentialRequest{Session: o.Session, Response: resp}, http.StatusCreated, nil)
	return key
}

// TestRevokeOverHTTP: POST /v1/passkeys/{ref}/revoke waits until another
// passkey approves revoke_passkey and answers the revoked passkey; the
// list shows when; the last passkey is refused without a token (no
// request is made: nothing could approve it) and revoked with the token
// its data directory holds.
func TestRevokeOverHTTP(t *testing.T) {
	s := serve(t, startNode(t, nodeSpec{name: "principal"}), Options{})
	a := s.enrol("laptop")
	b := s.further(a, "phone")
	refA, refB := approval.CredentialRef(a.CredentialID()), approval.CredentialRef(b.CredentialID())
	done := make(chan reply, 1)
	go func() {
		done <- s.do(call{method: http.MethodPost, path: "/v1/passkeys/" + refA + "/revoke", idem: freshKey(), body: []byte(`{}`)})
	}()
	approveWhenAsked(s, b, node.ActRevokePasskey)
	r := <-done
	var pk Passkey
	if r.status != http.StatusOK || json.Unmarshal(r.body, &pk) != nil || pk.Ref != refA || pk.RevokedAt == nil {
		t.Fatalf("revoking A: %d %s", r.status, r.body)
	}
	checkSchema(t, "Passkey", r.body)
	var pks []Passkey
	if s.get("/v1/passkeys", &pks); len(pks) != 2 || pks[0].RevokedAt == nil || pks[1].RevokedAt != nil {
		t.Fatalf("passkeys after A's revocation: %+v", pks)
	}
	if r := s.do(call{method: http.MethodPost, path: "/v1/passkeys/" + refB + "/revoke", idem: freshKey(), body: []byte(`{}`)}); r.status != http.StatusForbidden || r.errCode() != string(approval.CodeNotAuthorized) {
		t.Fatalf("revoking the last passkey without a token: %d %s", r.status, r.body)
	}
	tok, err := node.IssueRevokeToken(s.Config().DataDir, refB, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	s.post("/v1/passkeys/"+refB+"/revoke", RevokeRequest{Token: tok}, http.StatusOK, &pk)
	if pk.RevokedAt == nil {
		t.Fatalf("the last passkey: %+v", pk)
	}
}
