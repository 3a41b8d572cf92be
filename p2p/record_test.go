package p2p_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	ma "github.com/multiformats/go-multiaddr"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// recordKeys opens a fresh keyring for records (no host).
func recordKeys(t *testing.T) *identity.Keyring {
	t.Helper()
	kr, err := openKeyring(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return kr
}

// storeAddr returns a store node's multiaddr with /p2p/ of a fresh peer.
func storeAddr(t *testing.T, port int) ma.Multiaddr {
	t.Helper()
	return ma.StringCast("/ip4/127.0.0.1/tcp/" + strconv.Itoa(port) + "/p2p/" + recordKeys(t).Inbox().PeerID().String())
}

// TestRecordNamesStoreNodes: a record names the node's store nodes
// (version 2) and round-trips them; one without stores is encoded as
// version 1 and parses as before; a record naming too many, malformed,
// duplicate, overlong or its own peer as a store is refused as
// bad_record, and a store changed after signing breaks the signature.
func TestRecordNamesStoreNodes(t *testing.T) {
	kr := recordKeys(t)
	key := p2p.RecordKey(negotiation.Address(kr.EVM().Address()))
	now := time.Now()
	rec := func(stores ...ma.Multiaddr) *p2p.AddressRecord {
		return &p2p.AddressRecord{
			Link: kr.Link(), Addrs: []ma.Multiaddr{ma.StringCast("/ip4/127.0.0.1/tcp/4001")}, Stores: stores,
			Issued: now.Truncate(time.Millisecond), Expires: now.Add(time.Hour).Truncate(time.Millisecond),
		}
	}
	s1, s2 := storeAddr(t, 4101), storeAddr(t, 4102)
	b := p2p.EncodeRecord(key, rec(s1, s2), kr.Inbox())
	if b[0] != 0x00 || b[1] != 0x02 {
		t.Fatalf("a record with stores starts %x, want version 2", b[:2])
	}
	r, err := p2p.ParseRecord(key, b, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Stores) != 2 || !r.Stores[0].Equal(s1) || !r.Stores[1].Equal(s2) || len(r.Addrs) != 1 || r.Link.Hash() != kr.Link().Hash() {
		t.Fatalf("parsed %+v", r)
	}
	// Without stores: version 1, as every record before them.
	v1 := p2p.EncodeRecord(key, rec(), kr.Inbox())
	if v1[0] == 0x00 {
		t.Fatal("a record without stores is not encoded as version 1")
	}
	if r, err := p2p.ParseRecord(key, v1, now); err != nil || r.Stores != nil || len(r.Addrs) != 1 {
		t.Fatalf("version 1 record: %+v, %v", r, err)
	}

	tooLong := ma.StringCast("/dns4/" + strings.Repeat("a", 250) + ".example/tcp/1/p2p/" + recordKeys(t).Inbox().PeerID().String())
	var five []ma.Multiaddr
	for i := range 5 {
		five = append(five, storeAddr(t, 4200+i))
	}
	onlyID := ma.StringCast("/p2p/" + recordKeys(t).Inbox().PeerID().String())
	ownPeer := ma.StringCast("/ip4/127.0.0.1/tcp/4001/p2p/" + kr.Inbox().PeerID().String())
	for _, c := range []struct {
		name   string
		stores []ma.Multiaddr
	}{
		{"more than MaxRecordStores", five},
		{"a store without /p2p/", []ma.Multiaddr{ma.StringCast("/ip4/127.0.0.1/tcp/4300")}},
		{"a store that is only a peer id", []ma.Multiaddr{onlyID}},
		{"a store named twice", []ma.Multiaddr{s1, s2, s1}},
		{"a store over 256 bytes", []ma.Multiaddr{tooLong}},
		{"the record's own peer as its store", []ma.Multiaddr{s1, ownPeer}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := p2p.ParseRecord(key, p2p.EncodeRecord(key, rec(c.stores...), kr.Inbox()), now)
			if p2p.CodeOf(err) != p2p.CodeBadRecord {
				t.Fatalf("ParseRecord = %v, want bad_record", err)
			}
		})
	}
	// Tampered: a store's port changed after signing (the port's low
	// byte follows the 5 bytes of /ip4/ and the 2 of /tcp/'s code and
	// high byte).
	bad := append([]byte(nil), b...)
	i := strings.Index(string(bad), string(s1.Bytes()))
	bad[i+7] ^= 1
	if _, err := p2p.ParseRecord(key, bad, now); p2p.CodeOf(err) != p2p.Code(identity.CodeBadSignature) {
		t.Fatalf("a tampered record: %v", err)
	}
	// An unknown version.
	v3 := append([]byte(nil), b...)
	v3[1] = 0x03
	if _, err := p2p.ParseRecord(key, v3, now); p2p.CodeOf(err) != p2p.CodeBadRecord {
		t.Fatalf("version 3: %v", err)
	}
	// A version 1 body relabelled version 2 does not verify.
	relabelled := append([]byte{0x00, 0x02}, v1...)
	if _, err := p2p.ParseRecord(key, relabelled, now); err == nil {
		t.Fatal("a relabelled record parsed")
	}
}
