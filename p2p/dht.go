package p2p

import (
	"context"
	"crypto/ed25519"
	"encoding/binary"
	"slices"
	"sync"
	"time"

	dht "github.com/libp2p/go-libp2p-kad-dht"
	record "github.com/libp2p/go-libp2p-record"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
)

// DHT constants (docs/p2p.md "Discovery").
const (
	// DHTPrefix is the Kademlia protocol prefix: Parley's DHT is its own
	// network (/parley/kad/1.0.0), never the public IPFS one.
	DHTPrefix = "/parley"
	// DHTNamespace is the record namespace: keys are /parley/<EIP-55 address>.
	DHTNamespace = "parley"
	// recordLabel prefixes the bytes the inbox key signs in a version 1
	// record, recordLabelV2 in a version 2 one (with store nodes).
	recordLabel   = "parley/dht/v1 address record"
	recordLabelV2 = "parley/dht/v2 address record"
	// maxRecordAddrs bounds the addresses in one record.
	maxRecordAddrs = 16
	// MaxRecordStores bounds the store nodes one record names; a node
	// with more p2p.store_peers names the first ones.
	MaxRecordStores = 4
	// maxStoreAddrBytes bounds one store node's multiaddr in a record.
	maxStoreAddrBytes = 256
)

// RecordKey returns the DHT key of an EVM address's record.
func RecordKey(a negotiation.Address) string { return "/" + DHTNamespace + "/" + a.String() }

// AddressRecord is what the DHT holds for an EVM address: its identity
// link and where to reach it, signed by the link's inbox key.
type AddressRecord struct {
	Link  *identity.Link
	Addrs []ma.Multiaddr
	// Stores are the store nodes that hold mail for the address while it
	// is unreachable (its p2p.store_peers): at most MaxRecordStores
	// multiaddrs, each ending in /p2p/<id> of another peer, no two alike.
	// A record without stores is encoded as version 1, as before they
	// existed.
	Stores []ma.Multiaddr
	// Issued and Expires bound the record's validity (whole milliseconds).
	Issued, Expires time.Time
}

// Record layouts. Version 1: uvarint link length, link JCS, u8 address
// count, per address uvarint length + multiaddr bytes, u64 issued (Unix
// ms), u64 expires (Unix ms), 64-byte ed25519 signature by the link's
// inbox key over recordLabel || key || everything before the signature.
// Version 2 (a record that names store nodes): 0x00 0x02 (a version 1
// record never starts with 0x00: its link length is not zero), then the
// version 1 body with, after the addresses, u8 store count and per store
// uvarint length + multiaddr bytes; signed over recordLabelV2 || key ||
// body. A version 1 record parses as a record without stores.
func encodeRecord(key string, r *AddressRecord, inbox *identity.InboxKey) []byte {
	return encodeRecordCapped(key, r, inbox, maxRecordAddrs, MaxRecordStores)
}

// encodeRecordCapped encodes at most maxAddrs addresses and maxStores
// store nodes (tests encode records over the bounds).
func encodeRecordCapped(key string, r *AddressRecord, inbox *identity.InboxKey, maxAddrs, maxStores int) []byte {
	v2 := len(r.Stores) > 0
	var b []byte
	if v2 {
		b = append(b, 0x00, 0x02)
	}
	lb := r.Link.Bytes()
	b = binary.AppendUvarint(b, uint64(len(lb)))
	b = append(b, lb...)
	b = appendAddrs(b, r.Addrs, maxAddrs)
	if v2 {
		b = appendAddrs(b, r.Stores, maxStores)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(r.Issued.UnixMilli()))
	b = binary.BigEndian.AppendUint64(b, uint64(r.Expires.UnixMilli()))
	label := recordLabel
	if v2 {
		label = recordLabelV2
	}
	return append(b, inbox.Sign(recordSigning(label, key, b))...)
}

func appendAddrs(b []byte, addrs []ma.Multiaddr, most int) []byte {
	if len(addrs) > most {
		addrs = addrs[:most]
	}
	b = append(b, byte(len(addrs)))
	for _, a := range addrs {
		b = binary.AppendUvarint(b, uint64(len(a.Bytes())))
		b = append(b, a.Bytes()...)
	}
	return b
}

func recordSigning(label, key string, body []byte) []byte {
	m := make([]byte, 0, len(label)+len(key)+len(body))
	m = append(m, label...)
	m = append(m, key...)
	return append(m, body...)
}

