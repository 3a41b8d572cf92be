package vxp

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/strictjson"
)

// The authorization details types of VXP (RFC 9396): a capability grants
// operations on a target; a relationship lets the company start requests
// toward the agent.
const (
	CapabilityType   = "https://vxpprotocol.org/rar/capability"
	RelationshipType = "https://vxpprotocol.org/rar/relationship"
)

// MaxDetails is the most entries one authorization_details array may
// hold.
const MaxDetails = 64

// Detail is one authorization details entry of type CapabilityType: the
// operations (actions) it grants on the target named by identifier. An
// entry without identifier grants its operations only where they take no
// target; there is no wildcard.
type Detail struct {
	Type       string   `json:"type"`
	Actions    []string `json:"actions"`
	Identifier string   `json:"identifier,omitempty"`
}

// ParseDetails decodes an authorization_details array strictly: one JSON
// array of 1 to MaxDetails objects with exactly the members type, actions
// and identifier (unknown members, duplicates and wrong JSON types are
// refused), type CapabilityType, actions a non-empty list of distinct
// non-empty strings, identifier a non-empty string when present. Any
// refusal is an invalid_authorization_details *Error wrapping
// strictjson's where it decided.
func ParseDetails(b []byte) ([]Detail, error) {
	var raw []struct {
		Type       string   `json:"type"`
		Actions    []string `json:"actions"`
		Identifier *string  `json:"identifier"`
	}
	if err := strictjson.Unmarshal(b, &raw); err != nil {
		return nil, &Error{Code: CodeInvalidAuthorizationDetails, Field: "authorization_details", Msg: err.Error(), Err: err}
	}
	var ds []Detail
	if raw != nil {
		ds = make([]Detail, 0, len(raw))
	}
	for i, r := range raw {
		if r.Identifier != nil && *r.Identifier == "" {
			return nil, coded(CodeInvalidAuthorizationDetails, "authorization_details/"+strconv.Itoa(i)+"/identifier", "empty")
		}
		d := Detail{Type: r.Type, Actions: r.Actions}
		if r.Identifier != nil {
			d.Identifier = *r.Identifier
		}
		ds = append(ds, d)
	}
	if err := ValidateDetails(ds); err != nil {
		return nil, err
	}
	return ds, nil
}

// ValidateDetails applies ParseDetails's rules to decoded entries (an
// empty Identifier is an absent one).
func ValidateDetails(ds []Detail) error {
	switch {
	case ds == nil:
		return coded(CodeInvalidAuthorizationDetails, "authorization_details", "not an array")
	case len(ds) == 0:
		return coded(CodeInvalidAuthorizationDetails, "authorization_details", "empty")
	case len(ds) > MaxDetails:
		return coded(CodeInvalidAuthorizationDetails, "authorization_details", "more than %d entries", MaxDetails)
	}
	for i, d := range ds {
		f := "authorization_details/" + strconv.Itoa(i)
		if d.Type != CapabilityType {
			return coded(CodeInvalidAuthorizationDetails, f+"/type", "%q is not %s", d.Type, CapabilityType)
		}
		if len(d.Actions) == 0 {
			return coded(CodeInvalidAuthorizationDetails, f+"/actions", "no actions")
		}
		for j, a := range d.Actions {
			if a == "" {
				return coded(CodeInvalidAuthorizationDetails, f+"/actions/"+strconv.Itoa(j), "empty")
			}
			if slices.Contains(d.Actions[:j], a) {
				return coded(CodeInvalidAuthorizationDetails, f+"/actions/"+strconv.Itoa(j), "%q appears twice", a)
			}
		}
	}
	return nil
}

// Canonical returns JCS of ds: the text the device authorization's
// approval shows and hashes.
func Canonical(ds []Detail) ([]byte, error) {
	b, err := json.Marshal(ds)
	if err != nil {
		return nil, &Error{Code: CodeInvalidAuthorizationDetails, Msg: err.Error(), Err: err}
	}
	return negotiation.Canonicalize(b)
}

// Required returns what a request of operation on the target named by
// identifier ("" for an operation without target) needs granted: one
// capability entry.
func Required(operation, identifier string) []Detail {
	return []Detail{{Type: CapabilityType, Actions: []string{operation}, Identifier: identifier}}
}

// Covers reports whether granted covers operation on identifier: some
// capability entry names the operation among its actions and has exactly
// that identifier (byte for byte; "" only covers "").
func Covers(granted []Detail, operation, identifier string) bool {
	for _, g := range granted {
		if g.Type == CapabilityType && g.Identifier == identifier && slices.Contains(g.Actions, operation) {
			return true
		}
	}
	return false
}

// Missing returns the entries of needed that granted does not cover, each
// with only its uncovered actions, in needed's order: what an
// authorization_required answer names. It returns nil when granted
// covers all of needed.
func Missing(granted, needed []Detail) []Detail {
	var out []Detail
	for _, n := range needed {
		var actions []string
		for _, a := range n.Actions {
			if n.Type != CapabilityType || !Covers(granted, a, n.Identifier) {
				actions = append(actions, a)
			}
		}
		if len(actions) > 0 {
			out = append(out, Detail{Type: n.Type, Actions: actions, Identifier: n.Identifier})
		}
	}
	return out
}

// AuthorizationRequired is the authorization member of a 202
// authorization_required answer: exactly the missing details, where to
// start the device authorization and the resource to name.
type AuthorizationRequired struct {
	Error                       string   `json:"error"`
	AuthorizationDetails        []Detail `json:"authorization_details"`
	DeviceAuthorizationEndpoint string   `json:"device_authorization_endpoint"`
	Resource                    string   `json:"resource"`
}

// NeedAuthorization returns the authorization_required answer for a
// request of operation on identifier under granted, or nil when granted
// covers it. md is the issuer's metadata, endpoint vxp.json's endpoint
// (the resource).
func NeedAuthorization(granted []Detail, operation, identifier string, md Metadata, endpoint string) *AuthorizationRequired {
	m := Missing(granted, Required(operation, identifier))
	if m == nil {
		return nil
	}
	return &AuthorizationRequired{Error: "authorization_required", AuthorizationDetails: m, DeviceAuthorizationEndpoint: md.DeviceAuthorizationEndpoint, Resource: endpoint}
}
