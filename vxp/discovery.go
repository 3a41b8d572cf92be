package vxp

import (
	"net"
	"net/url"
	"slices"
	"strings"
)

// The fixed members of vxp.json (seed section 1).
const (
	Protocol          = "vxp"
	Version           = "0.1"
	Status            = "experimental"
	TrustIssuer       = "issuer_metadata" // outcome_proof.trust and vxp.proof.trust: the verifier takes keys from the issuer's metadata
	DocumentPath      = "/.well-known/vxp.json"
	MetadataPath      = "/.well-known/oauth-authorization-server"
	IssuerSuffix      = "/vxp"
	EndpointPath      = "/v1"
	TokenPath         = "/oauth/token"  // under the issuer, as the seed's POST {issuer}/oauth/token
	DevicePath        = "/oauth/device" // under the issuer, as the seed's device_authorization_endpoint
	JWKSPath          = "/oauth/jwks"   // under the issuer: Parley's choice
	GrantJWTBearer    = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	GrantDeviceCode   = "urn:ietf:params:oauth:grant-type:device_code"
	AuthPrivateKeyJWT = "private_key_jwt"
	AlgES256          = "ES256"
)

// Effect, access and admission of an operation, as vxp.json writes them.
const (
	EffectRead  = "read"
	EffectWrite = "write"

	AccessPublic    = "public"
	AccessDelegated = "delegated"

	AdmissionStatic  = "static"  // the grant is enough
	AdmissionDynamic = "dynamic" // decided per request, with a proposal
)

// TargetNegotiation is the target member of an operation on one
// negotiation: {"negotiation_id": "<uuid>"}, whose value is the RAR
// identifier.
const TargetNegotiation = "negotiation_id"

// Operation is one row of the catalogue of operations a node may offer
// external agents (vxp.capabilities selects among them).
type Operation struct {
	ID              string
	Effect          string
	Access          string
	Admission       string
	CommitmentModes []string
	OutcomeProof    bool
	// Target is the target member the operation takes (TargetNegotiation),
	// or "" for an operation without target.
	Target string
}

// Catalogue is every operation Parley can offer through VXP.
var Catalogue = []Operation{
	{ID: "board.read", Effect: EffectRead, Access: AccessPublic, Admission: AdmissionStatic},
	{ID: "negotiation.read", Effect: EffectRead, Access: AccessDelegated, Admission: AdmissionStatic, Target: TargetNegotiation},
	{ID: "offer.respond", Effect: EffectWrite, Access: AccessDelegated, Admission: AdmissionDynamic, CommitmentModes: []string{CommitmentFirm, CommitmentConditional}, OutcomeProof: true, Target: TargetNegotiation},
	{ID: "task.post", Effect: EffectWrite, Access: AccessDelegated, Admission: AdmissionDynamic, CommitmentModes: []string{CommitmentFirm}, OutcomeProof: true},
	{ID: "escrow.fund", Effect: EffectWrite, Access: AccessDelegated, Admission: AdmissionDynamic, CommitmentModes: []string{CommitmentFirm}, OutcomeProof: true, Target: TargetNegotiation},
	{ID: "delivery.accept", Effect: EffectWrite, Access: AccessDelegated, Admission: AdmissionDynamic, CommitmentModes: []string{CommitmentFirm}, OutcomeProof: true, Target: TargetNegotiation},
}

// DefaultCapabilities are the operations a node offers when vxp.capabilities
// is not set: the two the issue requires and the public board.
var DefaultCapabilities = []string{"board.read", "negotiation.read", "offer.respond"}

// RelationshipActions are the company-initiated actions of Parley's
// relationship entry: telling the agent that a negotiation it holds a
// grant on moved, and asking it a closed question (answered through POST
// /v1/relationships/{id}/replies).
var RelationshipActions = []string{"negotiation.notify", "question.ask"}

// LookupOperation returns the catalogue's operation id.
func LookupOperation(id string) (Operation, bool) {
	i := slices.IndexFunc(Catalogue, func(o Operation) bool { return o.ID == id })
	if i < 0 {
		return Operation{}, false
	}
	return Catalogue[i], true
}

// Capability is one entry of vxp.json's capabilities.
type Capability struct {
	ID                       string   `json:"id"`
	Effect                   string   `json:"effect"`
	Access                   string   `json:"access"`
	Admission                string   `json:"admission"`
	AuthorizationDetailsType string   `json:"authorization_details_type,omitempty"`
	CommitmentModes          []string `json:"commitment_modes,omitempty"`
	OutcomeProof             bool     `json:"outcome_proof,omitempty"`
}

