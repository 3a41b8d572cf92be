package workload

import (
	"sync/atomic"
	"time"
)

// Tracker records when each message was published and when each node's
// application first got it. Receivers call Got from any goroutine; the
// publisher's own copy (a gossipsub node delivers its own messages
// locally) is recorded but never counted.
type Tracker struct {
	n     int
	epoch time.Time
	pub   []int64        // seq -> publish time (ns after epoch), set before Publish
	from  []int          // seq -> publisher
	got   []atomic.Int64 // seq*n+node -> first delivery (ns after epoch), 0: none
	dups  atomic.Int64
	stray atomic.Int64
}

// NewTracker tracks up to max messages among n nodes.
func NewTracker(n, max int) *Tracker {
	return &Tracker{n: n, epoch: time.Now(), pub: make([]int64, max), from: make([]int, max), got: make([]atomic.Int64, n*max)}
}

// Cap is how many messages the tracker can hold.
func (t *Tracker) Cap() int { return len(t.pub) }

// publishing records that message seq is about to be published by from.
func (t *Tracker) publishing(seq, from int) {
	t.from[seq] = from
	t.pub[seq] = int64(time.Since(t.epoch))
}

// Got records that node's application received message seq now.
func (t *Tracker) Got(node, seq int) {
	now := max(1, int64(time.Since(t.epoch)))
	if seq < 0 || seq >= len(t.pub) || node < 0 || node >= t.n {
		t.stray.Add(1)
		return
	}
	if !t.got[seq*t.n+node].CompareAndSwap(0, now) {
		t.dups.Add(1)
	}
}

// missing counts the deliveries of messages [a, b) not yet made.
func (t *Tracker) missing(a, b int) int {
	c := 0
	for s := a; s < b; s++ {
		for i := range t.n {
			if i != t.from[s] && t.got[s*t.n+i].Load() == 0 {
				c++
			}
		}
	}
	return c
}

// wait polls until every delivery of [a, b) is made or the deadline passes,
// and returns when the last one was made (or the deadline).
func (t *Tracker) wait(a, b int, deadline time.Time) {
	for t.missing(a, b) > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// stats fills p's delivery figures for messages [a, b).
func (t *Tracker) stats(p *Phase, a, b int) {
	var lat, reach []float64
	p.Messages = b - a
	p.Expected = (b - a) * (t.n - 1)
	p.Delivered = 0
	for s := a; s < b; s++ {
		last, all := int64(0), true
		for i := range t.n {
			if i == t.from[s] {
				continue
			}
			g := t.got[s*t.n+i].Load()
			if g == 0 {
				all = false
				continue
			}
			p.Delivered++
			d := time.Duration(g - t.pub[s])
			lat = append(lat, ms(d))
			last = max(last, g)
		}
		if all {
			reach = append(reach, ms(time.Duration(last-t.pub[s])))
		}
	}
	p.Lost = p.Expected - p.Delivered
	p.DeliveryP50, p.DeliveryP99 = Pct(lat, .5), Pct(lat, .99)
	p.ReachP50, p.ReachP99 = Pct(reach, .5), Pct(reach, .99)
	if len(reach) > 0 {
		p.ReachMax = Pct(reach, 1)
	}
}
