package gate

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parleynet/parley/approval"
)

// The plain words of an act: its title and its lines, as the principal
// reads them before approving.

// pendingFor returns the pending approval of req for act, in plain words
// (without its expiry line, which PendingApprovals adds).
func (g *Gate) pendingFor(act Act, req approval.IntentRequest, action approval.Action) PendingApproval {
	var args map[string]any
	_ = json.Unmarshal(action.Arguments, &args)
	var title string
	if g.cfg.Title != nil {
		title = g.cfg.Title(action.Target, args)
	}
	p := PendingApproval{Request: req, Act: act, Title: actTitle(act, title, args)}
	if act == ActConfirmCard && g.cfg.Draft != nil {
		if card := g.cfg.Draft(str(args["cardHash"])); card != nil {
			// The whole card is shown: every clause, not only its hash and
			// goal. The hash among the arguments binds exactly this card.
			shown := maps.Clone(args)
			delete(shown, "principal")
			delete(shown, "goal")
			delete(shown, "cardHash")
			p.Lines = append(slices.Clip(card), plainLines(act, title, req, shown)...)
			return p
		}
	}
	p.Lines = plainLines(act, title, req, args)
	return p
}

// withExpiry returns p with its lines and a last line saying when it
// expires, seen at now.
func withExpiry(p PendingApproval, now time.Time) PendingApproval {
	left := p.Request.ExpiresAt.Sub(now).Truncate(time.Second)
	p.Lines = append(slices.Clip(p.Lines), PlainLine{Label: "Expires", Value: fmt.Sprintf("in %s (at %s)", max(left, 0), p.Request.ExpiresAt.UTC().Format(time.RFC3339))})
	return p
}

// How an answer or a card arrived, as the plain words name it: the
// values of negotiation.Via, which the gate does not import (node's
// TestGateWordsMatchTheProtocol checks they agree).
const (
	ViaWeb = "web" // typed on the principal's pages
	ViaAPI = "api" // sent through the node's API
	ViaMCP = "mcp" // relayed by an agent over MCP
)

// NativeToken is the token address of native ETH (negotiation.Address{}).
const NativeToken = "0x0000000000000000000000000000000000000000"

// actTitle says act in a sentence.
func actTitle(act Act, title string, args map[string]any) string {
	task := "the task"
	if title != "" {
		task = "task «" + title + "»"
	}
	switch act {
	case ActSignSettlement:
		return "Sign the settlement of " + task
	case ActFundEscrow:
		return "Fund the escrow of " + task
	case ActReleaseMilestone:
		return fmt.Sprintf("Accept the delivery of milestone %s of %s and pay the worker", str(args["milestone"]), task)
	case ActSignCancel:
		return "Cancel " + task
	case ActSignAmendment:
		return "Amend the milestones and deadline of " + task
	case ActSignReplacement:
		return "Hand " + task + " over to a replacement worker"
	case ActOpenDispute:
		return "Open a dispute about " + task
	case ActProposeArbitrator:
		return "Name the arbitrator of the dispute about " + task
	case ActRule:
		return "Rule on the dispute about " + task
	case ActClaimUnanswered:
		return fmt.Sprintf("Claim milestone %s of %s, left unanswered for the review period", str(args["milestone"]), task)
	case ActReclaimExpired:
		return "Take back the undelivered escrow of " + task + " after its deadline"
	case ActResolveTimedOut:
		return "Resolve the stalled dispute about " + task + " by its timeout"
	case ActVeto:
		return fmt.Sprintf("Veto %s for %s, as the supervisor it named", task, str(args["party"]))
	case ActRequestRevision:
		return fmt.Sprintf("Send milestone %s of %s back to work (the worker can no longer claim it)", str(args["milestone"]), task)
	case ActReleasePart:
		return fmt.Sprintf("Pay the worker part of milestone %s of %s", str(args["milestone"]), task)
	case ActRegisterIdentity:
		return "Publish this node's identity link on chain (IdentityLink)"
	case ActRotateIdentity:
		return "Replace this node's identity link on chain with its current one"
	case ActRevokeIdentity:
		return "Withdraw this node's identity link from the chain"
	case ActPublishScope:
		return "Publish the scope hash of " + task + " on chain (TaskScopeRegistry)"
	case ActRaiseArbitrator:
		return fmt.Sprintf("Raise the dispute about %s with the arbitrator contract, paying its fee of %s wei", task, str(args["fee"]))
	case ActConfirmCard:
		switch str(args["via"]) {
		case ViaWeb:
			return fmt.Sprintf("Seal your intent card for «%s»", str(args["principal"]))
		case ViaAPI:
			return fmt.Sprintf("Seal the intent card sent through the node's API for «%s»", str(args["principal"]))
		}
		return fmt.Sprintf("Seal the intent card your agent drafted for «%s»", str(args["principal"]))
	case ActConfirmAnswer:
		switch str(args["via"]) {
		case ViaWeb:
			return fmt.Sprintf("Seal your answer: «%s»", str(args["answer"]))
		case ViaAPI:
			return fmt.Sprintf("Confirm the answer sent through the node's API: «%s»", str(args["answer"]))
		}
		return fmt.Sprintf("Confirm the answer your agent relayed: «%s»", str(args["answer"]))
	case ActVXPGrant:
		return fmt.Sprintf("Grant an outside agent exactly the authority below to act for you (user code %s)", str(args["user_code"]))
	case ActRegisterPasskey:
		if b, _ := args["software"].(bool); b {
			return fmt.Sprintf("Register a software key «%s» as a further credential", str(args["label"]))
		}
		return fmt.Sprintf("Register a passkey «%s» as a further credential", str(args["label"]))
	case ActRevokePasskey:
		if b, _ := args["software"].(bool); b {
			return fmt.Sprintf("Revoke the software key «%s»", str(args["label"]))
		}
		return fmt.Sprintf("Revoke the passkey «%s»", str(args["label"]))
	}
	return string(act)
}

