package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
	"github.com/parleynet/parley/node/mcp"
	"github.com/parleynet/parley/strictjson"
)

// ConfigFileName is the node's configuration file in its data directory.
const ConfigFileName = "parley.yaml"

// settings is a node's resolved configuration: what node.Config holds and
// what only the command uses (logging, metrics, the approval mode, the
// passphrase file).
type settings struct {
	Node           node.Config
	LogLevel       string
	LogFormat      string
	MetricsListen  string
	ApprovalMode   string
	PassphraseFile string
	// APIListen is where the node's HTTP API listens (empty: off);
	// APIMaxBody bounds a request body; APIAllowRemote permits an address
	// beyond loopback; APIOffers are the capabilities the discovery
	// document lists as offered (the others as taken).
	APIListen      string
	APIMaxBody     int64
	APIAllowRemote bool
	APIOffers      []string
	// WebListen is where the principal's pages are served (empty: off),
	// on this machine only; they are opened at http://localhost:<port>.
	WebListen string
	// MCPEnabled serves the MCP endpoint for AI agents at /mcp on the
	// API's listener (docs/mcp.md); it needs api.listen.
	MCPEnabled bool
	// MCPMaxSessions bounds the MCP sessions kept at once; MCPSessionIdle
	// closes a session idle that long (docs/mcp.md).
	MCPMaxSessions int
	MCPSessionIdle time.Duration
	// VXP is VXP's listener and issuer for outside AI agents (vxp.*).
	VXP vxpSettings
	// File is the configuration file read, if any.
	File string
}

// DefaultAPIListen is the API's default address.
const DefaultAPIListen = "127.0.0.1:7464"

// The approval modes: passkey (the principal approves each gated act with
// a passkey) and auto (every act approved without a person, on a dev
// chain only).
const (
	ApprovalPasskey = "passkey"
	ApprovalAuto    = "auto"
)

func defaultSettings() settings {
	s := settings{
		Node: node.DefaultConfig(), LogLevel: "info", LogFormat: "text",
		MetricsListen: "127.0.0.1:9464", ApprovalMode: ApprovalPasskey,
		APIListen: DefaultAPIListen, APIMaxBody: api.DefaultMaxBody,
		WebListen: node.DefaultWebListen, MCPEnabled: true,
		MCPMaxSessions: mcp.DefaultMaxSessions, MCPSessionIdle: mcp.DefaultSessionTimeout,
		VXP: defaultVXPSettings(),
	}
	s.Node.WebAuthn.Origins = nil // derived from web.listen unless set
	return s
}

// deriveOrigins sets web.origins, when no source set it, to the origin
// of web.listen's pages, http://localhost:<port>.
func deriveOrigins(s *settings) {
	if len(s.Node.WebAuthn.Origins) > 0 {
		return
	}
	if _, port, err := net.SplitHostPort(s.WebListen); err == nil && s.WebListen != "" {
		s.Node.WebAuthn.Origins = []string{"http://localhost:" + port}
		return
	}
	s.Node.WebAuthn.Origins = []string{node.DefaultWebOrigin}
}

// approvalMode accepts passkey and auto, and explains what became of
// operator.
func approvalMode(s *settings, v string) error {
	switch v {
	case ApprovalPasskey, ApprovalAuto:
		s.ApprovalMode = v
		return nil
	case "operator":
		return errors.New(`"operator" was removed: the bearer key of the API is capability, not authority; use passkey (approve with a passkey on the node's pages, or a registered software key: parley approvals approve ID --software-key FILE)`)
	}
	return fmt.Errorf("%q is not one of passkey, auto", v)
}

// checkApproval refuses approval.mode auto beyond a dev chain
// (node.DevChainIDs: 1337, 31337) as soon as the configuration is read:
// only a person's passkey moves real money. The node checks it again at
// Start, with the chain's own id and the signatures its ledger holds.
func checkApproval(s settings) error {
	if s.ApprovalMode != ApprovalAuto {
		return nil
	}
	id := s.Node.Chain.ChainID
	if id == 0 && s.Node.Chain.RPC != "" {
		return nil // the chain's own id decides, when the node dials it
	}
	if !node.IsDevChainID(id) {
		return fmt.Errorf("approval.mode: auto approves every act without a person and is allowed only on a dev chain (chain.chain_id 1337 or 31337); this node's is %d", id)
	}
	return nil
}

