package ledger

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleynet/parley/negotiation"
)

// testSigner is a fixed ed25519 key and the hash of a made-up identity
// link, standing in for the node's inbox key and link (ledger cannot
// import identity).
type testSigner struct {
	key  ed25519.PrivateKey
	link []byte
	hash negotiation.Hash
}

func newTestSigner(name string) testSigner {
	seed := sha256.Sum256([]byte("ledger test tree head " + name))
	key := ed25519.NewKeyFromSeed(seed[:])
	link := []byte(`{"inboxKey":"0x` + hexString(key.Public().(ed25519.PublicKey)) + `","name":"` + name + `"}`)
	return testSigner{key: key, link: link, hash: sha256.Sum256(link)}
}

func hexString(b []byte) string { return string(appendHex(nil, b))[2:] }

// head returns the signed head of l's tree at size.
func (s testSigner) head(t testing.TB, l *Ledger, size uint64) TreeHead {
	t.Helper()
	root, err := l.TreeHead(size)
	if err != nil {
		t.Fatal(err)
	}
	h := TreeHead{Size: size, Root: root, Time: t0.Add(42 * 1e9), Signer: s.hash}
	h.Signature = ed25519.Sign(s.key, h.SigningBytes())
	return h
}

func fillStates(t testing.TB, l *Ledger, n int) {
	t.Helper()
	for i := range n {
		mustAppend(t, l, Record{Kind: KindThreadState, NegotiationID: nid(i % 3), Body: []byte(`{"state":"proposed"}`)})
	}
}

func TestTreeHeadSigningBytes(t *testing.T) {
	h := TreeHead{Size: 7, Time: t0.Add(1500 * 1e6)}
	h.Root[0], h.Signer[31] = 0xab, 0x01
	want := `{"format":"parley-tree-head/1","root":"0xab` + strings.Repeat("00", 31) + `","signer":"0x` + strings.Repeat("00", 31) +
		`01","size":7,"time":"2026-06-13T12:00:01.500Z"}`
	if got := string(h.SigningBytes()); got != want {
		t.Fatalf("signing bytes\n got %s\nwant %s", got, want)
	}
	c, err := negotiation.Canonicalize([]byte(want))
	if err != nil || !bytes.Equal(c, []byte(want)) {
		t.Fatalf("signing bytes are not JCS: %s (%v)", c, err)
	}
}

