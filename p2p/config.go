package p2p

import (
	"log/slog"
	"time"

	coreconnmgr "github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/parleynet/parley/identity"
)

// Config configures a Host. Start from DefaultConfig, set the node's keys
// and the components it wires in (Inbox, Link, Sealer, Outbox, Handler),
// and change what the deployment needs; Validate names the first bad field.
type Config struct {
	// Inbox is the node's inbox key: its libp2p identity.
	Inbox *identity.InboxKey
	// Link returns the node's current identity link (it may be re-issued).
	Link func() *identity.Link
	// Sealer seals outgoing and opens incoming frames with the node's keys.
	Sealer *identity.Sealer
	// Outbox stores outgoing envelopes durably until they are acked.
	Outbox OutboxStore
	// Handler durably stores and applies received envelopes.
	Handler Handler
	// Blobs serves files by CID over /parley/blob/1; nil serves none.
	Blobs BlobProvider
	// Consistency answers /parley/ledger-consistency/1 (proofs between
	// sizes of the node's ledger tree); nil answers not_found.
	Consistency ConsistencyProvider
	// Mailbox, when set, makes this node a store node: it keeps sealed
	// envelopes for the peers it serves and topic history. nil: not a store.
	Mailbox MailboxStore
	// OnEvent, when set, is called for every Event (peer verified or
	// rejected, envelope acked, input rejected...). It must not block.
	OnEvent func(Event)

	// ListenAddrs are the multiaddrs to listen on (TCP and QUIC). The
	// default listens on 127.0.0.1 only; deployments set their own.
	ListenAddrs []string
	// Bootstrap are the peers (multiaddrs ending in /p2p/<id>) dialled at
	// start and used to join the DHT. There is no default.
	Bootstrap []string
	// StorePeers are store nodes (multiaddrs with /p2p/) that hold
	// envelopes for recipients this node cannot reach.
	StorePeers []string
	// MailboxPoll is how often a node collects its mail from StorePeers.
	MailboxPoll time.Duration
	// MDNS enables LAN discovery by mDNS (off by default).
	MDNS bool
	// NAT enables NAT traversal: port mapping, AutoNAT v2, the circuit
	// relay v2 client and hole punching (off by default).
	NAT bool
	// Announce, when set, are the addresses the node advertises (identify,
	// DHT records) instead of its listen addresses: multiaddrs over TCP,
	// QUIC or a relay circuit, with no /p2p/ suffix but this node's. The
	// circuit addresses of Relays are advertised after them. Empty: the
	// listen addresses (and what port mapping and AutoNAT add).
	Announce []string
	// Relays are static circuit relay v2 servers (multiaddrs with /p2p/):
	// they turn on the relay transport and go-libp2p's autorelay, which
	// reserves a slot with them while the node is not publicly reachable.
	Relays []string
	// RelayService makes the node a circuit relay v2 server while it is
	// publicly reachable (AutoNAT's conclusion or Reachability public),
	// for Parley nodes only (peers that completed the identity
	// handshake), with go-libp2p's default reservations (128, 4 per IP; 16
	// circuits per peer) and no limit per circuit, so that relayed nodes
	// exchange envelopes, files and topic gossip (relayACL). Off by
	// default.
	RelayService bool
	// Reachability, when set (ReachPublic or ReachPrivate), overrides what
	// AutoNAT concludes, for a node whose operator knows it; empty: AutoNAT
	// decides.
	Reachability Reachability
	// DHT runs the Kademlia DHT under the /parley protocol prefix.
	DHT bool
	// DHTServer makes the DHT answer queries (mode server); otherwise the
	// DHT picks its mode from reachability.
	DHTServer bool
	// RecordTTL is how long a published DHT address record is valid.
	RecordTTL time.Duration

	// ConnLow, ConnHigh and ConnGrace tune the connection manager. The
	// high watermark must sit below the resource manager's inbound limit
	// (96 at the default budget), or the manager never trims and a node
	// that many peers meet refuses newcomers instead (TestDefaultWatermarks).
	ConnLow, ConnHigh int
	ConnGrace         time.Duration
	// ResourceMemory and ResourceFDs size the resource manager's limits.
	ResourceMemory int64
	ResourceFDs    int

	// MaxFrameBytes bounds one sealed frame on /parley/envelope/1.
	MaxFrameBytes int
	// MaxEnvelopeBytes bounds one envelope (plaintext).
	MaxEnvelopeBytes int
	// Window is how many frames a sender keeps unacked on one stream.
	Window int
	// AckTimeout is how long a sender waits for an ack before it resets the
	// stream and retries.
	AckTimeout time.Duration
	// RetryMin and RetryMax bound the exponential backoff (with full
	// jitter) between delivery attempts.
	RetryMin, RetryMax time.Duration
	// DialTimeout bounds one dial.
	DialTimeout time.Duration
	// MaxClockSkew is how far in the future a timestamp may be
	// (clock_skew, retried) and, on topics, how far off either way.
	MaxClockSkew time.Duration
	// HoldCount, HoldBytes and HoldAge bound the envelopes held because
	// they arrived ahead of their sender's previous one.
	HoldCount int
	HoldBytes int
	HoldAge   time.Duration
	// HandlerConcurrency bounds the handler calls in flight per host.
	HandlerConcurrency int

	// IdentifyTimeout is how long a new connection's peer has to complete
	// the identity handshake before it is disconnected; until then its
	// frames on /parley/envelope/1 are answered unknown_link and nothing
	// else is done with them.
	IdentifyTimeout time.Duration
	// MaxUnidentified bounds the inbound connections of peers that have
	// not yet identified themselves; a newcomer over it evicts the oldest
	// (unknown peer ids first), so the rest of the inbound budget is held
	// for identified peers.
	MaxUnidentified int
	// PeerFrameRate and PeerFrameBurst (frames per second), PeerByteRate
	// and PeerByteBurst (bytes per second) are each identified peer's
	// budget on /parley/envelope/1: a frame over it is answered busy, and
	// a peer that keeps sending over it is banned.
	PeerFrameRate  float64
	PeerFrameBurst int
	PeerByteRate   float64
	PeerByteBurst  int
	// BanDuration is how long a banned peer (over its budget, or sending
	// mostly garbage) is refused new connections and scored below the
	// graylist threshold on gossip; 0 only disconnects it.
	BanDuration time.Duration

	// TopicRate and TopicBurst bound the messages per second one publisher
	// (the identity that signed them, not the peer that relayed them) may
	// have accepted on a topic; over it its messages are ignored.
	TopicRate  float64
	TopicBurst int
	// SubscriptionBuffer is the per-subscription queue (pubsub's default of
	// 32 drops messages silently under bursts).
	SubscriptionBuffer int
	// MaxBlobBytes bounds a file served or fetched over /parley/blob/1;
	// BlobChunk is the size of one chunk.
	MaxBlobBytes int64
	BlobChunk    int
	// ConsistencyRate and ConsistencyBurst bound the consistency requests
	// per second each peer may make (over it: over_rate).
	ConsistencyRate  float64
	ConsistencyBurst int

	// Registerer receives libp2p's metrics; nil disables them (never the
	// global registry).
	Registerer prometheus.Registerer
	// Logger logs with component=p2p.
	Logger *slog.Logger
	// Clock is the time source.
	Clock func() time.Time

	// Libp2p is for simulation only (docs/p2p.md "Simulation"): when set,
	// Start runs the Host over the libp2p host it returns instead of
	// building its own (TCP and QUIC, noise, yamux, the resource and
	// connection managers, NAT traversal). It is given the node's libp2p
	// key and the Host's connection gater (the guard), which it must apply
	// to every dial and accept; the host must have the key's peer id, and
	// Close closes it. Everything above libp2p is the Host's own: the
	// identity handshake, the guard, the protocols, gossipsub and its
	// validators, the DHT and its record validator, the outbox and the
	// mailbox. No configuration file sets it (node never does); Validate
	// refuses it beside the settings it cannot honour (NAT, Relays,
	// RelayService, Announce, Reachability, MDNS, Registerer).
	Libp2p func(key crypto.PrivKey, gater coreconnmgr.ConnectionGater) (host.Host, error)
}

