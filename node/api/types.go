// Package api is a node's local HTTP API (/v1): the operator's and local
// agents' way to drive a node. It serves JSON under a bearer key on
// loopback, follows VXP on Idempotency-Key for every POST, streams thread
// events as server-sent events, serves its OpenAPI document and a public
// discovery document at /.well-known/parley.json. Client is its Go client,
// which the CLI uses.
//
// Request and answer bodies reuse the node's own types (node.TaskSpec,
// node.ActResult, node.ThreadView, ...); this file holds the few the API
// adds and the route table, the one place both sides read it from. Both
// sides decode them with the project's strict decoder (package
// strictjson) and its codes. A POST's act, once its body is read, runs to
// its end on the server's context and its answer is kept under its
// Idempotency-Key even when the client went away: one key, one act.
package api

import (
	"encoding/json"
	"time"

	"github.com/go-webauthn/webauthn/protocol"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/strictjson"
)

// Routes, as net/http.ServeMux patterns. Every /v1 route needs the bearer
// key; every POST needs an Idempotency-Key.
const (
	RouteDiscovery = "GET /.well-known/parley.json"
	RouteLink      = "GET /.well-known/parley-link.json" // the signed identity link (public, like the discovery document)
	RouteOpenAPI   = "GET /v1/openapi.json"
	RouteStatus    = "GET /v1/status"
	RoutePeers     = "GET /v1/peers"
	RouteEvents    = "GET /v1/events" // ?negotiation=<id> filters

	RouteTasks       = "GET /v1/tasks"                  // the task board
	RoutePostTask    = "POST /v1/tasks"                 // node.TaskSpec -> node.Announcement (201)
	RouteProposeTask = "POST /v1/tasks/propose"         // ProposeRequest -> node.ActResult (201)
	RouteTask        = "GET /v1/tasks/{hash}"           // node.Announcement
	RouteTaskCounter = "POST /v1/tasks/{hash}/counter"  // node.CounterSpec -> node.ActResult (201)
	RouteTaskAccept  = "POST /v1/tasks/{hash}/accept"   // node.AcceptSpec -> node.ActResult (201)
	RouteAnnounce    = "POST /v1/tasks/{hash}/announce" // Empty -> node.Announcement: publish this node's announcement again

	RouteNegotiations   = "GET /v1/negotiations"                       // []node.ThreadView; ?state=<state>
	RouteNegotiation    = "GET /v1/negotiations/{id}"                  // node.ThreadView
	RouteBundle         = "GET /v1/negotiations/{id}/bundle"           // the proof bundle (application/json)
	RouteCounter        = "POST /v1/negotiations/{id}/counter"         // node.CounterSpec
	RouteAccept         = "POST /v1/negotiations/{id}/accept"          // node.AcceptSpec
	RouteFund           = "POST /v1/negotiations/{id}/fund"            // Empty
	RouteDeliver        = "POST /v1/negotiations/{id}/deliver"         // node.DeliverySpec
	RouteAcceptDelivery = "POST /v1/negotiations/{id}/accept-delivery" // node.AcceptDeliverySpec
	RouteCancel         = "POST /v1/negotiations/{id}/cancel"          // CancelRequest
	RouteAmend          = "POST /v1/negotiations/{id}/amend"           // node.AmendSpec
	RouteReplace        = "POST /v1/negotiations/{id}/replace"         // node.ReplaceSpec
	RouteDispute        = "POST /v1/negotiations/{id}/dispute"         // Empty
	RouteEvidence       = "POST /v1/negotiations/{id}/evidence"        // node.EvidenceSpec
	RouteArbitrator     = "POST /v1/negotiations/{id}/arbitrator"      // ArbitratorRequest
	RouteRule           = "POST /v1/negotiations/{id}/rule"            // RuleRequest
	// The timeout exits (node/timeouts.go).
	RouteClaimUnanswered = "POST /v1/negotiations/{id}/claim-unanswered"  // MilestoneRequest
	RouteReclaimExpired  = "POST /v1/negotiations/{id}/reclaim-expired"   // Empty
	RouteResolveTimedOut = "POST /v1/negotiations/{id}/resolve-timed-out" // Empty
	RouteTimeouts        = "GET /v1/timeouts"                             // []node.TimeoutExit, read on chain now
	RouteVeto            = "POST /v1/negotiations/{id}/veto"              // VetoRequest

	// Issue 14: capability proofs, revision requests and partial
	// releases (api/revision.go).
	RouteCapability     = "POST /v1/negotiations/{id}/capability"      // node.CapabilitySpec
	RouteRevision       = "POST /v1/negotiations/{id}/revision"        // node.RevisionSpec
	RoutePaymentRequest = "POST /v1/negotiations/{id}/payment-request" // node.PaymentSpec
	RouteReleasePart    = "POST /v1/negotiations/{id}/release-part"    // node.ReleasePartSpec

	// PXP: the principal's intent cards, the questions paused
	// negotiations wait on, the answers, the rooms and the briefs.
	RouteCard            = "GET /v1/card"                      // node.CardInfo: the default card
	RouteSealCard        = "POST /v1/card"                     // CardRequest -> node.CardInfo (201)
	RouteNegotiationCard = "GET /v1/negotiations/{id}/card"    // node.CardInfo: the card the negotiation acts under
	RouteSealNegCard     = "POST /v1/negotiations/{id}/card"   // CardRequest -> node.CardInfo (201), before this side speaks
	RouteEscalations     = "GET /v1/escalations"               // []node.PendingEscalation, oldest first
	RouteAnswer          = "POST /v1/negotiations/{id}/answer" // AnswerRequest -> node.RoomView
	RouteRoom            = "GET /v1/negotiations/{id}/room"    // node.RoomView: the negotiation as this side's seat sees it
	RouteBrief           = "GET /v1/negotiations/{id}/brief"   // negotiation.Brief; ?format=md: text/markdown

	// Consent: the principal's state of each counterparty (allowed,
	// unknown, denied), which bounds the negotiations it may open here.
	RouteConsents   = "GET /v1/consent"            // []node.ConsentView
	RouteConsent    = "GET /v1/consent/{address}"  // node.ConsentView
	RouteSetConsent = "POST /v1/consent/{address}" // ConsentRequest -> node.ConsentView

	RouteFile     = "GET /v1/files/{cid}"   // a stored file's bytes
	RouteWithdraw = "POST /v1/withdraw"     // WithdrawRequest -> node.ActResult
	RouteBalance  = "GET /v1/balance"       // Balance; ?token=<address>
	RouteVerify   = "GET /v1/ledger/verify" // LedgerReport

	// The principal's approvals: an approval is a WebAuthn assertion over
	// the request's intentHash (options, then assertion); the bearer key
	// alone approves nothing.
	RouteApprovals         = "GET /v1/approvals"                 // []node.PendingApproval
	RouteApproval          = "GET /v1/approvals/{id}"            // node.PendingApproval
	RouteApprovalOptions   = "POST /v1/approvals/{id}/options"   // Empty -> protocol.CredentialAssertion
	RouteApprovalAssertion = "POST /v1/approvals/{id}/assertion" // AssertionRequest -> approval.IntentReceipt
	RouteDeny              = "POST /v1/approvals/{id}/deny"      // DenyRequest -> approval.IntentReceipt
	RoutePasskeyOptions    = "POST /v1/passkeys/options"         // PasskeyRequest -> PasskeyOptions (202 while an existing passkey's approval is pending)
	RoutePasskeyCredential = "POST /v1/passkeys/credential"      // PasskeyCredentialRequest -> Passkey (201)
	RoutePasskeys          = "GET /v1/passkeys"                  // []Passkey
	RoutePasskeyRevoke     = "POST /v1/passkeys/{ref}/revoke"    // RevokeRequest -> Passkey, once another passkey approved revoke_passkey (or with the data directory's token, the last one)
	RouteAudit             = "GET /v1/audit"                     // []approval.AuditEvent, newest first; ?limit=
)