// recordStores picks what a node's record names of its configured store
// peers: each once, never the node itself, at most MaxRecordStores.
func recordStores(self peer.ID, stores []peer.AddrInfo) []ma.Multiaddr {
	var out []ma.Multiaddr
	seen := make(map[string]bool)
	for _, st := range stores {
		if st.ID == self {
			continue
		}
		for _, a := range st.Addrs {
			full := a.Encapsulate(ma.StringCast("/p2p/" + st.ID.String()))
			if len(out) == MaxRecordStores || len(full.Bytes()) > maxStoreAddrBytes || seen[string(full.Bytes())] {
				continue
			}
			seen[string(full.Bytes())] = true
			out = append(out, full)
		}
	}
	return out
}

// ParseRecord decodes and verifies a record stored under key at now: the
// link verifies, names the key's address, the inbox key signed the
// record, and now is within its validity; a version 2 record's store
// nodes are at most MaxRecordStores distinct multiaddrs ending in /p2p/
// of a peer other than the link's. Every failure is ErrBadRecord (or the
// link's own code).
func ParseRecord(key string, b []byte, now time.Time) (*AddressRecord, error) {
	bad := func(format string, args ...any) error { return fail(CodeBadRecord, format, args...) }
	if len(b) < ed25519.SignatureSize+17 {
		return nil, bad("record of %d bytes is too short", len(b))
	}
	body, sig := b[:len(b)-ed25519.SignatureSize], b[len(b)-ed25519.SignatureSize:]
	label, rest := recordLabel, body
	v2 := body[0] == 0x00
	if v2 {
		if len(body) < 2 || body[1] != 0x02 {
			return nil, bad("unknown record version")
		}
		label, rest = recordLabelV2, body[2:]
	}
	ll, n := binary.Uvarint(rest)
	if n <= 0 || ll == 0 || ll > maxLinkBytes || uint64(len(rest)-n) < ll {
		return nil, bad("link length")
	}
	link, err := identity.DecodeLink(rest[n:n+int(ll)], now)
	if err != nil {
		return nil, err
	}
	if key != RecordKey(negotiation.Address(link.EVMAddress)) {
		return nil, bad("key %q is not the link's address %s", key, link.EVMAddress)
	}
	rest = rest[n+int(ll):]
	r := &AddressRecord{Link: link}
	if r.Addrs, rest, err = parseAddrs(rest, maxRecordAddrs, 0); err != nil {
		return nil, err
	}
	if v2 {
		if r.Stores, rest, err = parseAddrs(rest, MaxRecordStores, maxStoreAddrBytes); err != nil {
			return nil, err
		}
		if len(r.Stores) == 0 {
			return nil, bad("a version 2 record names no store")
		}
		seen := make(map[string]bool, len(r.Stores))
		for _, a := range r.Stores {
			ai, err := peer.AddrInfoFromP2pAddr(a)
			if err != nil || len(ai.Addrs) == 0 {
				return nil, bad("store %s is not a multiaddr with /p2p/<id>", a)
			}
			if ai.ID == link.PeerID {
				return nil, bad("store %s is the record's own peer", a)
			}
			if seen[string(a.Bytes())] {
				return nil, bad("store %s is named twice", a)
			}
			seen[string(a.Bytes())] = true
		}
	}
	if len(rest) != 16 {
		return nil, bad("trailing bytes")
	}
	r.Issued = time.UnixMilli(int64(binary.BigEndian.Uint64(rest))).UTC()
	r.Expires = time.UnixMilli(int64(binary.BigEndian.Uint64(rest[8:]))).UTC()
	if !ed25519.Verify(link.InboxKey, recordSigning(label, key, body), sig) {
		return nil, fail(Code(identity.CodeBadSignature), "record signature does not verify")
	}
	if r.Issued.After(now.Add(identity.MaxClockSkew)) || !now.Before(r.Expires) {
		return nil, bad("record valid %s to %s, not at %s", r.Issued, r.Expires, now)
	}
	return r, nil
}

// parseAddrs reads a u8 count (at most most) and as many uvarint-length
// multiaddrs (each at most maxLen bytes when maxLen > 0).
func parseAddrs(b []byte, most, maxLen int) ([]ma.Multiaddr, []byte, error) {
	bad := func(format string, args ...any) error { return fail(CodeBadRecord, format, args...) }
	if len(b) < 1 {
		return nil, nil, bad("truncated")
	}
	count := int(b[0])
	b = b[1:]
	if count > most {
		return nil, nil, bad("%d addresses, over %d", count, most)
	}
	var out []ma.Multiaddr
	for range count {
		al, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < al {
			return nil, nil, bad("address length")
		}
		if maxLen > 0 && al > uint64(maxLen) {
			return nil, nil, bad("address of %d bytes, over %d", al, maxLen)
		}
		a, err := ma.NewMultiaddrBytes(b[k : k+int(al)])
		if err != nil {
			return nil, nil, bad("address: %v", err)
		}
		out = append(out, a)
		b = b[k+int(al):]
	}
	return out, b, nil
}

