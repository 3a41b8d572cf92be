package node

import (
	"math/big"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// Config is what an operator configures about a node. Start from
// DefaultConfig, set DataDir, and change what the deployment needs;
// Validate names the first bad field by its configuration key (the YAML
// key cmd/parley reads it from).
type Config struct {
	// DataDir holds the keys (DataDir/keys), the ledger (DataDir/ledger)
	// and the chain watcher's progress.
	DataDir string
	// Name labels the node in logs and metrics (for example "poster").
	Name string
	// Capabilities are the task categories this node offers or takes; the
	// discovery document lists them.
	Capabilities []string

	// P2P configures the transport.
	P2P P2PConfig
	// Chain configures the chain client; an empty RPC runs the node
	// without a chain (negotiation only: acts that need the chain fail
	// with CodeNoChain).
	Chain ChainConfig

	// ApprovalTTL is the window of one approval request (the Human Intent
	// Protocol allows 5 s to 600 s): a request not decided by then expires
	// and the act fails with CodeApprovalExpired.
	ApprovalTTL time.Duration
	// FetchTimeout bounds one attempt to fetch a delivered or evidence file.
	FetchTimeout time.Duration
	// RejectionWindow is how long rejected input is gathered, per peer,
	// before one input.rejected entry per peer is written
	// (rejection_window; 0: DefaultRejectionWindow).
	RejectionWindow time.Duration

	// WebAuthn configures the principal's passkeys: the relying party and
	// the origins of the pages where they approve.
	WebAuthn WebAuthnConfig

	// Consent bounds the negotiations counterparties the principal has not
	// allowed may open with this node (docs/node.md, "Consent").
	Consent ConsentConfig
	// Board bounds the task board: announcements per poster, in total and
	// by age.
	Board BoardConfig
	// Timeouts says how the node watches the contracts' timeout exits and
	// which it takes by itself (timeouts.*).
	Timeouts TimeoutsConfig
	// Ledger says how often the node signs its ledger's tree head and
	// anchors it on chain, and the gas the anchors may spend (ledger.*).
	Ledger LedgerConfig
	// Store makes the node a store node (store.*): it holds sealed
	// envelopes for the recipients it serves while they are offline, and
	// the topic history (docs/p2p.md "Running a store node").
	Store StoreConfig
}

// StoreConfig configures a store node's mailbox (MailboxStore): whom it
// holds mail for, how much, and how long.
type StoreConfig struct {
	// Enabled makes the node a store node (store.enabled).
	Enabled bool
	// Serve are the EVM addresses of the recipients it holds mail for
	// (store.serve).
	Serve []string
	// Open lets any identified peer register as a recipient by fetching
	// from the store, up to MaxRecipients (store.open); Serve must then be
	// empty.
	Open bool
	// MaxRecipients bounds the recipients registered under Open
	// (store.max_recipients).
	MaxRecipients int
	// QuotaItems and QuotaBytes bound what is held for one recipient at
	// once, not yet collected (store.quota_items, store.quota_bytes).
	QuotaItems int
	QuotaBytes int64
	// QuotaPerSender bounds the items one sender (peer id) has held for
	// one recipient at once (store.quota_per_sender), and its bytes to the
	// same fraction of QuotaBytes: one sender cannot fill a recipient's
	// whole quota and shut the others out. At or over QuotaItems it adds
	// no bound.
	QuotaPerSender int
	// Retention is how long held mail is served (store.retention).
	Retention time.Duration
	// NoHistory turns off the topic history (store.history: false): the
	// store records no task-board or relayed evidence messages and answers
	// history requests with nothing.
	NoHistory bool
}

// Defaults of StoreConfig.
const (
	DefaultStoreMaxRecipients = 1000
	DefaultStoreQuotaItems    = 1000
	DefaultStoreQuotaBytes    = 64 << 20
	// DefaultStoreQuotaPerSender is a tenth of DefaultStoreQuotaItems.
	DefaultStoreQuotaPerSender = 100
	DefaultStoreRetention      = 7 * 24 * time.Hour
)

// LedgerConfig configures the ledger's signed tree heads and their
// anchors on chain (anchor.go). Anchoring is not a gated act (it moves no
// escrow) but it spends the node's gas, so it runs only within
// AnchorGasPerDay.
type LedgerConfig struct {
	// HeadEvery is how often the node signs and records its tree head when
	// the ledger grew (ledger.head_every; 0: only on demand).
	HeadEvery time.Duration
	// AnchorEvery is how often the node anchors its tree head on chain
	// through LedgerAnchor when the ledger grew (ledger.anchor_every; 0:
	// off, except when a dispute opens and on demand). parley init and
	// parley devnet set DevAnchorEvery.
	AnchorEvery time.Duration
	// AnchorGasPerDay is the gas the anchors may use per UTC day
	// (ledger.anchor_gas_per_day; 0: no anchor is sent at all): an anchor
	// that would exceed it is refused with CodeAnchorBudget.
	AnchorGasPerDay uint64
}

// Defaults of LedgerConfig. DefaultAnchorGasPerDay covers an anchor every
// ten minutes all day (an anchor uses about 29,000 gas, the node's first
// about 46,000: docs/benchmarks.md).
const (
	DefaultHeadEvery       = 10 * time.Minute
	DevAnchorEvery         = 10 * time.Minute
	DefaultAnchorGasPerDay = 5_000_000
)

// TimeoutsConfig configures the watch over the timeout exits
// (timeouts.go): how often the node reads them on chain, and which the
// principal's policy takes once due (still through the approval gate).
type TimeoutsConfig struct {
	// Auto are the exits taken once due (timeouts.auto): any of
	// claim_unanswered, reclaim_expired, resolve_timed_out; empty: none,
	// the principal is only told.
	Auto []string
	// Scan is how often the exits are read on chain (timeouts.scan; 0:
	// DefaultTimeoutScan).
	Scan time.Duration
}

// DefaultTimeoutScan is how often the node reads its threads' timeout
// exits on chain by default.
const DefaultTimeoutScan = time.Minute

// ConsentConfig bounds the open negotiations of counterparties whose
// consent state is unknown. A negotiation counts as open from the moment
// this node recorded its opening (its own clock) while it is still in the
// negotiation phase (open, proposed or countered: nothing agreed, nothing
// ended) and younger than Window.
type ConsentConfig struct {
	// PerCounterparty bounds the open negotiations one unknown
	// counterparty may have opened (consent.unknown_per_counterparty).
	PerCounterparty int
	// Total bounds them across every unknown counterparty
	// (consent.unknown_total).
	Total int
	// Window is how long an unagreed negotiation an unknown counterparty
	// opened counts at most (consent.unknown_window): the bounds limit how
	// many negotiations strangers open per window, whatever timestamps and
	// proposal lifetimes they sign.
	Window time.Duration
}

// BoardConfig bounds the task board of announcements received from other
// nodes; this node's own announcements are neither counted nor evicted.
type BoardConfig struct {
	// MaxPerPoster bounds one poster's announcements (board.max_per_poster).
	MaxPerPoster int
	// MaxTotal bounds every poster's together (board.max_total).
	MaxTotal int
	// MaxAge is how long an announcement stays at most (board.max_age);
	// one whose deadline passed leaves at once.
	MaxAge time.Duration
}

// Defaults of ConsentConfig and BoardConfig.
const (
	DefaultConsentPerCounterparty = 8
	DefaultConsentTotal           = 256
	DefaultConsentWindow          = time.Hour
	DefaultBoardMaxPerPoster      = 100
	DefaultBoardMaxTotal          = 2000
	DefaultBoardMaxAge            = 7 * 24 * time.Hour
)

// WebAuthnConfig configures the WebAuthn ceremonies of the principal's
// passkeys. Browsers refuse an IP address as RP ID, so the pages are
// served at http://localhost:<port> with RP ID localhost.
type WebAuthnConfig struct {
	// RPID is the relying party id (web.rp_id): a domain the origins are
	// on, "localhost" by default.
	RPID string
	// Origins are the page origins an approval may come from
	// (web.origins): http://localhost:<port>, or https on the RP ID.
	Origins []string
}

// DefaultWebListen is where the principal's pages are served by default;
// DefaultWebOrigin is its origin.
const (
	DefaultWebListen = "localhost:7480"
	DefaultWebOrigin = "http://localhost:7480"
)

// P2PConfig configures the node's libp2p host.
type P2PConfig struct {
	// Listen are multiaddrs to listen on. The default is loopback only.
	Listen []string
	// Bootstrap are peers (multiaddrs ending in /p2p/<peer id>) dialled at
	// start. There is no public default.
	Bootstrap []string
	// StorePeers are store nodes that hold envelopes for recipients this
	// node cannot reach.
	StorePeers []string
	// DHT runs the Kademlia DHT under /parley.
	DHT bool
	// MDNS enables LAN discovery (off by default).
	MDNS bool
	// NAT enables NAT traversal (off by default): port mapping, AutoNAT
	// v2, the relay client and hole punching.
	NAT bool
	// Announce are the addresses the node advertises instead of its listen
	// addresses (p2p.announce): multiaddrs over TCP, QUIC or a relay
	// circuit, without /p2p/<peer id> at the end, such as the public
	// address a router forwards to this node. Empty: the listen addresses.
	Announce []string
	// Relays are static circuit relay v2 servers (p2p.relays, multiaddrs
	// ending in /p2p/<peer id>): the node reserves a slot with them while
	// it is not publicly reachable and advertises its circuit address.
	Relays []string
	// RelayService makes the node a circuit relay v2 server for others
	// while it is publicly reachable (p2p.relay_service), within
	// go-libp2p's default limits (2 minutes and 128 KiB per relayed
	// connection, 128 reservations).
	RelayService bool
	// Reachability overrides what AutoNAT concludes (p2p.reachability):
	// public, private, or empty for AutoNAT to decide.
	Reachability string
	// RetryMax caps the backoff between delivery attempts of one envelope.
	RetryMax time.Duration
	// MailboxPoll is how often the node collects its mail from StorePeers
	// (p2p.mailbox_poll); it also collects at start.
	MailboxPoll time.Duration
	// MaxPeers, when not zero, is how many peers the node must be able to
	// hold at once (a worker's concurrent counterparties): it raises the
	// transport's resource limits, which by default admit about 96
	// inbound connections.
	MaxPeers int
	// IdentifyTimeout is how long a new connection's peer has to complete
	// the identity handshake before it is disconnected
	// (p2p.identify_timeout; 0: the transport's default, 5 s).
	IdentifyTimeout time.Duration
	// PeerFrameRate and PeerByteRate are each identified peer's budget of
	// envelope frames and bytes per second, with a burst of twice that
	// (p2p.peer_frame_rate, p2p.peer_byte_rate; 0: the transport's
	// defaults, 10,000 frames and 64 MiB).
	PeerFrameRate float64
	PeerByteRate  int64
	// BanDuration is how long a peer over its budget, or sending mostly
	// garbage, is refused (p2p.ban_duration; 0: the transport's default,
	// 10 min).
	BanDuration time.Duration
}

// ChainConfig configures the chain client and watcher.
type ChainConfig struct {
	// RPC is the JSON-RPC endpoint (http, https, ws, wss, or an IPC path);
	// empty runs the node without a chain.
	RPC string
	// ChainID, when not zero, must equal the endpoint's chain id.
	ChainID uint64
	// Contracts are the deployed Parley contracts.
	Contracts chain.Addresses
	// Confirmations is how many blocks (counting the one that includes a
	// transaction) must exist before its receipt or events count.
	Confirmations uint64
	// PollInterval is how often receipts and new blocks are polled.
	PollInterval time.Duration
}

// p2pDefaults are the transport's defaults that the node's configuration
// shows.
var p2pDefaults = p2p.DefaultConfig()

// DefaultConfig returns the defaults: loopback listening on ephemeral TCP
// and QUIC ports, no bootstrap peers, DHT on, mDNS and NAT off, no chain,
// ten-minute approval requests, passkeys for RP ID localhost approving
// from http://localhost:7480.
func DefaultConfig() Config {
	return Config{
		P2P: P2PConfig{
			Listen:          []string{"/ip4/127.0.0.1/tcp/0", "/ip4/127.0.0.1/udp/0/quic-v1"},
			DHT:             true,
			RetryMax:        time.Minute,
			MailboxPoll:     30 * time.Second,
			IdentifyTimeout: p2p.DefaultIdentifyTimeout,
			PeerFrameRate:   p2pDefaults.PeerFrameRate,
			PeerByteRate:    int64(p2pDefaults.PeerByteRate),
			BanDuration:     p2pDefaults.BanDuration,
		},
		RejectionWindow: DefaultRejectionWindow,
		Chain: ChainConfig{
			Confirmations: 1,
			PollInterval:  time.Second,
		},
		ApprovalTTL:  10 * time.Minute,
		FetchTimeout: time.Minute,
		WebAuthn:     WebAuthnConfig{RPID: "localhost", Origins: []string{DefaultWebOrigin}},
		Consent: ConsentConfig{
			PerCounterparty: DefaultConsentPerCounterparty, Total: DefaultConsentTotal, Window: DefaultConsentWindow,
		},
		Board: BoardConfig{MaxPerPoster: DefaultBoardMaxPerPoster, MaxTotal: DefaultBoardMaxTotal, MaxAge: DefaultBoardMaxAge},
		// The timeout exits are read every minute; none is taken by itself.
		Timeouts: TimeoutsConfig{Scan: DefaultTimeoutScan},
		// Heads are signed every ten minutes; anchoring is off unless
		// configured (on for the dev chain: parley init, parley devnet).
		Ledger: LedgerConfig{HeadEvery: DefaultHeadEvery, AnchorGasPerDay: DefaultAnchorGasPerDay},
		// Not a store node unless enabled.
		Store: StoreConfig{
			MaxRecipients: DefaultStoreMaxRecipients, QuotaItems: DefaultStoreQuotaItems,
			QuotaBytes: DefaultStoreQuotaBytes, QuotaPerSender: DefaultStoreQuotaPerSender, Retention: DefaultStoreRetention,
		},
	}
}

// Validate returns an *Error with CodeBadConfig naming the first field that
// is missing or out of range, by its configuration key.
func (c Config) Validate() error {
	bad := func(key, format string, args ...any) error {
		return fail(CodeBadConfig, key+": "+format, args...)
	}
	if strings.TrimSpace(c.DataDir) == "" {
		return bad("data_dir", "is empty")
	}
	if len(c.P2P.Listen) == 0 {
		return bad("p2p.listen", "is empty")
	}
	for i, s := range c.P2P.Listen {
		if _, err := ma.NewMultiaddr(s); err != nil {
			return bad("p2p.listen", "entry %d %q is not a multiaddr: %v", i, s, err)
		}
	}
	for i, s := range c.P2P.Announce {
		if err := p2p.CheckAnnounce(s); err != nil {
			return bad("p2p.announce", "entry %d %q: %v", i, s, err)
		}
	}
	if len(c.P2P.Announce) > p2p.MaxAnnounce {
		return bad("p2p.announce", "%d addresses, over %d", len(c.P2P.Announce), p2p.MaxAnnounce)
	}
	if len(c.P2P.Relays) > p2p.MaxRelays {
		return bad("p2p.relays", "%d relays, over %d", len(c.P2P.Relays), p2p.MaxRelays)
	}
	if r := p2p.Reachability(c.P2P.Reachability); r != "" && r != p2p.ReachPublic && r != p2p.ReachPrivate {
		return bad("p2p.reachability", "%q is not public, private or empty (AutoNAT decides)", c.P2P.Reachability)
	}
	for key, list := range map[string][]string{"p2p.bootstrap": c.P2P.Bootstrap, "p2p.store_peers": c.P2P.StorePeers, "p2p.relays": c.P2P.Relays} {
		for i, s := range list {
			if _, err := peer.AddrInfoFromString(s); err != nil {
				return bad(key, "entry %d %q is not a multiaddr ending in /p2p/<peer id>: %v", i, s, err)
			}
		}
	}
	if c.P2P.RetryMax < 100*time.Millisecond {
		return bad("p2p.retry_max", "%v is under 100ms", c.P2P.RetryMax)
	}
	if c.P2P.MailboxPoll < time.Second {
		return bad("p2p.mailbox_poll", "%v is under 1s", c.P2P.MailboxPoll)
	}
	if c.P2P.MaxPeers < 0 || c.P2P.MaxPeers > 100_000 {
		return bad("p2p.max_peers", "%d is outside 0..100000", c.P2P.MaxPeers)
	}
	if c.P2P.IdentifyTimeout != 0 && (c.P2P.IdentifyTimeout < 100*time.Millisecond || c.P2P.IdentifyTimeout > 5*time.Minute) {
		return bad("p2p.identify_timeout", "%v is outside 100ms..5m", c.P2P.IdentifyTimeout)
	}
	if c.P2P.PeerFrameRate < 0 || (c.P2P.PeerFrameRate > 0 && c.P2P.PeerFrameRate < 64) {
		return bad("p2p.peer_frame_rate", "%v is under 64 frames per second", c.P2P.PeerFrameRate)
	}
	if c.P2P.PeerByteRate < 0 || (c.P2P.PeerByteRate > 0 && c.P2P.PeerByteRate < 1<<20) {
		return bad("p2p.peer_byte_rate", "%d is under 1MiB per second", c.P2P.PeerByteRate)
	}
	if c.P2P.BanDuration < 0 {
		return bad("p2p.ban_duration", "is negative")
	}
	if c.RejectionWindow < 0 || (c.RejectionWindow > 0 && c.RejectionWindow < time.Second) {
		return bad("rejection_window", "%v is under a second", c.RejectionWindow)
	}
	if c.Chain.RPC != "" {
		if err := validRPC(c.Chain.RPC); err != nil {
			return bad("chain.rpc", "%v", err)
		}
		if err := c.Chain.Contracts.Validate(); err != nil {
			return bad("chain.contracts", "%v", err)
		}
	}
	if c.Chain.Confirmations < 1 {
		return bad("chain.confirmations", "must be at least 1")
	}
	if c.Chain.PollInterval < time.Millisecond {
		return bad("chain.poll_interval", "%v is under 1ms", c.Chain.PollInterval)
	}
	if c.ApprovalTTL < 5*time.Second || c.ApprovalTTL > 600*time.Second {
		return bad("approval.ttl", "%v is outside 5s..600s (Human Intent Protocol)", c.ApprovalTTL)
	}
	if c.FetchTimeout < time.Second {
		return bad("fetch_timeout", "%v is under a second", c.FetchTimeout)
	}
	wc := approval.DefaultConfig()
	wc.RPID, wc.Origins, wc.UserID = c.WebAuthn.RPID, c.WebAuthn.Origins, []byte{1}
	if err := wc.Validate(); err != nil {
		key := "web.origins"
		if strings.Contains(err.Error(), "RPID") {
			key = "web.rp_id"
		}
		return bad(key, "%v", err)
	}
	if c.Consent.PerCounterparty < 0 || c.Consent.PerCounterparty > 1_000_000 {
		return bad("consent.unknown_per_counterparty", "%d is outside 0..1000000", c.Consent.PerCounterparty)
	}
	if c.Consent.Total < c.Consent.PerCounterparty || c.Consent.Total > 1_000_000 {
		return bad("consent.unknown_total", "%d is outside consent.unknown_per_counterparty (%d)..1000000", c.Consent.Total, c.Consent.PerCounterparty)
	}
	if c.Consent.Window < time.Minute {
		return bad("consent.unknown_window", "%v is under a minute", c.Consent.Window)
	}
	if c.Board.MaxPerPoster < 1 || c.Board.MaxPerPoster > c.Board.MaxTotal {
		return bad("board.max_per_poster", "%d is outside 1..board.max_total (%d)", c.Board.MaxPerPoster, c.Board.MaxTotal)
	}
	if c.Board.MaxTotal > 1_000_000 {
		return bad("board.max_total", "%d is over 1000000", c.Board.MaxTotal)
	}
	if c.Board.MaxAge < time.Minute {
		return bad("board.max_age", "%v is under a minute", c.Board.MaxAge)
	}
	for _, a := range c.Timeouts.Auto {
		if !slices.Contains(TimeoutActs, negotiation.Act(a)) {
			return bad("timeouts.auto", "%q is not claim_unanswered, reclaim_expired or resolve_timed_out", a)
		}
	}
	if c.Timeouts.Scan < 0 || (c.Timeouts.Scan > 0 && c.Timeouts.Scan < 10*time.Millisecond) {
		return bad("timeouts.scan", "%v is under 10ms", c.Timeouts.Scan)
	}
	if c.Ledger.HeadEvery < 0 || (c.Ledger.HeadEvery > 0 && c.Ledger.HeadEvery < time.Second) {
		return bad("ledger.head_every", "%v is under a second", c.Ledger.HeadEvery)
	}
	if c.Ledger.AnchorEvery < 0 || (c.Ledger.AnchorEvery > 0 && c.Ledger.AnchorEvery < time.Second) {
		return bad("ledger.anchor_every", "%v is under a second", c.Ledger.AnchorEvery)
	}
	if err := c.Store.validate(); err != nil {
		return err
	}
	for i, s := range c.Capabilities {
		if strings.TrimSpace(s) == "" || len(s) > 64 {
			return bad("capabilities", "entry %d %q is empty or over 64 characters", i, s)
		}
	}
	return nil
}

// validate checks the store section: whom it serves (addresses, no
// duplicates, serve or open when enabled, neither when not) and its
// bounds.
func (c StoreConfig) validate() error {
	bad := func(key, format string, args ...any) error {
		return fail(CodeBadConfig, key+": "+format, args...)
	}
	seen := make(map[negotiation.Address]bool, len(c.Serve))
	for i, s := range c.Serve {
		a, err := negotiation.ParseAddress(s)
		if err != nil {
			return bad("store.serve", "entry %d %q is not an EVM address: %v", i, s, err)
		}
		if seen[a] {
			return bad("store.serve", "entry %d %s is listed twice", i, s)
		}
		seen[a] = true
	}
	switch {
	case !c.Enabled && (len(c.Serve) > 0 || c.Open):
		return bad("store.enabled", "is false while store.serve or store.open is set")
	case c.Enabled && len(c.Serve) == 0 && !c.Open:
		return bad("store.serve", "is empty (name the recipients served, or set store.open: true to serve any identified peer that registers)")
	case c.Open && len(c.Serve) > 0:
		return bad("store.open", "is true while store.serve names recipients (choose one)")
	case c.MaxRecipients < 1 || c.MaxRecipients > 1_000_000:
		return bad("store.max_recipients", "%d is outside 1..1000000", c.MaxRecipients)
	case c.QuotaItems < 1 || c.QuotaItems > 1_000_000:
		return bad("store.quota_items", "%d is outside 1..1000000", c.QuotaItems)
	case c.QuotaBytes < 64<<10 || c.QuotaBytes > 64<<30:
		return bad("store.quota_bytes", "%d is outside 64KiB..64GiB", c.QuotaBytes)
	case c.QuotaPerSender < 1 || c.QuotaPerSender > 1_000_000:
		return bad("store.quota_per_sender", "%d is outside 1..1000000", c.QuotaPerSender)
	case c.Retention < time.Minute || c.Retention > 365*24*time.Hour:
		return bad("store.retention", "%v is outside 1m..8760h", c.Retention)
	}
	return nil
}

func validRPC(s string) error {
	if strings.HasPrefix(s, "/") {
		return nil // an IPC socket path
	}
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return fail(CodeBadConfig, "scheme %q is not http, https, ws or wss", u.Scheme)
	}
	if u.Host == "" {
		return fail(CodeBadConfig, "%q has no host", s)
	}
	return nil
}

// chainConfig returns the chain client configuration.
func (c Config) chainConfig() chain.Config {
	cc := chain.DefaultConfig()
	if c.Chain.ChainID != 0 {
		cc.ChainID = new(big.Int).SetUint64(c.Chain.ChainID)
	}
	cc.Contracts = c.Chain.Contracts
	cc.Confirmations = c.Chain.Confirmations
	cc.PollInterval = c.Chain.PollInterval
	return cc
}
