package vxp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/strictjson"
	pure "github.com/parleynet/parley/vxp"
)

// Bounds of the device authorizations (RFC 8628) waiting for the
// principal.
const (
	maxDevicesPerClient = 5
	// maxDevices bounds the pending approvals strangers can put before
	// the principal (each also writes the gate's audit entries).
	maxDevices = 64
	// slowDownStep is what slow_down adds to a device code's interval
	// (RFC 8628 section 3.5).
	slowDownStep = 5 * time.Second
	// deviceKeep is how long an expired device code is still answered
	// expired_token before it is forgotten.
	deviceKeep = 5 * time.Minute
)

// userCodeAlphabet is RFC 8628 section 6.1's base-20 consonants: no
// vowels (no words), no letters that read like digits.
const userCodeAlphabet = "BCDFGHJKLMNPQRSTVWXZ"

// relationshipDetail is an authorization details entry of type
// vxp.RelationshipType: the company-initiated actions the agent accepts.
type relationshipDetail struct {
	Type                    string   `json:"type"`
	CompanyInitiatedActions []string `json:"company_initiated_actions"`
}

// deviceAuth is one device authorization. Its mutable fields are read and
// written under its store's lock. Device codes live in memory only: a
// restart loses them, and the agent starts the device authorization again
// (the gate's pending approval ends with the node too).
type deviceAuth struct {
	code, userCode       string
	clientID, clientName string
	jkt                  string
	details              []pure.Detail
	rel                  *relationshipDetail
	grantID, relID       string // drawn when it is made, used once approved
	expiresAt            time.Time
	interval             time.Duration
	lastPoll             time.Time
	approval             node.PendingApproval
	ready                chan struct{} // closed once AskGrant returned
	asked                bool          // AskGrant made the approval request

	decided  bool // the principal decided, or the window passed
	approved bool // ... with an approval the gate consumed: then writes the grant
	granted  bool // the grant is written
	failed   bool // the grant could not be written
	used     bool // the token was issued
}

// deviceStore holds the device authorizations by device code and user
// code, at most perClient undecided ones per client and max in all.
type deviceStore struct {
	mu        sync.Mutex
	perClient int
	max       int
	byCode    map[string]*deviceAuth
	byUser    map[string]*deviceAuth
}

func newDeviceStore(perClient, max int) *deviceStore {
	return &deviceStore{perClient: perClient, max: max, byCode: map[string]*deviceAuth{}, byUser: map[string]*deviceAuth{}}
}

func (ds *deviceStore) with(f func() error) error {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	return f()
}

// add records d unless its client or the node has too many waiting
// (rate_limited) or its user code is taken.
func (ds *deviceStore) add(d *deviceAuth, now time.Time) error {
	return ds.with(func() error {
		for c, e := range ds.byCode {
			if now.After(e.expiresAt.Add(deviceKeep)) || e.used {
				ds.drop(c)
			}
		}
		n := 0
		for _, e := range ds.byCode {
			if e.clientID == d.clientID && !e.decided && now.Before(e.expiresAt) {
				n++
			}
		}
		switch {
		case n >= ds.perClient:
			return &pure.Error{Code: pure.CodeRateLimited, Field: "client_id", Msg: fmt.Sprintf("%d device authorizations of this client wait already", n)}
		case len(ds.byCode) >= ds.max:
			return &pure.Error{Code: pure.CodeRateLimited, Msg: "too many device authorizations wait: try again later"}
		}
		if _, ok := ds.byUser[d.userCode]; ok {
			return errUserCodeTaken
		}
		ds.byCode[d.code], ds.byUser[d.userCode] = d, d
		return nil
	})
}

var errUserCodeTaken = &pure.Error{Code: pure.CodeBadArgument, Msg: "user code taken"}

// drop forgets device code c (with ds.mu held).
func (ds *deviceStore) drop(c string) {
	if d, ok := ds.byCode[c]; ok {
		delete(ds.byUser, d.userCode)
		delete(ds.byCode, c)
	}
}

func (ds *deviceStore) remove(d *deviceAuth) {
	_ = ds.with(func() error { ds.drop(d.code); return nil })
}

// len returns the number of device authorizations held.
func (ds *deviceStore) len() (n int) {
	_ = ds.with(func() error { n = len(ds.byCode); return nil })
	return n
}

func errDevice(code pure.Code, format string, args ...any) error {
	return &pure.Error{Code: code, Field: "device_code", Msg: fmt.Sprintf(format, args...)}
}

