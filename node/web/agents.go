package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/parleynet/parley/node"
)

// The pages of VXP's outside agents (docs/vxp.md): /device, where the
// principal enters the user code an agent showed and approves or denies
// its grant with a passkey, and /agents, each agent with its grants and
// requests and the revocation of its grants.
const (
	routeDevice      = "GET /device"
	routeAgents      = "GET /agents"
	routeAgentRevoke = "POST /api/agents/revoke"
)

// The authorization details types of VXP's grants (vxp.CapabilityType and
// vxp.RelationshipType; web does not import vxp).
const (
	capabilityType   = "https://vxpprotocol.org/rar/capability"
	relationshipType = "https://vxpprotocol.org/rar/relationship"
)

// revokedVia is who revoked a grant on these pages, for the ledger.
const revokedVia = "web"

// codeVXPOff is the code of an agents endpoint on a node that serves no
// VXP (Options.Agents is nil).
const codeVXPOff = "vxp_off"

// MaxUserCode bounds a user code as typed, in bytes.
const MaxUserCode = 64

// normalCode returns the user code s as the node compares it: upper case,
// without the dashes and spaces a person may type or leave out; ok is
// false when what remains is empty, longer than MaxUserCode or holds
// anything but A-Z and 0-9.
func normalCode(s string) (string, bool) {
	if len(s) > MaxUserCode {
		return "", false
	}
	var b strings.Builder
	for _, c := range []byte(strings.ToUpper(s)) {
		switch {
		case c == '-' || c == ' ':
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			b.WriteByte(c)
		default:
			return "", false
		}
	}
	return b.String(), b.Len() > 0
}

// grantArgs are the exact arguments of a vxp_grant approval request.
type grantArgs struct {
	UserCode             string `json:"user_code"`
	AuthorizationDetails string `json:"authorization_details"`
	Resource             string `json:"resource"`
	DPoPJKT              string `json:"dpop_jkt"`
	// GrantTTLSeconds is how long the grant lasts once approved: an
	// argument, so the passkey signs it too.
	GrantTTLSeconds string `json:"grant_ttl_seconds"`
}

// grantByCode returns the pending vxp_grant approval whose user code is
// code (normalised), if one waits.
func (h *handler) grantByCode(code string) (node.PendingApproval, grantArgs, bool) {
	for _, p := range h.n.PendingApprovals() {
		if p.Act != node.ActVXPGrant {
			continue
		}
		var a grantArgs
		if json.Unmarshal(p.Request.Action.Arguments, &a) != nil {
			continue
		}
		if c, ok := normalCode(a.UserCode); ok && c == code {
			return p, a, true
		}
	}
	return node.PendingApproval{}, grantArgs{}, false
}

// detailEntry is one authorization details entry as the pages read it to
// say it in words: a capability (Actions on Identifier) or a relationship
// (CompanyActions).
type detailEntry struct {
	Type           string   `json:"type"`
	Actions        []string `json:"actions"`
	Identifier     string   `json:"identifier"`
	CompanyActions []string `json:"company_initiated_actions"`
}

// grantLine is one thing a grant lets the agent do, in words; Warn marks
// what the pages cannot put in words or what does not match this node.
type grantLine struct {
	Text string
	Warn bool
}

// detailLines says the authorization details text (a JSON array) in
// words: one line per operation on its target, one per company-initiated
// action of a relationship. Text that is not such an array is one
// warning line: the person reads the exact text instead.
func (h *handler) detailLines(text string) []grantLine {
	var entries []detailEntry
	if err := json.Unmarshal([]byte(text), &entries); err != nil || len(entries) == 0 {
		return []grantLine{{Text: "The pages cannot read this grant's authorization details: read the exact text below, and deny the grant if you do not understand it.", Warn: true}}
	}
	var out []grantLine
	for _, e := range entries {
		switch e.Type {
		case capabilityType:
			for _, a := range e.Actions {
				out = append(out, h.operationLine(a, e.Identifier))
			}
		case relationshipType:
			for _, a := range e.CompanyActions {
				out = append(out, relationshipLine(a))
			}
			if len(e.CompanyActions) == 0 {
				out = append(out, grantLine{Text: "Keep a relationship with the agent (no action of the node toward it is named)."})
			}
		default:
			out = append(out, grantLine{Text: fmt.Sprintf("An authorization of type %q that the pages cannot put in words: read the exact text below.", e.Type), Warn: true})
		}
	}
	return out
}

