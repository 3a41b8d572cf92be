package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/parleynet/parley/negotiation"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata (chain-vector.json, bundle-v2*.json)")

// chainVector is the golden chain other implementations can test against:
// the exact entry bytes and hashes of a short ledger.
type chainVector struct {
	Description string        `json:"description"`
	Entries     []vectorEntry `json:"entries"`
}

type vectorEntry struct {
	Prev  negotiation.Hash `json:"prev"`
	Entry string           `json:"entry"`
	Hash  negotiation.Hash `json:"hash"`
}

func TestChainVector(t *testing.T) {
	l := open(t, testConfig(t, t.TempDir()))
	at := time.Date(2026, 6, 13, 12, 0, 0, 0, time.UTC)
	records := []Record{
		{Kind: KindCardSealed, Body: []byte(`{"cardHash":"0x` + hex.EncodeToString(make([]byte, 32)) + `"}`), At: at},
		{Kind: KindThreadState, NegotiationID: nid(1), Body: []byte(`{"state":"proposed"}`), At: at.Add(time.Second)},
		{Kind: KindBlobStored, NegotiationID: nid(1), Body: []byte(`{"name":"report.pdf"}`), Object: []byte("%PDF-1.7 example"), ObjectCodec: CodecRaw, At: at.Add(2 * time.Second)},
		{Kind: KindChainEvent, NegotiationID: nid(1), Body: []byte(`{"amount":"1000000000000000000","event":"TaskFunded","note":"é \" \\ \u0001"}`), At: at.Add(3 * time.Second)},
	}
	var got chainVector
	got.Description = "SHA-256(prev || JCS(entry)) for four entries; entry is the exact stored text, prev of the first is 32 zero bytes"
	for _, r := range records {
		e := mustAppend(t, l, r)
		got.Entries = append(got.Entries, vectorEntry{Prev: e.Prev, Entry: string(e.Raw), Hash: e.Hash})
	}
	path := filepath.Join("testdata", "chain-vector.json")
	if *update {
		b, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want chainVector
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want.Entries) != len(got.Entries) {
		t.Fatalf("%d entries, golden has %d", len(got.Entries), len(want.Entries))
	}
	prev := negotiation.Hash{}
	for i, w := range want.Entries {
		g := got.Entries[i]
		if g != w {
			t.Fatalf("entry %d:\n got  %+v\n want %+v", i+1, g, w)
		}
		// The vector is self-consistent without this package.
		sum := sha256.Sum256(append(prev[:], w.Entry...))
		if w.Prev != prev || negotiation.Hash(sum) != w.Hash {
			t.Fatalf("golden entry %d does not chain", i+1)
		}
		canon, err := negotiation.Canonicalize([]byte(w.Entry))
		if err != nil || !bytes.Equal(canon, []byte(w.Entry)) {
			t.Fatalf("golden entry %d is not JCS", i+1)
		}
		prev = w.Hash
	}
}

// TestWriteSampleLedger leaves a ledger with one negotiation taken to
// funded under $PARLEY_LEDGER_SAMPLE_DIR/ledger, for trying the CLI:
//
//	PARLEY_LEDGER_SAMPLE_DIR=/tmp/sample go test -run TestWriteSampleLedger ./ledger
//	parley ledger verify --data-dir /tmp/sample
func TestWriteSampleLedger(t *testing.T) {
	dir := os.Getenv("PARLEY_LEDGER_SAMPLE_DIR")
	if dir == "" {
		t.Skip("set PARLEY_LEDGER_SAMPLE_DIR to write a sample ledger")
	}
	cfg := DefaultConfig()
	cfg.Dir = filepath.Join(dir, "ledger")
	cfg.Clock = stepClock()
	l := open(t, cfg)
	_, params := negotiateToFunded(t, l)
	t.Logf("negotiation %s, head %d %s", params.NegotiationID, l.Head().Seq, l.Head().Hash)
}