// MaxAnnounce and MaxRelays bound Config.Announce and Config.Relays.
const (
	MaxAnnounce = 8
	MaxRelays   = 16
)

// Defaults of Config.
const (
	DefaultMaxFrameBytes    = 512 << 10
	DefaultMaxEnvelopeBytes = 256 << 10
	DefaultIdentifyTimeout  = 5 * time.Second
)

// AdmitPeers raises the resource manager's budget and the connection
// manager's watermarks, where they are lower, so that n peers can stay
// connected at once. go-libp2p's default limits scaled to 512 MiB and 1024
// descriptors admit 96 inbound connections; the scaled inbound limit is 64
// plus one per 16 MiB of budget, so the budget becomes enough for n plus 16
// (the same margin for system and relay connections), with four
// descriptors per peer. Peers that have not identified themselves yet may
// then hold a quarter of n (at least MaxUnidentified's default), so that n
// peers connecting at once are not evicted while they identify.
func (c *Config) AdmitPeers(n int) {
	if n <= 0 {
		return
	}
	c.ResourceMemory = max(c.ResourceMemory, int64(n+16-64)*(16<<20))
	c.ResourceFDs = max(c.ResourceFDs, 4*(n+16))
	c.ConnHigh = max(c.ConnHigh, n+32)
	c.ConnLow = max(c.ConnLow, min(n+16, c.ConnHigh))
	c.MaxUnidentified = max(c.MaxUnidentified, n/4)
}