// setting is one configuration key: the YAML key (dotted for nested
// maps), the environment variable PARLEY_<KEY> (dots and dashes become
// underscores) and the flag --<key> (dots and underscores become dashes)
// all set it through the same parser, so a bad value is refused with the
// key's name whatever its source.
type setting struct {
	key  string
	help string
	list bool
	set  func(s *settings, v string) error
	// envName and flagName replace the derived names when set.
	envName, flagName string
}

func (k setting) env() string {
	if k.envName != "" {
		return k.envName
	}
	return "PARLEY_" + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(k.key))
}

func (k setting) flag() string {
	if k.flagName != "" {
		return k.flagName
	}
	return strings.NewReplacer(".", "-", "_", "-").Replace(k.key)
}

func str(f func(*settings) *string) func(*settings, string) error {
	return func(s *settings, v string) error { *f(s) = v; return nil }
}

func oneOf(f func(*settings) *string, allowed ...string) func(*settings, string) error {
	return func(s *settings, v string) error {
		if !slices.Contains(allowed, v) {
			return fmt.Errorf("%q is not one of %s", v, strings.Join(allowed, ", "))
		}
		*f(s) = v
		return nil
	}
}

func list(f func(*settings) *[]string) func(*settings, string) error {
	return func(s *settings, v string) error {
		var out []string
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		*f(s) = out
		return nil
	}
}

func boolean(f func(*settings) *bool) func(*settings, string) error {
	return func(s *settings, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q is not true or false", v)
		}
		*f(s) = b
		return nil
	}
}

func uint64v(f func(*settings) *uint64) func(*settings, string) error {
	return func(s *settings, v string) error {
		u, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not a non-negative integer", v)
		}
		*f(s) = u
		return nil
	}
}

func intv(f func(*settings) *int) func(*settings, string) error {
	return func(s *settings, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("%q is not a non-negative integer", v)
		}
		*f(s) = n
		return nil
	}
}

func duration(f func(*settings) *time.Duration) func(*settings, string) error {
	return func(s *settings, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%q is not a duration such as 500ms or 2m", v)
		}
		*f(s) = d
		return nil
	}
}

func address(f func(*settings) *common.Address) func(*settings, string) error {
	return func(s *settings, v string) error {
		if !common.IsHexAddress(v) || !strings.HasPrefix(v, "0x") {
			return fmt.Errorf("%q is not a 0x-prefixed 20-byte address", v)
		}
		*f(s) = common.HexToAddress(v)
		return nil
	}
}

// loopbackAddr accepts host:port on this machine (localhost or a loopback
// address) or empty; why says in the refusal why the key must stay local.
func loopbackAddr(why string, f func(*settings) *string) func(*settings, string) error {
	return func(s *settings, v string) error {
		if v == "" {
			*f(s) = ""
			return nil
		}
		host, port, err := net.SplitHostPort(v)
		if err != nil {
			return fmt.Errorf("%q is not host:port", v)
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return fmt.Errorf("%q is not localhost or a loopback address (%s)", v, why)
		}
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return fmt.Errorf("port %q is not a port number", port)
		}
		*f(s) = v
		return nil
	}
}

// hostPort accepts host:port (any host: whether it may be beyond
// loopback is checked once every source is read) or empty.
func hostPort(f func(*settings) *string) func(*settings, string) error {
	return func(s *settings, v string) error {
		if v == "" {
			*f(s) = ""
			return nil
		}
		_, port, err := net.SplitHostPort(v)
		if err != nil {
			return fmt.Errorf("%q is not host:port", v)
		}
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return fmt.Errorf("port %q is not a port number", port)
		}
		*f(s) = v
		return nil
	}
}

