package api

import (
	"bytes"
	"encoding"
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"math/big"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

var update = flag.Bool("update", false, "rewrite openapi.json from the route table and the Go types")

// param is a query parameter of a route.
type param struct{ name, desc string }

// routeDoc describes one route for the OpenAPI document.
type routeDoc struct {
	pattern, id, summary string
	req                  any // the request body's type (POST); nil for none
	resp                 any // the success answer's type; nil for a non-JSON answer
	status               int
	media                string // the success answer's media type (default application/json)
	query                []param
	limited              bool // may answer 429 rate_limited with Retry-After
}

// routeDocs lists every route of the table with its body and answer types.
var routeDocs = []routeDoc{
	{pattern: RouteDiscovery, id: "discovery", summary: "The node's public discovery document (no key needed; carries no keys)", resp: Discovery{}},
	{pattern: RouteLink, id: "identityLink", summary: "The node's signed identity link (no key needed): the JCS bytes whose SHA-256 the discovery document names", resp: json.RawMessage{}},
	{pattern: RouteOpenAPI, id: "openapi", summary: "This document", resp: json.RawMessage{}},
	{pattern: RouteStatus, id: "status", summary: "The node's state at a glance", resp: node.Status{}},
	{pattern: RoutePeers, id: "peers", summary: "The peers the transport is connected to", resp: []Peer{}},
	{pattern: RouteEvents, id: "events", summary: "Server-sent events: per event `id: <n>`, `event: <kind>`, `data: <Event JSON>`; a comment line every 15 s", resp: node.Event{}, media: "text/event-stream",
		query: []param{{"negotiation", "only the events of this negotiation (a lowercase UUID v4)"}}},
	{pattern: RouteTasks, id: "tasks", summary: "The task board: announcements this node knows, newest first", resp: []node.Announcement{}},
	{pattern: RoutePostTask, id: "postTask", summary: "Announce a task on the task board (429 rate_limited beyond the board's rate, with Retry-After)", req: node.TaskSpec{}, resp: node.Announcement{}, status: 201, limited: true},
	{pattern: RouteProposeTask, id: "proposeTask", summary: "Propose a task directly to one worker", req: ProposeRequest{}, resp: node.ActResult{}, status: 201},
	{pattern: RouteTask, id: "task", summary: "One announcement on the board", resp: node.Announcement{}},
	{pattern: RouteTaskCounter, id: "counterTask", summary: "Answer an announcement with a counter-offer (opens a negotiation)", req: node.CounterSpec{}, resp: node.ActResult{}, status: 201},
	{pattern: RouteAnnounce, id: "announceTask", summary: "Publish one of this node's announcements again, for peers that joined the board later (429 rate_limited beyond the board's rate, with Retry-After)", req: Empty{}, resp: node.Announcement{}, status: 200, limited: true},
	{pattern: RouteTaskAccept, id: "acceptTask", summary: "Accept an announcement's terms (opens a negotiation; gated: sign_settlement)", req: node.AcceptSpec{}, resp: node.ActResult{}, status: 201},
	{pattern: RouteNegotiations, id: "negotiations", summary: "Every negotiation, in the order of their ids", resp: []node.ThreadView{},
		query: []param{{"state", "only negotiations in this state"}}},
	{pattern: RouteNegotiation, id: "negotiation", summary: "One negotiation: state, A2A projection, parties, offer, agreement, log", resp: node.ThreadView{}},
	{pattern: RouteBundle, id: "bundle", summary: "The negotiation's proof bundle (parley-proof-bundle/2, streamed)", resp: json.RawMessage{}},
	{pattern: RouteCounter, id: "counter", summary: "Counter the current offer", req: node.CounterSpec{}, resp: node.ActResult{}},
	{pattern: RouteAccept, id: "accept", summary: "Accept the current offer (the intent card first: outside it, 409 escalation_required and the negotiation pauses; then gated: sign_settlement)", req: node.AcceptSpec{}, resp: node.ActResult{}},
	{pattern: RouteFund, id: "fund", summary: "Fund the agreed escrow (poster; gated: fund_escrow)", req: Empty{}, resp: node.ActResult{}},
	{pattern: RouteDeliver, id: "deliver", summary: "Deliver a milestone (worker)", req: node.DeliverySpec{}, resp: node.ActResult{}},
	{pattern: RouteAcceptDelivery, id: "acceptDelivery", summary: "Accept a delivery and release its milestone (poster; gated: release_milestone)", req: node.AcceptDeliverySpec{}, resp: node.ActResult{}},
	{pattern: RouteCancel, id: "cancel", summary: "Sign a mutual cancel (gated: sign_cancel)", req: CancelRequest{}, resp: node.ActResult{}},
	{pattern: RouteAmend, id: "amend", summary: "Sign an amendment of the remaining milestones and the deadline (gated: sign_amendment)", req: node.AmendSpec{}, resp: node.ActResult{}},
	{pattern: RouteReplace, id: "replace", summary: "Sign the hand-over to a replacement worker (gated: sign_replacement)", req: node.ReplaceSpec{}, resp: node.ActResult{}},
	{pattern: RouteDispute, id: "dispute", summary: "Open a dispute (gated: open_dispute)", req: Empty{}, resp: node.ActResult{}},
	{pattern: RouteCapability, id: "capability", summary: "Attach a capability proof: a file by CID the poster's node fetches and checks, an attestation another address signed (worker)", req: node.CapabilitySpec{}, resp: node.ActResult{}},
	{pattern: RouteRevision, id: "revision", summary: "Send a delivered milestone back to work, stopping its review clock on chain (poster; gated: request_revision)", req: node.RevisionSpec{}, resp: node.ActResult{}},
	{pattern: RoutePaymentRequest, id: "paymentRequest", summary: "Ask for part of a milestone: hours worked, a stream's units, or the rest of it (worker; refused beyond what the milestone's running total leaves: payment_exceeds_milestone)", req: node.PaymentSpec{}, resp: node.ActResult{}},
	{pattern: RouteReleasePart, id: "releasePart", summary: "Release the milestone's pending payment request on chain, in order (poster; gated: release_part)", req: node.ReleasePartSpec{}, resp: node.ActResult{}},
	{pattern: RouteEvidence, id: "evidence", summary: "Submit evidence to the dispute", req: node.EvidenceSpec{}, resp: node.ActResult{}},
	{pattern: RouteArbitrator, id: "proposeArbitrator", summary: "Name the arbitrator this side accepts (gated: propose_arbitrator)", req: ArbitratorRequest{}, resp: node.ActResult{}},
	{pattern: RouteRule, id: "rule", summary: "Rule as the arbitrator (gated: rule)", req: RuleRequest{}, resp: node.ActResult{}},
	{pattern: RouteClaimUnanswered, id: "claimUnanswered", summary: "Claim a delivery the poster left unanswered for the review period (worker; gated: claim_unanswered; 409 timeout_not_due before)", req: MilestoneRequest{}, resp: node.ActResult{}},
	{pattern: RouteReclaimExpired, id: "reclaimExpired", summary: "Take back, after the deadline, the milestones never delivered (poster; gated: reclaim_expired; 409 timeout_not_due before)", req: Empty{}, resp: node.ActResult{}},
	{pattern: RouteResolveTimedOut, id: "resolveTimedOut", summary: "Resolve a stalled dispute by its timeout: the escrow split evenly (anyone holding the thread; gated: resolve_timed_out; 409 timeout_not_due before)", req: Empty{}, resp: node.ActResult{}},
	{pattern: RouteTimeouts, id: "timeouts", summary: "The timeout exits this node's threads offer it, read on chain now, due or not", resp: []node.TimeoutExit{}},
	{pattern: RouteVeto, id: "veto", summary: "Veto the task for the party that named this node its supervisor (gated: veto): vetoed before funding; after funding halted, the escrow staying in the contract until the parties cancel or dispute", req: VetoRequest{}, resp: node.ActResult{}},
	{pattern: RouteCard, id: "card", summary: "The principal's default intent card (404 no_card without one)", resp: node.CardInfo{}},
	{pattern: RouteSealCard, id: "sealCard", summary: "Seal the principal's default intent card once the principal's passkey confirms it (via api or mcp; the call waits for confirm_card; via web is refused: 403 via_web_refused): negotiations opened from then on act under it", req: CardRequest{}, resp: node.CardInfo{}, status: 201},
	{pattern: RouteNegotiationCard, id: "negotiationCard", summary: "The intent card a negotiation acts under, with every amendment (404 no_card without one)", resp: node.CardInfo{}},
	{pattern: RouteSealNegCard, id: "sealNegotiationCard", summary: "Seal an intent card for one negotiation, while this side has not spoken there, once the principal's passkey confirms it (confirm_card; via web is refused)", req: CardRequest{}, resp: node.CardInfo{}, status: 201},
	{pattern: RouteEscalations, id: "escalations", summary: "The questions paused negotiations wait on, oldest first", resp: []node.PendingEscalation{}},
	{pattern: RouteAnswer, id: "answer", summary: "An answer to a negotiation's pending question, via api (default) or mcp: sealed into its card as an amendment and the negotiation resumes, but acts resting on it wait for the principal's passkey (confirm_answer); via web is refused (403 via_web_refused)", req: AnswerRequest{}, resp: node.RoomView{}},
	{pattern: RouteRoom, id: "room", summary: "The negotiation as this side's seat sees it: envelopes with their PXP members, the reviews owed, unverified claims, the pending question, the answers, both card hashes", resp: node.RoomView{}},
	{pattern: RouteBrief, id: "brief", summary: "The decision brief of an agreed or finished negotiation", resp: negotiation.Brief{},
		query: []param{{"format", "json (default) or md (text/markdown)"}}},
	{pattern: RouteFile, id: "file", summary: "A stored file's bytes, by CID", media: "application/octet-stream"},
	{pattern: RouteWithdraw, id: "withdraw", summary: "Withdraw what the registry owes this node (not gated)", req: WithdrawRequest{}, resp: node.ActResult{}},
	{pattern: RouteIdentityRegister, id: "registerIdentity", summary: "Publish this node's identity link in IdentityLink (gated: register_identity)", req: Empty{}, resp: node.ActResult{}},
	{pattern: RouteIdentityRotate, id: "rotateIdentity", summary: "Replace this node's IdentityLink record with its current link (gated: rotate_identity)", req: Empty{}, resp: node.ActResult{}},
	{pattern: RouteIdentityRevoke, id: "revokeIdentity", summary: "Withdraw this node's IdentityLink record (gated: revoke_identity)", req: Empty{}, resp: node.ActResult{}},
	{pattern: RouteIdentityLookup, id: "lookupIdentity", summary: "Look up an address's IdentityLink record, compared with the link this node holds for it", resp: node.LinkCheck{}},
	{pattern: RouteTaskScope, id: "taskScope", summary: "Check an announcement's scope hash against the TaskScopeRegistry", resp: node.ScopeCheck{}},
	{pattern: RouteRaise, id: "raise", summary: "Raise the dispute with its arbitrator contract, paying its fee (gated: raise_with_arbitrator)", req: Empty{}, resp: node.ActResult{}},
	{pattern: RouteCourtDocuments, id: "courtDocuments", summary: "The ERC-1497 MetaEvidence and Evidence documents of a dispute with an arbitrator contract", resp: node.CourtDocuments{}},
	{pattern: RouteBalance, id: "balance", summary: "The node's balance and what the registry owes it", resp: Balance{},
		query: []param{{"token", "the token (EIP-55 address); omitted: ETH"}}},
	{pattern: RouteVerify, id: "verifyLedger", summary: "Verify the node's whole ledger", resp: LedgerReport{}},
	{pattern: RouteApprovals, id: "approvals", summary: "Approval requests waiting for the principal, oldest first, each act in plain words", resp: []node.PendingApproval{}},
	{pattern: RouteApproval, id: "approval", summary: "One pending approval request", resp: node.PendingApproval{}},
	{pattern: RouteApprovalOptions, id: "approvalOptions", summary: "WebAuthn request options of a pending request (challenge = its intentHash): pass publicKey to navigator.credentials.get", req: Empty{}, resp: protocol.CredentialAssertion{}},
	{pattern: RouteApprovalAssertion, id: "approvalAssertion", summary: "Approve a pending request with the principal's WebAuthn assertion; answers the approved receipt, which the waiting act consumes", req: AssertionRequest{}, resp: approval.IntentReceipt{}},
	{pattern: RouteDeny, id: "deny", summary: "Deny a pending request: the act fails and performs nothing; answers the denied receipt", req: DenyRequest{}, resp: approval.IntentReceipt{}},
	{pattern: RoutePasskeyOptions, id: "passkeyOptions", summary: "Begin a passkey registration: creation options (200), or for a further passkey the register_passkey request an existing passkey must approve first (202)", req: PasskeyRequest{}, resp: PasskeyOptions{}},
	{pattern: RoutePasskeyCredential, id: "passkeyCredential", summary: "Finish a passkey registration with the authenticator's attestation", req: PasskeyCredentialRequest{}, resp: Passkey{}, status: 201},
	{pattern: RoutePasskeys, id: "passkeys", summary: "The principal's registered passkeys (hashed references, no ids or keys), the revoked ones included", resp: []Passkey{}},
	{pattern: RoutePasskeyRevoke, id: "revokePasskey", summary: "Revoke a passkey: the call waits until ANOTHER passkey approves revoke_passkey; the last usable one only with the data directory's token (parley approvals passkeys revoke)", req: RevokeRequest{}, resp: Passkey{}},
	{pattern: RouteConsents, id: "consents", summary: "The counterparties with a consent state, a negotiation here or a refusal since the node started", resp: []node.ConsentView{}},
	{pattern: RouteConsent, id: "consent", summary: "One counterparty's consent state (unknown when never set)", resp: node.ConsentView{}},
	{pattern: RouteSetConsent, id: "setConsent", summary: "Set a counterparty's consent state (allowed, unknown, denied); recorded in the ledger", req: ConsentRequest{}, resp: node.ConsentView{}},
	{pattern: RouteAudit, id: "audit", summary: "The approval audit trail, newest first: labels, intent hashes, decisions, methods, hashed credential references; never argument values", resp: []approval.AuditEvent{},
		query: []param{{"limit", "how many events (1..1000, default 100)"}}},
	// The ledger's signed tree heads, anchors and audits (ledger.go).
	{pattern: RouteLedgerAnchor, id: "anchorLedger", summary: "Sign the ledger's tree head and anchor it on chain through LedgerAnchor now, from the node's EVM key (not gated; 429 anchor_budget over ledger.anchor_gas_per_day, with Retry-After; 409 anchor_unchanged when nothing was added since the last anchor)", req: Empty{}, resp: node.TreeAnchorView{}, limited: true},
	{pattern: RouteLedgerHeads, id: "ledgerHeads", summary: "The ledger's latest signed tree head and anchor on chain (absent when none) and the day's gas budget of the anchors", resp: node.LedgerHeads{}},
	{pattern: RouteLedgerConsistency, id: "ledgerConsistency", summary: "The RFC 6962 consistency proof between two sizes of the ledger's Merkle tree, both roots and the latest signed tree head", resp: node.Consistency{},
		query: []param{{"from", "the smaller tree size (default 0)"}, {"to", "the larger tree size (0 or omitted: the latest signed tree head's)"}}},
	{pattern: RouteLedgerAudit, id: "auditLedger", summary: "Audit another node's ledger: read its anchors on chain, ask it over p2p for consistency from each to its latest signed head and check them (code inconsistent_with_anchor when it cannot prove one)", req: AuditRequest{}, resp: node.AuditReport{}},
	// VXP's outside agents (agents.go).
	{pattern: RouteAgents, id: "agents", summary: "VXP's outside agents, by client_id: each with its grants (operations in words, authorization details, expiry, revocation, intent hash of the principal's approval) and its requests (404 vxp_off when VXP is off)", resp: []node.AgentView{}},
	{pattern: RouteAgentRevoke, id: "revokeAgent", summary: "Revoke every grant of an agent still in force (clientId) or one grant (grantId), recorded in the ledger; its tokens are refused at once. Not gated: it takes authority away (revoked 0 when nothing was in force; 404 vxp_off when VXP is off)", req: AgentRevokeRequest{}, resp: AgentRevocation{}},
}

// intentRequestSchema is the JSON Schema of a Human Intent Protocol
// IntentRequest (approval.IntentRequest marshals itself).
var intentRequestSchema = map[string]any{
	"type": "object", "description": "a Human Intent Protocol IntentRequest (docs/approval.md)",
	"required": []string{"version", "requestId", "nonce", "action", "issuedAt", "expiresAt", "intentHash"},
	"properties": map[string]any{
		"version":   map[string]any{"type": "string", "const": approval.Version},
		"requestId": map[string]any{"type": "string"},
		"nonce":     map[string]any{"type": "string", "pattern": "^[0-9a-f]{64}$"},
		"action": map[string]any{"type": "object", "required": []string{"tool", "arguments"}, "properties": map[string]any{
			"tool": map[string]any{"type": "string"}, "operation": map[string]any{"type": "string"},
			"target": map[string]any{"type": "string"}, "arguments": map[string]any{"type": "object"},
		}},
		"context": map[string]any{"type": "object", "properties": map[string]any{
			"reason": map[string]any{"type": "string"}, "risk": map[string]any{"enum": []string{"low", "medium", "high", "critical"}},
		}},
		"agent":      map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}},
		"session":    map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}},
		"issuedAt":   map[string]any{"type": "string", "format": "date-time"},
		"expiresAt":  map[string]any{"type": "string", "format": "date-time"},
		"intentHash": map[string]any{"type": "string", "pattern": "^[0-9a-f]{64}$"},
	},
	"additionalProperties": false,
}