// poll answers the token endpoint's device_code grant for device code
// code, polled by client with DPoP key jkt at now (RFC 8628 section 3.5):
// slow_down when it polls within the interval (which grows by
// slowDownStep), then authorization_pending, access_denied, expired_token,
// or the grant's id once, when the principal approved.
func (ds *deviceStore) poll(code, clientID, jkt string, now time.Time) (grantID, relID string, err error) {
	err = ds.with(func() error {
		d, ok := ds.byCode[code]
		switch {
		case !ok || d.used:
			return errDevice(pure.CodeInvalidGrant, "names no device authorization waiting for its token")
		case d.clientID != clientID:
			return errDevice(pure.CodeInvalidGrant, "is another client's")
		case d.jkt != jkt:
			return &pure.AuthError{Code: pure.CodeInvalidDPoPProof, Reason: "jkt", Err: fmt.Errorf("the device authorization named another DPoP key")}
		}
		if !d.lastPoll.IsZero() && now.Sub(d.lastPoll) < d.interval {
			d.interval += slowDownStep
			d.lastPoll = now
			return errDevice(pure.CodeSlowDown, "poll every %d s", int(d.interval/time.Second))
		}
		d.lastPoll = now
		switch {
		case d.granted:
			d.used = true
			grantID, relID = d.grantID, d.relID
			return nil
		case d.failed:
			return errDevice(pure.CodeAccessDenied, "the grant could not be recorded")
		case d.decided && d.approved:
			// Approved: then is writing the grant.
			return errDevice(pure.CodeAuthorizationPending, "the principal has not decided yet")
		case d.decided && !now.Before(d.expiresAt):
			return errDevice(pure.CodeExpiredToken, "expired before the principal decided")
		case d.decided:
			return errDevice(pure.CodeAccessDenied, "the principal denied the grant")
		case !now.Before(d.expiresAt):
			return errDevice(pure.CodeExpiredToken, "expired before the principal decided")
		}
		return errDevice(pure.CodeAuthorizationPending, "the principal has not decided yet")
	})
	return grantID, relID, err
}

// deviceResponse is the device authorization's answer (RFC 8628 section
// 3.2).
type deviceResponse struct {
	DeviceCode              string `json:"device_code"`
	UserCode                string `json:"user_code"`
	VerificationURI         string `json:"verification_uri"`
	VerificationURIComplete string `json:"verification_uri_complete"`
	ExpiresIn               int64  `json:"expires_in"`
	Interval                int64  `json:"interval"`
}

// deviceAuthorization is POST <issuer>/oauth/device: resource the
// endpoint, authorization_details of offered delegated operations (and at
// most one relationship entry), a DPoP proof whose key the grant will be
// bound to, the client authenticated; it asks the principal (AskGrant)
// and answers the device and user codes.
func (s *Server) deviceAuthorization(r *http.Request, form map[string]string) (any, error) {
	if err := s.checkResource(form, true); err != nil {
		return nil, err
	}
	details, rel, jcs, err := s.parseDeviceDetails(form["authorization_details"])
	if err != nil {
		return nil, err
	}
	proof, err := s.checkDPoP(r, "")
	if err != nil {
		return nil, err
	}
	c, err := s.authClient(r.Context(), form)
	if err != nil {
		return nil, err
	}
	now := s.cfg.Now()
	d := &deviceAuth{
		clientID: c.ID, clientName: c.Name, jkt: proof.JKT, details: details, rel: rel,
		expiresAt: now.Add(s.cfg.DeviceTTL), interval: max(s.cfg.DeviceInterval, time.Second),
		ready: make(chan struct{}),
	}
	if err := s.drawDeviceCodes(d, now); err != nil {
		return nil, err
	}
	args := map[string]any{
		"user_code":             d.userCode,
		"authorization_details": jcs,
		"resource":              s.endpoint,
		"dpop_jkt":              d.jkt,
		// Until when the grant holds, once approved: the passkey signs it
		// too (docs/vxp.md).
		"grant_ttl_seconds": strconv.FormatInt(int64(s.cfg.GrantTTL/time.Second), 10),
	}
	name := c.Name
	if name == "" {
		name = c.ID
	}
	reason := fmt.Sprintf("The outside agent %s asks to act for you through VXP with exactly these authorization details", name)
	p, err := s.b.AskGrant(c.ID, args, reason, s.grantThen(d), s.grantDone(d))
	if err != nil {
		s.auth.devices.remove(d)
		close(d.ready)
		// The principal cannot be asked (the node stops, or its gate
		// refused the request): nothing waits, the agent may try again.
		return nil, &pure.Error{Code: pure.CodeUnavailable, Msg: "the principal cannot be asked now: " + err.Error(), Err: err}
	}
	_ = s.auth.devices.with(func() error {
		d.approval, d.asked = p, true
		if !p.Request.ExpiresAt.IsZero() && p.Request.ExpiresAt.Before(d.expiresAt) {
			// The principal's window ends first: so does the device code.
			d.expiresAt = p.Request.ExpiresAt
		}
		return nil
	})
	close(d.ready)
	verify := strings.TrimSuffix(s.cfg.WebURL, "/") + "/device"
	return &deviceResponse{
		DeviceCode: d.code, UserCode: d.userCode,
		VerificationURI:         verify,
		VerificationURIComplete: verify + "?user_code=" + url.QueryEscape(d.userCode),
		ExpiresIn:               max(int64(d.expiresAt.Sub(now)/time.Second), 1),
		Interval:                int64(d.interval / time.Second),
	}, nil
}

