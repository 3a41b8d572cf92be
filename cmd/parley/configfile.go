package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// renderConfig writes s as a commented YAML configuration file that
// loadSettings reads back to the same settings. header is the file's
// first comment line.
func renderConfig(s settings, header string) []byte {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	seq := func(indent, key string, vals []string) {
		if len(vals) == 0 {
			p("%s%s: []", indent, key)
			return
		}
		p("%s%s:", indent, key)
		for _, v := range vals {
			p("%s  - %s", indent, quote(v))
		}
	}
	addr := func(a common.Address) string {
		if a == (common.Address{}) {
			return `""`
		}
		return a.Hex()
	}
	n := s.Node
	p("# %s", header)
	p("# Precedence: flags > PARLEY_* environment variables > this file > defaults;")
	p("# docs/node.md lists every key. Relative paths are relative to this file.")
	if n.Name != "" {
		p("name: %s", quote(n.Name))
	}
	seq("", "capabilities", n.Capabilities)
	if s.PassphraseFile != "" {
		p("passphrase_file: %s", quote(s.PassphraseFile))
	}
	p("log:")
	p("  level: %s", s.LogLevel)
	p("  format: %s", s.LogFormat)
	p("metrics:")
	p("  listen: %s", quote(s.MetricsListen))
	p("p2p:")
	seq("  ", "listen", n.P2P.Listen)
	seq("  ", "bootstrap", n.P2P.Bootstrap)
	seq("  ", "store_peers", n.P2P.StorePeers)
	p("  dht: %t", n.P2P.DHT)
	p("  mdns: %t", n.P2P.MDNS)
	p("  nat: %t", n.P2P.NAT)
	seq("  ", "announce", n.P2P.Announce)
	seq("  ", "relays", n.P2P.Relays)
	p("  relay_service: %t", n.P2P.RelayService)
	reach := n.P2P.Reachability
	if reach == "" {
		reach = "auto"
	}
	p("  reachability: %s", reach)
	p("  retry_max: %s", dur(n.P2P.RetryMax))
	p("  mailbox_poll: %s", dur(n.P2P.MailboxPoll))
	p("  max_peers: %d", n.P2P.MaxPeers)
	p("  identify_timeout: %s", dur(n.P2P.IdentifyTimeout))
	p("  peer_frame_rate: %s", strconv.FormatFloat(n.P2P.PeerFrameRate, 'f', -1, 64))
	p("  peer_byte_rate: %s", fmtSize(n.P2P.PeerByteRate))
	p("  ban_duration: %s", dur(n.P2P.BanDuration))
	p("chain:")
	p("  rpc: %s", quote(n.Chain.RPC))
	p("  chain_id: %d", n.Chain.ChainID)
	p("  confirmations: %d", n.Chain.Confirmations)
	p("  poll_interval: %s", dur(n.Chain.PollInterval))
	p("  contracts:")
	c := n.Chain.Contracts
	p("    task_registry: %s", addr(c.TaskRegistry))
	p("    arbitration_module: %s", addr(c.ArbitrationModule))
	p("    identity_link: %s", addr(c.IdentityLink))
	p("    task_scope_registry: %s", addr(c.TaskScopeRegistry))
	p("    ledger_anchor: %s", addr(c.LedgerAnchor))
	p("    deploy_block: %d", c.DeployBlock)
	p("api:")
	p("  listen: %s", quote(s.APIListen))
	p("  max_body: %s", fmtSize(s.APIMaxBody))
	p("  allow_remote: %t", s.APIAllowRemote)
	seq("  ", "offers", s.APIOffers)
	p("mcp:")
	p("  enabled: %t", s.MCPEnabled)
	p("  max_sessions: %d", s.MCPMaxSessions)
	p("  session_idle: %s", dur(s.MCPSessionIdle))
	p("approval:")
	p("  mode: %s", s.ApprovalMode)
	p("  ttl: %s", dur(n.ApprovalTTL))
	p("web:")
	p("  listen: %s", quote(s.WebListen))
	p("  rp_id: %s", quote(n.WebAuthn.RPID))
	derived := settings{WebListen: s.WebListen}
	deriveOrigins(&derived)
	if slices.Equal(derived.Node.WebAuthn.Origins, n.WebAuthn.Origins) {
		p("  origins: []  # http://localhost:<web.listen port>")
	} else {
		seq("  ", "origins", n.WebAuthn.Origins)
	}
	p("consent:")
	p("  unknown_per_counterparty: %d", n.Consent.PerCounterparty)
	p("  unknown_total: %d", n.Consent.Total)
	p("  unknown_window: %s", dur(n.Consent.Window))
	p("board:")
	p("  max_per_poster: %d", n.Board.MaxPerPoster)
	p("  max_total: %d", n.Board.MaxTotal)
	p("  max_age: %s", dur(n.Board.MaxAge))
	p("timeouts:")
	seq("  ", "auto", n.Timeouts.Auto)
	p("  scan: %s", dur(n.Timeouts.Scan))
	p("ledger:")
	p("  head_every: %s", dur(n.Ledger.HeadEvery))
	p("  anchor_every: %s", dur(n.Ledger.AnchorEvery))
	p("  anchor_gas_per_day: %d", n.Ledger.AnchorGasPerDay)
	st := n.Store
	p("store:")
	p("  enabled: %t", st.Enabled)
	seq("  ", "serve", st.Serve)
	p("  open: %t", st.Open)
	p("  max_recipients: %d", st.MaxRecipients)
	p("  quota_items: %d", st.QuotaItems)
	p("  quota_bytes: %s", fmtSize(st.QuotaBytes))
	p("  quota_per_sender: %d", st.QuotaPerSender)
	p("  retention: %s", dur(st.Retention))
	p("  history: %t", !st.NoHistory)
	v := s.VXP
	p("vxp:")
	p("  enabled: %t", v.Enabled)
	p("  listen: %s", quote(v.Listen))
	p("  public_url: %s", quote(v.PublicURL))
	p("  tls_cert_file: %s", quote(v.TLSCertFile))
	p("  tls_key_file: %s", quote(v.TLSKeyFile))
	p("  behind_proxy: %t", v.BehindProxy)
	p("  allow_insecure_loopback: %t", v.AllowInsecureLoopback)
	seq("  ", "capabilities", v.Capabilities)
	p("  token_ttl: %s", dur(v.TokenTTL))
	p("  grant_ttl: %s", dur(v.GrantTTL))
	p("  device_ttl: %s", dur(v.DeviceTTL))
	p("  device_interval: %s", dur(v.DeviceInterval))
	p("  rate_per_minute: %d", v.RatePerMinute)
	p("fetch_timeout: %s", dur(n.FetchTimeout))
	p("rejection_window: %s", dur(n.RejectionWindow))
	return []byte(b.String())
}

func quote(s string) string {
	if s == "" {
		return `""`
	}
	if strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`") || strings.TrimSpace(s) != s {
		return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
	}
	return s
}

func dur(d time.Duration) string {
	s := d.String()
	s = strings.TrimSuffix(s, "0s")
	if strings.HasSuffix(s, "m") || strings.HasSuffix(s, "h") {
		return s
	}
	if s == "" {
		return "0s"
	}
	return d.String()
}
