package p2p_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// fixedConsistency answers every request with the sizes asked and fixed
// roots; to 0 becomes size 9, and a to above 9 is refused as the node's
// ledger would (unknown_size).
type fixedConsistency struct{ asked []*identity.Link }

type sizeErr struct{}

func (sizeErr) Error() string     { return "beyond the tree" }
func (sizeErr) ErrorCode() string { return "unknown_size" }

func (f *fixedConsistency) Consistency(_ context.Context, who *identity.Link, from, to uint64) (p2p.ConsistencyAnswer, error) {
	f.asked = append(f.asked, who)
	if to == 0 {
		to = 9
	}
	if to > 9 {
		return p2p.ConsistencyAnswer{}, sizeErr{}
	}
	return p2p.ConsistencyAnswer{From: from, To: to, FromRoot: [32]byte{1}, ToRoot: [32]byte{2}, Proof: [][32]byte{{3}, {4}},
		Head: json.RawMessage(`{"size":9}`)}, nil
}

// TestConsistencyProtocol: a peer with a verified link gets the provider's
// answer; an unknown peer, an oversize request, from above to, a size the
// tree does not have and a peer over its rate are refused, each with its
// code, and the provider is not asked for those.
func TestConsistencyProtocol(t *testing.T) {
	prov := &fixedConsistency{}
	a := newNode(t)
	b := newNode(t, func(cfg *p2p.Config) { cfg.Consistency = prov; cfg.ConsistencyRate, cfg.ConsistencyBurst = 0.001, 4 })
	connect(t, a, b)

	got, err := a.host.FetchConsistency(t.Context(), b.host.ID(), 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.From != 3 || got.To != 9 || got.FromRoot != ([32]byte{1}) || got.ToRoot != ([32]byte{2}) || len(got.Proof) != 2 || got.Proof[1] != ([32]byte{4}) || string(got.Head) != `{"size":9}` {
		t.Fatalf("answer %+v", got)
	}
	if len(prov.asked) != 1 || prov.asked[0].EVMAddress != a.kr.Link().EVMAddress {
		t.Fatalf("the provider was asked by %v, want a's link", prov.asked)
	}
	for _, tc := range []struct {
		name     string
		from, to uint64
		want     p2p.Code
	}{
		{"from above to", 5, 4, p2p.CodeBadRange},
		{"a size the tree does not have", 1, 10, "unknown_size"},
		{"the peer's rate", 1, 2, p2p.CodeOK}, // the fourth of the burst
		{"over the peer's rate", 1, 2, p2p.CodeOverRate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := a.host.FetchConsistency(t.Context(), b.host.ID(), tc.from, tc.to)
			if tc.want == p2p.CodeOK {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if p2p.CodeOf(err) != tc.want {
				t.Fatalf("got %v (code %q), want %q", err, p2p.CodeOf(err), tc.want)
			}
		})
	}
	if len(prov.asked) != 3 {
		t.Fatalf("the provider was asked %d times, want 3 (the refused requests never reach it)", len(prov.asked))
	}

	// A peer without a verified link, and an oversize request.
	m, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"), libp2p.DisableRelay(), libp2p.DisableMetrics())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Connect(t.Context(), b.info()); err != nil {
		t.Fatal(err)
	}
	raw := func(msg []byte) p2p.Code {
		t.Helper()
		s, err := m.NewStream(t.Context(), b.host.ID(), p2p.ProtocolConsistency)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.Write(msg); err != nil {
			t.Fatal(err)
		}
		_ = s.SetReadDeadline(time.Now().Add(30 * time.Second))
		r := bufio.NewReader(s)
		n, err := binary.ReadUvarint(r)
		if err != nil {
			t.Fatalf("no answer: %v", err)
		}
		body := make([]byte, n)
		if _, err := r.Read(body); err != nil {
			t.Fatal(err)
		}
		var w struct{ Code p2p.Code }
		if err := json.Unmarshal(body, &w); err != nil {
			t.Fatal(err)
		}
		return w.Code
	}
	req := []byte{1, 1, 2}
	if c := raw(append(binary.AppendUvarint(nil, uint64(len(req))), req...)); c != p2p.CodeUnknownLink {
		t.Errorf("a peer without a verified link: %q, want unknown_link", c)
	}
	big := make([]byte, 100)
	big[0] = 1
	if c := raw(append(binary.AppendUvarint(nil, uint64(len(big))), big...)); c != p2p.Code(negotiation.CodeTooLarge) {
		t.Errorf("an oversize request: %q, want too_large", c)
	}
	if len(prov.asked) != 3 {
		t.Fatalf("the provider was asked %d times by refused requests", len(prov.asked)-3)
	}
}