// intentReceiptSchema is the JSON Schema of an IntentReceipt.
var intentReceiptSchema = map[string]any{
	"type": "object", "description": "a Human Intent Protocol IntentReceipt: approved (with the WebAuthn assertion) or denied (no signature)",
	"required": []string{"kind", "version", "requestId", "intentHash", "nonce", "decision", "intent", "signedAt", "expiresAt"},
	"properties": map[string]any{
		"kind": map[string]any{"const": approval.ReceiptKind}, "version": map[string]any{"const": approval.Version},
		"requestId": map[string]any{"type": "string"}, "intentHash": map[string]any{"type": "string"}, "nonce": map[string]any{"type": "string"},
		"decision": map[string]any{"enum": []string{"approved", "denied"}}, "intent": map[string]any{"$ref": "#/components/schemas/IntentRequest"},
		"authenticator": map[string]any{"type": "object"}, "verification": map[string]any{"type": "object"},
		"signedAt": map[string]any{"type": "string", "format": "date-time"}, "expiresAt": map[string]any{"type": "string", "format": "date-time"},
		"assertion": map[string]any{"type": "object"}, "deniedReason": map[string]any{"type": "string"},
	},
	"additionalProperties": false,
}

// schemaGen turns Go types into JSON Schemas, named struct types into
// components.
type schemaGen struct {
	t     testing.TB
	comps map[string]any
	names map[string]reflect.Type
}