// byteSize accepts a number of bytes, plain or with a KiB or MiB suffix,
// of at least 1 KiB.
func byteSize(f func(*settings) *int64) func(*settings, string) error {
	return func(s *settings, v string) error {
		num, mul := v, int64(1)
		switch {
		case strings.HasSuffix(v, "MiB"):
			num, mul = strings.TrimSuffix(v, "MiB"), 1<<20
		case strings.HasSuffix(v, "KiB"):
			num, mul = strings.TrimSuffix(v, "KiB"), 1<<10
		}
		n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
		if err != nil || n < 0 || n > (1<<40)/mul {
			return fmt.Errorf("%q is not a size such as 8MiB, 512KiB or 65536", v)
		}
		if n*mul < 1024 {
			return fmt.Errorf("%q is under 1KiB", v)
		}
		*f(s) = n * mul
		return nil
	}
}

// fmtSize writes a size as byteSize reads it.
func fmtSize(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return strconv.FormatInt(n, 10)
}

// checkAPI checks the API settings against each other and the node's: an
// address beyond loopback needs api.allow_remote, and every offer must be
// a capability.
func checkAPI(s settings) error {
	if s.APIListen != "" && !s.APIAllowRemote {
		host, _, _ := net.SplitHostPort(s.APIListen)
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return fmt.Errorf("api.listen: %q is not a loopback address; the API is for this machine's operator and agents (set api.allow_remote: true to serve it beyond)", s.APIListen)
		}
	}
	for _, o := range s.APIOffers {
		if !slices.Contains(s.Node.Capabilities, o) {
			return fmt.Errorf("api.offers: %q is not one of capabilities %v", o, s.Node.Capabilities)
		}
	}
	return nil
}

