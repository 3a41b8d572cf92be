package ledger

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestBadInputWritesNothing(t *testing.T) {
	cfg := testConfig(t, t.TempDir())
	l := open(t, cfg)
	ctx := t.Context()
	mustAppend(t, l, Record{Kind: KindChainEvent, Body: []byte(`{"ok":true}`)})
	before, head := snapshot(t, l), l.Head()
	big := []byte(`{"pad":"` + strings.Repeat("a", cfg.MaxEntryBytes) + `"}`)
	nearLimit := []byte(`{"pad":"` + strings.Repeat("a", cfg.MaxEntryBytes-20) + `"}`)
	cases := []struct {
		name string
		r    Record
		code Code
	}{
		{"body not JSON", Record{Kind: KindChainEvent, Body: []byte(`{"a":`)}, CodeBadBody},
		{"body trailing garbage", Record{Kind: KindChainEvent, Body: []byte(`{"a":1} x`)}, CodeBadBody},
		{"body duplicate key", Record{Kind: KindChainEvent, Body: []byte(`{"a":1,"a":2}`)}, CodeBadBody},
		{"body array", Record{Kind: KindChainEvent, Body: []byte(`[1,2]`)}, CodeBadBody},
		{"body string", Record{Kind: KindChainEvent, Body: []byte(`"x"`)}, CodeBadBody},
		{"body invalid UTF-8", Record{Kind: KindChainEvent, Body: []byte("{\"a\":\"\xff\"}")}, CodeBadBody},
		{"body over the limit", Record{Kind: KindChainEvent, Body: big}, CodeTooLarge},
		{"entry over the limit", Record{Kind: KindChainEvent, NegotiationID: nid(1), Body: nearLimit}, CodeTooLarge},
		{"object over the limit", Record{Kind: KindBlobStored, Object: bytes.Repeat([]byte{1}, cfg.MaxObjectBytes+1), ObjectCodec: CodecRaw}, CodeTooLarge},
		{"object empty", Record{Kind: KindBlobStored, Object: []byte{}}, CodeBadObject},
		{"object not JSON", Record{Kind: KindBlobStored, Object: []byte("%PDF")}, CodeBadObject},
		{"object codec", Record{Kind: KindBlobStored, Object: []byte("x"), ObjectCodec: 0x70}, CodeBadObject},
		{"body sets cid with object", Record{Kind: KindBlobStored, Object: []byte("x"), ObjectCodec: CodecRaw, Body: []byte(`{"cid":"x"}`)}, CodeReservedMember},
		{"body sets cid without object", Record{Kind: KindChainEvent, Body: []byte(`{"cid":"x"}`)}, CodeReservedMember},
		{"kind empty", Record{Kind: ""}, CodeBadKind},
		{"kind upper case", Record{Kind: "Chain.Event"}, CodeBadKind},
		{"kind with space", Record{Kind: "chain event"}, CodeBadKind},
		{"kind too long", Record{Kind: strings.Repeat("a", 65)}, CodeBadKind},
		{"kind reserved", Record{Kind: KindAnchor}, CodeBadKind},
		{"negotiation id upper case", Record{Kind: KindChainEvent, NegotiationID: strings.ToUpper(nid(1))}, CodeBadNegotiationID},
		{"negotiation id not a uuid", Record{Kind: KindChainEvent, NegotiationID: "n-1"}, CodeBadNegotiationID},
		{"thread state without negotiation", Record{Kind: KindThreadState, Body: []byte(`{"state":"agreed"}`)}, CodeBadNegotiationID},
		{"thread state without state", Record{Kind: KindThreadState, NegotiationID: nid(1), Body: []byte(`{"x":1}`)}, CodeBadBody},
		{"thread state not a name", Record{Kind: KindThreadState, NegotiationID: nid(1), Body: []byte(`{"state":"Agreed!"}`)}, CodeBadBody},
		{"at year 10000", Record{Kind: KindChainEvent, At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, CodeBadTime},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := l.Append(ctx, c.r)
			var e *Error
			if !errors.As(err, &e) || e.Code != c.code {
				t.Fatalf("Append = %v, want code %s", err, c.code)
			}
			if !errors.Is(err, &Error{Code: c.code}) {
				t.Fatalf("errors.Is does not match the code")
			}
		})
	}
	if _, err := l.Prune(ctx, "not-a-uuid"); CodeOf(err) != CodeBadNegotiationID {
		t.Fatalf("prune: %v", err)
	}
	if _, _, err := l.AppendEnvelope(ctx, KindChainEvent, nil, "", t0); CodeOf(err) != CodeBadKind {
		t.Fatalf("append envelope with kind chain.event: %v", err)
	}
	if _, _, err := l.AppendEnvelope(ctx, KindEnvelopeSent, nil, "", t0); CodeOf(err) != CodeBadObject {
		t.Fatalf("append nil envelope: %v", err)
	}
	if !errors.Is(&Error{Code: CodeTooLarge, Msg: "x"}, ErrTooLarge) {
		t.Fatal("ErrTooLarge does not match")
	}
	if after := snapshot(t, l); !equalMaps(before, after) || l.Head() != head {
		t.Fatalf("refused input changed the store")
	}
	if _, err := l.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	// A refused request in a batch does not disturb the others.
	errs := make(chan error, 20)
	for i := range 20 {
		go func() {
			r := Record{Kind: KindChainEvent, Body: []byte(`{"i":1}`)}
			if i%2 == 0 {
				r.Body = []byte(`{"i":`)
			}
			_, _, err := l.Append(ctx, r)
			if (err != nil) != (i%2 == 0) {
				errs <- err
				return
			}
			errs <- nil
		}()
	}
	for range 20 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if l.Head().Seq != head.Seq+10 {
		t.Fatalf("head %d after 10 good appends on %d", l.Head().Seq, head.Seq)
	}
}