// Capability returns o as vxp.json lists it: a public operation names no
// authorization details type (it needs no grant).
func (o Operation) Capability() Capability {
	c := Capability{ID: o.ID, Effect: o.Effect, Access: o.Access, Admission: o.Admission,
		CommitmentModes: slices.Clone(o.CommitmentModes), OutcomeProof: o.OutcomeProof}
	if o.Access != AccessPublic {
		c.AuthorizationDetailsType = CapabilityType
	}
	return c
}

// Organization is vxp.json's organization.
type Organization struct {
	Name   string `json:"name"`
	Domain string `json:"domain"`
}

// OutcomeProof is vxp.json's outcome_proof.
type OutcomeProof struct {
	Version string `json:"version"`
	Trust   string `json:"trust"`
}

// Relationship is vxp.json's vxp.relationship.
type Relationship struct {
	AuthorizationDetailsType string   `json:"authorization_details_type"`
	CompanyInitiatedActions  []string `json:"company_initiated_actions"`
}

// ProofTrust is vxp.json's vxp.proof.
type ProofTrust struct {
	Trust string `json:"trust"`
}

// Extension is vxp.json's vxp member.
type Extension struct {
	Version      string       `json:"version"`
	Relationship Relationship `json:"relationship"`
	Proof        ProofTrust   `json:"proof"`
}

// Document is /.well-known/vxp.json, every member of seed section 1. It
// never carries keys: a verifier takes them from the issuer's metadata.
type Document struct {
	Protocol     string       `json:"protocol"`
	Version      string       `json:"version"`
	Organization Organization `json:"organization"`
	Issuer       string       `json:"issuer"`
	Endpoint     string       `json:"endpoint"`
	Capabilities []Capability `json:"capabilities"`
	Limits       Limits       `json:"limits"`
	OutcomeProof OutcomeProof `json:"outcome_proof"`
	Status       string       `json:"status"`
	VXP          Extension    `json:"vxp"`
}

// Metadata is the issuer's RFC 8414 authorization server metadata, with
// the members of RFC 9449 (DPoP), RFC 9396 (RAR) and Client ID Metadata
// Documents that VXP needs. The issuer has no authorization endpoint, so
// response_types_supported, which RFC 8414 requires, is empty.
type Metadata struct {
	Issuer                                     string   `json:"issuer"`
	TokenEndpoint                              string   `json:"token_endpoint"`
	DeviceAuthorizationEndpoint                string   `json:"device_authorization_endpoint"`
	JWKSURI                                    string   `json:"jwks_uri"`
	ResponseTypesSupported                     []string `json:"response_types_supported"`
	GrantTypesSupported                        []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported"`
	TokenEndpointAuthSigningAlgValuesSupported []string `json:"token_endpoint_auth_signing_alg_values_supported"`
	DPoPSigningAlgValuesSupported              []string `json:"dpop_signing_alg_values_supported"`
	AuthorizationDetailsTypesSupported         []string `json:"authorization_details_types_supported"`
	ClientIDMetadataDocumentSupported          bool     `json:"client_id_metadata_document_supported"`
}

// DocumentConfig is what BuildDocument needs: the node's public VXP base
// URL (vxp.public_url), the organization's name, the capabilities offered
// (operation ids of the catalogue; nil: DefaultCapabilities) and the
// proposal limits.
type DocumentConfig struct {
	BaseURL               string
	Name                  string
	Capabilities          []string
	Limits                Limits
	AllowInsecureLoopback bool
}

// Base returns the normalised base URL: scheme://host[:port] with scheme
// and host in lower case and no trailing slash. It must be an https origin
// (no path, query, fragment or user), or an http one on a loopback host
// when allowInsecureLoopback is set; otherwise bad_base_url.
func Base(baseURL string, allowInsecureLoopback bool) (*url.URL, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, &Error{Code: CodeBadBaseURL, Field: "vxp.public_url", Msg: err.Error(), Err: err}
	}
	switch {
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return nil, coded(CodeBadBaseURL, "vxp.public_url", "%q is not an absolute URL with a host", baseURL)
	case u.User != nil:
		return nil, coded(CodeBadBaseURL, "vxp.public_url", "a base URL carries no user")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(baseURL, "#"):
		return nil, coded(CodeBadBaseURL, "vxp.public_url", "a base URL has no query or fragment")
	case u.Path != "" && u.Path != "/":
		return nil, coded(CodeBadBaseURL, "vxp.public_url", "a base URL is an origin: path %q (vxp.json lives at the host's /.well-known/)", u.Path)
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme == "https":
	case scheme == "http" && allowInsecureLoopback && loopback(u.Hostname()):
	case scheme == "http" && allowInsecureLoopback:
		return nil, coded(CodeBadBaseURL, "vxp.public_url", "http only on a loopback host")
	default:
		return nil, coded(CodeBadBaseURL, "vxp.public_url", "scheme %q: https only (http on loopback with vxp.allow_insecure_loopback)", u.Scheme)
	}
	return &url.URL{Scheme: scheme, Host: strings.ToLower(u.Host)}, nil
}

