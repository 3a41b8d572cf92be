package p2p

import (
	"testing"
	"time"

	"github.com/ipfs/go-cid"
)

// Fuzz targets for every decoder of bytes from the network: acks, frame
// prefixes, task-board bundles and DHT records. Each must fail cleanly
// (never panic) and round-trip what it accepts.

func FuzzDecodeAck(f *testing.F) {
	c, _ := cid.Decode("bagaaierasords4njcts6vs7qvdjfcvgnume4hqohf65zsfguprqphs3icwea")
	a := ack{id: 7, code: CodeOK, cid: c}.encode()
	f.Add(a[1:])
	f.Add([]byte{1, 2, 'o', 'k'})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeAck(b)
		if err != nil {
			return
		}
		again, err := decodeAck(got.encode()[lenPrefix(got.encode()):])
		if err != nil || again.id != got.id || again.code != got.code || !again.cid.Equals(got.cid) {
			t.Fatalf("ack does not round-trip: %+v vs %+v (%v)", got, again, err)
		}
	})
}

func lenPrefix(b []byte) int {
	for i, c := range b {
		if c < 0x80 {
			return i + 1
		}
	}
	return len(b)
}

func FuzzSplitBundle(f *testing.F) {
	f.Add(bundle([]byte(`{"link":1}`), []byte(`{"env":1}`)))
	f.Add([]byte{0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		link, env, ok := splitBundle(b)
		if !ok {
			return
		}
		if len(link) == 0 || len(env) == 0 {
			t.Fatal("accepted an empty part")
		}
		if string(bundle(link, env)) != string(b) {
			t.Fatal("bundle does not round-trip")
		}
	})
}

func FuzzParseRecord(f *testing.F) {
	f.Add([]byte{1, 2, 3})
	f.Add(make([]byte, 200))
	f.Add(append([]byte{0x00, 0x02, 0x05}, make([]byte, 120)...)) // version 2
	now := time.Date(2026, 6, 13, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseRecord("/parley/0x0000000000000000000000000000000000000000", b, now)
		if err == nil && r.Link == nil {
			t.Fatal("a record without a link")
		}
		if err == nil && len(r.Stores) > MaxRecordStores {
			t.Fatalf("a record with %d stores", len(r.Stores))
		}
	})
}

func FuzzDecodeFrame(f *testing.F) {
	f.Add(encodeFrame(3, []byte("PRLY"))[1:])
	f.Fuzz(func(t *testing.T, b []byte) {
		id, sealed, err := decodeFrame(b)
		if err != nil {
			return
		}
		if got := encodeFrame(id, sealed); string(got[lenPrefix(got):]) != string(b) && len(b) > 0 && b[0]&0x80 == 0 {
			t.Fatalf("frame %d does not round-trip", id)
		}
	})
}
