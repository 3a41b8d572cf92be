package vxp

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/strictjson"
	pure "github.com/parleynet/parley/vxp"
)

// resourceRoutes serves the native endpoints under <issuer>/v1, one row
// each. Every call is authenticated (authenticate) and checked against
// the caller's grants still in force, per call: a grant revoked mid-way
// stops the calls it covered. A known path with another method is
// method_not_allowed, any other path not_found, in Parley's error body.
func (s *Server) resourceRoutes(mux *http.ServeMux) {
	u, err := url.Parse(s.endpoint)
	if err != nil {
		return
	}
	p := strings.TrimSuffix(u.Path, "/")
	routes := []struct {
		method, path string
		h            func(w http.ResponseWriter, r *http.Request, c *Caller)
	}{
		{"POST", "/requests", s.postRequest},
		{"GET", "/requests/{id}", s.getRequest},
		{"GET", "/requests/{id}/events", s.getEvents},
		{"POST", "/requests/{id}/cancel", s.postCancel},
		{"GET", "/requests/{id}/proof", s.getProof},
		{"POST", "/proposals/{id}/accept", s.postAccept},
		{"POST", "/proposals/{id}/counter", s.postCounter},
		{"GET", "/relationships/{id}", s.getRelationship},
		{"DELETE", "/relationships/{id}", s.deleteRelationship},
		{"POST", "/relationships/{id}/replies", s.postReply},
	}
	for _, rt := range routes {
		mux.HandleFunc(rt.method+" "+p+rt.path, s.authed(rt.h))
	}
	mux.HandleFunc(p+"/", func(w http.ResponseWriter, r *http.Request) {
		rest := strings.TrimPrefix(r.URL.Path, p)
		for _, rt := range routes {
			if pathMatches(rt.path, rest) {
				writeError(w, &pure.Error{Code: pure.CodeMethodNotAllowed, Field: "method", Msg: fmt.Sprintf("%s does not take %s", r.URL.Path, r.Method)})
				return
			}
		}
		writeError(w, &pure.Error{Code: pure.CodeNotFound, Field: "path", Msg: fmt.Sprintf("%s is no endpoint", r.URL.Path)})
	})
}

// pathMatches reports whether path fits pattern, whose {name} segments
// match any one non-empty segment.
func pathMatches(pattern, path string) bool {
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(xs) {
		return false
	}
	for i := range ps {
		if strings.HasPrefix(ps[i], "{") {
			if xs[i] == "" {
				return false
			}
		} else if ps[i] != xs[i] {
			return false
		}
	}
	return true
}

// respondAuthError answers a refused authentication: 401 with
// WWW-Authenticate and DPoP-Nonce (writeAuthError).
func (s *Server) respondAuthError(w http.ResponseWriter, err error) {
	s.writeAuthError(w, err)
}

// authed authenticates a resource call and keeps of its caller's grants
// those still in force in the store: a token whose every grant was
// revoked or expired since it was issued is refused at once
// (invalid_token).
func (s *Server) authed(h func(w http.ResponseWriter, r *http.Request, c *Caller)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.setDPoPNonce(w) // every answer names the nonce the next proof takes
		if s.store == nil || s.mgr == nil {
			writeError(w, &pure.Error{Code: pure.CodeUnavailable, Msg: "VXP is not started"})
			return
		}
		c, err := s.authenticate(r)
		if err != nil {
			s.respondAuthError(w, err)
			return
		}
		cc := *c
		cc.Grants = nil
		now := s.cfg.Now()
		for _, g := range c.Grants {
			if sg, ok := s.store.Grant(g.ID); ok && sg.ClientID == c.ClientID && sg.Active(now) {
				cc.Grants = append(cc.Grants, sg)
			}
		}
		if len(c.Grants) > 0 && len(cc.Grants) == 0 {
			s.respondAuthError(w, &pure.Error{Code: pure.CodeInvalidToken, Msg: "the token's grants were revoked or expired"})
			return
		}
		h(w, r, &cc)
	}
}

// cover returns the grant of c that covers operation on the negotiation
// nid, and true; a public operation is covered without a grant (any
// valid token may run it: board.read).
func (s *Server) cover(c *Caller, operation, nid string) (Grant, bool) {
	if op, ok := pure.LookupOperation(operation); ok && op.Access == pure.AccessPublic {
		return Grant{}, true
	}
	for _, g := range c.Grants {
		if pure.Covers(g.Details, operation, nid) {
			return g, true
		}
	}
	return Grant{}, false
}

