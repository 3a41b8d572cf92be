package approval

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/parleynet/parley/strictjson"
)

// Protocol constants (seed sections 2, 3 and 10).
const (
	// Version is the protocol version of requests and receipts.
	Version = "0.1"
	// ProtocolTag is the tag inside every hashing payload; a breaking
	// change bumps it and so changes every hash.
	ProtocolTag = "dsh-human-intent/0.1"
	// MinTTL and MaxTTL bound a request's window, expiresAt - issuedAt.
	MinTTL = 5 * time.Second
	MaxTTL = 600 * time.Second
	// DefaultTTL is the window NewRequest gives when the spec names none.
	DefaultTTL = 120 * time.Second
	// TimeLayout is the one timestamp format: RFC 3339, UTC, exactly three
	// fractional digits and Z (the seed's example, and Parley's wire).
	TimeLayout = "2006-01-02T15:04:05.000Z"
)

// Limits on a request's text fields, in bytes.
const (
	MaxToolBytes   = 200
	MaxLabelBytes  = 256 // operation, target, agent and session ids
	MaxReasonBytes = 2000
)

// Risk is a request's context.risk.
type Risk string

// The risk levels of seed section 2.
const (
	RiskLow      Risk = "low"
	RiskMedium   Risk = "medium"
	RiskHigh     Risk = "high"
	RiskCritical Risk = "critical"
)

// Valid reports whether r is empty or one of the four levels.
func (r Risk) Valid() bool {
	switch r {
	case "", RiskLow, RiskMedium, RiskHigh, RiskCritical:
		return true
	}
	return false
}

// Action is the exact act a request is about: a tool, an optional
// operation and target, and the exact arguments as a canonical (JCS) JSON
// object. Build one with NewAction.
type Action struct {
	// Tool identifies the act, for Parley one of the Tool* names.
	Tool string `json:"tool"`
	// Operation is an optional operation name.
	Operation string `json:"operation,omitempty"`
	// Target names the resource: for Parley the negotiationId.
	Target string `json:"target,omitempty"`
	// Arguments are the exact values the act uses, a JSON object in JCS
	// form.
	Arguments json.RawMessage `json:"arguments"`
}

// NewAction returns the action (tool, operation, target, args) with its
// arguments checked and canonicalised. args is a JSON object as a Go value
// (map[string]any and the like) or as JSON text; nil is {}. Values that
// cannot be represented exactly in canonical JSON are refused with
// CodeInvalidRequest: integers beyond 2^53, non-finite numbers, big
// numbers, invalid UTF-8, functions, channels, cycles.
func NewAction(tool, operation, target string, args any) (Action, error) {
	a := Action{Tool: tool, Operation: operation, Target: target}
	canon, err := canonicalArguments(args)
	if err != nil {
		return Action{}, failWrap(CodeInvalidRequest, err, "action %q", tool)
	}
	a.Arguments = canon
	if err := a.validate(); err != nil {
		return Action{}, err
	}
	return a, nil
}

// validate checks the action's fields and that its arguments are a
// representable JSON object; it does not rewrite them.
func (a Action) validate() error {
	if err := checkText("action.tool", a.Tool, MaxToolBytes, true); err != nil {
		return err
	}
	if err := checkText("action.operation", a.Operation, MaxLabelBytes, false); err != nil {
		return err
	}
	if err := checkText("action.target", a.Target, MaxLabelBytes, false); err != nil {
		return err
	}
	if len(a.Arguments) == 0 {
		return fail(CodeInvalidRequest, "action.arguments is required")
	}
	if _, err := canonicalJSONObject(a.Arguments); err != nil {
		return failWrap(CodeInvalidRequest, err, "action.arguments")
	}
	return nil
}

// IntentContext is shown to the person deciding (seed section 2).
type IntentContext struct {
	// Reason says in a sentence what the act does.
	Reason string `json:"reason,omitempty"`
	// Risk is low, medium, high or critical, or empty.
	Risk Risk `json:"risk,omitempty"`
}

// IntentRequest is one request for a person's authorisation of one exact
// action (seed section 2). Its IntentHash binds every semantic field. Build
// one with NewRequest; parse one with ParseRequest.
type IntentRequest struct {
	// Version is "0.1".
	Version string
	// RequestID is unique per request and echoed in the receipt.
	RequestID string
	// Nonce is 256 random bits as 64 lowercase hex digits.
	Nonce string
	// Action is the exact act.
	Action Action
	// Context is shown to the person; empty members are omitted.
	Context IntentContext
	// AgentID names the originating agent (agent.id), if any.
	AgentID string
	// SessionID names the originating session (session.id), if any.
	SessionID string
	// IssuedAt is the host clock at creation, in milliseconds, UTC.
	IssuedAt time.Time
	// ExpiresAt is IssuedAt plus a TTL of MinTTL to MaxTTL.
	ExpiresAt time.Time
	// IntentHash is lowerhex(SHA-256(JCS(hashing payload))).
	IntentHash string
}