// lineLabels are the labels of the arguments shown first, in this order;
// every other argument follows under its own name.
var lineLabels = []struct{ key, label string }{
	{"amount", "Amount"}, {"token", "Token"}, {"counterparty", "Counterparty"},
	{"milestoneAmounts", "Milestones"}, {"milestone", "Milestone"}, {"deadline", "Deadline"},
	{"bond", "Bond"}, {"refund", "Refund to the poster"}, {"topUp", "Top-up"}, {"escrow", "Escrow"},
	{"arbitrator", "Arbitrator"}, {"newWorker", "New worker"}, {"ruling", "Ruling"},
	{"label", "Label"}, {"software", "Software key"}, {"credential", "Credential"},
	{"question", "Question"}, {"answer", "Answer"}, {"via", "How it arrived"}, {"answerIndex", "Amendment"},
	{"principal", "Principal"}, {"goal", "Goal"}, {"cardHash", "Card hash"},
	{"user_code", "User code"}, {"grant_ttl_seconds", "The grant lasts"}, {"authorization_details", "Authorization details"}, {"resource", "Resource"}, {"dpop_jkt", "Agent's key (thumbprint)"},
}

// plainLines returns the task, the act's values in plain words, what
// signing means and the risk, then every other argument.
func plainLines(act Act, title string, req approval.IntentRequest, args map[string]any) []PlainLine {
	var out []PlainLine
	native := str(args["token"]) == "" || str(args["token"]) == NativeToken
	unit := tokenUnit{symbol: str(args["tokenSymbol"]), name: str(args["tokenName"]), decimals: str(args["tokenDecimals"])}
	if title != "" {
		out = append(out, PlainLine{"Task", title})
	}
	switch {
	case act == ActVXPGrant:
		out = append(out, PlainLine{"Agent's client_id", req.Action.Target})
	case act != ActRegisterPasskey && act != ActRevokePasskey && req.Action.Target != "":
		out = append(out, PlainLine{"Negotiation", req.Action.Target})
	}
	shown := map[string]bool{}
	for _, l := range lineLabels {
		v, ok := args[l.key]
		if !ok {
			continue
		}
		shown[l.key] = true
		var s string
		switch l.key {
		case "amount", "bond", "refund", "topUp", "escrow":
			s = unit.money(str(v), native)
		case "token":
			if native {
				s = "ETH (native)"
			} else {
				s = unit.token(str(v))
				// The token's metadata is in this line, not repeated below.
				shown["tokenSymbol"], shown["tokenName"], shown["tokenDecimals"] = true, true, true
			}
		case "milestoneAmounts":
			var parts []string
			if l, ok := v.([]any); ok {
				for _, a := range l {
					parts = append(parts, unit.money(str(a), native))
				}
			}
			s = strings.Join(parts, "; ")
		case "ruling":
			s = ruling(str(v))
		case "software":
			s = "no"
			if b, _ := v.(bool); b {
				s = "yes: it approves without a person"
			}
		case "via":
			s = viaWords(str(v))
		case "answerIndex":
			s = "amendments[" + str(v) + "] of the card"
		case "grant_ttl_seconds":
			s = str(v) + " seconds from the approval"
			if n, err := strconv.ParseInt(str(v), 10, 64); err == nil {
				s = (time.Duration(n) * time.Second).String() + " from the approval (" + str(v) + " s)"
			}
		default:
			s = str(v)
		}
		out = append(out, PlainLine{l.label, s})
	}
	if r := req.Context.Reason; r != "" {
		out = append(out, PlainLine{"What this means", r})
	}
	if r := req.Context.Risk; r != "" {
		out = append(out, PlainLine{"Risk", string(r)})
	}
	var rest []string
	for k := range args {
		if !shown[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		out = append(out, PlainLine{k, str(args[k])})
	}
	out = append(out, PlainLine{"Intent hash", req.IntentHash})
	return out
}

// viaWords says how an answer or a card arrived.
func viaWords(v string) string {
	switch v {
	case ViaWeb:
		return "typed on your pages (web): your passkey seals these exact words"
	case ViaAPI:
		return "through the node's API (api): an agent or a script holding its key sent it, not you"
	case ViaMCP:
		return "relayed by an agent over MCP (mcp), not typed by you"
	}
	return v
}

// str writes an argument value: a string as it is, a list joined by
// commas, anything else in JSON.
func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = str(e)
		}
		return strings.Join(parts, ", ")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// tokenUnit is what an ERC-20 token says of itself, as the act's
