package chain

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func benchDevchain(b *testing.B, accounts int) (*Devchain, []*Client) {
	b.Helper()
	cfg := DefaultDevchainConfig()
	cfg.Accounts = accounts
	d, err := StartDevchain(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = d.Close() })
	var clients []*Client
	for i := range accounts {
		rb, err := DialRPC(context.Background(), d.URL)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(rb.Close)
		cc := d.ClientConfig()
		cc.PollInterval = time.Millisecond
		c, err := New(rb, d.Accounts[i].Signer(), cc, nil)
		if err != nil {
			b.Fatal(err)
		}
		clients = append(clients, c)
	}
	return d, clients
}

// BenchmarkDevchainTxLatency sends one transaction at a time over HTTP
// JSON-RPC to the embedded chain (mining on demand) and waits for its
// receipt: estimate, sign, send, seal, receipt.
func BenchmarkDevchainTxLatency(b *testing.B) {
	_, cs := benchDevchain(b, 1)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := cs[0].Anchor(ctx, rand32(), uint64(i+1)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDevchainTPS sends transactions from 8 accounts at once (each
// waiting for its receipts) and reports transactions per second.
func BenchmarkDevchainTPS(b *testing.B) {
	const senders = 8
	_, cs := benchDevchain(b, senders)
	ctx := context.Background()
	var next atomic.Int64
	var counts [senders]uint64
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				counts[s]++
				if _, err := cs[s].Anchor(ctx, rand32(), counts[s]); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "tx/s")
}

// BenchmarkCreateTaskSimulated funds one-milestone ETH tasks on the
// simulated backend (auto-commit: one block per transaction).
func BenchmarkCreateTaskSimulated(b *testing.B) {
	e := newEnv(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := e.settlement(eths(1))
		d, _ := s.Digest(e.domain)
		ps, _ := e.poster.sig.SignDigest(d)
		ws, _ := e.worker.sig.SignDigest(d)
		b.StartTimer()
		if _, err := e.poster.c.CreateTask(ctx, s, ps, ws); err != nil {
			b.Fatal(err)
		}
	}
}