// loopback reports whether host is localhost or a loopback IP address.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Issuer returns the issuer of a normalised base URL: <base>/vxp.
func Issuer(base *url.URL) string { return base.String() + IssuerSuffix }

// Endpoint returns the native endpoint of an issuer: <issuer>/v1.
func Endpoint(issuer string) string { return issuer + EndpointPath }

// BuildDocument returns vxp.json for c: organization.domain is the base
// URL's host without port, issuer <base>/vxp, endpoint <issuer>/v1, the
// capabilities in the catalogue's order. It refuses a bad base URL
// (bad_base_url), an id the catalogue lacks or one named twice
// (unknown_capability) and bad limits (bad_limits).
func BuildDocument(c DocumentConfig) (Document, error) {
	base, err := Base(c.BaseURL, c.AllowInsecureLoopback)
	if err != nil {
		return Document{}, err
	}
	if err := c.Limits.Validate(); err != nil {
		return Document{}, err
	}
	ids := c.Capabilities
	if ids == nil {
		ids = DefaultCapabilities
	}
	for i, id := range ids {
		if _, ok := LookupOperation(id); !ok {
			return Document{}, coded(CodeUnknownCapability, "vxp.capabilities", "%q is no operation of the catalogue", id)
		}
		if slices.Contains(ids[:i], id) {
			return Document{}, coded(CodeUnknownCapability, "vxp.capabilities", "%q is named twice", id)
		}
	}
	caps := []Capability{}
	for _, o := range Catalogue {
		if slices.Contains(ids, o.ID) {
			caps = append(caps, o.Capability())
		}
	}
	domain := base.Hostname()
	name := c.Name
	if name == "" {
		name = domain
	}
	issuer := Issuer(base)
	return Document{
		Protocol: Protocol, Version: Version,
		Organization: Organization{Name: name, Domain: domain},
		Issuer:       issuer, Endpoint: Endpoint(issuer),
		Capabilities: caps, Limits: c.Limits,
		OutcomeProof: OutcomeProof{Version: Version, Trust: TrustIssuer},
		Status:       Status,
		VXP: Extension{
			Version:      Version,
			Relationship: Relationship{AuthorizationDetailsType: RelationshipType, CompanyInitiatedActions: slices.Clone(RelationshipActions)},
			Proof:        ProofTrust{Trust: TrustIssuer},
		},
	}, nil
}

// BuildMetadata returns the RFC 8414 metadata of issuer (as Issuer made
// it): its issuer is issuer, character by character.
func BuildMetadata(issuer string) Metadata {
	return Metadata{
		Issuer:                            issuer,
		TokenEndpoint:                     issuer + TokenPath,
		DeviceAuthorizationEndpoint:       issuer + DevicePath,
		JWKSURI:                           issuer + JWKSPath,
		ResponseTypesSupported:            []string{},
		GrantTypesSupported:               []string{GrantJWTBearer, GrantDeviceCode},
		TokenEndpointAuthMethodsSupported: []string{AuthPrivateKeyJWT},
		TokenEndpointAuthSigningAlgValuesSupported: []string{AlgES256},
		DPoPSigningAlgValuesSupported:              []string{AlgES256},
		AuthorizationDetailsTypesSupported:         []string{CapabilityType, RelationshipType},
		ClientIDMetadataDocumentSupported:          true,
	}
}

// DocumentURL returns where vxp.json of a normalised base URL lives.
func DocumentURL(base *url.URL) string { return base.String() + DocumentPath }

// MetadataURL returns where an issuer's RFC 8414 metadata lives: the
// well-known path inserted between the host and the issuer's path (RFC
// 8414 section 3.1), so <base>/.well-known/oauth-authorization-server/vxp
// for Parley's issuers.
func MetadataURL(issuer string) (string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", coded(CodeBadBaseURL, "issuer", "%q is not an issuer URL", issuer)
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: MetadataPath + strings.TrimSuffix(u.Path, "/")}).String(), nil
}

// CheckMetadata returns issuer_mismatch unless md's issuer is issuer
// character by character (RFC 8414 section 3.3; no case folding, no
// trailing-slash leniency).
func CheckMetadata(issuer string, md Metadata) error {
	if md.Issuer != issuer {
		return coded(CodeIssuerMismatch, "issuer", "metadata names %q, the document %q", md.Issuer, issuer)
	}
	return nil
}

// CheckHost returns wrong_host unless host (a request's Host, with or
// without port) names the document's organization.domain, in any letter
// case: another Host is refused.
func CheckHost(d Document, host string) error {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	} else if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	if h == "" || !strings.EqualFold(h, d.Organization.Domain) {
		return coded(CodeWrongHost, "Host", "%q is not %s", host, d.Organization.Domain)
	}
	return nil
}