// RequestSpec is what NewRequest needs besides the time and randomness.
type RequestSpec struct {
	// Action is the exact act (from NewAction).
	Action Action
	// Context is shown to the person.
	Context IntentContext
	// AgentID and SessionID name the originator, if known.
	AgentID, SessionID string
	// TTL is the request's window; zero means DefaultTTL. It must lie in
	// [MinTTL, MaxTTL] and be a whole number of milliseconds.
	TTL time.Duration
}

// NewRequest builds the request for spec, issued at now (truncated to the
// millisecond, UTC), with a fresh requestId ("req_" and 32 lowercase hex
// digits) and a 256-bit nonce read from rnd (crypto/rand when rnd is nil),
// and computes its intentHash. Anything that cannot be represented or lies
// outside the window bounds is refused with CodeInvalidRequest.
func NewRequest(spec RequestSpec, now time.Time, rnd io.Reader) (IntentRequest, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	ttl := spec.TTL
	if ttl == 0 {
		ttl = DefaultTTL
	}
	if ttl < MinTTL || ttl > MaxTTL || ttl%time.Millisecond != 0 {
		return IntentRequest{}, fail(CodeInvalidRequest, "ttl %s is outside [%s, %s] or not whole milliseconds", ttl, MinTTL, MaxTTL)
	}
	var buf [16 + 32]byte
	if _, err := io.ReadFull(rnd, buf[:]); err != nil {
		return IntentRequest{}, fmt.Errorf("approval: read randomness: %w", err)
	}
	if now.IsZero() {
		return IntentRequest{}, fail(CodeInvalidRequest, "no creation time")
	}
	issued := now.UTC().Truncate(time.Millisecond)
	r := IntentRequest{
		Version:   Version,
		RequestID: "req_" + hex.EncodeToString(buf[:16]),
		Nonce:     hex.EncodeToString(buf[16:]),
		Action:    spec.Action,
		Context:   spec.Context,
		AgentID:   spec.AgentID,
		SessionID: spec.SessionID,
		IssuedAt:  issued,
		ExpiresAt: issued.Add(ttl),
	}
	if len(r.Action.Arguments) > 0 {
		canon, err := canonicalJSONObject(r.Action.Arguments)
		if err != nil {
			return IntentRequest{}, failWrap(CodeInvalidRequest, err, "action.arguments")
		}
		r.Action.Arguments = canon
	}
	if err := r.validateFields(); err != nil {
		return IntentRequest{}, err
	}
	h, err := r.ComputeHash()
	if err != nil {
		return IntentRequest{}, err
	}
	r.IntentHash = h
	return r, nil
}

var (
	requestIDRE = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)
	hex64RE     = regexp.MustCompile(`^[0-9a-f]{64}$`)
	timeRE      = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)
)

// validateFields checks every field but the intentHash.
func (r IntentRequest) validateFields() error {
	if r.Version != Version {
		return fail(CodeInvalidRequest, "version %q, want %q", r.Version, Version)
	}
	if !requestIDRE.MatchString(r.RequestID) {
		return fail(CodeInvalidRequest, "requestId must be 1-128 of A-Z a-z 0-9 _ . : -")
	}
	if !hex64RE.MatchString(r.Nonce) {
		return fail(CodeInvalidRequest, "nonce must be 64 lowercase hex digits (256 bits)")
	}
	if err := r.Action.validate(); err != nil {
		return err
	}
	if err := checkText("context.reason", r.Context.Reason, MaxReasonBytes, false); err != nil {
		return err
	}
	if !r.Context.Risk.Valid() {
		return fail(CodeInvalidRequest, "context.risk %q is not low, medium, high or critical", r.Context.Risk)
	}
	if err := checkText("agent.id", r.AgentID, MaxLabelBytes, false); err != nil {
		return err
	}
	if err := checkText("session.id", r.SessionID, MaxLabelBytes, false); err != nil {
		return err
	}
	for name, t := range map[string]time.Time{"issuedAt": r.IssuedAt, "expiresAt": r.ExpiresAt} {
		if t.IsZero() || t.Location() != time.UTC || !t.Equal(t.Truncate(time.Millisecond)) {
			return fail(CodeInvalidRequest, "%s must be a UTC time in whole milliseconds", name)
		}
		if t.Year() < 1 || t.Year() > 9999 {
			return fail(CodeInvalidRequest, "%s is outside years 1-9999", name)
		}
	}
	if ttl := r.ExpiresAt.Sub(r.IssuedAt); ttl < MinTTL || ttl > MaxTTL {
		return fail(CodeInvalidRequest, "window expiresAt - issuedAt = %s is outside [%s, %s]", ttl, MinTTL, MaxTTL)
	}
	return nil
}

