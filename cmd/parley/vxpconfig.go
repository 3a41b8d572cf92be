package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	vxpsrv "github.com/parleynet/parley/node/vxp"
	"github.com/parleynet/parley/vxp"
)

// vxpSettings are the vxp.* keys: VXP's listener, the first one meant for
// other machines, and its issuer (docs/node.md, "VXP").
type vxpSettings struct {
	// Enabled serves VXP (vxp.json, the OAuth issuer, /v1) on Listen.
	Enabled bool
	// Listen is the listener's host:port; PublicURL the base URL agents
	// reach it at (an https origin; http on loopback only with
	// AllowInsecureLoopback).
	Listen, PublicURL string
	// TLSCertFile and TLSKeyFile, both or neither, make the listener
	// serve TLS.
	TLSCertFile, TLSKeyFile string
	// BehindProxy says a TLS-terminating proxy in front of Listen serves
	// PublicURL (https), so a plain listener beyond loopback is allowed.
	BehindProxy bool
	// AllowInsecureLoopback lets PublicURL and agents' client_id URLs be
	// http on loopback: devnet and tests only.
	AllowInsecureLoopback bool
	// Capabilities are the operations offered (vxp.Catalogue's ids).
	Capabilities []string
	// The lifetimes of an access token, a grant, a device code, and the
	// device flow's polling interval.
	TokenTTL, GrantTTL, DeviceTTL, DeviceInterval time.Duration
	// RatePerMinute bounds the token and device endpoints' calls per
	// remote address.
	RatePerMinute int
}

// DefaultVXPListen is vxp.listen's default (VXP itself is off by default).
const DefaultVXPListen = "127.0.0.1:7500"

func defaultVXPSettings() vxpSettings {
	return vxpSettings{
		Listen: DefaultVXPListen, Capabilities: slices.Clone(vxp.DefaultCapabilities),
		TokenTTL: vxpsrv.DefaultTokenTTL, GrantTTL: vxpsrv.DefaultGrantTTL,
		DeviceTTL: vxpsrv.DefaultDeviceTTL, DeviceInterval: vxpsrv.DefaultDeviceInterval,
		RatePerMinute: vxpsrv.DefaultRatePerMinute,
	}
}

// boundedDuration accepts a duration in [lo, hi].
func boundedDuration(lo, hi time.Duration, f func(*settings) *time.Duration) func(*settings, string) error {
	return func(s *settings, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < lo || d > hi {
			return fmt.Errorf("%q is not a duration in %s..%s", v, shortDur(lo), shortDur(hi))
		}
		*f(s) = d
		return nil
	}
}