// The routes of the chain's registries and of contract arbitrators
// (issue 14): this node's IdentityLink record and the look-up of
// another's, an announcement's scope on chain, and a dispute raised with
// its arbitrator contract and the ERC-1497 documents a court reads.
const (
	RouteIdentityRegister = "POST /v1/identity/register"       // Empty -> node.ActResult (gated: register_identity)
	RouteIdentityRotate   = "POST /v1/identity/rotate"         // Empty -> node.ActResult (gated: rotate_identity)
	RouteIdentityRevoke   = "POST /v1/identity/revoke"         // Empty -> node.ActResult (gated: revoke_identity)
	RouteIdentityLookup   = "GET /v1/identity/{address}"       // node.LinkCheck
	RouteTaskScope        = "GET /v1/tasks/{hash}/scope"       // node.ScopeCheck (null: the terms name no scope)
	RouteRaise            = "POST /v1/negotiations/{id}/raise" // Empty -> node.ActResult (gated: raise_with_arbitrator)
	RouteCourtDocuments   = "GET /v1/negotiations/{id}/court"  // node.CourtDocuments
)

// The routes of the ledger's signed tree heads, their anchors on chain and
// audits (issue 15): anchor now, the latest head and anchor, a consistency
// proof between two sizes of the tree, and an audit of another node.
const (
	RouteLedgerAnchor      = "POST /v1/ledger/anchor"     // Empty -> node.TreeAnchorView (not gated; held to ledger.anchor_gas_per_day)
	RouteLedgerHeads       = "GET /v1/ledger/heads"       // node.LedgerHeads
	RouteLedgerConsistency = "GET /v1/ledger/consistency" // node.Consistency; ?from=&to= (to 0 or omitted: the latest signed head)
	RouteLedgerAudit       = "POST /v1/ledger/audit"      // AuditRequest -> node.AuditReport
)