// Validate checks every field of r and that they hash to r.IntentHash. A
// malformed request is refused with CodeInvalidRequest, one whose fields
// do not hash to its intentHash with CodeTamperedIntent.
func (r IntentRequest) Validate() error {
	if err := r.validateFields(); err != nil {
		return err
	}
	if !hex64RE.MatchString(r.IntentHash) {
		return fail(CodeInvalidRequest, "intentHash must be 64 lowercase hex digits")
	}
	h, err := r.ComputeHash()
	if err != nil {
		return err
	}
	if h != r.IntentHash {
		return fail(CodeTamperedIntent, "the request's fields hash to %s, not its intentHash %s", h, r.IntentHash)
	}
	return nil
}

// Expired reports whether the request's window has elapsed at now: a
// request is usable while now < ExpiresAt.
func (r IntentRequest) Expired(now time.Time) bool { return !now.Before(r.ExpiresAt) }

// Challenge returns the WebAuthn challenge of the request: the 32 bytes of
// its intentHash (seed section 5). It fails when IntentHash is not 64
// lowercase hex digits.
func (r IntentRequest) Challenge() ([]byte, error) {
	if !hex64RE.MatchString(r.IntentHash) {
		return nil, fail(CodeInvalidRequest, "intentHash must be 64 lowercase hex digits")
	}
	return hex.DecodeString(r.IntentHash)
}

// The hashing payload of seed section 3. Empty optional members are
// omitted, so absent and blank are the same intent.
type hashingPayload struct {
	V         string         `json:"v"`
	RequestID string         `json:"requestId"`
	Nonce     string         `json:"nonce"`
	IssuedAt  string         `json:"issuedAt"`
	ExpiresAt string         `json:"expiresAt"`
	Action    Action         `json:"action"`
	Agent     *idRef         `json:"agent,omitempty"`
	Session   *idRef         `json:"session,omitempty"`
	Context   *IntentContext `json:"context,omitempty"`
}

type idRef struct {
	ID string `json:"id"`
}

// HashingPayload returns the canonical (JCS) bytes of r's hashing payload:
// the protocol tag, requestId, nonce, window, the full action, agent,
// session and context, with empty optional members omitted. The action's
// arguments must be a valid JSON object.
func (r IntentRequest) HashingPayload() ([]byte, error) {
	p := hashingPayload{
		V: ProtocolTag, RequestID: r.RequestID, Nonce: r.Nonce,
		IssuedAt: formatTime(r.IssuedAt), ExpiresAt: formatTime(r.ExpiresAt),
		Action: r.Action,
	}
	if r.AgentID != "" {
		p.Agent = &idRef{ID: r.AgentID}
	}
	if r.SessionID != "" {
		p.Session = &idRef{ID: r.SessionID}
	}
	if r.Context != (IntentContext{}) {
		c := r.Context
		p.Context = &c
	}
	if len(p.Action.Arguments) == 0 {
		return nil, fail(CodeInvalidRequest, "action.arguments is required")
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, failWrap(CodeInvalidRequest, err, "hashing payload")
	}
	out := jsontext.Value(b)
	if err := out.Canonicalize(); err != nil {
		return nil, failWrap(CodeInvalidRequest, err, "hashing payload")
	}
	return out, nil
}