// arguments carry it (tokenSymbol, tokenName, tokenDecimals; each may be
// absent: the metadata is optional in ERC-20).
type tokenUnit struct{ symbol, name, decimals string }

// token writes the token's line: its symbol and name, its address and
// its decimals, or that amounts are in its smallest unit.
func (u tokenUnit) token(addr string) string {
	var s string
	switch {
	case u.symbol != "" && u.name != "":
		s = u.symbol + " (" + u.name + "), token " + addr
	case u.symbol != "":
		s = u.symbol + ", token " + addr
	default:
		s = "token " + addr
	}
	if u.decimals != "" {
		return s + ", " + u.decimals + " decimals"
	}
	return s + " (amounts in its smallest unit)"
}

// money writes a decimal amount: in ETH and wei for native ETH, else in
// the token's terms ("1.5 PTT (1500000000000000000 units)") when it has
// decimals, in its smallest unit when not.
func (u tokenUnit) money(wei string, native bool) string {
	x, ok := new(big.Int).SetString(wei, 10)
	if !ok {
		return wei
	}
	if native {
		return FormatETH(x) + " ETH (" + x.String() + " wei)"
	}
	d, err := strconv.ParseUint(u.decimals, 10, 8)
	if err != nil {
		return x.String() + " units"
	}
	sym := u.symbol
	if sym == "" {
		sym = "tokens"
	}
	return FormatUnits(x, int(d)) + " " + sym + " (" + x.String() + " units)"
}

// FormatETH writes wei as ETH with up to 18 decimals, trailing zeros
// dropped: 350000000000000000 is "0.35".
func FormatETH(wei *big.Int) string {
	if wei == nil {
		return "0"
	}
	return FormatUnits(wei, 18)
}

// FormatUnits writes x smallest units of a token with decimals decimals
// as a decimal number, trailing zeros dropped: 1500000 with 6 decimals is
// "1.5".
func FormatUnits(x *big.Int, decimals int) string {
	if x == nil {
		return "0"
	}
	neg := x.Sign() < 0
	a := new(big.Int).Abs(x)
	unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)
	q, r := new(big.Int).QuoRem(a, unit, new(big.Int))
	s := q.String()
	if r.Sign() != 0 {
		frac := fmt.Sprintf("%0*s", decimals, r.String())
		s += "." + strings.TrimRight(frac, "0")
	}
	if neg {
		s = "-" + s
	}
	return s
}

// ruling writes a ruling in plain words: 0 refuses to rule, r gives the
// worker r-1 basis points of the escrow.
func ruling(s string) string {
	r, ok := new(big.Int).SetString(s, 10)
	switch {
	case !ok:
		return s
	case r.Sign() == 0:
		return "refuse to rule (ruling 0)"
	}
	bps := new(big.Int).Sub(r, big.NewInt(1)).Int64()
	return fmt.Sprintf("the worker gets %d.%02d%% of the escrow, the poster the rest (ruling %s)", bps/100, bps%100, s)
}