// recordValidator checks records under /parley/ on every put and get, so
// a node never stores or returns a record it could not verify.
type recordValidator struct{ clock func() time.Time }

var _ record.Validator = recordValidator{}

// Validate verifies one record.
func (v recordValidator) Validate(key string, value []byte) error {
	_, err := ParseRecord(key, value, v.clock())
	return err
}

// Select picks the record with the latest link, then the latest issue
// time.
func (v recordValidator) Select(key string, values [][]byte) (int, error) {
	best, bestAt, bestLink := -1, time.Time{}, time.Time{}
	for i, b := range values {
		r, err := ParseRecord(key, b, v.clock())
		if err != nil {
			continue
		}
		if best < 0 || r.Link.IssuedAt.After(bestLink) || (r.Link.IssuedAt.Equal(bestLink) && r.Issued.After(bestAt)) {
			best, bestAt, bestLink = i, r.Issued, r.Link.IssuedAt
		}
	}
	if best < 0 {
		return 0, fail(CodeBadRecord, "no valid record among %d", len(values))
	}
	return best, nil
}

// startDHT runs Kademlia under the /parley prefix with the configured
// bootstrap peers only, and publishes this node's record.
func (h *Host) startDHT() error {
	boot := parsePeers(h.cfg.Bootstrap)
	mode := dht.ModeAuto
	if h.cfg.DHTServer {
		mode = dht.ModeServer
	}
	kad, err := dht.New(h.p2p,
		dht.ProtocolPrefix(DHTPrefix),
		dht.Mode(mode),
		dht.BootstrapPeers(boot...),
		dht.NamespacedValidator(DHTNamespace, recordValidator{clock: h.cfg.Clock}),
		dht.DisableProviders(),
	)
	if err != nil {
		return failWrap(CodeBadConfig, err, "dht")
	}
	h.kad = kad
	h.go1(h.publishRecord)
	return nil
}

// recordCheck is how often publishRecord looks whether the record wants
// putting again before half its TTL; recordSettle is how long it lets a
// burst of address changes settle into one put.
var recordCheck = time.Minute // a variable for tests

const recordSettle = 2 * time.Second

// publishRecord puts this node's record once the DHT has peers, retrying
// until it succeeds, and then again: when the advertised addresses change
// (a new listen address, a NAT mapping or relay learnt, a move), when the
// routing table has doubled since the last put (in a growing network the
// peers closest to the record's key are others by then: a node that put
// its record among the first ten nodes of a network was not found by a
// lookup once there were hundreds), and every half RecordTTL.
func (h *Host) publishRecord(ctx context.Context) {
	wait := 200 * time.Millisecond
	published := 0     // the routing table's size at the last put (0: none yet)
	var full time.Time // when the record is due whatever changed
	due := false       // the addresses changed since the last put
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		case <-h.recordDue:
			select {
			case <-ctx.Done():
				return
			case <-time.After(recordSettle):
			}
			select {
			case <-h.recordDue:
			default:
			}
			due = true
		}
		size := h.kad.RoutingTable().Size()
		if size == 0 {
			_ = h.kad.Bootstrap(ctx)
			wait = min(2*wait, 5*time.Second)
			continue
		}
		if published > 0 && !due && size < 2*published && h.now().Before(full) {
			wait = recordCheck
			continue
		}
		if err := h.PublishRecord(ctx); err != nil {
			h.log.Debug("dht record not published", "err", err)
			wait = min(2*wait, 5*time.Second)
			continue
		}
		h.log.Debug("dht record published", "routing_table", size, "addrs_changed", due)
		published, full, due = size, h.now().Add(h.cfg.RecordTTL/2), false
		wait = recordCheck
	}
}

// PublishRecord puts this node's signed address record in the DHT.
func (h *Host) PublishRecord(ctx context.Context) error {
	if h.kad == nil {
		return fail(CodeClosed, "the DHT is off")
	}
	now := h.now()
	r := &AddressRecord{Link: h.cfg.Link(), Addrs: h.p2p.Addrs(), Stores: recordStores(h.p2p.ID(), h.stores), Issued: now, Expires: now.Add(h.cfg.RecordTTL)}
	key := RecordKey(h.self)
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := h.kad.PutValue(pctx, key, encodeRecord(key, r, h.cfg.Inbox)); err != nil {
		return failWrap(CodeNotFound, err, "dht put")
	}
	return nil
}

// Lookup finds the verified identity link of an EVM address in the DHT,
// records it, the addresses beside it and the store nodes it names, and
// returns it.
func (h *Host) Lookup(ctx context.Context, a negotiation.Address) (*identity.Link, error) {
	r, err := h.lookupRecord(ctx, a, 30*time.Second)
	if err != nil {
		return nil, err
	}
	return r.Link, nil
}