// DefaultConfig returns the production defaults: listen on 127.0.0.1 (TCP
// and QUIC, ephemeral ports), no bootstrap peers, mDNS and NAT traversal
// off, the DHT on, and the limits documented in docs/p2p.md.
func DefaultConfig() Config {
	return Config{
		ListenAddrs:        []string{"/ip4/127.0.0.1/tcp/0", "/ip4/127.0.0.1/udp/0/quic-v1"},
		DHT:                true,
		MailboxPoll:        30 * time.Second,
		RecordTTL:          24 * time.Hour,
		ConnLow:            40,
		ConnHigh:           80,
		ConnGrace:          time.Minute,
		ResourceMemory:     512 << 20,
		ResourceFDs:        1024,
		MaxFrameBytes:      DefaultMaxFrameBytes,
		MaxEnvelopeBytes:   DefaultMaxEnvelopeBytes,
		Window:             64,
		AckTimeout:         30 * time.Second,
		RetryMin:           250 * time.Millisecond,
		RetryMax:           5 * time.Minute,
		DialTimeout:        10 * time.Second,
		MaxClockSkew:       5 * time.Minute,
		HoldCount:          1024,
		HoldBytes:          16 << 20,
		HoldAge:            10 * time.Minute,
		HandlerConcurrency: 64,
		IdentifyTimeout:    DefaultIdentifyTimeout,
		MaxUnidentified:    16,
		PeerFrameRate:      10_000,
		PeerFrameBurst:     20_000,
		PeerByteRate:       64 << 20,
		PeerByteBurst:      128 << 20,
		BanDuration:        10 * time.Minute,
		TopicRate:          50,
		TopicBurst:         100,
		SubscriptionBuffer: 4096,
		MaxBlobBytes:       1 << 30,
		BlobChunk:          256 << 10,
		ConsistencyRate:    20,
		ConsistencyBurst:   200,
		Logger:             slog.New(slog.DiscardHandler),
		Clock:              time.Now,
	}
}

