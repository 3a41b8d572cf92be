package vxp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	pure "github.com/parleynet/parley/vxp"
)

// The ledger kinds VXP writes (docs/ledger.md). None names a negotiation,
// so no client id, grant or agent name is in a negotiation's proof bundle.
const (
	// KindGrant is a grant the principal approved: body Grant.
	KindGrant = "vxp.grant"
	// KindGrantRevoked ends a grant at once: body {grant_id, at, by}.
	KindGrantRevoked = "vxp.grant.revoked"
	// KindRequest is a request as it stands after a change: body Request.
	// The newest entry of a request id is the request.
	KindRequest = "vxp.request"
)

// Grant is what the principal granted one agent with a passkey: exactly
// its authorization details, for the resource, to the DPoP key dpop_jkt,
// until ExpiresAt.
type Grant struct {
	ID         string        `json:"grant_id"`
	ClientID   string        `json:"client_id"`
	ClientName string        `json:"client_name,omitempty"`
	Details    []pure.Detail `json:"authorization_details"`
	Resource   string        `json:"resource"`
	DPoPJKT    string        `json:"dpop_jkt"`
	// ApprovalID and IntentHash name the principal's approval of the
	// grant (its Human Intent Protocol request).
	ApprovalID string `json:"approval_request_id"`
	IntentHash string `json:"intent_hash"`
	// RelationshipID is set when the grant holds a relationship entry;
	// RelationshipActions are its company-initiated actions.
	RelationshipID      string    `json:"relationship_id,omitempty"`
	RelationshipActions []string  `json:"company_initiated_actions,omitempty"`
	GrantedAt           time.Time `json:"granted_at"`
	ExpiresAt           time.Time `json:"expires_at"`

	// Revoked is when the grant was revoked (from a vxp.grant.revoked
	// entry); it is not stored with the grant.
	Revoked *time.Time `json:"-"`
}

// Active reports whether g is in force at time at.
func (g *Grant) Active(at time.Time) bool {
	return g.Revoked == nil && at.Before(g.ExpiresAt)
}

// grantRevoked is the body of a vxp.grant.revoked entry.
type grantRevoked struct {
	GrantID string    `json:"grant_id"`
	At      time.Time `json:"at"`
	By      string    `json:"by"`
}

// Effect is one effect of a request's act: an envelope the node sent
// (kind "envelope": its type, its CIDv1 as Parley writes it, and whether
// the counterparty acknowledged it) or a transaction (kind "tx").
type Effect struct {
	Kind          string           `json:"kind"`
	Type          string           `json:"type"`
	CID           string           `json:"cid,omitempty"`
	Hash          negotiation.Hash `json:"hash,omitzero"`
	Tx            string           `json:"tx,omitempty"`
	Acknowledged  bool             `json:"acknowledged"`
	NegotiationID string           `json:"-"`
}

