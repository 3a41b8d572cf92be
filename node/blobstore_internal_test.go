package node

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/parleynet/parley/p2p"
)

// scriptedFetcher answers each FetchBlob with the next of its results and
// records the bytes each call said it had.
type scriptedFetcher struct {
	results []fetchResult
	had     [][]byte
}

type fetchResult struct {
	data []byte
	err  error
}

func (f *scriptedFetcher) FetchBlob(_ context.Context, _ peer.ID, _ cid.Cid, have []byte) ([]byte, error) {
	f.had = append(f.had, have)
	r := f.results[0]
	f.results = f.results[1:]
	return r.data, r.err
}

// TestBlobStoreRawResumesAndDropsMismatches checks the one retry loop of
// a file fetch, on a blob store built without a node: a broken transfer
// resumes after the bytes it got, bytes that do not hash to the CID are
// dropped and fetched again, and each result is counted.
func TestBlobStoreRawResumesAndDropsMismatches(t *testing.T) {
	count := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "files"}, []string{"result"})
	reg := prometheus.NewRegistry()
	reg.MustRegister(count)
	b := newBlobStore(time.Now, nil, count, newBroadcaster(), nil, time.Second)
	broken, mismatch := errors.New("stream reset"), &p2p.Error{Code: p2p.CodeCIDMismatch, Msg: "bad bytes"}
	f := &scriptedFetcher{results: []fetchResult{
		{data: []byte("par"), err: broken},
		{data: []byte("parXX"), err: mismatch},
		{data: []byte("parley")},
	}}
	b.host = f
	got, err := b.raw(context.Background(), "", cid.Undef)
	if err != nil || string(got) != "parley" {
		t.Fatalf("raw = %q, %v; want parley", got, err)
	}
	if len(f.had) != 3 || f.had[0] != nil || string(f.had[1]) != "par" || f.had[2] != nil {
		t.Fatalf("the attempts had %q; want nothing, the bytes of the broken transfer, nothing", f.had)
	}
	if got := counted(t, reg); len(got) != 2 || got["ok"] != 1 || got["cid_mismatch"] != 1 {
		t.Fatalf("counted %v; want 1 ok and 1 cid_mismatch", got)
	}
}

// counted returns the files metric in reg by result.
func counted(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				out[l.GetValue()] += m.GetCounter().GetValue()
			}
		}
	}
	return out
}

// TestBlobStoreFetchesAFileOnce checks that a file being fetched is not
// fetched again until the first fetch ends.
func TestBlobStoreFetchesAFileOnce(t *testing.T) {
	b := newBlobStore(time.Now, nil, nil, newBroadcaster(), nil, time.Second)
	k := fetchKey{nid: "n", c: cid.Undef}
	if !b.begin(k) {
		t.Fatal("the first fetch did not begin")
	}
	if b.begin(k) {
		t.Fatal("a second fetch of the same file began while the first runs")
	}
	b.end(k)
	if !b.begin(k) {
		t.Fatal("a fetch did not begin after the first ended")
	}
}
