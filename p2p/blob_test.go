package p2p_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"testing"

	"github.com/ipfs/go-cid"
	"github.com/multiformats/go-multihash"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// mapBlobs serves files from a map; lie maps a CID to bytes that are not
// its own, as a dishonest peer would.
type mapBlobs map[cid.Cid][]byte

func (m mapBlobs) Blob(_ context.Context, _ *identity.Link, c cid.Cid) ([]byte, error) {
	if b, ok := m[c]; ok {
		return b, nil
	}
	return nil, p2p.ErrNotFound
}

func rawCID(t *testing.T, b []byte) cid.Cid {
	t.Helper()
	mh, err := multihash.Sum(b, multihash.SHA2_256, -1)
	if err != nil {
		t.Fatal(err)
	}
	return cid.NewCidV1(cid.Raw, mh)
}

func TestBlobFetch(t *testing.T) {
	file := make([]byte, 1<<20+12345)
	_, _ = rand.Read(file)
	c := rawCID(t, file)
	liar := rawCID(t, []byte("the real evidence"))
	blobs := mapBlobs{c: file, liar: []byte("something else")}
	a := newNode(t)
	b := newNode(t, func(cfg *p2p.Config) { cfg.Blobs = blobs; cfg.BlobChunk = 64 << 10 })
	small := newNode(t, func(cfg *p2p.Config) { cfg.MaxBlobBytes = 256 << 10 })
	connect(t, a, b)
	connect(t, small, b)

	got, err := a.host.FetchBlob(t.Context(), b.host.ID(), c, nil)
	if err != nil || !bytes.Equal(got, file) {
		t.Fatalf("fetch: %d bytes, %v", len(got), err)
	}
	// Resume after the first 300,000 bytes.
	got, err = a.host.FetchBlob(t.Context(), b.host.ID(), c, file[:300000])
	if err != nil || !bytes.Equal(got, file) {
		t.Fatalf("resumed fetch: %d bytes, %v", len(got), err)
	}
	bad := bytes.Clone(file[:300000])
	bad[7] ^= 1
	cases := []struct {
		name string
		from *testNode
		c    cid.Cid
		have []byte
		want p2p.Code
	}{
		{"corrupt prefix", a, c, bad, p2p.CodeCIDMismatch},
		{"bytes that are not the CID's", a, liar, nil, p2p.CodeCIDMismatch},
		{"unknown CID", a, rawCID(t, []byte("nothing")), nil, p2p.CodeNotFound},
		{"over the size limit", small, c, nil, p2p.Code(negotiation.CodeTooLarge)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.from.host.FetchBlob(t.Context(), b.host.ID(), tc.c, tc.have)
			if p2p.CodeOf(err) != tc.want {
				t.Fatalf("got %v (code %q), want %q", err, p2p.CodeOf(err), tc.want)
			}
			if len(got) > len(tc.have) {
				t.Fatalf("returned %d bytes that did not verify", len(got))
			}
		})
	}
}
