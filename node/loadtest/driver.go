package loadtest

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// driver is the worker's agent: it reads the worker's event stream,
// accepts every proposal the worker receives, and tells a waiting
// counterparty when the worker holds the agreement.
type driver struct {
	n      *node.Node
	events <-chan node.Event
	stop   func()

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	sem    chan struct{} // bounds the acceptances in flight

	mu     sync.Mutex
	agreed map[string]*agreedSignal

	accepted   atomic.Int64
	acceptErrs atomic.Int64
}

type agreedSignal struct {
	ch     chan struct{}
	closed bool
}

// eventBuffer is the worker's event subscription buffer: events a slow
// reader misses are dropped by the node, so it is large, and every wait
// also falls back to reading the thread (see counterparty.wait).
const eventBuffer = 1 << 16

func newDriver(n *node.Node) *driver {
	return &driver{n: n, sem: make(chan struct{}, 256), agreed: map[string]*agreedSignal{}}
}

// start subscribes to the worker's events and starts the reading loop.
func (d *driver) start(ctx context.Context) {
	d.ctx, d.cancel = context.WithCancel(ctx)
	d.events, d.stop = d.n.Subscribe(eventBuffer)
	d.wg.Add(1)
	go d.loop()
}

// close stops the loop and waits for it and for every acceptance in
// flight. It is safe to call twice.
func (d *driver) close() {
	if d.cancel == nil {
		return
	}
	d.cancel()
	d.stop()
	d.wg.Wait()
}

func (d *driver) loop() {
	defer d.wg.Done()
	for {
		select {
		case <-d.ctx.Done():
			return
		case ev, ok := <-d.events:
			if !ok {
				return
			}
			d.handle(ev)
		}
	}
}

func (d *driver) handle(ev node.Event) {
	if ev.NegotiationID == "" {
		return
	}
	if ev.Kind == node.EventEnvelope && ev.Direction == "received" && ev.Type == negotiation.TypeTaskProposal && ev.Code == "ok" {
		d.accept(ev.NegotiationID)
	}
	if (ev.Kind == node.EventState || ev.Kind == node.EventEnvelope) && ev.State == negotiation.StateAgreed {
		d.markAgreed(ev.NegotiationID)
	}
}

// accept has the worker accept the current offer of nid, on a goroutine
// of its own. Accepting twice is harmless: the node refuses the second.
func (d *driver) accept(nid string) {
	select {
	case d.sem <- struct{}{}:
	case <-d.ctx.Done():
		return
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer func() { <-d.sem }()
		if _, err := d.n.Accept(d.ctx, nid); err != nil {
			d.acceptErrs.Add(1)
			return
		}
		d.accepted.Add(1)
	}()
}

func (d *driver) signal(nid string) *agreedSignal {
	s, ok := d.agreed[nid]
	if !ok {
		s = &agreedSignal{ch: make(chan struct{})}
		d.agreed[nid] = s
	}
	return s
}

// markAgreed signals a counterparty that watches nid. The counterparty
// watches from before its own acceptance, so before the agreement can
// exist; a negotiation nobody watches any more is left alone.
func (d *driver) markAgreed(nid string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s, ok := d.agreed[nid]; ok && !s.closed {
		s.closed = true
		close(s.ch)
	}
}

// watch returns a channel closed once the worker holds the agreement of
// nid; call forget when done with it.
func (d *driver) watch(nid string) <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.signal(nid).ch
}

func (d *driver) forget(nid string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.agreed, nid)
}