// drawDeviceCodes draws d's device code, user code, grant id and
// relationship id and adds d to the store.
func (s *Server) drawDeviceCodes(d *deviceAuth, now time.Time) error {
	var err error
	if d.code, err = authRandom(s.cfg.Rand, 32); err != nil {
		return err
	}
	if d.grantID, err = newAuthID(s.cfg.Rand, "grt_"); err != nil {
		return err
	}
	if d.rel != nil {
		if d.relID, err = newAuthID(s.cfg.Rand, "rel_"); err != nil {
			return err
		}
	}
	for range 8 {
		if d.userCode, err = newUserCode(s.cfg.Rand); err != nil {
			return err
		}
		if err = s.auth.devices.add(d, now); err != errUserCodeTaken {
			return err
		}
	}
	return err
}

// grantThen is AskGrant's then: once the principal's passkey approved the
// grant and the gate consumed the approval, it records the grant and
// marks the device code approved.
func (s *Server) grantThen(d *deviceAuth) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		select {
		case <-d.ready:
		case <-ctx.Done():
			return ctx.Err()
		}
		var g Grant
		ok := false
		_ = s.auth.devices.with(func() error {
			if !d.asked {
				return nil
			}
			now := s.cfg.Now().UTC()
			g = Grant{
				ID: d.grantID, ClientID: d.clientID, ClientName: d.clientName,
				Details: slices.Clone(d.details), Resource: s.endpoint, DPoPJKT: d.jkt,
				ApprovalID: d.approval.Request.RequestID, IntentHash: d.approval.Request.IntentHash,
				RelationshipID: d.relID, GrantedAt: now, ExpiresAt: now.Add(s.cfg.GrantTTL),
			}
			if d.rel != nil {
				g.RelationshipActions = slices.Clone(d.rel.CompanyInitiatedActions)
			}
			ok = true
			return nil
		})
		if !ok {
			return nil
		}
		err := s.store.PutGrant(ctx, g)
		_ = s.auth.devices.with(func() error {
			d.granted, d.failed = err == nil, err != nil
			return nil
		})
		if err == nil {
			s.log.Info("vxp grant recorded", "grant", g.ID, "client", g.ClientID, "intent", g.IntentHash)
		}
		return err
	}
}

// grantDone is AskGrant's decided: the principal approved (then follows
// and writes the grant) or denied, or the window passed.
func (s *Server) grantDone(d *deviceAuth) func(approved bool) {
	return func(approved bool) {
		_ = s.auth.devices.with(func() error {
			d.decided, d.approved = true, approved
			return nil
		})
	}
}

// tokenDeviceCode is the device_code grant (RFC 8628 section 3.4): the
// client authenticated, its DPoP key the one the device authorization
// named; the token carries exactly the grant approved, and names its
// relationship.
func (s *Server) tokenDeviceCode(r *http.Request, form map[string]string) (any, error) {
	if err := s.checkResource(form, false); err != nil {
		return nil, err
	}
	code := form["device_code"]
	if code == "" {
		return nil, errInvalidRequest("device_code", "a device_code grant names its device_code")
	}
	proof, err := s.checkDPoP(r, "")
	if err != nil {
		return nil, err
	}
	c, err := s.authClient(r.Context(), form)
	if err != nil {
		return nil, err
	}
	now := s.cfg.Now()
	gid, rel, err := s.auth.devices.poll(code, c.ID, proof.JKT, now)
	if err != nil {
		return nil, err
	}
	g, ok := s.store.Grant(gid)
	if !ok || !g.Active(now) {
		return nil, errDevice(pure.CodeInvalidGrant, "the grant is no longer in force")
	}
	return s.tokenAnswer(c.ID, proof.JKT, []Grant{g}, rel)
}