// settingsTable lists every configuration key (docs/node.md has the table).
var settingsTable = append([]setting{
	{key: "name", help: "the node's name in logs and metrics", set: str(func(s *settings) *string { return &s.Node.Name })},
	{key: "data_dir", help: "data directory: keys, ledger", set: str(func(s *settings) *string { return &s.Node.DataDir })},
	{key: "capabilities", list: true, help: "task categories offered or taken (comma-separated)", set: list(func(s *settings) *[]string { return &s.Node.Capabilities })},
	{key: "passphrase_file", help: "file holding the keys' passphrase (else $PARLEY_PASSPHRASE, else a prompt)", set: str(func(s *settings) *string { return &s.PassphraseFile })},
	{key: "log.level", help: "debug, info, warn or error", set: oneOf(func(s *settings) *string { return &s.LogLevel }, "debug", "info", "warn", "error")},
	{key: "log.format", help: "text or json", set: oneOf(func(s *settings) *string { return &s.LogFormat }, "text", "json")},
	{key: "metrics.listen", help: "Prometheus /metrics address on loopback (empty: off)", set: loopbackAddr("metrics are served to this machine only", func(s *settings) *string { return &s.MetricsListen })},
	{key: "p2p.listen", list: true, help: "multiaddrs to listen on", set: list(func(s *settings) *[]string { return &s.Node.P2P.Listen })},
	{key: "p2p.bootstrap", list: true, help: "peers to dial at start (multiaddrs ending in /p2p/<id>)", set: list(func(s *settings) *[]string { return &s.Node.P2P.Bootstrap })},
	{key: "p2p.store_peers", list: true, help: "store nodes holding mail for this node (multiaddrs with /p2p/; its DHT record names the first four, so that senders leave its mail there)", set: list(func(s *settings) *[]string { return &s.Node.P2P.StorePeers })},
	{key: "p2p.dht", help: "run the Kademlia DHT under /parley", set: boolean(func(s *settings) *bool { return &s.Node.P2P.DHT })},
	{key: "p2p.mdns", help: "LAN discovery by mDNS", set: boolean(func(s *settings) *bool { return &s.Node.P2P.MDNS })},
	{key: "p2p.nat", help: "NAT traversal (AutoNAT, relay, hole punching)", set: boolean(func(s *settings) *bool { return &s.Node.P2P.NAT })},
	{key: "p2p.announce", list: true, help: "addresses advertised instead of the listen ones, such as the public address a router forwards (multiaddrs without /p2p/<id>)", set: list(func(s *settings) *[]string { return &s.Node.P2P.Announce })},
	{key: "p2p.relays", list: true, help: "static circuit relay v2 servers (multiaddrs ending in /p2p/<id>) the node reserves a slot with while not publicly reachable", set: list(func(s *settings) *[]string { return &s.Node.P2P.Relays })},
	{key: "p2p.relay_service", help: "serve as a circuit relay v2 for other Parley nodes while publicly reachable (no limit per circuit; reservations: 128, 4 per IP)", set: boolean(func(s *settings) *bool { return &s.Node.P2P.RelayService })},
	{key: "p2p.reachability", help: "auto (AutoNAT decides), public or private", set: func(s *settings, v string) error {
		switch v {
		case "auto":
			s.Node.P2P.Reachability = ""
		case "public", "private":
			s.Node.P2P.Reachability = v
		default:
			return fmt.Errorf("%q is not auto, public or private", v)
		}
		return nil
	}},
	{key: "p2p.retry_max", help: "longest wait between delivery attempts", set: duration(func(s *settings) *time.Duration { return &s.Node.P2P.RetryMax })},
	{key: "p2p.mailbox_poll", help: "how often to collect mail and the task board's history from the store nodes (p2p.store_peers); also at start", set: duration(func(s *settings) *time.Duration { return &s.Node.P2P.MailboxPoll })},
	{key: "p2p.max_peers", help: "peers the node must hold at once, such as a worker's concurrent counterparties (0: the transport's defaults, about 96 inbound)", set: func(s *settings, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("%q is not a non-negative integer", v)
		}
		s.Node.P2P.MaxPeers = n
		return nil
	}},
	{key: "p2p.identify_timeout", help: "how long a new connection's peer has to complete the identity handshake before it is disconnected", set: duration(func(s *settings) *time.Duration { return &s.Node.P2P.IdentifyTimeout })},
	{key: "p2p.peer_frame_rate", help: "envelope frames per second each identified peer may send (burst twice that); over it: busy, then a ban", set: func(s *settings, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
			return fmt.Errorf("%q is not a non-negative number", v)
		}
		s.Node.P2P.PeerFrameRate = f
		return nil
	}},
	{key: "p2p.peer_byte_rate", help: "envelope bytes per second each identified peer may send (such as 64MiB; burst twice that)", set: byteSize(func(s *settings) *int64 { return &s.Node.P2P.PeerByteRate })},
	{key: "p2p.ban_duration", help: "how long a peer over its budget or sending mostly garbage is refused", set: duration(func(s *settings) *time.Duration { return &s.Node.P2P.BanDuration })},
	{key: "chain.rpc", help: "EVM JSON-RPC endpoint (empty: no chain)", set: str(func(s *settings) *string { return &s.Node.Chain.RPC })},
	{key: "chain.chain_id", envName: "PARLEY_CHAIN_ID", flagName: "chain-id", help: "the chain id the endpoint must have (0: any)", set: uint64v(func(s *settings) *uint64 { return &s.Node.Chain.ChainID })},
	{key: "chain.confirmations", help: "blocks before a receipt or event counts", set: uint64v(func(s *settings) *uint64 { return &s.Node.Chain.Confirmations })},
	{key: "chain.poll_interval", help: "how often receipts and blocks are polled", set: duration(func(s *settings) *time.Duration { return &s.Node.Chain.PollInterval })},
	{key: "chain.contracts.task_registry", help: "TaskRegistry address", set: address(func(s *settings) *common.Address { return &s.Node.Chain.Contracts.TaskRegistry })},
	{key: "chain.contracts.arbitration_module", help: "ArbitrationModule address", set: address(func(s *settings) *common.Address { return &s.Node.Chain.Contracts.ArbitrationModule })},
	{key: "chain.contracts.identity_link", help: "IdentityLink address", set: address(func(s *settings) *common.Address { return &s.Node.Chain.Contracts.IdentityLink })},
	{key: "chain.contracts.task_scope_registry", help: "TaskScopeRegistry address", set: address(func(s *settings) *common.Address { return &s.Node.Chain.Contracts.TaskScopeRegistry })},
	{key: "chain.contracts.ledger_anchor", help: "LedgerAnchor address", set: address(func(s *settings) *common.Address { return &s.Node.Chain.Contracts.LedgerAnchor })},
	{key: "chain.contracts.deploy_block", help: "block the contracts were deployed in", set: uint64v(func(s *settings) *uint64 { return &s.Node.Chain.Contracts.DeployBlock })},
	{key: "api.listen", help: "address of the node's HTTP API (empty: off); loopback unless api.allow_remote", set: hostPort(func(s *settings) *string { return &s.APIListen })},
	{key: "api.max_body", help: "largest API request body (such as 8MiB)", set: byteSize(func(s *settings) *int64 { return &s.APIMaxBody })},
	{key: "api.allow_remote", help: "let api.listen be an address beyond loopback", set: boolean(func(s *settings) *bool { return &s.APIAllowRemote })},
	{key: "api.offers", list: true, help: "capabilities the node offers (the discovery document lists the others as taken)", set: list(func(s *settings) *[]string { return &s.APIOffers })},
	{key: "mcp.enabled", help: "serve the MCP endpoint for AI agents at /mcp on the API's listener (needs api.listen)", set: boolean(func(s *settings) *bool { return &s.MCPEnabled })},
	{key: "mcp.max_sessions", help: "MCP sessions kept at once (1..100000); over it the one idle the longest is closed", set: func(s *settings, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100000 {
			return fmt.Errorf("%q is not an integer in 1..100000", v)
		}
		s.MCPMaxSessions = n
		return nil
	}},
	{key: "mcp.session_idle", help: "an MCP session idle this long is closed (30s..24h)", set: func(s *settings, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 30*time.Second || d > 24*time.Hour {
			return fmt.Errorf("%q is not a duration in 30s..24h such as 5m", v)
		}
		s.MCPSessionIdle = d
		return nil
	}},
	{key: "approval.mode", help: "passkey (the principal approves each gated act with a passkey) or auto (approve everything: dev chain only)", set: approvalMode},
	{key: "approval.ttl", help: "window of one approval request (5s..10m)", set: duration(func(s *settings) *time.Duration { return &s.Node.ApprovalTTL })},
	{key: "consent.unknown_per_counterparty", help: "open negotiations one counterparty the principal has not allowed may open with this node", set: intv(func(s *settings) *int { return &s.Node.Consent.PerCounterparty })},
	{key: "consent.unknown_total", help: "open negotiations all counterparties the principal has not allowed may open together", set: intv(func(s *settings) *int { return &s.Node.Consent.Total })},
	{key: "consent.unknown_window", help: "how long an unagreed negotiation such a counterparty opened counts as open at most", set: duration(func(s *settings) *time.Duration { return &s.Node.Consent.Window })},
	{key: "board.max_per_poster", help: "announcements of one poster the task board keeps", set: intv(func(s *settings) *int { return &s.Node.Board.MaxPerPoster })},
	{key: "board.max_total", help: "announcements of other nodes the task board keeps", set: intv(func(s *settings) *int { return &s.Node.Board.MaxTotal })},
	{key: "board.max_age", help: "how long an announcement stays on the board at most (one past its deadline leaves at once)", set: duration(func(s *settings) *time.Duration { return &s.Node.Board.MaxAge })},
	{key: "timeouts.auto", list: true, help: "timeout exits the node takes once due, through the approval gate: claim_unanswered, reclaim_expired, resolve_timed_out (empty: it only tells)", set: list(func(s *settings) *[]string { return &s.Node.Timeouts.Auto })},
	{key: "timeouts.scan", help: "how often the threads' timeout exits are read on chain", set: duration(func(s *settings) *time.Duration { return &s.Node.Timeouts.Scan })},
	{key: "ledger.head_every", help: "how often the node signs and records its ledger's tree head when the ledger grew (0: only on demand)", set: duration(func(s *settings) *time.Duration { return &s.Node.Ledger.HeadEvery })},
	{key: "ledger.anchor_every", help: "how often the node anchors its tree head on chain through LedgerAnchor when the ledger grew (0: off; a dispute opening still anchors)", set: duration(func(s *settings) *time.Duration { return &s.Node.Ledger.AnchorEvery })},
	{key: "ledger.anchor_gas_per_day", help: "gas the anchors may use per UTC day, from the node's EVM key (0: no anchors)", set: uint64v(func(s *settings) *uint64 { return &s.Node.Ledger.AnchorGasPerDay })},
	{key: "store.enabled", help: "make this node a store node: it holds sealed envelopes for the recipients it serves while they are offline, and the topic history", set: boolean(func(s *settings) *bool { return &s.Node.Store.Enabled })},
	{key: "store.serve", list: true, help: "EVM addresses of the recipients the store node holds mail for", set: list(func(s *settings) *[]string { return &s.Node.Store.Serve })},
	{key: "store.open", help: "hold mail for any identified peer that registers by fetching (store.serve empty), up to store.max_recipients", set: boolean(func(s *settings) *bool { return &s.Node.Store.Open })},
	{key: "store.max_recipients", help: "recipients that may register under store.open", set: intv(func(s *settings) *int { return &s.Node.Store.MaxRecipients })},
	{key: "store.quota_items", help: "envelopes held for one recipient at once, not yet collected", set: intv(func(s *settings) *int { return &s.Node.Store.QuotaItems })},
	{key: "store.quota_bytes", help: "bytes held for one recipient at once, not yet collected (such as 64MiB)", set: byteSize(func(s *settings) *int64 { return &s.Node.Store.QuotaBytes })},
	{key: "store.quota_per_sender", help: "envelopes one sender may have held for one recipient at once (and the same fraction of store.quota_bytes), so that one sender cannot fill a recipient's quota", set: intv(func(s *settings) *int { return &s.Node.Store.QuotaPerSender })},
	{key: "store.retention", help: "how long held mail is served before it expires", set: duration(func(s *settings) *time.Duration { return &s.Node.Store.Retention })},
	{key: "store.history", help: "record the topic history (task board, relayed evidence) and answer history requests", set: func(s *settings, v string) error {
		var on bool
		if err := boolean(func(*settings) *bool { return &on })(s, v); err != nil {
			return err
		}
		s.Node.Store.NoHistory = !on
		return nil
	}},
	{key: "fetch_timeout", help: "bound of one attempt to fetch a file", set: duration(func(s *settings) *time.Duration { return &s.Node.FetchTimeout })},
	{key: "rejection_window", help: "how long rejected input is gathered per peer before one input.rejected entry per peer is written", set: duration(func(s *settings) *time.Duration { return &s.Node.RejectionWindow })},
	{key: "web.listen", help: "address of the principal's pages on this machine, opened at http://localhost:<port> (empty: off)", set: loopbackAddr("the pages approve acts: they are served to this machine only", func(s *settings) *string { return &s.WebListen })},
	{key: "web.rp_id", help: "WebAuthn relying party id of the principal's passkeys (a domain; browsers refuse an IP address)", set: str(func(s *settings) *string { return &s.Node.WebAuthn.RPID })},
	{key: "web.origins", list: true, help: "page origins passkey approvals may come from (default http://localhost:<web.listen port>)", set: list(func(s *settings) *[]string { return &s.Node.WebAuthn.Origins })},
}, vxpSettingsTable...)

