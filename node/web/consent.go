package web

import (
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// The consent page: the counterparties with their consent state, and the
// JSON endpoint its buttons call.
const (
	routeConsent    = "GET /consent"
	routeConsentSet = "POST /api/consent/{address}"
)

type consentRow struct {
	Address                     string
	State                       string
	Open, Negotiations, Refused int
	SetISO, SetText, Via        string
	OnChain                     string // the counterparty's IdentityLink record, as last looked up
}

type consentBody struct {
	Rows                   []consentRow
	PerCounterparty, Total int
}

func (h *handler) consentPage(w http.ResponseWriter, r *http.Request) {
	list, err := h.n.ConsentBook().List()
	if err != nil {
		h.errorPage(w, r, http.StatusServiceUnavailable, "Counterparties unavailable", "The node could not list its counterparties: "+err.Error())
		return
	}
	rows := make([]consentRow, 0, len(list))
	for _, v := range list {
		row := consentRow{Address: v.Address.String(), State: string(v.State), Open: v.Open, Negotiations: v.Negotiations, Refused: v.Refused, Via: v.Via}
		if v.At != nil {
			row.SetISO, row.SetText = timeISO(*v.At), timeText(*v.At)
		}
		row.OnChain = "not checked yet"
		if c, ok := h.n.KnownLink(v.Address); ok {
			row.OnChain = linkWords(c.State)
		}
		rows = append(rows, row)
	}
	cfg := h.n.Config().Consent
	h.render(w, r, http.StatusOK, "consent", page{Title: "Counterparties", Nav: "consent", Body: consentBody{
		Rows: rows, PerCounterparty: cfg.PerCounterparty, Total: cfg.Total,
	}})
}

type consentSet struct {
	State node.Consent `json:"state"`
}

// consentAnswer is the answer to a consent change.
type consentAnswer struct {
	Address string `json:"address"`
	State   string `json:"state"`
	Message string `json:"message"`
}

// consentSetState records the principal's consent change (via web).
func (h *handler) consentSetState(w http.ResponseWriter, r *http.Request) {
	s := strings.TrimSpace(r.PathValue("address"))
	if !strings.HasPrefix(s, "0x") || !common.IsHexAddress(s) {
		h.refuse(w, r, http.StatusBadRequest, "bad_argument", "the counterparty is not an EVM address (0x and 40 hex digits)")
		return
	}
	a := negotiation.Address(common.HexToAddress(s))
	var b consentSet
	if !h.decode(w, r, &b) {
		return
	}
	v, err := h.n.ConsentBook().Set(r.Context(), a, b.State, node.ConsentViaWeb)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.log.Info("consent changed", "counterparty", v.Address, "state", v.State)
	h.writeJSON(w, http.StatusOK, consentAnswer{Address: v.Address.String(), State: string(v.State), Message: v.Address.String() + " is " + string(v.State) + "."})
}

// linkWords says an IdentityLink look-up in plain words.
func linkWords(s node.LinkState) string {
	switch s {
	case node.LinkMatching:
		return "registered, matches the link this node holds"
	case node.LinkDifferent:
		return "registered with ANOTHER link than this node holds"
	case node.LinkRegistered:
		return "registered"
	}
	return "not registered"
}