// lookupRecord gets and verifies a's record within timeout, learns its
// link and addresses and caches the store nodes it names.
func (h *Host) lookupRecord(ctx context.Context, a negotiation.Address, timeout time.Duration) (*AddressRecord, error) {
	if h.kad == nil {
		return nil, fail(CodeNotFound, "the DHT is off")
	}
	key := RecordKey(a)
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	b, err := h.kad.GetValue(lctx, key)
	if err != nil {
		return nil, failWrap(CodeNotFound, err, "dht lookup of %s", a)
	}
	now := h.now()
	r, err := ParseRecord(key, b, now)
	if err != nil {
		return nil, err
	}
	h.learn(r.Link)
	if len(r.Addrs) > 0 {
		h.p2p.Peerstore().AddAddrs(r.Link.PeerID, r.Addrs, time.Hour)
	}
	until := now.Add(recordCacheTTL)
	if r.Expires.Before(until) {
		until = r.Expires
	}
	h.recs.put(a, byPeer(r.Stores), until, now)
	return r, nil
}

// byPeer groups multiaddrs ending in /p2p/ by peer, the peers and each
// one's addresses in the order given (a bare /p2p/<id> adds the peer
// with no address); one that does not end in /p2p/ is skipped (ParseRecord
// and Config.Validate refuse those).
func byPeer(addrs []ma.Multiaddr) []peer.AddrInfo {
	var out []peer.AddrInfo
	for _, a := range addrs {
		ai, err := peer.AddrInfoFromP2pAddr(a)
		if err != nil {
			continue
		}
		if i := slices.IndexFunc(out, func(o peer.AddrInfo) bool { return o.ID == ai.ID }); i >= 0 {
			out[i].Addrs = append(out[i].Addrs, ai.Addrs...)
			continue
		}
		out = append(out, *ai)
	}
	return out
}

// parsePeers returns the peers of a configured list (Bootstrap, Relays,
// StorePeers; Validate checked each entry), one per peer, as byPeer: a
// peer named with its TCP and its QUIC address is one peer dialled on
// both, not two dials racing to the same peer.
func parsePeers(list []string) []peer.AddrInfo {
	addrs := make([]ma.Multiaddr, 0, len(list))
	for _, s := range list {
		if a, err := ma.NewMultiaddr(s); err == nil {
			addrs = append(addrs, a)
		}
	}
	return byPeer(addrs)
}

// Bounds of the sender's cache of recipients' store nodes.
const (
	// recordCacheTTL is how long a record's store nodes are used before
	// the record is looked up again (at most until it expires).
	recordCacheTTL = 5 * time.Minute
	// recordMissTTL is how long a failed lookup is remembered: a
	// recipient without a record costs one lookup per this period.
	recordMissTTL = 30 * time.Second
	// recordCacheMax bounds the recipients cached.
	recordCacheMax = 1024
	// recordLookupTimeout bounds the lookup a hand-over waits for.
	recordLookupTimeout = 10 * time.Second
)

// recordCache remembers the store nodes recipients' records name (nil
// for a lookup that failed), each until a deadline.
type recordCache struct {
	mu sync.Mutex
	m  map[negotiation.Address]cachedStores
}

type cachedStores struct {
	stores []peer.AddrInfo
	until  time.Time
}

func (c *recordCache) get(a negotiation.Address, now time.Time) ([]peer.AddrInfo, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[a]
	if !ok || !now.Before(e.until) {
		return nil, false
	}
	return e.stores, true
}

func (c *recordCache) put(a negotiation.Address, stores []peer.AddrInfo, until, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[negotiation.Address]cachedStores)
	}
	if _, ok := c.m[a]; !ok && len(c.m) >= recordCacheMax {
		for k, e := range c.m {
			if !now.Before(e.until) {
				delete(c.m, k)
			}
		}
		for k := range c.m {
			if len(c.m) < recordCacheMax {
				break
			}
			delete(c.m, k)
		}
	}
	c.m[a] = cachedStores{stores: stores, until: until}
}

// recipientStores returns the store nodes a's record names: from the
// cache, or looked up within recordLookupTimeout (a failure is cached as
// none for recordMissTTL).
func (h *Host) recipientStores(ctx context.Context, a negotiation.Address) []peer.AddrInfo {
	now := h.now()
	if st, ok := h.recs.get(a, now); ok {
		return st
	}
	if h.kad == nil {
		return nil
	}
	r, err := h.lookupRecord(ctx, a, recordLookupTimeout)
	if err != nil {
		h.log.Debug("no record for a hand-over", "to", a, "err", err)
		h.recs.put(a, nil, now.Add(recordMissTTL), now)
		return nil
	}
	return byPeer(r.Stores)
}