// configFlags registers a flag for every setting, plus --config, on cmd.
func configFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.String("config", "", "configuration file (default $PARLEY_CONFIG, else <data-dir>/"+ConfigFileName+" when it exists)")
	for _, k := range settingsTable {
		if k.key == "data_dir" {
			fs.String("data-dir", "", "data directory (default $PARLEY_DATA_DIR, else ~/.parley)")
			continue
		}
		fs.String(k.flag(), "", k.help+" ($"+k.env()+")")
	}
}

// configError names the key and the source of a bad value.
type configError struct {
	key, source string
	err         error
}

func (e *configError) Error() string {
	return fmt.Sprintf("config: %s (from %s): %v", e.key, e.source, e.err)
}

func (e *configError) Unwrap() error { return e.err }

// loadSettings is the one configuration loader: defaults, then the YAML
// file, then PARLEY_* environment variables, then flags; later sources
// win. A bad value is refused with its key and source; the result is
// validated as a node.Config, whose errors name the key too.
func loadSettings(fs *pflag.FlagSet, getenv func(string) string) (settings, error) {
	s := defaultSettings()
	flagVal := func(name string) (string, bool) {
		if fs == nil {
			return "", false
		}
		f := fs.Lookup(name)
		if f == nil || !f.Changed {
			return "", false
		}
		return f.Value.String(), true
	}
	// The data directory locates the default file, so it is resolved first.
	dataDir, dataFromFlag := flagVal("data-dir")
	if !dataFromFlag {
		dataDir = getenv("PARLEY_DATA_DIR")
	}
	file, fromFlag := flagVal("config")
	if !fromFlag {
		file = getenv("PARLEY_CONFIG")
	}
	explicit := file != ""
	if !explicit {
		dir := dataDir
		if dir == "" {
			if home, err := os.UserHomeDir(); err == nil {
				dir = filepath.Join(home, ".parley")
			}
		}
		if dir != "" {
			if _, err := os.Stat(filepath.Join(dir, ConfigFileName)); err == nil {
				file = filepath.Join(dir, ConfigFileName)
			}
		}
	}
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return s, fmt.Errorf("config: %w", err)
		}
		if err := applyYAML(&s, b, file); err != nil {
			return s, err
		}
		s.File = file
		// Relative paths in a file are relative to the file.
		for _, p := range []*string{&s.Node.DataDir, &s.PassphraseFile, &s.VXP.TLSCertFile, &s.VXP.TLSKeyFile} {
			if *p != "" && !filepath.IsAbs(*p) {
				*p = filepath.Join(filepath.Dir(file), *p)
			}
		}
	}
	for _, k := range settingsTable {
		if v := getenv(k.env()); v != "" {
			if err := k.set(&s, v); err != nil {
				return s, &configError{k.key, "$" + k.env(), err}
			}
		}
	}
	for _, k := range settingsTable {
		if v, ok := flagVal(k.flag()); ok {
			if err := k.set(&s, v); err != nil {
				return s, &configError{k.key, "--" + k.flag(), err}
			}
		}
	}
	if s.Node.DataDir == "" && s.File != "" {
		s.Node.DataDir = filepath.Dir(s.File)
	}
	if s.Node.DataDir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return s, fmt.Errorf("config: data_dir: no data directory and no home directory: %w", err)
		}
		s.Node.DataDir = filepath.Join(home, ".parley")
	}
	deriveOrigins(&s)
	if err := s.Node.Validate(); err != nil {
		return s, fmt.Errorf("config: %w", err)
	}
	if err := checkAPI(s); err != nil {
		return s, fmt.Errorf("config: %w", err)
	}
	if err := checkApproval(s); err != nil {
		return s, fmt.Errorf("config: %w", err)
	}
	if err := checkVXP(s); err != nil {
		return s, fmt.Errorf("config: %w", err)
	}
	return s, nil
}