// fixed are the schemas of types that marshal themselves.
var fixed = map[reflect.Type]map[string]any{
	reflect.TypeFor[time.Time]():                {"type": "string", "format": "date-time"},
	reflect.TypeFor[big.Int]():                  {"type": "integer", "description": "an integer of any size (a JSON number)"},
	reflect.TypeFor[negotiation.Address]():      {"type": "string", "pattern": "^0x[0-9a-fA-F]{40}$", "description": "an EIP-55 checksummed address"},
	reflect.TypeFor[negotiation.Hash]():         {"type": "string", "pattern": "^0x[0-9a-f]{64}$"},
	reflect.TypeFor[negotiation.Uint256]():      {"type": "string", "pattern": "^(0|[1-9][0-9]*)$", "description": "a uint256 as a decimal string"},
	reflect.TypeFor[negotiation.PublicKey]():    {"type": "string", "pattern": "^0x[0-9a-f]{64}$"},
	reflect.TypeFor[negotiation.EVMSignature](): {"type": "string", "pattern": "^0x[0-9a-f]{130}$"},
	reflect.TypeFor[json.RawMessage]():          {},
	reflect.TypeFor[approval.IntentRequest]():   intentRequestSchema,
	reflect.TypeFor[approval.IntentReceipt]():   intentReceiptSchema,
	reflect.TypeFor[protocol.CredentialAssertion](): {"type": "object", "required": []string{"publicKey"},
		"description": "WebAuthn request options as go-webauthn writes them: pass publicKey to PublicKeyCredential.parseRequestOptionsFromJSON"},
	reflect.TypeFor[protocol.CredentialCreation](): {"type": "object", "required": []string{"publicKey"},
		"description": "WebAuthn creation options as go-webauthn writes them: pass publicKey to PublicKeyCredential.parseCreationOptionsFromJSON"},
}