// Failure is why a request failed, expired or was refused: a code of the
// node or of vxp, and its message.
type Failure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Request is one VXP request as the store keeps it. Its newest vxp.request
// entry is the request (Seq and Head name that entry, for the proof).
type Request struct {
	ID          string          `json:"request_id"`
	OperationID string          `json:"operation_id"`
	ClientID    string          `json:"client_id"`
	Idempotency string          `json:"idempotency_key"`
	BodyHash    string          `json:"body_hash"`
	Operation   string          `json:"operation"`
	Target      json.RawMessage `json:"target"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	// NegotiationID is the target's negotiation, when it names one.
	NegotiationID string `json:"negotiation_id,omitempty"`
	// GrantID is the grant that covered the request when it was last
	// evaluated.
	GrantID   string          `json:"grant_id,omitempty"`
	State     pure.State      `json:"state"`
	Steps     []pure.Step     `json:"steps"`
	Proposals *pure.Proposals `json:"proposals,omitempty"`
	Effects   []Effect        `json:"effects,omitempty"`
	// Approvals are the intent hashes of the principal's approvals of the
	// request's gated acts.
	Approvals []string `json:"approvals,omitempty"`
	// Basis is the hash of the negotiation's current offer the proposals
	// answer: when the negotiation moves under it, the revision is
	// superseded.
	Basis     negotiation.Hash `json:"basis,omitzero"`
	Failure   *Failure         `json:"failure,omitempty"`
	CreatedAt time.Time        `json:"created_at"`
	UpdatedAt time.Time        `json:"updated_at"`

	Seq  uint64           `json:"-"`
	Head negotiation.Hash `json:"-"`

	// held is set while the request never had a grant covering it: it is
	// kept in memory only (holding.go's bounds), so an agent the
	// principal never granted anything writes nothing to the ledger.
	held bool
}

// clone returns a deep copy of r (through its stored form).
func (r *Request) clone() (*Request, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var c Request
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	c.Seq, c.Head, c.held = r.Seq, r.Head, r.held
	return &c, nil
}

// idemKey is an Idempotency-Key, per client.
type idemKey struct{ client, key string }

// Store keeps VXP's grants and requests in the node's ledger and in
// memory: every change is a ledger entry, appended (and synced) before
// the change is visible, and Load rebuilds the memory from the entries at
// start. Its lock is held only inside its own methods' closures.
type Store struct {
	led *ledger.Ledger

	mu       sync.Mutex
	grants   map[string]*Grant
	requests map[string]*Request
	idem     map[idemKey]string
	// heldIDs are the ids of the requests held in memory only
	// (holding.go), so admitting one more reads only them.
	heldIDs map[string]struct{}
}

// NewStore returns an empty store over led; Load fills it.
func NewStore(led *ledger.Ledger) *Store {
	return &Store{led: led, grants: map[string]*Grant{}, requests: map[string]*Request{}, idem: map[idemKey]string{}, heldIDs: map[string]struct{}{}}
}

// Load rebuilds the store from the ledger's VXP entries.
func (s *Store) Load(ctx context.Context) error {
	grants := map[string]*Grant{}
	for e, err := range s.led.ByKind(ctx, KindGrant) {
		if err != nil {
			return err
		}
		var g Grant
		if err := json.Unmarshal(e.Body, &g); err != nil {
			return fmt.Errorf("vxp: grant entry %d: %w", e.Seq, err)
		}
		grants[g.ID] = &g
	}
	for e, err := range s.led.ByKind(ctx, KindGrantRevoked) {
		if err != nil {
			return err
		}
		var r grantRevoked
		if err := json.Unmarshal(e.Body, &r); err != nil {
			return fmt.Errorf("vxp: revocation entry %d: %w", e.Seq, err)
		}
		if g, ok := grants[r.GrantID]; ok && g.Revoked == nil {
			at := r.At
			g.Revoked = &at
		}
	}
	requests := map[string]*Request{}
	idem := map[idemKey]string{}
	for e, err := range s.led.ByKind(ctx, KindRequest) {
		if err != nil {
			return err
		}
		var r Request
		if err := json.Unmarshal(e.Body, &r); err != nil {
			return fmt.Errorf("vxp: request entry %d: %w", e.Seq, err)
		}
		r.Seq, r.Head = e.Seq, e.Hash
		requests[r.ID] = &r
		idem[idemKey{r.ClientID, r.Idempotency}] = r.ID
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.grants, s.requests, s.idem, s.heldIDs = grants, requests, idem, map[string]struct{}{}
	return nil
}

// append writes one VXP entry and returns it.
func (s *Store) append(ctx context.Context, kind string, body any, at time.Time) (ledger.Entry, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return ledger.Entry{}, err
	}
	e, _, err := s.led.Append(ctx, ledger.Record{Kind: kind, Body: b, At: at})
	return e, err
}

// PutGrant records g (approved by the principal).
func (s *Store) PutGrant(ctx context.Context, g Grant) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.grants[g.ID]; ok {
		return fmt.Errorf("vxp: grant %s exists", g.ID)
	}
	if _, err := s.append(ctx, KindGrant, g, g.GrantedAt); err != nil {
		return err
	}
	g.Revoked = nil
	s.grants[g.ID] = &g
	return nil
}

// RevokeGrant ends grant id at time at, by whom; it reports whether the
// grant was in force (a second revocation writes nothing).
func (s *Store) RevokeGrant(ctx context.Context, id, by string, at time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.grants[id]
	if !ok || g.Revoked != nil {
		return false, nil
	}
	if _, err := s.append(ctx, KindGrantRevoked, grantRevoked{GrantID: id, At: at.UTC(), By: by}, at); err != nil {
		return false, err
	}
	t := at.UTC()
	g.Revoked = &t
	return true, nil
}

// Grant returns a copy of grant id.
func (s *Store) Grant(id string) (Grant, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.grants[id]
	if !ok {
		return Grant{}, false
	}
	return *g, true
}

// Grants returns copies of every grant (of client, when it is not
// empty), oldest first.
func (s *Store) Grants(client string) []Grant {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Grant
	for _, g := range s.grants {
		if client == "" || g.ClientID == client {
			out = append(out, *g)
		}
	}
	slices.SortFunc(out, func(a, b Grant) int {
		if c := a.GrantedAt.Compare(b.GrantedAt); c != 0 {
			return c
		}
		return compareStrings(a.ID, b.ID)
	})
	return out
}

// GrantByRelationship returns the grant holding relationship id.
func (s *Store) GrantByRelationship(id string) (Grant, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.grants {
		if g.RelationshipID != "" && g.RelationshipID == id {
			return *g, true
		}
	}
	return Grant{}, false
}

// Request returns a copy of request id.
func (s *Store) Request(id string) (*Request, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok {
		return nil, false
	}
	c, err := r.clone()
	if err != nil {
		return nil, false
	}
	return c, true
}

// ByIdempotency returns the request id client made under key.
func (s *Store) ByIdempotency(client, key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.idem[idemKey{client, key}]
	return id, ok
}

// Requests returns copies of every request (of client, when it is not
// empty), oldest first.
func (s *Store) Requests(client string) []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Request
	for _, r := range s.requests {
		if client != "" && r.ClientID != client {
			continue
		}
		if c, err := r.clone(); err == nil {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b *Request) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return compareStrings(a.ID, b.ID)
	})
	return out
}

// Create records the new request r, unless client already made a request
// under r's Idempotency-Key: then it returns that request and false and
// writes nothing. A request whose GrantID is empty (no grant of the
// caller covers it) is held in memory only, within the bounds of
// holding.go (rate_limited beyond them); it is written to the ledger once
// a grant covers it (Update).
func (s *Store) Create(ctx context.Context, r *Request) (*Request, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := idemKey{r.ClientID, r.Idempotency}
	if id, ok := s.idem[k]; ok {
		c, err := s.requests[id].clone()
		return c, false, err
	}
	if _, ok := s.requests[r.ID]; ok {
		return nil, false, fmt.Errorf("vxp: request %s exists", r.ID)
	}
	c, err := r.clone()
	if err != nil {
		return nil, false, err
	}
	if c.GrantID == "" {
		if err := s.admitHeld(c.ClientID, c.CreatedAt); err != nil {
			return nil, false, err
		}
		c.held = true
		s.heldIDs[c.ID] = struct{}{}
	} else {
		e, err := s.append(ctx, KindRequest, c, c.UpdatedAt)
		if err != nil {
			return nil, false, err
		}
		c.Seq, c.Head = e.Seq, e.Hash
	}
	s.requests[c.ID] = c
	s.idem[k] = c.ID
	out, err := c.clone()
	return out, true, err
}

// Update runs f on a copy of request id under the store's lock and, when
// f returns nil and changed the request, records the copy as the request
// (one vxp.request entry). An error of f, or of the write, changes
// nothing. It returns the request after f.
func (s *Store) Update(ctx context.Context, id string, at time.Time, f func(r *Request) error) (*Request, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.requests[id]
	if !ok {
		return nil, errUnknownRequest(id)
	}
	c, err := cur.clone()
	if err != nil {
		return nil, err
	}
	if err := f(c); err != nil {
		return nil, err
	}
	before, _ := json.Marshal(cur)
	after, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	if string(before) == string(after) {
		return c, nil
	}
	c.UpdatedAt = at.UTC()
	if c.held && c.GrantID == "" {
		// Still without authority: memory only.
		s.requests[id] = c
		return c.clone()
	}
	e, err := s.append(ctx, KindRequest, c, at)
	if err != nil {
		return nil, err
	}
	c.Seq, c.Head, c.held = e.Seq, e.Hash, false
	delete(s.heldIDs, id)
	s.requests[id] = c
	return c.clone()
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