// applyYAML applies a YAML configuration file: nested maps name dotted
// keys, sequences are lists, scalars are parsed by the key's setter. The
// text is read as strictly as the project reads JSON (strictjson's codes):
// not UTF-8, more than one document, a control or bidirectional-format
// character in a key or value (YAML's escapes can spell them), an anchor,
// alias or merge key, or a tag that is not YAML's core schema is
// malformed_json; a key given twice, in any spelling (api: {listen} and
// api.listen), is duplicate_key; an unknown key (names match exactly:
// API is not api) is unknown_field; a value of the wrong shape is
// schema_invalid. Each refusal names its key and line.
func applyYAML(s *settings, b []byte, file string) error {
	if !utf8.Valid(b) {
		return &fileError{file, strictjson.CodeMalformedJSON, "not UTF-8"}
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return &fileError{file, strictjson.CodeMalformedJSON, strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return &fileError{file, strictjson.CodeMalformedJSON, "more than one YAML document (a second ---)"}
	}
	if len(doc.Content) == 0 {
		return nil
	}
	byKey := map[string]setting{}
	for _, k := range settingsTable {
		byKey[k.key] = k
	}
	given := map[string]int{} // every key set, in any spelling, and its line
	var walk func(prefix string, n *yaml.Node) error
	walk = func(prefix string, n *yaml.Node) error {
		if err := plainNode(n, file); err != nil {
			return err
		}
		if n.Kind != yaml.MappingNode {
			return &fileError{fmt.Sprintf("%s:%d", file, n.Line), strictjson.CodeSchemaInvalid, strings.TrimSuffix(prefix, ".") + " must be a map"}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			src := fmt.Sprintf("%s:%d", file, kn.Line)
			if kn.Kind != yaml.ScalarNode || kn.Tag == "!!merge" {
				return &fileError{src, strictjson.CodeMalformedJSON, "a key must be a plain name (no merge keys, lists or maps as keys)"}
			}
			if err := plainNode(kn, file); err != nil {
				return err
			}
			if err := plainNode(vn, file); err != nil {
				return err
			}
			key := prefix + kn.Value
			if line, ok := given[key]; ok {
				return &fileError{src, strictjson.CodeDuplicateKey, fmt.Sprintf("%s is given twice (first on line %d)", key, line)}
			}
			given[key] = kn.Line
			k, known := byKey[key]
			switch {
			case known && vn.Kind == yaml.ScalarNode && vn.Tag == "!!null":
				if err := k.set(s, ""); err != nil {
					return &configError{key, src, err}
				}
			case known && k.list:
				if vn.Kind != yaml.SequenceNode {
					return &configError{key, src, &strictjson.Error{Code: strictjson.CodeSchemaInvalid, Msg: "must be a list"}}
				}
				var vals []string
				for _, it := range vn.Content {
					if err := plainNode(it, file); err != nil {
						return err
					}
					if it.Kind != yaml.ScalarNode {
						return &configError{key, src, &strictjson.Error{Code: strictjson.CodeSchemaInvalid, Msg: "list items must be strings"}}
					}
					vals = append(vals, it.Value)
				}
				if err := k.set(s, strings.Join(vals, ",")); err != nil {
					return &configError{key, src, err}
				}
			case known:
				if vn.Kind != yaml.ScalarNode {
					return &configError{key, src, &strictjson.Error{Code: strictjson.CodeSchemaInvalid, Msg: "must be a single value"}}
				}
				if err := k.set(s, vn.Value); err != nil {
					return &configError{key, src, err}
				}
			case vn.Kind == yaml.MappingNode && hasPrefix(byKey, key+"."):
				if err := walk(key+".", vn); err != nil {
					return err
				}
			default:
				return &fileError{src, strictjson.CodeUnknownField, "unknown key " + key}
			}
		}
		return nil
	}
	return walk("", doc.Content[0])
}

// plainNode refuses what YAML allows and a configuration has no use for:
// anchors and aliases, tags beyond YAML's core schema (!!binary, custom
// tags), and control or bidirectional-format characters in a scalar (a
// double-quoted "\x00" or "\u202e").
func plainNode(n *yaml.Node, file string) error {
	src := fmt.Sprintf("%s:%d", file, n.Line)
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return &fileError{src, strictjson.CodeMalformedJSON, "anchors and aliases are not allowed"}
	}
	switch n.Tag {
	case "", "!!str", "!!int", "!!bool", "!!float", "!!null", "!!seq", "!!map":
	default:
		return &fileError{src, strictjson.CodeMalformedJSON, fmt.Sprintf("tag %s is not allowed", n.Tag)}
	}
	if n.Kind == yaml.ScalarNode {
		for _, r := range n.Value {
			if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
				return &fileError{src, strictjson.CodeMalformedJSON, fmt.Sprintf("the value holds the control character %U", r)}
			}
		}
	}
	return nil
}

// fileError refuses the configuration file's text: where (file:line) and
// the strict decoder's code (strictjson.CodeOf finds it).
type fileError struct {
	src  string
	code strictjson.Code
	msg  string
}

func (e *fileError) Error() string {
	return "config: " + e.src + ": " + string(e.code) + ": " + e.msg
}

func (e *fileError) Unwrap() error { return &strictjson.Error{Code: e.code, Msg: e.msg} }

func hasPrefix(m map[string]setting, p string) bool {
	for k := range m {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}