// Validate returns an ErrBadConfig error naming the first field that is
// missing or out of range.
func (c Config) Validate() error {
	bad := func(format string, args ...any) error { return fail(CodeBadConfig, format, args...) }
	switch {
	case c.Inbox == nil:
		return bad("Inbox is nil")
	case c.Link == nil || c.Link() == nil:
		return bad("Link is nil or returns nil")
	case c.Link().PeerID != c.Inbox.PeerID():
		return bad("Link is not for Inbox")
	case c.Sealer == nil:
		return bad("Sealer is nil")
	case c.Outbox == nil:
		return bad("Outbox is nil")
	case c.Handler == nil:
		return bad("Handler is nil")
	case len(c.ListenAddrs) == 0:
		return bad("ListenAddrs is empty")
	case c.ConnLow < 1 || c.ConnHigh < c.ConnLow:
		return bad("ConnLow %d / ConnHigh %d: want 1 <= low <= high", c.ConnLow, c.ConnHigh)
	case c.ConnGrace < 0:
		return bad("ConnGrace is negative")
	case c.ResourceMemory < 16<<20:
		return bad("ResourceMemory %d is under 16 MiB", c.ResourceMemory)
	case c.ResourceFDs < 16:
		return bad("ResourceFDs %d is under 16", c.ResourceFDs)
	case c.MaxEnvelopeBytes < 1024:
		return bad("MaxEnvelopeBytes %d is under 1 KiB", c.MaxEnvelopeBytes)
	case c.MaxFrameBytes < c.MaxEnvelopeBytes:
		return bad("MaxFrameBytes %d is under MaxEnvelopeBytes %d", c.MaxFrameBytes, c.MaxEnvelopeBytes)
	case c.Window < 1:
		return bad("Window %d is below 1", c.Window)
	case c.AckTimeout <= 0:
		return bad("AckTimeout is not positive")
	case c.RetryMin <= 0 || c.RetryMax < c.RetryMin:
		return bad("RetryMin %v / RetryMax %v: want 0 < min <= max", c.RetryMin, c.RetryMax)
	case c.DialTimeout <= 0:
		return bad("DialTimeout is not positive")
	case c.MaxClockSkew <= 0:
		return bad("MaxClockSkew is not positive")
	case c.HoldCount < 0 || c.HoldBytes < 0 || c.HoldAge < 0:
		return bad("HoldCount, HoldBytes and HoldAge must not be negative")
	case c.HandlerConcurrency < 1:
		return bad("HandlerConcurrency %d is below 1", c.HandlerConcurrency)
	case c.IdentifyTimeout < 100*time.Millisecond:
		return bad("IdentifyTimeout %v is under 100ms", c.IdentifyTimeout)
	case c.MaxUnidentified < 1:
		return bad("MaxUnidentified %d is below 1", c.MaxUnidentified)
	case c.PeerFrameRate <= 0 || c.PeerFrameBurst < c.Window:
		return bad("PeerFrameRate %v / PeerFrameBurst %d: want a positive rate and a burst of at least Window (%d)", c.PeerFrameRate, c.PeerFrameBurst, c.Window)
	case c.PeerByteRate <= 0 || c.PeerByteBurst < c.MaxFrameBytes+16:
		return bad("PeerByteRate %v / PeerByteBurst %d: want a positive rate and a burst of at least one frame (%d)", c.PeerByteRate, c.PeerByteBurst, c.MaxFrameBytes+16)
	case c.BanDuration < 0:
		return bad("BanDuration is negative")
	case c.TopicRate <= 0 || c.TopicBurst < 1:
		return bad("TopicRate %v / TopicBurst %d must be positive", c.TopicRate, c.TopicBurst)
	case c.SubscriptionBuffer < 32:
		return bad("SubscriptionBuffer %d is under 32", c.SubscriptionBuffer)
	case c.MaxBlobBytes < 1 || c.BlobChunk < 1024 || c.BlobChunk > c.MaxFrameBytes:
		return bad("MaxBlobBytes %d / BlobChunk %d out of range", c.MaxBlobBytes, c.BlobChunk)
	case c.ConsistencyRate <= 0 || c.ConsistencyBurst < 1:
		return bad("ConsistencyRate %v / ConsistencyBurst %d must be positive", c.ConsistencyRate, c.ConsistencyBurst)
	case c.MailboxPoll <= 0:
		return bad("MailboxPoll is not positive")
	case c.DHT && c.RecordTTL < time.Minute:
		return bad("RecordTTL %v is under a minute", c.RecordTTL)
	case c.Logger == nil:
		return bad("Logger is nil")
	case c.Clock == nil:
		return bad("Clock is nil")
	case c.Libp2p != nil && (c.NAT || len(c.Relays) > 0 || c.RelayService || len(c.Announce) > 0 || c.Reachability != "" || c.MDNS || c.Registerer != nil):
		return bad("Libp2p (a simulation's host) cannot honour NAT, Relays, RelayService, Announce, Reachability, MDNS or Registerer")
	}
	for i, s := range c.ListenAddrs {
		if _, err := ma.NewMultiaddr(s); err != nil {
			return failWrap(CodeBadConfig, err, "ListenAddrs[%d] %q", i, s)
		}
	}
	for i, s := range c.Announce {
		if _, err := parseAnnounce(s, c.Inbox.PeerID()); err != nil {
			return failWrap(CodeBadConfig, err, "Announce[%d] %q", i, s)
		}
	}
	switch {
	case len(c.Announce) > MaxAnnounce:
		return bad("Announce has %d addresses, over %d", len(c.Announce), MaxAnnounce)
	case len(c.Relays) > MaxRelays:
		return bad("Relays has %d relays, over %d", len(c.Relays), MaxRelays)
	case c.Reachability != "" && c.Reachability != ReachPublic && c.Reachability != ReachPrivate:
		return bad("Reachability %q is not public, private or empty", c.Reachability)
	}
	for name, list := range map[string][]string{"Bootstrap": c.Bootstrap, "StorePeers": c.StorePeers, "Relays": c.Relays} {
		for i, s := range list {
			if _, err := peer.AddrInfoFromString(s); err != nil {
				return failWrap(CodeBadConfig, err, "%s[%d] %q is not a multiaddr with /p2p/<id>", name, i, s)
			}
			if ai, _ := peer.AddrInfoFromString(s); name == "Relays" && ai.ID == c.Inbox.PeerID() {
				return bad("Relays[%d] %q is this node", i, s)
			}
		}
	}
	return nil
}