// errNotCovered is insufficient_scope for operation on nid.
func errNotCovered(operation, nid string) error {
	return &pure.Error{Code: pure.CodeInsufficientScope, Field: "authorization_details", Msg: fmt.Sprintf("no grant in force covers %s on negotiation %s", operation, nid)}
}

// badBody wraps a refusal of strictjson as bad_argument.
func badBody(err error) error {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return &pure.Error{Code: pure.CodeBodyTooLarge, Field: "body", Msg: err.Error(), Err: err}
	}
	if _, ok := refusal(err); ok {
		return err
	}
	return &pure.Error{Code: pure.CodeBadArgument, Field: "body", Msg: err.Error(), Err: err}
}

// readBody reads a call's body; empty is allowed when optional.
func readBody(r *http.Request, optional bool) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, badBody(err)
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		if optional {
			return nil, nil
		}
		return nil, &pure.Error{Code: pure.CodeBadArgument, Field: "body", Msg: "empty"}
	}
	return b, nil
}

// createBody is POST /v1/requests's body.
type createBody struct {
	Operation  string          `json:"operation"`
	Target     json.RawMessage `json:"target"`
	Parameters json.RawMessage `json:"parameters"`
}

// newID returns prefix and 12 characters of base64url from 9 random
// bytes.
func (s *Server) newID(prefix string) (string, error) {
	b := make([]byte, 9)
	if _, err := io.ReadFull(s.cfg.Rand, b); err != nil {
		if _, err := io.ReadFull(rand.Reader, b); err != nil {
			return "", err
		}
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// parseTarget checks a request's target against what operation takes:
// {negotiation_id: <lowercase uuid>} for an operation on a negotiation,
// none (absent, null or {}) for one without. It returns the target's JCS
// text and the negotiation id.
func parseTarget(op pure.Operation, raw json.RawMessage) (json.RawMessage, string, error) {
	empty := len(raw) == 0 || string(raw) == "null"
	if op.Target == "" {
		if !empty {
			var m map[string]json.RawMessage
			if err := strictjson.Unmarshal(raw, &m); err != nil || len(m) != 0 {
				return nil, "", &pure.Error{Code: pure.CodeBadTarget, Field: "target", Msg: op.ID + " takes no target"}
			}
		}
		return json.RawMessage(`{}`), "", nil
	}
	if empty {
		return nil, "", &pure.Error{Code: pure.CodeBadTarget, Field: "target", Msg: op.ID + " takes {negotiation_id}"}
	}
	var t struct {
		NegotiationID *string `json:"negotiation_id"`
	}
	if err := strictjson.Unmarshal(raw, &t); err != nil || t.NegotiationID == nil {
		return nil, "", &pure.Error{Code: pure.CodeBadTarget, Field: "target", Msg: op.ID + " takes {negotiation_id}"}
	}
	nid := *t.NegotiationID
	if b, err := negotiation.ParseNegotiationID(nid); err != nil || negotiation.NewNegotiationID(b) != nid {
		return nil, "", &pure.Error{Code: pure.CodeBadTarget, Field: "target/negotiation_id", Msg: fmt.Sprintf("%q is not a negotiation id (a lowercase UUID v4)", nid)}
	}
	jcs, _ := json.Marshal(map[string]string{pure.TargetNegotiation: nid})
	return jcs, nid, nil
}

// operationOf returns the operation id if this node offers it (vxp.json's
// capabilities) and this package runs it.
func (s *Server) operationOf(id string) (pure.Operation, error) {
	for _, c := range s.doc.Capabilities {
		if c.ID == id {
			if _, ok := operations[id]; ok {
				if op, ok := pure.LookupOperation(id); ok {
					return op, nil
				}
			}
		}
	}
	return pure.Operation{}, &pure.Error{Code: pure.CodeUnknownOperation, Field: "operation", Msg: fmt.Sprintf("%q is not offered here", id)}
}

// postRequest is POST /v1/requests: a new request, or the same request
// re-evaluated under the caller's authority now when the client's
// Idempotency-Key and body are the same (202 authorization_required, 201
// new, 200 re-evaluated).
func (s *Server) postRequest(w http.ResponseWriter, r *http.Request, c *Caller) {
	key := r.Header.Get("Idempotency-Key")
	if err := pure.CheckIdempotencyKey(key); err != nil {
		writeError(w, err)
		return
	}
	raw, err := readBody(r, false)
	if err != nil {
		writeError(w, err)
		return
	}
	hash, err := pure.BodyHash(raw)
	if err != nil {
		writeError(w, badBody(err))
		return
	}
	var prior *pure.IdempotencyRecord
	if id, ok := s.store.ByIdempotency(c.ClientID, key); ok {
		if pr, ok := s.store.Request(id); ok {
			prior = &pure.IdempotencyRecord{ClientID: pr.ClientID, Key: pr.Idempotency, BodyHash: pr.BodyHash, RequestID: pr.ID}
		}
	}
	dec, err := pure.DecideIdempotency(c.ClientID, key, hash, prior)
	if err != nil {
		writeError(w, err)
		return
	}
	id := dec.RequestID
	if dec.New {
		var body createBody
		if err := strictjson.Unmarshal(raw, &body); err != nil {
			writeError(w, badBody(err))
			return
		}
		op, err := s.operationOf(body.Operation)
		if err != nil {
			writeError(w, err)
			return
		}
		target, nid, err := parseTarget(op, body.Target)
		if err != nil {
			writeError(w, err)
			return
		}
		if p := body.Parameters; len(p) > 0 && string(p) != "null" {
			var m map[string]json.RawMessage
			if err := strictjson.Unmarshal(p, &m); err != nil || len(m) != 0 {
				writeError(w, &pure.Error{Code: pure.CodeBadArgument, Field: "parameters", Msg: op.ID + " takes no parameters when it is requested (a counter carries its own)"})
				return
			}
		}
		rid, err := s.newID("req_")
		if err != nil {
			writeError(w, err)
			return
		}
		oid, err := s.newID("op_")
		if err != nil {
			writeError(w, err)
			return
		}
		now := s.cfg.Now().UTC()
		req := &Request{
			ID: rid, OperationID: oid, ClientID: c.ClientID, Idempotency: key, BodyHash: hash,
			Operation: op.ID, Target: target, Parameters: body.Parameters, NegotiationID: nid,
			State: pure.StateReceived, Steps: []pure.Step{}, CreatedAt: now, UpdatedAt: now,
		}
		// A request no grant covers is held in memory only (holding.go):
		// a stranger writes nothing to the ledger.
		if g, ok := s.cover(c, op.ID, nid); ok {
			req.GrantID = g.ID
		}
		got, created, err := s.store.Create(s.ctx, req)
		if err != nil {
			writeError(w, err)
			return
		}
		if !created && got.BodyHash != hash {
			writeError(w, &pure.Error{Code: pure.CodeIdempotencyKeyReused, Field: "Idempotency-Key", Msg: fmt.Sprintf("the key names request %s, made with another body", got.ID)})
			return
		}
		id = got.ID
		dec.New = created
	}
	status, v, err := s.evaluate(c, id, dec.New)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, status, v)
}

// evaluate decides request id under the caller's authority now: without
// a covering grant it is authorization_required (202, naming exactly
// what is missing); a static operation runs at once; a dynamic one gets
// its proposal (or, re-evaluated, what moved since). A request past its
// proposal is shown as it stands.
func (s *Server) evaluate(c *Caller, id string, isNew bool) (int, requestView, error) {
	r, ok := s.store.Request(id)
	if !ok {
		return 0, requestView{}, errUnknownRequest(id)
	}
	ok200 := http.StatusOK
	if isNew {
		ok200 = http.StatusCreated
	}
	if !open(r.State) {
		return ok200, s.view(c, r), nil
	}
	row := operations[r.Operation]
	g, covered := s.cover(c, r.Operation, r.NegotiationID)
	if !covered {
		r, err := s.mgr.update(id, func(r *Request) error {
			if !open(r.State) {
				return nil // moved on meanwhile (a concurrent call)
			}
			r.GrantID = ""
			return advance(r, pure.EventAuthorizationMissing, s.mgr.now())
		})
		if err != nil {
			return 0, requestView{}, err
		}
		v := s.view(c, r)
		v.Authorization = pure.NeedAuthorization(c.Details(), r.Operation, r.NegotiationID, s.md, s.endpoint)
		return http.StatusAccepted, v, nil
	}
	if row.check != nil {
		// A static operation: authorized -> executing, then its read.
		ran := false
		if _, err := s.mgr.update(id, func(r *Request) error {
			if r.State != pure.StateReceived && r.State != pure.StateAuthorizationRequired {
				return nil // a concurrent call runs it
			}
			ran = true
			r.GrantID = g.ID
			return advance(r, pure.EventAuthorized, s.mgr.now())
		}); err != nil {
			return 0, requestView{}, err
		}
		cerr := row.check(s, r)
		r, err := s.mgr.update(id, func(r *Request) error {
			if !ran {
				return nil
			}
			if cerr != nil {
				code, _ := refusal(cerr)
				r.Failure = &Failure{Code: string(code), Message: cerr.Error()}
				return advance(r, pure.EventRefused, s.mgr.now())
			}
			return advance(r, pure.EventVerified, s.mgr.now())
		})
		if err != nil {
			return 0, requestView{}, err
		}
		return ok200, s.view(c, r), nil
	}
	r, err := s.mgr.update(id, func(r *Request) error {
		at := s.mgr.now()
		if !open(r.State) {
			return nil // moved on meanwhile (a concurrent call)
		}
		r.GrantID = g.ID
		if r.Proposals == nil {
			th, err := threadOf(s, r.NegotiationID)
			var d pure.Draft
			if err == nil {
				d, r.Basis, err = row.draft(s, th)
			}
			if err == nil {
				r.Proposals, err = pure.NewProposals(r.OperationID, s.cfg.Limits, d, at, s.cfg.Rand)
			}
			if err != nil {
				code, ok := refusal(err)
				if !ok {
					return err
				}
				r.Failure = &Failure{Code: string(code), Message: err.Error()}
				return advance(r, pure.EventRefused, at)
			}
			return advance(r, pure.EventProposed, at)
		}
		if r.State == pure.StateAuthorizationRequired {
			if err := advance(r, pure.EventProposed, at); err != nil {
				return err
			}
		}
		return s.mgr.refresh(r, at)
	})
	if err != nil {
		return 0, requestView{}, err
	}
	return ok200, s.view(c, r), nil
}

// open reports whether a request in state st is still evaluated by a
// repeated POST: it has not been accepted, run or ended.
func open(st pure.State) bool {
	return st == pure.StateReceived || st == pure.StateAuthorizationRequired || st == pure.StateProposed
}

// requestView is a request as GET /v1/requests/{id} and the other
// resource answers show it.
type requestView struct {
	RequestID     string                      `json:"request_id"`
	OperationID   string                      `json:"operation_id"`
	Operation     string                      `json:"operation"`
	Target        json.RawMessage             `json:"target"`
	State         pure.State                  `json:"state"`
	Projections   pure.Projections            `json:"projections"`
	Proposal      *pure.ProposalView          `json:"proposal"`
	Result        any                         `json:"result"`
	Effects       []Effect                    `json:"effects"`
	Failure       *Failure                    `json:"failure,omitempty"`
	ProofURL      string                      `json:"proof_url"`
	Authorization *pure.AuthorizationRequired `json:"authorization,omitempty"`
}

// view returns r as the caller c sees it now: the current revision (the
// newest, when it was superseded without a successor), and a succeeded
// read's result as the node holds it now.
func (s *Server) view(c *Caller, r *Request) requestView {
	v := requestView{
		RequestID: r.ID, OperationID: r.OperationID, Operation: r.Operation, Target: r.Target, State: r.State,
		Projections: pure.Project(r.State, r.Proposals != nil), Effects: r.Effects, Failure: r.Failure,
		ProofURL: s.endpoint + "/requests/" + r.ID + "/proof",
	}
	if v.Effects == nil {
		v.Effects = []Effect{}
	}
	if p := r.Proposals; p != nil && len(p.Revisions) > 0 {
		cur := p.Current()
		if cur == nil {
			cur = p.Revisions[len(p.Revisions)-1]
		}
		if p.Accepted != nil {
			cur = p.Find(p.Accepted.ProposalID)
		}
		pv := p.View(cur, s.cfg.Now())
		v.Proposal = &pv
	}
	if r.State == pure.StateSucceeded {
		if row := operations[r.Operation]; row.result != nil {
			if _, ok := s.cover(c, r.Operation, r.NegotiationID); ok {
				if res, err := row.result(s, r); err == nil {
					v.Result = res
				}
			}
		}
	}
	return v
}

// ownRequest returns the caller's request named by the path's id:
// unknown_request for another client's, as for none.
func (s *Server) ownRequest(r *http.Request, c *Caller) (*Request, error) {
	id := r.PathValue("id")
	req, ok := s.store.Request(id)
	if !ok || req.ClientID != c.ClientID {
		return nil, errUnknownRequest(id)
	}
	return req, nil
}

// visibleRequest returns the request of the path's id when it is c's and
// its answer may be shown to c (ownRequest, then authorized).
func (s *Server) visibleRequest(r *http.Request, c *Caller) (*Request, error) {
	req, err := s.ownRequest(r, c)
	if err != nil {
		return nil, err
	}
	if err := s.authorized(c, req); err != nil {
		return nil, err
	}
	return req, nil
}

// authorized reports whether a request's answer may be shown to c: a
// request that never had authority is its own; past it, the grant must
// still cover it.
func (s *Server) authorized(c *Caller, r *Request) error {
	switch r.State {
	case pure.StateReceived, pure.StateAuthorizationRequired:
		return nil
	}
	if _, ok := s.cover(c, r.Operation, r.NegotiationID); !ok {
		return errNotCovered(r.Operation, r.NegotiationID)
	}
	return nil
}

// getRequest is GET /v1/requests/{id}; a proposed request whose revision
// expired, or whose negotiation moved, is brought up to date first.
func (s *Server) getRequest(w http.ResponseWriter, r *http.Request, c *Caller) {
	req, err := s.visibleRequest(r, c)
	if err != nil {
		writeError(w, err)
		return
	}
	if req.State == pure.StateProposed {
		if req, err = s.mgr.update(req.ID, func(r *Request) error { return s.mgr.refresh(r, s.mgr.now()) }); err != nil {
			writeError(w, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, s.view(c, req))
}

// getEvents is GET /v1/requests/{id}/events: {events: [{state, from,
// at}]}, oldest first.
func (s *Server) getEvents(w http.ResponseWriter, r *http.Request, c *Caller) {
	req, err := s.visibleRequest(r, c)
	if err != nil {
		writeError(w, err)
		return
	}
	evs := req.Steps
	if evs == nil {
		evs = []pure.Step{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"events": evs})
}

// postCancel is POST /v1/requests/{id}/cancel: a request that has not
// acted is cancelled at once (200); one whose act waits for the
// principal is asked to stop (202: it is cancelled once the act ends
// without an effect); one executing or pending_verification is refused
// with effect_unknown, a final one with request_final.
func (s *Server) postCancel(w http.ResponseWriter, r *http.Request, c *Caller) {
	req, err := s.ownRequest(r, c)
	if err == nil && req.State != pure.StateReceived && req.State != pure.StateAuthorizationRequired {
		err = s.authorized(c, req)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	status := http.StatusOK
	got, err := s.mgr.update(req.ID, func(r *Request) error {
		if (r.State == pure.StateAccepted || r.State == pure.StateWaitingHuman) && s.mgr.askCancel(r.ID) {
			status = http.StatusAccepted
			return nil
		}
		return advance(r, pure.EventCancel, s.mgr.now())
	})
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, status, s.view(c, got))
}

// proposalRequest returns the caller's request whose operation has the
// proposal id (prop_<operation id>_r<n>), and checks the caller's grant
// covers it.
func (s *Server) proposalRequest(r *http.Request, c *Caller) (*Request, string, error) {
	pid := r.PathValue("id")
	notFound := &pure.Error{Code: pure.CodeProposalNotFound, Field: "proposal_id", Msg: fmt.Sprintf("%q names no proposal of this client", pid)}
	rest, ok := strings.CutPrefix(pid, "prop_")
	i := strings.LastIndex(rest, "_r")
	if !ok || i <= 0 {
		return nil, pid, notFound
	}
	oid := rest[:i]
	for _, req := range s.store.Requests(c.ClientID) {
		if req.OperationID == oid && req.Proposals != nil && req.Proposals.Find(pid) != nil {
			if _, ok := s.cover(c, req.Operation, req.NegotiationID); !ok {
				return nil, pid, errNotCovered(req.Operation, req.NegotiationID)
			}
			return req, pid, nil
		}
	}
	return nil, pid, notFound
}

// acceptBody is the accept's body: approved_by "user" at most, recorded
// as agent_asserted (it never approves a gated act).
type acceptBody struct {
	ApprovedBy string `json:"approved_by"`
}

// postAccept is POST /v1/proposals/{id}/accept. The negotiation is read
// first: when it moved under the revision (the counterparty countered),
// the revision is superseded and the accept is terms_changed (409): it
// runs nothing and counts an attempt. The store's lock serialises the
// decision, so concurrent accepts of the current revision give one
// effect; a second accept of the accepted revision is already_accepted.
// An accepted revision's act runs on the request (202).
func (s *Server) postAccept(w http.ResponseWriter, r *http.Request, c *Caller) {
	req, pid, err := s.proposalRequest(r, c)
	if err != nil {
		writeError(w, err)
		return
	}
	raw, err := readBody(r, true)
	if err != nil {
		writeError(w, err)
		return
	}
	var body acceptBody
	if raw != nil {
		if err := strictjson.Unmarshal(raw, &body); err != nil {
			writeError(w, badBody(err))
			return
		}
	}
	var refused error
	accepted := false
	got, err := s.mgr.update(req.ID, func(r *Request) error {
		at := s.mgr.now()
		if err := s.mgr.refresh(r, at); err != nil {
			return err
		}
		if _, err := r.Proposals.Accept(pid, body.ApprovedBy, at); err != nil {
			switch pure.CodeOf(err) {
			case pure.CodeTermsChanged, pure.CodeProposalExpired:
				// Counted (Proposals.Refused): kept, and answered 409.
				refused = err
				if r.State == pure.StateProposed && len(r.Proposals.Refused) >= r.Proposals.Limits.MaxAcceptAttempts {
					r.Failure = &Failure{Code: string(pure.CodeAcceptAttemptsExhausted), Message: "every accept attempt was used"}
					return advance(r, pure.EventRefused, at)
				}
				return nil
			case pure.CodeAcceptAttemptsExhausted:
				refused = err
				if r.State == pure.StateProposed {
					r.Failure = &Failure{Code: string(pure.CodeAcceptAttemptsExhausted), Message: err.Error()}
					return advance(r, pure.EventRefused, at)
				}
				return nil
			}
			return err
		}
		accepted = true
		return advance(r, pure.EventAccepted, at)
	})
	if err != nil {
		writeError(w, err)
		return
	}
	if refused != nil {
		writeError(w, refused)
		return
	}
	if accepted {
		if got, err = s.mgr.begin(got.ID); err != nil {
			writeError(w, err)
			return
		}
	}
	status := http.StatusAccepted
	if got.State.Final() {
		status = http.StatusOK
	}
	writeJSON(w, status, s.view(c, got))
}

// postCounter is POST /v1/proposals/{id}/counter {milestones, reason}:
// the next revision, terms.action "counter" (Proposals.Counter's rules).
func (s *Server) postCounter(w http.ResponseWriter, r *http.Request, c *Caller) {
	req, pid, err := s.proposalRequest(r, c)
	if err != nil {
		writeError(w, err)
		return
	}
	row := operations[req.Operation]
	if row.counter == nil {
		writeError(w, &pure.Error{Code: pure.CodeProposalNotFound, Field: "proposal_id", Msg: req.Operation + " takes no counter"})
		return
	}
	raw, err := readBody(r, false)
	if err != nil {
		writeError(w, err)
		return
	}
	if _, err := parseCounter(raw); err != nil {
		writeError(w, err)
		return
	}
	var refused error
	got, err := s.mgr.update(req.ID, func(r *Request) error {
		at := s.mgr.now()
		if err := s.mgr.refresh(r, at); err != nil {
			return err
		}
		if r.State.Final() {
			_, err := pure.Transition(r.State, pure.EventRevised, at)
			refused = err
			return nil
		}
		th, err := threadOf(s, r.NegotiationID)
		if err != nil {
			return err
		}
		d, err := row.counter(s, th, r.Basis, raw)
		if err != nil {
			return err
		}
		if _, err := r.Proposals.Counter(pid, d, at, s.cfg.Rand); err != nil {
			refused = err
			return nil
		}
		return advance(r, pure.EventRevised, at)
	})
	if err != nil {
		writeError(w, err)
		return
	}
	if refused != nil {
		writeError(w, refused)
		return
	}
	writeJSON(w, http.StatusOK, s.view(c, got))
}
