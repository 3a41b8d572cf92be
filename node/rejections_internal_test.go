package node

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/parleynet/parley/negotiation"
)

// TestRejectionLogIsBoundedAndLosesNoCount feeds one window with 20,000
// rejections from 1,000 peers: it ends in one entry per peer up to
// maxRejectionPeers and one overflow entry for the rest, and the entries'
// totals and codes add up to every rejection.
func TestRejectionLogIsBoundedAndLosesNoCount(t *testing.T) {
	l := newRejectionLog(nil, time.Now, 0)
	t0 := time.Date(2026, 6, 13, 12, 0, 0, 0, time.UTC)
	nid := negotiation.NewNegotiationID([16]byte{1})
	const peers, each = 1000, 20
	for i := range peers * each {
		code := negotiation.CodeBadSignature
		if i%3 == 0 {
			code = negotiation.CodeMalformedJSON
		}
		l.add(rejection{
			peer: fmt.Sprintf("peer-%04d", i%peers), code: code, hash: sha256.Sum256(fmt.Appendf(nil, "%d", i)),
			size: 10, nid: nid, at: t0.Add(time.Duration(i) * time.Millisecond),
		})
	}
	recs := l.take(t0.Add(time.Minute))
	if len(recs) != maxRejectionPeers+1 {
		t.Fatalf("%d entries for %d peers, want %d", len(recs), peers, maxRejectionPeers+1)
	}
	var total uint64
	codes := map[negotiation.Code]uint64{}
	for i, r := range recs {
		var b rejectionBody
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatal(err)
		}
		total += b.Total
		var sum uint64
		for c, n := range b.Codes {
			codes[c] += n
			sum += n
		}
		if sum != b.Total || b.First.Hash == b.Last.Hash || b.First.At > b.Last.At || b.From != b.First.At || b.To != b.Last.At {
			t.Fatalf("entry %d: %+v", i, b)
		}
		if r.Kind != KindInputRejected || r.NegotiationID != nid || len(b.Negotiations) != 1 {
			t.Fatalf("entry %d: kind %s, negotiation %q, %v", i, r.Kind, r.NegotiationID, b.Negotiations)
		}
		last := i == len(recs)-1
		if last != (b.Peer == overflowPeer) {
			t.Fatalf("entry %d is for %q", i, b.Peer)
		}
		if last && (b.Peers != peers-maxRejectionPeers || b.Total != (peers-maxRejectionPeers)*each) {
			t.Fatalf("overflow entry counts %d peers, %d rejections", b.Peers, b.Total)
		}
		if !last && b.Total != each {
			t.Fatalf("entry %d counts %d, want %d", i, b.Total, each)
		}
	}
	if total != peers*each || codes[negotiation.CodeMalformedJSON]+codes[negotiation.CodeBadSignature] != total {
		t.Fatalf("entries count %d rejections (%v), want %d", total, codes, peers*each)
	}
	if len(l.take(t0)) != 0 {
		t.Fatal("the next window is not empty")
	}

	// Negotiation ids: at most a few named, the rest counted; an entry is
	// indexed under a negotiation only when every rejection named it.
	for i := range 20 {
		l.add(rejection{peer: "p", code: negotiation.CodeBadSignature, nid: negotiation.NewNegotiationID([16]byte{byte(i)}), at: t0})
	}
	l.add(rejection{peer: "q", code: negotiation.CodeBadSignature, nid: nid, at: t0})
	l.add(rejection{peer: "q", code: negotiation.CodeMalformedJSON, at: t0})
	recs = l.take(t0)
	var p, q rejectionBody
	_ = json.Unmarshal(recs[0].Body, &p)
	_ = json.Unmarshal(recs[1].Body, &q)
	if len(p.Negotiations) != maxRejectionNegotiations || p.MoreNegotiations != 20-maxRejectionNegotiations || recs[0].NegotiationID != "" {
		t.Fatalf("p: %v + %d, indexed %q", p.Negotiations, p.MoreNegotiations, recs[0].NegotiationID)
	}
	if len(q.Negotiations) != 1 || recs[1].NegotiationID != "" {
		t.Fatalf("q: %v, indexed %q", q.Negotiations, recs[1].NegotiationID)
	}
}