// The routes of VXP's outside agents (agents.go): each agent with its
// grants and requests, and the revocation of an agent's grants or of one
// grant (404 vxp_off on a node that serves no VXP).
const (
	RouteAgents      = "GET /v1/agents"         // []node.AgentView
	RouteAgentRevoke = "POST /v1/agents/revoke" // AgentRevokeRequest -> AgentRevocation (not gated: it takes authority away)
)

// HeaderIdempotencyKey is VXP's idempotency header.
const HeaderIdempotencyKey = "Idempotency-Key"

// Error codes the API adds to node.Code's vocabulary.
const (
	CodeUnauthorized       = "unauthorized"                  // 401: no or wrong bearer key
	CodeBadRequest         = "bad_request"                   // 400: a bad path or query value, a bad Idempotency-Key
	CodeBodyTooLarge       = string(strictjson.CodeTooLarge) // 413: the body exceeds api.max_body (the wire format's too_large)
	CodeIdempotencyReused  = "idempotency_key_reused"        // 409: same key, another request
	CodeIdempotencyMissing = "idempotency_key_required"      // 400: a POST without the key
	CodeNotFound           = "not_found"                     // 404: no such route or object
	CodeInternal           = "internal"                      // 500
	CodeMethodNotAllowed   = "method_not_allowed"            // 405: the path exists for other methods (Allow names them)
	CodeNotImplemented     = "not_implemented"               // 501: the route exists, the node cannot do it yet
	CodeVXPOff             = "vxp_off"                       // 404: the node serves no VXP (vxp.enabled), so it has no agents
)

// The strict decoder's codes (package strictjson), spelled as the wire
// format's: a body is refused with the same code an envelope would be.
const (
	CodeMalformedJSON = string(strictjson.CodeMalformedJSON) // 400: not one JSON value, invalid UTF-8, a lone surrogate, data after the value
	CodeDuplicateKey  = string(strictjson.CodeDuplicateKey)  // 400: an object names a member twice
	CodeUnknownField  = string(strictjson.CodeUnknownField)  // 400: a member the body does not have (names match exactly: TITLE is not title)
	CodeSchemaInvalid = string(strictjson.CodeSchemaInvalid) // 400: a value of the wrong type, or a required member missing
)