// ComputeHash returns lowerhex(SHA-256(HashingPayload())), the intentHash
// r's fields give (seed section 4).
func (r IntentRequest) ComputeHash() (string, error) {
	b, err := r.HashingPayload()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// WithAction returns a copy of r whose action is a: the request as it
// would be had it named a. The gate hashes it to check the binding of a
// submitted action.
func (r IntentRequest) WithAction(a Action) IntentRequest {
	r.Action = a
	return r
}

// requestWire is the JSON form of an IntentRequest (seed section 2).
type requestWire struct {
	Version    string         `json:"version"`
	RequestID  string         `json:"requestId"`
	Nonce      string         `json:"nonce"`
	Action     Action         `json:"action"`
	Context    *IntentContext `json:"context,omitempty"`
	Agent      *idRef         `json:"agent,omitempty"`
	Session    *idRef         `json:"session,omitempty"`
	IssuedAt   string         `json:"issuedAt"`
	ExpiresAt  string         `json:"expiresAt"`
	IntentHash string         `json:"intentHash"`
}

// MarshalJSON writes the seed's JSON form: agent and session as {"id": ...},
// empty optional members omitted, times in TimeLayout.
func (r IntentRequest) MarshalJSON() ([]byte, error) {
	w := requestWire{
		Version: r.Version, RequestID: r.RequestID, Nonce: r.Nonce, Action: r.Action,
		IssuedAt: formatTime(r.IssuedAt), ExpiresAt: formatTime(r.ExpiresAt), IntentHash: r.IntentHash,
	}
	if r.Context != (IntentContext{}) {
		c := r.Context
		w.Context = &c
	}
	if r.AgentID != "" {
		w.Agent = &idRef{ID: r.AgentID}
	}
	if r.SessionID != "" {
		w.Session = &idRef{ID: r.SessionID}
	}
	if w.Action.Arguments == nil {
		w.Action.Arguments = json.RawMessage("{}")
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the seed's JSON form strictly: unknown members,
// trailing data and timestamps not in TimeLayout are refused. It checks
// shape only; Validate checks the values and the hash. ParseRequest also
// refuses duplicate member names.
func (r *IntentRequest) UnmarshalJSON(b []byte) error {
	var w requestWire
	if err := decodeStrict(b, &w); err != nil {
		return err
	}
	issued, err := parseTime(w.IssuedAt)
	if err != nil {
		return fmt.Errorf("issuedAt: %w", err)
	}
	expires, err := parseTime(w.ExpiresAt)
	if err != nil {
		return fmt.Errorf("expiresAt: %w", err)
	}
	*r = IntentRequest{
		Version: w.Version, RequestID: w.RequestID, Nonce: w.Nonce, Action: w.Action,
		IssuedAt: issued, ExpiresAt: expires, IntentHash: w.IntentHash,
	}
	if w.Context != nil {
		r.Context = *w.Context
	}
	if w.Agent != nil {
		r.AgentID = w.Agent.ID
	}
	if w.Session != nil {
		r.SessionID = w.Session.ID
	}
	return nil
}

// MaxRequestBytes bounds the JSON text ParseRequest reads.
const MaxRequestBytes = MaxArgumentsBytes + 16<<10

// ParseRequest parses and validates the JSON text of an IntentRequest:
// strict JSON (no duplicate or unknown members, no trailing data), every
// field valid, and the fields hashing to its intentHash. A malformed
// request is refused with CodeInvalidRequest, a tampered one with
// CodeTamperedIntent.
func ParseRequest(b []byte) (IntentRequest, error) {
	if len(b) > MaxRequestBytes {
		return IntentRequest{}, fail(CodeInvalidRequest, "request is %d bytes, more than %d", len(b), MaxRequestBytes)
	}
	var r IntentRequest
	if err := strictjson.Unmarshal(b, &r); err != nil {
		return IntentRequest{}, failWrap(CodeInvalidRequest, err, "request JSON")
	}
	if err := r.Validate(); err != nil {
		return IntentRequest{}, err
	}
	return r, nil
}

// decodeStrict decodes one JSON value into v with the project's strict
// decoder (strictjson): no member named twice, names matched exactly, no
// unknown members, valid UTF-8, nothing after the value.
func decodeStrict(b []byte, v any) error { return strictjson.Unmarshal(b, v) }

func formatTime(t time.Time) string { return t.UTC().Truncate(time.Millisecond).Format(TimeLayout) }

// parseTime parses a timestamp in TimeLayout, refusing every other
// spelling.
func parseTime(s string) (time.Time, error) {
	if !timeRE.MatchString(s) {
		return time.Time{}, fmt.Errorf("want YYYY-MM-DDThh:mm:ss.mmmZ, got %q", s)
	}
	return time.Parse(TimeLayout, s)
}

// checkText refuses invalid UTF-8, control characters (but newline and tab
// in a reason), over-long values and, when required, the empty string.
func checkText(field, s string, max int, required bool) error {
	if s == "" {
		if required {
			return fail(CodeInvalidRequest, "%s is required", field)
		}
		return nil
	}
	if len(s) > max {
		return fail(CodeInvalidRequest, "%s is %d bytes, more than %d", field, len(s), max)
	}
	if !utf8.ValidString(s) {
		return fail(CodeInvalidRequest, "%s is not valid UTF-8", field)
	}
	for _, c := range s {
		if unicode.IsControl(c) && !(field == "context.reason" && (c == '\n' || c == '\t')) {
			return fail(CodeInvalidRequest, "%s holds control character %U", field, c)
		}
	}
	return nil
}
