package workload

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Pair is one system's two started, connected nodes, A sending to B.
type Pair interface {
	// Send sends message i of sender goroutine g from A to B, a
	// Plan.MsgBytes message, and returns when A's protocol reports it
	// done: Parley when B acknowledged it (after B's ledger synced it),
	// lightpush when B, the service node, answered the push.
	Send(ctx context.Context, g, i int) error
	// Received is how many messages B's application got.
	Received() int
}

// RunDirect sends Sequential messages one at a time, each waited for,
// then Concurrent messages from Senders goroutines.
func RunDirect(ctx context.Context, p Plan, pair Pair, res *Result) {
	d := &Direct{}
	var lat []float64
	m := startMeter()
	for i := range p.Sequential {
		t0 := time.Now()
		if err := pair.Send(ctx, 0, i); err != nil {
			d.Errors++
			continue
		}
		lat = append(lat, ms(time.Since(t0)))
	}
	_, cpu := m.stop()
	d.SeqP50, d.SeqP99 = Pct(lat, .5), Pct(lat, .99)
	d.SeqCPU = us(cpu) / float64(max(1, p.Sequential))

	var next, errs atomic.Int64
	var wg sync.WaitGroup
	m = startMeter()
	for g := range p.Senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= p.Concurrent {
					return
				}
				if err := pair.Send(ctx, g+1, i); err != nil {
					errs.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	wall, cpu := m.stop()
	d.Errors += int(errs.Load())
	d.Rate = float64(p.Concurrent) / wall.Seconds()
	d.RateCPU = us(cpu) / float64(max(1, p.Concurrent))
	d.Sent = p.Sequential + p.Concurrent
	// The receiving application may see the last ones just after the ack.
	for deadline := time.Now().Add(5 * time.Second); pair.Received() < d.Sent && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	d.Received = pair.Received()
	res.Direct = d
}