// ErrorBody is every error answer: {"error": {"code", "message"}}.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is an error's stable code and its message for people.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Empty is the body of a POST that takes no arguments: {}.
type Empty struct{}

// ProposeRequest proposes a task directly to one worker.
type ProposeRequest struct {
	Worker negotiation.Address `json:"worker"`
	Task   node.TaskSpec       `json:"task"`
}

// MilestoneRequest names a milestone (0-based).
type MilestoneRequest struct {
	Milestone int `json:"milestone"`
}

// CancelRequest asks for a mutual cancel.
type CancelRequest struct {
	Reason string `json:"reason"`
}

// CardRequest seals an intent card: the card's JSON (PXP v0, docs/pxp.md)
// and how it arrived: api (default) or mcp (an agent relaying over MCP).
// Either way it is sealed only once the principal confirms it with a
// passkey (confirm_card; the call waits for that). web is refused
// (via_web_refused): only the principal's pages give it.
type CardRequest struct {
	Card json.RawMessage `json:"card"`
	Via  negotiation.Via `json:"via,omitempty"`
}

// AnswerRequest is an answer to a negotiation's pending question that
// arrives through the API: via api (default) or mcp, unconfirmed until
// the principal's passkey confirms it (confirm_answer). web is refused
// (via_web_refused): only the principal's pages give it.
type AnswerRequest struct {
	Answer string          `json:"answer"`
	Via    negotiation.Via `json:"via,omitempty"`
}

// ArbitratorRequest names the arbitrator this side accepts.
type ArbitratorRequest = node.ArbitratorSpec

// RuleRequest is an arbitrator's ruling: 0 refuses to rule, r in
// 1..10001 gives the worker r-1 basis points of the escrow.
type RuleRequest struct {
	Ruling uint64 `json:"ruling"`
}

// VetoRequest is a supervisor's veto for the party that named it, with
// why.
type VetoRequest struct {
	Party  negotiation.Address `json:"party"`
	Reason string              `json:"reason"`
}

// WithdrawRequest withdraws what is owed in a token (omitted: ETH).
type WithdrawRequest struct {
	Token negotiation.Address `json:"token,omitempty"`
}

// AssertionRequest approves a pending request: the principal's WebAuthn
// assertion over its options, as the browser's
// PublicKeyCredential.toJSON() gives it (or a software key's answer).
type AssertionRequest struct {
	Response json.RawMessage `json:"response"`
}

// DenyRequest denies a pending request, with an optional reason (not
// recorded: free text may quote the act's values).
type DenyRequest struct {
	Reason string `json:"reason,omitempty"`
}

// PasskeyRequest begins a passkey registration: with the enrolment token
// for the first passkey (only the data directory holds one: no route
// issues it); without one for a further passkey, which an
// existing one must approve; or with the session of such a registration to
// go on once it is approved.
type PasskeyRequest struct {
	Token string `json:"token,omitempty"`
	Label string `json:"label,omitempty"`
	// Software registers a software key for automation: its receipts and
	// audit entries say so.
	Software bool `json:"software,omitempty"`
}

// PasskeyOptions is the answer to a PasskeyRequest: the session and the
// WebAuthn creation options (status 200), or, for a further passkey, the
// session and the pending register_passkey request an existing passkey
// must approve first (status 202, no options: ask again with the session
// as the token).
type PasskeyOptions struct {
	Session        string                       `json:"session"`
	Creation       *protocol.CredentialCreation `json:"creation,omitempty"`
	PendingRequest string                       `json:"pendingRequest,omitempty"`
	WebAuthn       WebAuthnInfo                 `json:"webauthn"`
}