// operationLine says one operation of vxp's catalogue on its target
// (a negotiation id, or "" for an operation without target) in words.
func (h *handler) operationLine(op, nid string) grantLine {
	neg := "negotiation " + nid
	var l grantLine
	switch op {
	case "board.read":
		l.Text = "Read the public task board."
	case "negotiation.read":
		l.Text = "Read " + neg + ": its state, offers and messages."
	case "offer.respond":
		l.Text = "Answer offers in " + neg + ": propose to accept or counter the current offer (accepting signs a settlement only after your own passkey approves it)."
	case "task.post":
		l.Text = "Post tasks on the task board for you."
	case "escrow.fund":
		l.Text = "Fund the escrow of " + neg + " (the funding itself waits for your passkey)."
	case "delivery.accept":
		l.Text = "Accept deliveries in " + neg + ", which releases their milestones' payments (each release waits for your passkey)."
	default:
		l.Text, l.Warn = fmt.Sprintf("The operation %q, which this node's catalogue does not name", op), true
		if nid != "" {
			l.Text += ", on " + nid
		}
		l.Text += "."
		return l
	}
	if nid != "" {
		if _, err := h.n.Thread(nid); err != nil {
			l.Text += " This node holds no negotiation " + nid + "."
			l.Warn = true
		}
	}
	return l
}

// relationshipLine says one company-initiated action of a relationship in
// words.
func relationshipLine(a string) grantLine {
	switch a {
	case "negotiation.notify":
		return grantLine{Text: "Let your node tell the agent when a negotiation it holds a grant on moves."}
	case "question.ask":
		return grantLine{Text: "Let your node ask the agent closed questions; its answers count only once your passkey confirms them."}
	}
	return grantLine{Text: fmt.Sprintf("The relationship action %q, which this node does not name.", a), Warn: true}
}

// clientName returns the name the agent clientID gave itself in its
// metadata document, as the agent book knows it, or "".
func (h *handler) clientName(clientID string) string {
	if h.o.Agents == nil {
		return ""
	}
	for _, a := range h.o.Agents.Agents() {
		if a.ClientID == clientID {
			return a.ClientName
		}
	}
	return ""
}

// deviceGrant is a pending grant on the device page.
type deviceGrant struct {
	actBody
	ClientID, ClientName, UserCode, Resource, Thumbprint, Details string
	Grants                                                        []grantLine
	// UntilText says how long the grant lasts once approved.
	UntilText string
}

type deviceBody struct {
	// Code is the user code as typed, to show it back.
	Code string
	// Problem says why no grant is shown for the code typed.
	Problem string
	Grant   *deviceGrant
}

// devicePage asks for the user code an agent showed (RFC 8628's
// verification_uri; ?user_code= fills it, as verification_uri_complete
// does) and shows the grant pending under it in words, with the
// approval's passkey ceremony of every other pending request (the
// approval page's script and endpoints). A code that matches nothing says
// so and changes nothing; nothing here approves without the passkey.
func (h *handler) devicePage(w http.ResponseWriter, r *http.Request) {
	typed := strings.TrimSpace(r.URL.Query().Get("user_code"))
	b := deviceBody{Code: typed}
	pg := page{Title: "Connect an agent", Nav: "device", Body: &b}
	if typed == "" {
		h.render(w, r, http.StatusOK, "device", pg)
		return
	}
	code, ok := normalCode(typed)
	if !ok {
		b.Problem = "This is not a user code: a user code has letters and digits, such as WDJB-MJHT."
		h.render(w, r, http.StatusBadRequest, "device", pg)
		return
	}
	p, args, ok := h.grantByCode(code)
	if !ok {
		b.Problem = "No agent waits for your approval with this code: it may be mistyped, decided already, or expired. Ask the agent for a new code. Nothing was changed."
		h.render(w, r, http.StatusNotFound, "device", pg)
		return
	}
	req := p.Request
	g := &deviceGrant{
		actBody: actBody{
			ID: req.RequestID, Title: p.Title, Risk: string(req.Context.Risk), Reason: req.Context.Reason,
			IntentHash: req.IntentHash, ExpiresISO: timeISO(req.ExpiresAt), ExpiresText: timeText(req.ExpiresAt),
			Lines: p.Lines,
		},
		ClientID: req.Action.Target, ClientName: h.clientName(req.Action.Target),
		UserCode: args.UserCode, Resource: args.Resource, Thumbprint: args.DPoPJKT, Details: args.AuthorizationDetails,
		Grants: h.detailLines(args.AuthorizationDetails),
	}
	if raw, err := json.MarshalIndent(req, "", "  "); err == nil {
		g.RequestJSON = string(raw)
	}
	ttl := h.o.GrantTTL
	if n, err := strconv.ParseInt(args.GrantTTLSeconds, 10, 64); err == nil && n > 0 {
		ttl = time.Duration(n) * time.Second // what the passkey signs
	}
	if ttl > 0 {
		g.UntilText = fmt.Sprintf("for %s once you approve it (until about %s), unless you revoke it earlier on the Agents page",
			durationText(ttl), timeText(time.Now().Add(ttl)))
	} else {
		g.UntilText = "for the grant lifetime of this node's VXP settings once you approve it, unless you revoke it earlier on the Agents page"
	}
	b.Code, b.Grant = args.UserCode, g
	pg.Title = "Grant an agent authority"
	h.render(w, r, http.StatusOK, "device", pg)
}