// parseDeviceDetails decodes a device authorization's
// authorization_details: capability entries (vxp.ParseDetails) whose
// every action is an operation vxp.json offers with delegated access,
// with an identifier exactly when the operation takes a target, and at
// most one relationship entry whose company-initiated actions are
// distinct members of vxp.RelationshipActions. It returns them and the
// JCS text of the whole array as the principal approves it.
func (s *Server) parseDeviceDetails(raw string) ([]pure.Detail, *relationshipDetail, string, error) {
	bad := func(field, format string, args ...any) ([]pure.Detail, *relationshipDetail, string, error) {
		return nil, nil, "", &pure.Error{Code: pure.CodeInvalidAuthorizationDetails, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if raw == "" {
		return bad("authorization_details", "a device authorization names its authorization_details")
	}
	var entries []json.RawMessage
	if err := strictjson.Unmarshal([]byte(raw), &entries); err != nil {
		return bad("authorization_details", "%v", err)
	}
	var caps []json.RawMessage
	var rel *relationshipDetail
	for i, e := range entries {
		var t struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(e, &t)
		if t.Type != pure.RelationshipType {
			caps = append(caps, e)
			continue
		}
		f := "authorization_details/" + strconv.Itoa(i)
		if rel != nil {
			return bad(f, "one relationship entry at most")
		}
		rel = &relationshipDetail{}
		if err := strictjson.Unmarshal(e, rel); err != nil {
			return bad(f, "%v", err)
		}
		if len(rel.CompanyInitiatedActions) == 0 {
			return bad(f+"/company_initiated_actions", "no actions")
		}
		for j, a := range rel.CompanyInitiatedActions {
			if !slices.Contains(pure.RelationshipActions, a) || slices.Contains(rel.CompanyInitiatedActions[:j], a) {
				return bad(f+"/company_initiated_actions/"+strconv.Itoa(j), "%q is not one of %v, or is named twice", a, pure.RelationshipActions)
			}
		}
	}
	capsJSON, err := json.Marshal(caps)
	if err != nil {
		return nil, nil, "", err
	}
	if caps == nil {
		capsJSON = []byte("[]")
	}
	details, err := pure.ParseDetails(capsJSON)
	if err != nil {
		return nil, nil, "", err
	}
	for i, d := range details {
		f := "authorization_details/" + strconv.Itoa(i)
		for _, a := range d.Actions {
			op, ok := s.offeredOp(a)
			switch {
			case !ok:
				return bad(f+"/actions", "%q is not an operation this node offers", a)
			case op.Access != pure.AccessDelegated:
				return bad(f+"/actions", "%q is public: it needs no grant", a)
			case op.Target != "" && d.Identifier == "":
				return bad(f+"/identifier", "%q acts on one %s: name it", a, op.Target)
			case op.Target == "" && d.Identifier != "":
				return bad(f+"/identifier", "%q takes no target", a)
			}
		}
	}
	all := make([]any, 0, len(details)+1)
	for _, d := range details {
		all = append(all, d)
	}
	if rel != nil {
		all = append(all, rel)
	}
	b, err := json.Marshal(all)
	if err != nil {
		return nil, nil, "", err
	}
	jcs, err := negotiation.Canonicalize(b)
	if err != nil {
		return nil, nil, "", err
	}
	return details, rel, string(jcs), nil
}

// offeredOp returns the catalogue's operation id when vxp.json offers it.
func (s *Server) offeredOp(id string) (pure.Operation, bool) {
	for _, c := range s.doc.Capabilities {
		if c.ID == id {
			return pure.LookupOperation(id)
		}
	}
	return pure.Operation{}, false
}

// newUserCode draws XXXX-XXXX from userCodeAlphabet (rejection sampling,
// no bias).
func newUserCode(rnd io.Reader) (string, error) {
	var out []byte
	var b [16]byte
	for len(out) < 8 {
		if _, err := io.ReadFull(rnd, b[:]); err != nil {
			return "", fmt.Errorf("vxp: user code: %w", err)
		}
		for _, c := range b {
			if int(c) < 256/len(userCodeAlphabet)*len(userCodeAlphabet) && len(out) < 8 {
				out = append(out, userCodeAlphabet[int(c)%len(userCodeAlphabet)])
			}
		}
	}
	return string(out[:4]) + "-" + string(out[4:]), nil
}

// authRandom returns n random bytes, base64url.
func authRandom(rnd io.Reader, n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(rnd, b); err != nil {
		return "", fmt.Errorf("vxp: random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// newAuthID returns prefix and 128 random bits, base64url.
func newAuthID(rnd io.Reader, prefix string) (string, error) {
	t, err := authRandom(rnd, 16)
	if err != nil {
		return "", err
	}
	return prefix + t, nil
}