// WebAuthnInfo is what an authenticator of the principal needs to know
// about the node: the relying party, the page origins and the principal's
// user handle.
type WebAuthnInfo struct {
	RPID     string   `json:"rpId"`
	RPName   string   `json:"rpName"`
	Origins  []string `json:"origins"`
	UserID   []byte   `json:"userId"`
	UserName string   `json:"userName"`
}

// PasskeyCredentialRequest finishes a registration: the session and the
// authenticator's attestation, as the browser's
// PublicKeyCredential.toJSON() gives it (or a software key's answer).
type PasskeyCredentialRequest struct {
	Session  string          `json:"session"`
	Response json.RawMessage `json:"response"`
}

// RevokeRequest revokes a passkey: without a token the call waits until
// another passkey approves the revoke_passkey request; with the one-time
// token only the node's data directory holds (made on the node's machine
// by `parley approvals passkeys revoke`), the last usable passkey is
// revoked at once.
type RevokeRequest struct {
	Token string `json:"token,omitempty"`
}

// Passkey is a registered credential of the principal as the API shows
// it: its hashed reference (never its id or public key), label, kind and
// counter.
type Passkey struct {
	Ref          string    `json:"ref"`
	Label        string    `json:"label,omitempty"`
	Software     bool      `json:"software,omitempty"`
	RegisteredAt time.Time `json:"registeredAt"`
	SignCount    uint32    `json:"signCount"`
	Cloned       bool      `json:"cloned,omitempty"`
	// RevokedAt is set once the passkey was revoked: it approves nothing.
	RevokedAt *time.Time `json:"revokedAt,omitempty"`
}

// Peer is one connected peer.
type Peer struct {
	PeerID     string               `json:"peerId"`
	Addrs      []string             `json:"addrs"`
	EVMAddress *negotiation.Address `json:"evmAddress,omitempty"`
}

// Balance is the node's account balance and what the registry owes it.
type Balance struct {
	Address negotiation.Address `json:"address"`
	Token   negotiation.Address `json:"token"`
	Balance string              `json:"balance"` // wei, decimal
	Owed    string              `json:"owed"`    // in token units, decimal
}

// LedgerReport is the result of verifying the node's ledger.
type LedgerReport struct {
	OK   bool             `json:"ok"`
	Seq  uint64           `json:"seq"`
	Head negotiation.Hash `json:"head"`
	// Error names the first bad entry when OK is false.
	Error string `json:"error,omitempty"`
}

// Discovery is /.well-known/parley.json, modelled on VXP's vxp.json. It
// carries no keys: the keys come from the signed identity link it names.
type Discovery struct {
	Protocol     string              `json:"protocol"` // "parley"
	Version      string              `json:"version"`
	Organization DiscoveryOrg        `json:"organization"`
	Endpoint     string              `json:"endpoint"` // the /v1 base URL
	PeerID       string              `json:"peer_id"`
	Addresses    []string            `json:"addresses"`
	EVMAddress   negotiation.Address `json:"evm_address"`
	IdentityLink DiscoveryLink       `json:"identity_link"`
	Capabilities []DiscoveryCap      `json:"capabilities"`
	Limits       map[string]int      `json:"limits"`
	Status       string              `json:"status"`
	UpdatedAt    time.Time           `json:"updated_at"`
}

// DiscoveryOrg names who runs the node.
type DiscoveryOrg struct {
	Name string `json:"name"`
}

// DiscoveryLink names the identity link by hash and where to fetch it.
type DiscoveryLink struct {
	Hash negotiation.Hash `json:"hash"`
	// URL fetches the link's signed JSON (RouteLink); its SHA-256 must be
	// Hash.
	URL string `json:"url"`
	// DHT is the DHT key under which peers publish the link.
	DHT string `json:"dht,omitempty"`
}

// DiscoveryCap is a task category the node offers or takes.
type DiscoveryCap struct {
	ID     string `json:"id"`
	Effect string `json:"effect"` // "offer" or "take"
}