// durationText writes d in days, hours or minutes.
func durationText(d time.Duration) string {
	switch {
	case d >= 48*time.Hour && d%(24*time.Hour) == 0:
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%d hours", d/time.Hour)
	}
	return d.Round(time.Minute).String()
}

// agentGrantRow is one grant on the agents page.
type agentGrantRow struct {
	node.AgentGrantView
	GrantedISO, GrantedText, ExpiresISO, ExpiresText, RevokedISO, RevokedText string
}

// agentRequestRow is one request on the agents page.
type agentRequestRow struct {
	node.AgentRequestView
	UpdatedISO, UpdatedText string
}

// agentRow is one agent on the agents page.
type agentRow struct {
	ClientID, ClientName string
	Active               int
	Grants               []agentGrantRow
	Requests             []agentRequestRow
}

type agentsBody struct {
	Off    bool
	Agents []agentRow
}

func (h *handler) agentsPage(w http.ResponseWriter, r *http.Request) {
	b := agentsBody{Off: h.o.Agents == nil}
	if !b.Off {
		for _, a := range h.o.Agents.Agents() {
			row := agentRow{ClientID: a.ClientID, ClientName: a.ClientName}
			for _, g := range a.Grants {
				gr := agentGrantRow{AgentGrantView: g,
					GrantedISO: timeISO(g.GrantedAt), GrantedText: timeText(g.GrantedAt),
					ExpiresISO: timeISO(g.ExpiresAt), ExpiresText: timeText(g.ExpiresAt)}
				if !g.RevokedAt.IsZero() {
					gr.RevokedISO, gr.RevokedText = timeISO(g.RevokedAt), timeText(g.RevokedAt)
				}
				if g.Active {
					row.Active++
				}
				row.Grants = append(row.Grants, gr)
			}
			for _, q := range a.Requests {
				row.Requests = append(row.Requests, agentRequestRow{AgentRequestView: q, UpdatedISO: timeISO(q.UpdatedAt), UpdatedText: timeText(q.UpdatedAt)})
			}
			b.Agents = append(b.Agents, row)
		}
	}
	h.render(w, r, http.StatusOK, "agents", page{Title: "Agents", Nav: "agents", Body: b})
}

// agentRevokeBody names what to revoke: every grant of one agent, or one
// grant.
type agentRevokeBody struct {
	ClientID string `json:"clientId"`
	GrantID  string `json:"grantId"`
}

// agentRevoked is the answer to a revocation.
type agentRevoked struct {
	ClientID string `json:"clientId,omitempty"`
	GrantID  string `json:"grantId,omitempty"`
	Revoked  int    `json:"revoked"`
	Message  string `json:"message"`
}

// agentRevoke revokes an agent's grants, or one grant. Revoking only
// takes authority away from an agent, so it needs no passkey: the pages'
// own protection of every POST (an allowed Host, the Origin of the pages,
// application/json; ServeHTTP) keeps another site from asking for it.
func (h *handler) agentRevoke(w http.ResponseWriter, r *http.Request) {
	if h.o.Agents == nil {
		h.refuse(w, r, http.StatusNotFound, codeVXPOff, "this node serves no VXP: it has no agents")
		return
	}
	var b agentRevokeBody
	if !h.decode(w, r, &b) {
		return
	}
	b.ClientID, b.GrantID = strings.TrimSpace(b.ClientID), strings.TrimSpace(b.GrantID)
	if (b.ClientID == "") == (b.GrantID == "") {
		h.refuse(w, r, http.StatusBadRequest, "bad_argument", "name either clientId (every grant of the agent) or grantId (one grant)")
		return
	}
	a := agentRevoked{ClientID: b.ClientID, GrantID: b.GrantID}
	if b.ClientID != "" {
		n, err := h.o.Agents.RevokeAgent(r.Context(), b.ClientID, revokedVia)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		a.Revoked = n
		a.Message = fmt.Sprintf("Revoked %d grant(s) of %s: its tokens are refused from now on.", n, b.ClientID)
		if n == 0 {
			a.Message = "No grant of " + b.ClientID + " was in force: nothing changed."
		}
	} else {
		ok, err := h.o.Agents.RevokeGrant(r.Context(), b.GrantID, revokedVia)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		a.Message = "The grant " + b.GrantID + " was not in force: nothing changed."
		if ok {
			a.Revoked = 1
			a.Message = "Revoked the grant " + b.GrantID + ": its tokens are refused from now on."
		}
	}
	h.log.Info("agent grants revoked", "client_id", b.ClientID, "grant", b.GrantID, "revoked", a.Revoked)
	h.writeJSON(w, http.StatusOK, a)
}
