package p2p

import (
	"context"
	"crypto/ed25519"
	"encoding/binary"
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
	// recordLabel prefixes the bytes the inbox key signs in a record.
	recordLabel = "parley/dht/v1 address record"
	// maxRecordAddrs bounds the addresses in one record.
	maxRecordAddrs = 16
)

// RecordKey returns the DHT key of an EVM address's record.
func RecordKey(a negotiation.Address) string { return "/" + DHTNamespace + "/" + a.String() }

// AddressRecord is what the DHT holds for an EVM address: its identity
// link and where to reach it, signed by the link's inbox key.
type AddressRecord struct {
	Link  *identity.Link
	Addrs []ma.Multiaddr
	// Issued and Expires bound the record's validity (whole milliseconds).
	Issued, Expires time.Time
}

// record layout: uvarint link length, link JCS, u8 address count, per
// address uvarint length + multiaddr bytes, u64 issued (Unix ms), u64
// expires (Unix ms), 64-byte ed25519 signature by the link's inbox key over
// recordLabel || key || everything before the signature.
func encodeRecord(key string, r *AddressRecord, inbox *identity.InboxKey) []byte {
	lb := r.Link.Bytes()
	b := binary.AppendUvarint(nil, uint64(len(lb)))
	b = append(b, lb...)
	addrs := r.Addrs
	if len(addrs) > maxRecordAddrs {
		addrs = addrs[:maxRecordAddrs]
	}
	b = append(b, byte(len(addrs)))
	for _, a := range addrs {
		b = binary.AppendUvarint(b, uint64(len(a.Bytes())))
		b = append(b, a.Bytes()...)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(r.Issued.UnixMilli()))
	b = binary.BigEndian.AppendUint64(b, uint64(r.Expires.UnixMilli()))
	return append(b, inbox.Sign(recordSigning(key, b))...)
}

func recordSigning(key string, body []byte) []byte {
	m := make([]byte, 0, len(recordLabel)+len(key)+len(body))
	m = append(m, recordLabel...)
	m = append(m, key...)
	return append(m, body...)
}

// ParseRecord decodes and verifies a record stored under key at now: the
// link verifies, names the key's address, the inbox key signed the
// record, and now is within its validity. Every failure is ErrBadRecord
// (or the link's own code).
func ParseRecord(key string, b []byte, now time.Time) (*AddressRecord, error) {
	bad := func(format string, args ...any) error { return fail(CodeBadRecord, format, args...) }
	if len(b) < ed25519.SignatureSize+17 {
		return nil, bad("record of %d bytes is too short", len(b))
	}
	body, sig := b[:len(b)-ed25519.SignatureSize], b[len(b)-ed25519.SignatureSize:]
	ll, n := binary.Uvarint(body)
	if n <= 0 || ll == 0 || ll > maxLinkBytes || uint64(len(body)-n) < ll {
		return nil, bad("link length")
	}
	link, err := identity.DecodeLink(body[n:n+int(ll)], now)
	if err != nil {
		return nil, err
	}
	if key != RecordKey(negotiation.Address(link.EVMAddress)) {
		return nil, bad("key %q is not the link's address %s", key, link.EVMAddress)
	}
	rest := body[n+int(ll):]
	if len(rest) < 1 {
		return nil, bad("truncated")
	}
	count := int(rest[0])
	rest = rest[1:]
	if count > maxRecordAddrs {
		return nil, bad("%d addresses, over %d", count, maxRecordAddrs)
	}
	r := &AddressRecord{Link: link}
	for range count {
		al, k := binary.Uvarint(rest)
		if k <= 0 || uint64(len(rest)-k) < al {
			return nil, bad("address length")
		}
		a, err := ma.NewMultiaddrBytes(rest[k : k+int(al)])
		if err != nil {
			return nil, bad("address: %v", err)
		}
		r.Addrs = append(r.Addrs, a)
		rest = rest[k+int(al):]
	}
	if len(rest) != 16 {
		return nil, bad("trailing bytes")
	}
	r.Issued = time.UnixMilli(int64(binary.BigEndian.Uint64(rest))).UTC()
	r.Expires = time.UnixMilli(int64(binary.BigEndian.Uint64(rest[8:]))).UTC()
	if !ed25519.Verify(link.InboxKey, recordSigning(key, body), sig) {
		return nil, fail(Code(identity.CodeBadSignature), "record signature does not verify")
	}
	if r.Issued.After(now.Add(identity.MaxClockSkew)) || !now.Before(r.Expires) {
		return nil, bad("record valid %s to %s, not at %s", r.Issued, r.Expires, now)
	}
	return r, nil
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
	var boot []peer.AddrInfo
	for _, s := range h.cfg.Bootstrap {
		ai, _ := peer.AddrInfoFromString(s)
		boot = append(boot, *ai)
	}
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

// publishRecord puts this node's record once the DHT has peers, retrying
// until it succeeds, then again every half RecordTTL.
func (h *Host) publishRecord(ctx context.Context) {
	wait := 200 * time.Millisecond
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if h.kad.RoutingTable().Size() == 0 {
			_ = h.kad.Bootstrap(ctx)
			wait = min(2*wait, 5*time.Second)
			continue
		}
		if err := h.PublishRecord(ctx); err != nil {
			h.log.Debug("dht record not published", "err", err)
			wait = min(2*wait, 5*time.Second)
			continue
		}
		wait = h.cfg.RecordTTL / 2
	}
}

// PublishRecord puts this node's signed address record in the DHT.
func (h *Host) PublishRecord(ctx context.Context) error {
	if h.kad == nil {
		return fail(CodeClosed, "the DHT is off")
	}
	now := h.now()
	r := &AddressRecord{Link: h.cfg.Link(), Addrs: h.p2p.Addrs(), Issued: now, Expires: now.Add(h.cfg.RecordTTL)}
	key := RecordKey(h.self)
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := h.kad.PutValue(pctx, key, encodeRecord(key, r, h.cfg.Inbox)); err != nil {
		return failWrap(CodeNotFound, err, "dht put")
	}
	return nil
}

// Lookup finds the verified identity link of an EVM address in the DHT,
// records it and the addresses beside it, and returns it.
func (h *Host) Lookup(ctx context.Context, a negotiation.Address) (*identity.Link, error) {
	if h.kad == nil {
		return nil, fail(CodeNotFound, "the DHT is off")
	}
	key := RecordKey(a)
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	b, err := h.kad.GetValue(lctx, key)
	if err != nil {
		return nil, failWrap(CodeNotFound, err, "dht lookup of %s", a)
	}
	r, err := ParseRecord(key, b, h.now())
	if err != nil {
		return nil, err
	}
	h.learn(r.Link)
	if len(r.Addrs) > 0 {
		h.p2p.Peerstore().AddAddrs(r.Link.PeerID, r.Addrs, time.Hour)
	}
	return r.Link, nil
}