// shortDur writes a bound as a person would: 1m, 24h, 1s.
func shortDur(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") || strings.HasSuffix(s, "h0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// vxpCapabilities accepts operation ids of vxp.Catalogue, each once;
// empty is the default list.
func vxpCapabilities(s *settings, v string) error {
	var ids []string
	if err := list(func(*settings) *[]string { return &ids })(s, v); err != nil {
		return err
	}
	if len(ids) == 0 {
		ids = slices.Clone(vxp.DefaultCapabilities)
	}
	for i, id := range ids {
		if _, ok := vxp.LookupOperation(id); !ok {
			var all []string
			for _, o := range vxp.Catalogue {
				all = append(all, o.ID)
			}
			return fmt.Errorf("%q is not one of %v", id, all)
		}
		if slices.Contains(ids[:i], id) {
			return fmt.Errorf("%q is named twice", id)
		}
	}
	s.VXP.Capabilities = ids
	return nil
}

// vxpSettingsTable are the vxp.* rows of settingsTable.
var vxpSettingsTable = []setting{
	{key: "vxp.enabled", help: "serve VXP (vxp.json, the OAuth issuer, /v1) for outside AI agents on vxp.listen (needs vxp.public_url)", set: boolean(func(s *settings) *bool { return &s.VXP.Enabled })},
	{key: "vxp.listen", help: "address of VXP's listener, the node's one meant for other machines (beyond loopback: TLS files, or vxp.behind_proxy)", set: hostPort(func(s *settings) *string { return &s.VXP.Listen })},
	{key: "vxp.public_url", help: "the base URL agents reach VXP at: an https origin (http on loopback with vxp.allow_insecure_loopback)", set: str(func(s *settings) *string { return &s.VXP.PublicURL })},
	{key: "vxp.tls_cert_file", help: "PEM certificate chain VXP's listener serves (with vxp.tls_key_file)", set: str(func(s *settings) *string { return &s.VXP.TLSCertFile })},
	{key: "vxp.tls_key_file", help: "PEM private key of vxp.tls_cert_file", set: str(func(s *settings) *string { return &s.VXP.TLSKeyFile })},
	{key: "vxp.behind_proxy", help: "a TLS-terminating proxy in front of vxp.listen serves the https vxp.public_url (and passes the Host through): a plain listener beyond loopback is then allowed", set: boolean(func(s *settings) *bool { return &s.VXP.BehindProxy })},
	{key: "vxp.allow_insecure_loopback", help: "let vxp.public_url and agents' client_id URLs be http on loopback (devnet and tests only; vxp.listen must then be loopback)", set: boolean(func(s *settings) *bool { return &s.VXP.AllowInsecureLoopback })},
	{key: "vxp.capabilities", list: true, help: "operations offered to outside agents: board.read, negotiation.read, offer.respond (empty: all three); the catalogue's task.post, escrow.fund and delivery.accept are refused when the node starts until it runs them", set: vxpCapabilities},
	{key: "vxp.token_ttl", help: "lifetime of an access token (1m..24h)", set: boundedDuration(time.Minute, 24*time.Hour, func(s *settings) *time.Duration { return &s.VXP.TokenTTL })},
	{key: "vxp.grant_ttl", help: "lifetime of a grant the principal approved (1m..8760h)", set: boundedDuration(time.Minute, 8760*time.Hour, func(s *settings) *time.Duration { return &s.VXP.GrantTTL })},
	{key: "vxp.device_ttl", help: "how long a device authorization waits for the principal (1m..1h)", set: boundedDuration(time.Minute, time.Hour, func(s *settings) *time.Duration { return &s.VXP.DeviceTTL })},
	{key: "vxp.device_interval", help: "the device flow's polling interval (1s..1m)", set: boundedDuration(time.Second, time.Minute, func(s *settings) *time.Duration { return &s.VXP.DeviceInterval })},
	{key: "vxp.rate_per_minute", help: "calls per minute and remote address the token and device endpoints take (1..100000)", set: func(s *settings, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100000 {
			return fmt.Errorf("%q is not an integer in 1..100000", v)
		}
		s.VXP.RatePerMinute = n
		return nil
	}},
}

// isLoopbackHost reports whether host is localhost or a loopback address.
func isLoopbackHost(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// checkVXP checks the vxp.* settings against each other once every
// source is read, when VXP is enabled: a public URL VXP accepts (https;
// http on loopback only with allow_insecure_loopback), a listener, TLS
// files given together and loadable, and no plain listener beyond
// loopback unless a TLS-terminating proxy serves the https public URL.
func checkVXP(s settings) error {
	v := s.VXP
	if !v.Enabled {
		return nil
	}
	if v.PublicURL == "" {
		return fmt.Errorf("vxp.enabled: VXP needs vxp.public_url, the base URL agents reach it at (https://<host>)")
	}
	base, err := vxp.Base(v.PublicURL, v.AllowInsecureLoopback)
	if err != nil {
		return fmt.Errorf("vxp.public_url: %q: %w", v.PublicURL, err)
	}
	if v.Listen == "" {
		return fmt.Errorf("vxp.enabled: VXP needs vxp.listen")
	}
	host, _, _ := net.SplitHostPort(v.Listen)
	local := isLoopbackHost(host)
	if v.AllowInsecureLoopback && !local {
		return fmt.Errorf("vxp.allow_insecure_loopback: only with a loopback vxp.listen (devnet and tests); %q is beyond loopback", v.Listen)
	}
	tlsOn := v.TLSCertFile != "" || v.TLSKeyFile != ""
	switch {
	case (v.TLSCertFile == "") != (v.TLSKeyFile == ""):
		return fmt.Errorf("vxp.tls_cert_file and vxp.tls_key_file: give both or neither")
	case tlsOn && base.Scheme != "https":
		return fmt.Errorf("vxp.tls_cert_file: the listener serves TLS but vxp.public_url %q is http", v.PublicURL)
	case v.BehindProxy && base.Scheme != "https":
		return fmt.Errorf("vxp.behind_proxy: a TLS-terminating proxy serves an https vxp.public_url; %q is http", v.PublicURL)
	case !local && !tlsOn && !v.BehindProxy:
		return fmt.Errorf("vxp.listen: %q is beyond loopback without TLS: set vxp.tls_cert_file and vxp.tls_key_file, or vxp.behind_proxy: true when a TLS-terminating proxy serves %s", v.Listen, v.PublicURL)
	}
	if tlsOn {
		if _, err := tls.LoadX509KeyPair(v.TLSCertFile, v.TLSKeyFile); err != nil {
			return fmt.Errorf("vxp.tls_cert_file, vxp.tls_key_file: %w", err)
		}
	}
	return nil
}
