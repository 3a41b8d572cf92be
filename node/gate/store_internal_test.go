package gate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/storeguard"
)

func cred(id string, count uint32) approval.Credential {
	return approval.Credential{
		WebAuthn:     webauthn.Credential{ID: []byte(id), PublicKey: []byte("key of " + id), Authenticator: webauthn.Authenticator{SignCount: count}},
		Label:        id,
		RegisteredAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	}
}

// TestApprovalStoreConsumesOnce: 100 concurrent MarkConsumed of one
// request id on the Badger store: exactly one wins, and after the store is
// closed and opened again the request is still consumed.
func TestApprovalStoreConsumesOnce(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	const k = 100
	var wg sync.WaitGroup
	results := make([]bool, k)
	errs := make([]error, k)
	start := make(chan struct{})
	for i := range k {
		wg.Go(func() {
			<-start
			results[i], errs[i] = s.MarkConsumed(t.Context(), approval.ConsumptionRecord{RequestID: "req_1", IntentHash: "h", ConsumedAt: time.Now()})
		})
	}
	close(start)
	wg.Wait()
	won := 0
	for i := range k {
		if errs[i] != nil {
			t.Fatalf("call %d: %v", i, errs[i])
		}
		if !results[i] {
			won++
		}
	}
	if won != 1 {
		t.Fatalf("%d calls consumed the receipt, want 1", won)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
	if _, err := s.Consumed(t.Context(), "req_1"); !errors.Is(err, errStoreClosed) {
		t.Fatalf("a closed store answered: %v", err)
	}
	s, err = OpenStore(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ok, err := s.Consumed(t.Context(), "req_1"); err != nil || !ok {
		t.Fatalf("after reopening, consumed = %v, %v", ok, err)
	}
	if already, err := s.MarkConsumed(t.Context(), approval.ConsumptionRecord{RequestID: "req_1"}); err != nil || !already {
		t.Fatalf("after reopening, MarkConsumed = %v, %v", already, err)
	}
	if ok, _ := s.Consumed(t.Context(), "req_2"); ok {
		t.Fatal("another request is consumed")
	}
}

// TestApprovalStoreContract: the Store contract of package approval on
// the node's Badger store: credentials in registration order and replaced
// in place, one approval per request stored with its credential,
// ErrNotFound for what does not exist (the enrolment token is the data
// directory's: TestDirTokens).
func TestApprovalStoreContract(t *testing.T) {
	s, err := OpenStore(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	if _, err := s.Credential(ctx, []byte("x")); !errors.Is(err, approval.ErrNotFound) {
		t.Fatalf("an unknown credential: %v", err)
	}
	for i, id := range []string{"zz", "aa", "mm"} {
		if err := s.PutCredential(ctx, cred(id, uint32(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutCredential(ctx, cred("aa", 9)); err != nil {
		t.Fatal(err)
	}
	all, err := s.Credentials(ctx)
	if err != nil || len(all) != 3 || all[0].Label != "zz" || all[1].Label != "aa" || all[2].Label != "mm" || all[1].WebAuthn.Authenticator.SignCount != 9 {
		t.Fatalf("credentials %+v %v", all, err)
	}
	if err := s.DeleteCredential(ctx, []byte("zz")); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteCredential(ctx, []byte("zz")); !errors.Is(err, approval.ErrNotFound) {
		t.Fatalf("deleting twice: %v", err)
	}
	if err := s.PutCredential(ctx, approval.Credential{}); err == nil {
		t.Fatal("a credential without an id was stored")
	}

	rec := approval.ApprovalRecord{RequestID: "req_a", IntentHash: "h", CredentialID: []byte("mm"), SignCount: 7}
	var wg sync.WaitGroup
	var mu sync.Mutex
	first := 0
	for i := range 20 {
		wg.Go(func() {
			c := cred("mm", uint32(100+i))
			already, err := s.RecordApproval(ctx, rec, c)
			if err != nil {
				t.Error(err)
			}
			if !already {
				mu.Lock()
				first++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if first != 1 {
		t.Fatalf("%d approvals of one request recorded, want 1", first)
	}
	got, err := s.Approval(ctx, "req_a")
	if err != nil || got.SignCount != 7 || string(got.CredentialID) != "mm" {
		t.Fatalf("approval %+v %v", got, err)
	}
	if _, err := s.Approval(ctx, "req_b"); !errors.Is(err, approval.ErrNotFound) {
		t.Fatalf("an unknown approval: %v", err)
	}
}

// BenchmarkMarkConsumed measures one synced consumption record.
func BenchmarkMarkConsumed(b *testing.B) {
	s, err := OpenStore(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.MarkConsumed(b.Context(), approval.ConsumptionRecord{RequestID: fmt.Sprintf("req_%d", i)}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarkConsumedWithRecord measures one synced consumption record
// as the node makes it, with the store's record, in a store that holds
// 20,000 consumptions already (an update's cost must not grow with
// them): one at a time, and from 16 goroutines at once (the record is
// group-committed).
func BenchmarkMarkConsumedWithRecord(b *testing.B) {
	open := func(b *testing.B) *Store {
		dir := filepath.Join(b.TempDir(), ApprovalsDirName)
		s, err := OpenStore(dir, nil, WithRecord(storeguard.RecordFile(dir), "12D3KooWbench", time.Now))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		wb := s.db.NewWriteBatch()
		for i := range 20_000 {
			if err := wb.Set([]byte(fmt.Sprintf("%sreq_old_%d", keyConsumption, i)), []byte(`{}`)); err != nil {
				b.Fatal(err)
			}
		}
		if err := wb.Flush(); err != nil {
			b.Fatal(err)
		}
		return s
	}
	consume := func(b *testing.B, s *Store, i int64) {
		if _, err := s.MarkConsumed(b.Context(), approval.ConsumptionRecord{RequestID: fmt.Sprintf("req_%d", i)}); err != nil {
			b.Error(err)
		}
	}
	b.Run("sequential", func(b *testing.B) {
		s := open(b)
		b.ResetTimer()
		for i := range b.N {
			consume(b, s, int64(i))
		}
	})
	b.Run("concurrent", func(b *testing.B) {
		s := open(b)
		var next atomic.Int64
		b.SetParallelism(8) // 16 goroutines on 2 cores
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				consume(b, s, next.Add(1))
			}
		})
	})
}

// TestApprovalStoreAfterKillAtLogCreation: the approval store opens over
// the empty memtable file a kill at its creation leaves (Badger alone
// refuses it, dgraph-io/badger#2207), and keeps what it held.
func TestApprovalStoreAfterKillAtLogCreation(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.MarkConsumed(t.Context(), approval.ConsumptionRecord{RequestID: "req_1", IntentHash: "h", ConsumedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "00001.mem"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = OpenStore(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ok, err := s.Consumed(t.Context(), "req_1"); err != nil || !ok {
		t.Fatalf("the consumption after reopen: %v, %v", ok, err)
	}
}
