package ledger

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReopenAfterKillAtLogCreation: a kill between Badger creating a
// memtable or value-log file and giving it its size leaves a 0-byte file,
// which Badger v4 cannot open (dgraph-io/badger#2207; TestCrash found it).
// It holds nothing, so the ledger drops it and opens with every entry.
func TestReopenAfterKillAtLogCreation(t *testing.T) {
	for _, name := range []string{"00001.mem", "00009.mem", "000007.vlog"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := testConfig(t, dir)
			l := open(t, cfg)
			e, _, err := l.Append(t.Context(), Record{Kind: KindChainEvent, NegotiationID: nid(1), Body: []byte(`{"i":1}`)})
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			l = open(t, cfg)
			if got, err := l.Get(t.Context(), e.Seq); err != nil || got.Hash != e.Hash {
				t.Fatalf("entry %d after reopen: %v, %v", e.Seq, got, err)
			}
			// Badger may have made a new file of that name since.
			if info, err := os.Stat(filepath.Join(dir, name)); err == nil && info.Size() == 0 {
				t.Fatalf("the empty %s is still there", name)
			}
		})
	}
}