func TestRecordTreeHead(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	fillStates(t, l, 10)
	s := newTestSigner("a")
	h := s.head(t, l, 7)
	e, err := l.RecordTreeHead(t.Context(), h)
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != KindTreeHead || e.NegotiationID != "" || e.Seq != 11 {
		t.Fatalf("entry %d %s %q", e.Seq, e.Kind, e.NegotiationID)
	}
	c, err := negotiation.Canonicalize(e.Body)
	if err != nil || !bytes.Equal(c, e.Body) {
		t.Fatalf("body is not JCS: %s", e.Body)
	}
	got, ge, err := l.LatestTreeHead(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if ge.Seq != e.Seq || got.Size != 7 || got.Root != h.Root || !got.Time.Equal(h.Time) || got.Signer != h.Signer || !bytes.Equal(got.Signature, h.Signature) {
		t.Fatalf("latest head %+v, want %+v", got, h)
	}
	if !ed25519.Verify(s.key.Public().(ed25519.PublicKey), got.SigningBytes(), got.Signature) {
		t.Fatal("the parsed head's signature does not verify")
	}
	// A head at the full size, including the first head's entry, is newer.
	h2 := s.head(t, l, 11)
	if _, err := l.RecordTreeHead(t.Context(), h2); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := l.LatestTreeHead(t.Context()); got.Size != 11 {
		t.Fatalf("latest head size %d, want 11", got.Size)
	}
	if _, err := l.Verify(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestLatestTreeHeadNone(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	fillStates(t, l, 2)
	if _, _, err := l.LatestTreeHead(t.Context()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
	if _, _, err := l.LatestTreeAnchor(t.Context(), 100); !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
}

// TestRecordTreeHeadRefusals: each refusal has its code and changes
// nothing in the store.
func TestRecordTreeHeadRefusals(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	fillStates(t, l, 10)
	s := newTestSigner("a")
	good := s.head(t, l, 6)
	forged := good
	forged.Root[0] ^= 1 // a forged root at a real size
	otherSize := good
	otherSize.Size = 5 // a real root at another size
	cases := []struct {
		name string
		h    TreeHead
		code Code
	}{
		{"forged root", forged, CodeTreeMismatch},
		{"root of another size", otherSize, CodeTreeMismatch},
		{"size 0", func() TreeHead { h := good; h.Size = 0; return h }(), CodeUnknownSize},
		{"size beyond the entries", func() TreeHead { h := good; h.Size = 11; return h }(), CodeUnknownSize},
		{"size beyond any", func() TreeHead { h := good; h.Size = ^uint64(0); return h }(), CodeUnknownSize},
		{"short signature", func() TreeHead { h := good; h.Signature = h.Signature[:63]; return h }(), CodeBadBody},
		{"no signature", func() TreeHead { h := good; h.Signature = nil; return h }(), CodeBadBody},
		{"no signer", func() TreeHead { h := good; h.Signer = negotiation.Hash{}; return h }(), CodeBadBody},
		{"no time", func() TreeHead { h := good; h.Time = time.Time{}; return h }(), CodeBadTime},
		{"year 10000", func() TreeHead { h := good; h.Time = h.Time.AddDate(8000, 0, 0); return h }(), CodeBadTime},
	}
	before := snapshot(t, l)
	for _, c := range cases {
		_, err := l.RecordTreeHead(t.Context(), c.h)
		var e *Error
		if !errors.As(err, &e) || e.Code != c.code {
			t.Errorf("%s: got %v, want an *Error %s", c.name, err, c.code)
		}
	}
	if after := snapshot(t, l); !maps.Equal(before, after) {
		t.Fatal("a refused tree head changed the store")
	}
	if _, err := l.RecordTreeHead(t.Context(), good); err != nil {
		t.Fatal(err)
	}
}

// TestTreeKindsReserved: tree.head and tree.anchor are written only by
// their methods.
func TestTreeKindsReserved(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	fillStates(t, l, 3)
	s := newTestSigner("a")
	h := s.head(t, l, 3)
	for _, k := range []string{KindTreeHead, KindTreeAnchor} {
		if _, _, err := l.Append(t.Context(), Record{Kind: k, Body: h.body()}); !errors.Is(err, ErrBadKind) {
			t.Errorf("Append of %s: got %v, want bad_kind", k, err)
		}
		if _, err := l.AppendAll(t.Context(), Record{Kind: k, Body: h.body()}); !errors.Is(err, ErrBadKind) {
			t.Errorf("AppendAll of %s: got %v, want bad_kind", k, err)
		}
	}
}

func testAnchor(t testing.TB, l *Ledger, size uint64) TreeAnchor {
	t.Helper()
	root, err := l.TreeHead(size)
	if err != nil {
		t.Fatal(err)
	}
	a := TreeAnchor{Size: size, Root: root, ChainID: 31337, BlockNumber: 12, TxHash: sha256.Sum256([]byte("tx"))}
	a.Contract[19], a.Address[0], a.Address[5] = 0x42, 0x99, 0xab
	return a
}

func TestRecordTreeAnchor(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	fillStates(t, l, 10)
	a5 := testAnchor(t, l, 5)
	if _, err := l.RecordTreeAnchor(t.Context(), a5); err != nil {
		t.Fatal(err)
	}
	a9 := testAnchor(t, l, 9)
	e9, err := l.RecordTreeAnchor(t.Context(), a9)
	if err != nil {
		t.Fatal(err)
	}
	if e9.Kind != KindTreeAnchor || e9.NegotiationID != "" {
		t.Fatalf("entry %s %q", e9.Kind, e9.NegotiationID)
	}
	for _, c := range []struct {
		max  uint64
		want uint64
	}{{100, 9}, {9, 9}, {8, 5}, {5, 5}} {
		got, _, err := l.LatestTreeAnchor(t.Context(), c.max)
		if err != nil || got.Size != c.want {
			t.Errorf("LatestTreeAnchor(%d): size %d, %v; want %d", c.max, got.Size, err, c.want)
		}
	}
	if got, _, _ := l.LatestTreeAnchor(t.Context(), 100); got != a9 {
		t.Fatalf("anchor %+v, want %+v", got, a9)
	}
	if _, _, err := l.LatestTreeAnchor(t.Context(), 4); !errors.Is(err, ErrNotFound) {
		t.Fatalf("LatestTreeAnchor(4): %v, want ErrNotFound", err)
	}
	before := snapshot(t, l)
	forged := a9
	forged.Root[31] ^= 0x80
	for _, c := range []struct {
		name string
		a    TreeAnchor
		code Code
	}{
		{"forged root", forged, CodeTreeMismatch},
		{"size 0", func() TreeAnchor { a := a9; a.Size = 0; return a }(), CodeUnknownSize},
		{"size beyond", func() TreeAnchor { a := a9; a.Size = 100; return a }(), CodeUnknownSize},
		{"no chain", func() TreeAnchor { a := a9; a.ChainID = 0; return a }(), CodeBadBody},
		{"no tx", func() TreeAnchor { a := a9; a.TxHash = negotiation.Hash{}; return a }(), CodeBadBody},
		{"no contract", func() TreeAnchor { a := a9; a.Contract = negotiation.Address{}; return a }(), CodeBadBody},
		{"no sender", func() TreeAnchor { a := a9; a.Address = negotiation.Address{}; return a }(), CodeBadBody},
	} {
		_, err := l.RecordTreeAnchor(t.Context(), c.a)
		var e *Error
		if !errors.As(err, &e) || e.Code != c.code {
			t.Errorf("%s: got %v, want an *Error %s", c.name, err, c.code)
		}
	}
	if after := snapshot(t, l); !maps.Equal(before, after) {
		t.Fatal("a refused anchor changed the store")
	}
}

// TestParseTreeHeadStrict: only the exact canonical form parses.
func TestParseTreeHeadStrict(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	fillStates(t, l, 4)
	h := newTestSigner("a").head(t, l, 4)
	body := string(h.body())
	if _, err := ParseTreeHead([]byte(body)); err != nil {
		t.Fatal(err)
	}
	sizeAt := strings.Index(body, `"size":4`)
	for _, b := range []string{
		strings.Replace(body, `"size":4`, `"size":04`, 1),
		strings.Replace(body, `"size":4`, `"size":0`, 1),
		strings.Replace(body, `"size":4`, `"size":9007199254740992`, 1),
		strings.Replace(body, `"size":4`, `"size":4.0`, 1),
		strings.Replace(body, `"size":4`, `"size":-4`, 1),
		strings.Replace(body, `"size":4`, `"size":"4"`, 1),
		strings.Replace(body, `"root":"0x`, `"root":"0X`, 1),
		strings.ToUpper(body[:20]) + body[20:],
		body[:sizeAt] + ` ` + body[sizeAt:],
		strings.Replace(body, `.000Z`, `Z`, 1),
		strings.Replace(body, `{`, `{"extra":1,`, 1),
		strings.Replace(body, `}`, `,"zz":1}`, 1),
		strings.Replace(body, `"signature":"0x`, `"signature":"0x00`, 1),
		body + " ",
		"{}", "", "null",
	} {
		if _, err := ParseTreeHead([]byte(b)); CodeOf(err) != CodeMalformedEntry {
			t.Errorf("%s: got %v, want malformed_entry", b, err)
		}
	}
	a := testAnchor(t, l, 3)
	ab := string(a.body())
	if got, err := ParseTreeAnchor([]byte(ab)); err != nil || got != a {
		t.Fatalf("anchor round trip: %+v %v", got, err)
	}
	for _, b := range []string{
		strings.Replace(ab, a.Address.String(), strings.ToLower(a.Address.String()), 1),
		strings.Replace(ab, `"chainId":31337`, `"chainId":0`, 1),
		strings.Replace(ab, `"blockNumber":12`, `"blockNumber":1e1`, 1),
		strings.Replace(ab, `"size":3`, `"size":18446744073709551616`, 1),
	} {
		if _, err := ParseTreeAnchor([]byte(b)); CodeOf(err) != CodeMalformedEntry {
			t.Errorf("%s: got %v, want malformed_entry", b, err)
		}
	}
}

// TestRecordTreeHeadConcurrent records heads of sizes just committed while
// eight writers append: the writer checks each root against its
// transaction's tree (which has grown since) and accepts every true one.
func TestRecordTreeHeadConcurrent(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	fillStates(t, l, 2)
	s := newTestSigner("a")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, _, err := l.Append(t.Context(), Record{Kind: KindChainEvent, NegotiationID: nid(w), Body: []byte(`{}`)}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for range 40 {
		h := s.head(t, l, l.Head().Seq)
		if _, err := l.RecordTreeHead(t.Context(), h); err != nil {
			t.Fatal(err)
		}
		forged := h
		forged.Root[0] ^= 1
		if _, err := l.RecordTreeHead(t.Context(), forged); CodeOf(err) != CodeTreeMismatch {
			t.Fatalf("forged root: %v", err)
		}
	}
	close(stop)
	wg.Wait()
	if _, err := l.Verify(t.Context()); err != nil {
		t.Fatal(err)
	}
}