// fixedComponents are the types of fixed whose schema is a named
// component (answers are checked against it).
var fixedComponents = map[reflect.Type]bool{
	reflect.TypeFor[approval.IntentRequest]():       true,
	reflect.TypeFor[approval.IntentReceipt]():       true,
	reflect.TypeFor[protocol.CredentialAssertion](): true,
	reflect.TypeFor[protocol.CredentialCreation]():  true,
}

func (g *schemaGen) of(t reflect.Type) map[string]any {
	if s, ok := fixed[t]; ok {
		if !fixedComponents[t] {
			return s
		}
		if prev, ok := g.names[t.Name()]; ok && prev != t {
			g.t.Fatalf("two types named %s: %s and %s", t.Name(), prev, t)
		}
		g.names[t.Name()] = t
		g.comps[t.Name()] = s
		return map[string]any{"$ref": "#/components/schemas/" + t.Name()}
	}
	if t.Kind() == reflect.Pointer {
		return g.of(t.Elem())
	}
	if t == reflect.TypeFor[negotiation.State]() {
		return map[string]any{"type": "string", "enum": states}
	}
	if t == reflect.TypeFor[negotiation.A2AState]() {
		return map[string]any{"type": "string", "enum": []negotiation.A2AState{
			negotiation.A2ASubmitted, negotiation.A2AWorking, negotiation.A2AInputRequired, negotiation.A2AAuthRequired,
			negotiation.A2ACompleted, negotiation.A2ACanceled, negotiation.A2ARejected, negotiation.A2AFailed,
		}}
	}
	if t == reflect.TypeFor[p2p.Reachability]() {
		return map[string]any{"type": "string", "enum": []p2p.Reachability{p2p.ReachUnknown, p2p.ReachPublic, p2p.ReachPrivate, p2p.ReachRelayed}}
	}
	if t == reflect.TypeFor[p2p.Path]() {
		return map[string]any{"type": "string", "enum": []p2p.Path{p2p.PathDirect, p2p.PathRelayed}}
	}
	pt := reflect.PointerTo(t)
	if pt.Implements(reflect.TypeFor[json.Marshaler]()) || pt.Implements(reflect.TypeFor[encoding.TextMarshaler]()) {
		g.t.Fatalf("%s marshals itself: give it a schema in fixed", t)
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer", "minimum": 0}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": "string", "contentEncoding": "base64"}
		}
		return map[string]any{"type": "array", "items": g.of(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.of(t.Elem())}
	case reflect.Struct:
		name := t.Name()
		if name == "" {
			return g.object(t)
		}
		if prev, ok := g.names[name]; ok && prev != t {
			g.t.Fatalf("two types named %s: %s and %s", name, prev, t)
		}
		if _, ok := g.names[name]; !ok {
			g.names[name] = t
			g.comps[name] = nil // placeholder against recursion
			g.comps[name] = g.object(t)
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	g.t.Fatalf("no schema for %s", t)
	return nil
}

// object is the schema of a struct's JSON members, embedded structs
// flattened; a member without omitempty is required.
func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if name == "" {
				name = f.Name
			}
			props[name] = g.of(f.Type)
			if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
				required = append(required, name)
			}
		}
	}
	walk(t)
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// buildOpenAPI makes the OpenAPI 3.1 document of the route table.
func buildOpenAPI(t testing.TB) []byte {
	g := &schemaGen{t: t, comps: map[string]any{}, names: map[string]reflect.Type{}}
	g.of(reflect.TypeFor[ErrorBody]())
	errResp := func(desc string) map[string]any {
		return map[string]any{"description": desc, "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/ErrorBody"}}}}
	}
	paths := map[string]any{}
	for _, rd := range routeDocs {
		method, path, _ := strings.Cut(rd.pattern, " ")
		op := map[string]any{"operationId": rd.id, "summary": rd.summary}
		var params []any
		for _, seg := range strings.Split(path, "/") {
			if strings.HasPrefix(seg, "{") {
				name := strings.Trim(seg, "{}")
				params = append(params, map[string]any{"name": name, "in": "path", "required": true, "schema": pathSchema(path, name)})
			}
		}
		for _, q := range rd.query {
			params = append(params, map[string]any{"name": q.name, "in": "query", "required": false, "description": q.desc, "schema": map[string]any{"type": "string"}})
		}
		responses := map[string]any{"default": errResp("an error: the code names the reason (docs/api.md lists them)")}
		status := rd.status
		if status == 0 {
			status = 200
		}
		media := rd.media
		if media == "" {
			media = "application/json"
		}
		ok := map[string]any{"description": "success"}
		switch {
		case rd.resp != nil:
			ok["content"] = map[string]any{media: map[string]any{"schema": g.of(reflect.TypeOf(rd.resp))}}
		default:
			ok["content"] = map[string]any{media: map[string]any{"schema": map[string]any{"type": "string", "contentEncoding": "binary"}}}
		}
		responses[strconv.Itoa(status)] = ok
		public := rd.pattern == RouteDiscovery || rd.pattern == RouteLink
		if public {
			op["security"] = []any{}
		} else {
			responses["401"] = errResp("unauthorized: no or wrong bearer key")
		}
		if method == "POST" {
			params = append(params, map[string]any{"$ref": "#/components/parameters/IdempotencyKey"})
			op["requestBody"] = map[string]any{"required": false, "description": "JSON; an empty body reads as {}; an unknown member is refused (400)", "content": map[string]any{"application/json": map[string]any{"schema": g.of(reflect.TypeOf(rd.req))}}}
			responses["400"] = errResp("the strict decoder's malformed_json, duplicate_key, unknown_field or schema_invalid (a wrong type, a missing member), bad_request (a bad path value or Idempotency-Key), or idempotency_key_required")
			responses["409"] = errResp("idempotency_key_reused, or the node refused the act in the thread's state")
			responses["413"] = errResp("too_large: the body exceeds api.max_body")
		}
		if rd.limited {
			r := errResp("rate_limited: over the task board's rate; Retry-After says when to try again")
			r["headers"] = map[string]any{"Retry-After": map[string]any{"description": "seconds to wait", "schema": map[string]any{"type": "integer", "minimum": 1}}}
			responses["429"] = r
		}
		if params != nil {
			op["parameters"] = params
		}
		op["responses"] = responses
		item, _ := paths[path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[path] = item
		}
		item[strings.ToLower(method)] = op
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "Parley node API",
			"version": "0.1",
			"description": "A Parley node's local HTTP API (docs/api.md). Every /v1 route needs the bearer key of <data-dir>/api.key; " +
				"every POST needs an Idempotency-Key (VXP): the same key and request get the same answer, another request under the key 409 idempotency_key_reused.",
		},
		"servers":  []any{map[string]any{"url": "http://127.0.0.1:7464", "description": "the default api.listen"}},
		"security": []any{map[string]any{"bearer": []any{}}},
		"paths":    paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer", "description": "the text of <data-dir>/api.key"}},
			"parameters": map[string]any{"IdempotencyKey": map[string]any{
				"name": HeaderIdempotencyKey, "in": "header", "required": true,
				"description": "a fresh random value per act, reused only to retry it; kept 24 h in memory",
				"schema":      map[string]any{"type": "string", "minLength": 1, "maxLength": MaxIdempotencyKey, "pattern": "^[\\x21-\\x7e]+$"},
			}},
			"schemas": g.comps,
		},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pathSchema(path, name string) map[string]any {
	switch {
	case name == "hash":
		return fixed[reflect.TypeFor[negotiation.Hash]()]
	case name == "address":
		return map[string]any{"type": "string", "pattern": "^0x[0-9a-fA-F]{40}$", "description": "an EIP-55 address"}
	case name == "cid":
		return map[string]any{"type": "string", "description": "a CIDv1 in base32"}
	case name == "id" && strings.HasPrefix(path, "/v1/approvals/"):
		return map[string]any{"type": "string", "pattern": "^req_[0-9a-f]{32}$"}
	}
	return map[string]any{"type": "string", "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", "description": "a negotiation id (lowercase UUID v4)"}
}

// TestOpenAPI: openapi.json is what the route table and the Go types make
// (go test ./node/api -run TestOpenAPI -update rewrites it), it is what
// the server serves, and its operations are exactly the routes the server
// registers, which are exactly the Route constants of types.go.
func TestOpenAPI(t *testing.T) {
	want := buildOpenAPI(t)
	if *update {
		if err := os.WriteFile("openapi.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("openapi.json differs from what the route table makes (go test ./node/api -run TestOpenAPI -update)")
	}
	if !bytes.Equal(openAPIDoc, got) {
		t.Fatal("the embedded document is not openapi.json")
	}

	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
	var inDoc []string
	for p, ops := range doc.Paths {
		for m := range ops {
			inDoc = append(inDoc, strings.ToUpper(m)+" "+p)
		}
	}
	n, err := node.New(func() node.Config { c := node.DefaultConfig(); c.DataDir = t.TempDir(); return c }(), node.WithPassphrase(harnessPass))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(n, Options{Key: []byte(apiKey)})
	if err != nil {
		t.Fatal(err)
	}
	served := slices.Clone(s.routes)
	declared := routeConstants(t)
	for _, l := range [][]string{inDoc, served, declared} {
		slices.Sort(l)
	}
	if !slices.Equal(inDoc, served) {
		t.Fatalf("the document's operations\n%v\nare not the server's routes\n%v", inDoc, served)
	}
	if !slices.Equal(served, declared) {
		t.Fatalf("the server's routes\n%v\nare not the Route constants of types.go\n%v", served, declared)
	}
}

// routeConstants reads the values of the Route* constants in types.go.
func routeConstants(t *testing.T) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "types.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, name := range vs.Names {
			if strings.HasPrefix(name.Name, "Route") && i < len(vs.Values) {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, v)
				}
			}
		}
		return true
	})
	if len(out) < 30 {
		t.Fatalf("found only %d Route constants", len(out))
	}
	return out
}

// checkSchema validates a JSON answer against a schema of the OpenAPI
// document: "ThreadView" names a component, "[]ThreadView" an array of it.
func checkSchema(t testing.TB, name string, body []byte) {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(openAPIDoc))
	if err != nil {
		t.Fatal(err)
	}
	const url = "file:///openapi.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	elem, array := strings.CutPrefix(name, "[]")
	sch, err := c.Compile(url + "#/components/schemas/" + elem)
	if err != nil {
		t.Fatalf("schema %s: %v", name, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	vs := []any{v}
	if array {
		l, ok := v.([]any)
		if !ok {
			t.Fatalf("%s: not an array: %s", name, body)
		}
		vs = l
	}
	for _, x := range vs {
		if err := sch.Validate(x); err != nil {
			t.Fatalf("the answer does not fit the document's %s: %v\n%s", name, err, body)
		}
	}
}
