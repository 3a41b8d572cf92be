package soak

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parleynet/parley/p2p"
	"github.com/parleynet/parley/p2p/hostile"
)

// The attacks' sizes.
const (
	slotHolders      = 95    // peers that connect and never identify
	anonFlooders     = 4     // peers without an identity flooding garbage
	identFlooders    = 2     // peers with a throw-away identity flooding garbage
	framesPerFlood   = 20000 // frames one flood writes
	junkPublishers   = 4     // throw-away identities publishing junk announcements
	ownPostBurst     = 300   // posts asked of the poster's API at once (by 16 clients)
	anonSessions     = 10000 // MCP session openings without a credential
	keyedSessions    = 200   // MCP session openings with the agent key
	sessionWorkers   = 32
	floodConnTimeout = 5 * time.Second
)

// tally counts what an attack did.
type tally struct {
	attempts, accepted atomic.Int64

	mu    sync.Mutex
	codes map[string]int
}

func (t *tally) code(c string, n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.codes == nil {
		t.codes = map[string]int{}
	}
	t.codes[c] += n
}

func (t *tally) codesLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(t.codes)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, t.codes[k]))
	}
	return strings.Join(parts, ", ")
}

// hostilePeers floods the worker's envelope protocol with garbage from
// peers without an identity and with throw-away ones, while 95 peers
// connect and never identify themselves. Attempts are frames written and
// connections tried; accepted are frames acked ok (there should be none).
func (r *runner) hostilePeers(ctx context.Context, ph *Phase) {
	target := r.o.Worker.peer
	var frames, conns, refused tally
	var wg sync.WaitGroup
	flood := func(withIdentity bool) {
		defer wg.Done()
		for ctx.Err() == nil {
			var id *hostile.Identity
			if withIdentity {
				var err error
				if id, err = hostile.NewIdentity(time.Now()); err != nil {
					return
				}
			}
			p, err := hostile.Start(ctx, hostile.Config{Identity: id})
			if err != nil {
				return
			}
			conns.attempts.Add(1)
			cctx, cancel := context.WithTimeout(ctx, floodConnTimeout)
			err = p.Connect(cctx, target)
			if err == nil && withIdentity {
				_, err = p.Identify(cctx, target.ID)
			}
			cancel()
			if err != nil {
				refused.attempts.Add(1)
				_ = p.Close()
				continue
			}
			conns.accepted.Add(1)
			res := p.Flood(ctx, target.ID, framesPerFlood, hostile.Garbage)
			frames.attempts.Add(int64(res.Written))
			for c, n := range res.Acks {
				frames.code(string(c), n)
				if c == p2p.CodeOK {
					frames.accepted.Add(int64(n))
				}
			}
			_ = p.Close()
		}
	}
	for range anonFlooders {
		wg.Add(1)
		go flood(false)
	}
	for range identFlooders {
		wg.Add(1)
		go flood(true)
	}
	// The slot holders: connect, never identify, reconnect when cut.
	var held atomic.Int64
	for range slotHolders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				p, err := hostile.Start(ctx, hostile.Config{})
				if err != nil {
					return
				}
				conns.attempts.Add(1)
				cctx, cancel := context.WithTimeout(ctx, floodConnTimeout)
				err = p.Connect(cctx, target)
				cancel()
				if err != nil {
					refused.attempts.Add(1)
				} else {
					conns.accepted.Add(1)
					held.Add(1)
					for ctx.Err() == nil && p.Connected(target.ID) {
						select {
						case <-ctx.Done():
						case <-time.After(500 * time.Millisecond):
						}
					}
					held.Add(-1)
				}
				_ = p.Close()
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
		}()
	}
	// How many slot holders the worker keeps, half-way through.
	var midHeld int64
	select {
	case <-ctx.Done():
	case <-time.After(r.o.Phase / 2):
		midHeld = held.Load()
	}
	wg.Wait()
	ph.Attempts = frames.attempts.Load() + conns.attempts.Load()
	ph.Accepted = frames.accepted.Load()
	ph.Notes = append(ph.Notes,
		fmt.Sprintf("garbage frames written %d, acked: %s", frames.attempts.Load(), frames.codesLine()),
		fmt.Sprintf("connections tried %d, taken %d, refused or cut before use %d; unidentified slot holders connected half-way through: %d of %d",
			conns.attempts.Load(), conns.accepted.Load(), refused.attempts.Load(), midHeld, slotHolders),
		fmt.Sprintf("frames acked ok: %d", frames.accepted.Load()))
}

// boardFlood has throw-away identities publish valid announcements through
// the poster as fast as gossip takes them, and asks the poster's API for
// 300 posts at once. Attempts are the junk published, accepted the junk
// on the worker's board; the posts are honest traffic (a 429 is a wait).
func (r *runner) boardFlood(ctx context.Context, ph *Phase) {
	target := r.o.Poster.peer
	var junk atomic.Int64
	var wg sync.WaitGroup
	junkAddrs := make([]string, junkPublishers)
	for i := range junkPublishers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, err := hostile.NewIdentity(time.Now())
			if err != nil {
				return
			}
			junkAddrs[i] = id.Address().String()
			p, err := hostile.Start(ctx, hostile.Config{Identity: id, Gossip: true})
			if err != nil {
				return
			}
			defer p.Close()
			cctx, cancel := context.WithTimeout(ctx, floodConnTimeout)
			err = p.Connect(cctx, target)
			if err == nil {
				_, err = p.Identify(cctx, target.ID)
			}
			cancel()
			if err != nil {
				r.printf("  junk publisher %d could not join the poster: %v\n", i, err)
				return
			}
			for ctx.Err() == nil && !slices.Contains(p.BoardPeers(), target.ID) {
				time.Sleep(50 * time.Millisecond)
			}
			for ctx.Err() == nil {
				env, err := id.Announcement(time.Now().UTC().Truncate(time.Millisecond))
				if err != nil {
					return
				}
				if err := p.Publish(ctx, id.Bundle(env)); err != nil {
					continue
				}
				junk.Add(1)
			}
		}()
	}
	// The poster's own API, asked for far more than the board's rate:
	// 300 posts from 16 clients at once.
	var asked, taken atomic.Int64
	jobs := make(chan struct{})
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				asked.Add(1)
				if !r.h.postOne(ctx) {
					taken.Add(1)
				}
			}
		}()
	}
	for range ownPostBurst {
		if ctx.Err() != nil {
			break
		}
		jobs <- struct{}{}
	}
	close(jobs)
	wg.Wait()
	var onBoard int
	if tasks, err := r.o.Worker.API.Tasks(context.WithoutCancel(ctx)); err == nil {
		for _, a := range tasks {
			if slices.Contains(junkAddrs, a.Poster.String()) {
				onBoard++
			}
		}
	}
	ph.Attempts = junk.Load()
	ph.Accepted = int64(onBoard)
	ph.Notes = append(ph.Notes,
		fmt.Sprintf("junk announcements published by %d throw-away identities through the poster: %d; on the worker's board after the phase: %d",
			junkPublishers, junk.Load(), onBoard),
		fmt.Sprintf("posts asked of the poster's API by 16 clients at once: %d; taken (201): %d; the rest refused with 429 and Retry-After", asked.Load(), taken.Load()))
}

// sessionFlood opens MCP sessions on the worker: 10,000 without a
// credential, then 200 with the agent key (over the session bound).
// Attempts are the openings; accepted the sessions opened.
func (r *runner) sessionFlood(ctx context.Context, ph *Phase) {
	url := strings.TrimSuffix(r.o.Worker.API.BaseURL(), "/") + "/mcp"
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: sessionWorkers}}
	defer client.CloseIdleConnections()
	var anon, keyed tally
	open := func(n int, key []byte, t *tally) {
		jobs := make(chan int)
		var wg sync.WaitGroup
		for range sessionWorkers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range jobs {
					t.attempts.Add(1)
					status, session := initialize(ctx, client, url, key)
					t.code(fmt.Sprint(status), 1)
					if session {
						t.accepted.Add(1)
					}
				}
			}()
		}
		for i := range n {
			if ctx.Err() != nil {
				break
			}
			jobs <- i
		}
		close(jobs)
		wg.Wait()
	}
	open(anonSessions, nil, &anon)
	open(keyedSessions, r.o.Worker.Key, &keyed)
	ph.Attempts = anon.attempts.Load() + keyed.attempts.Load()
	ph.Accepted = anon.accepted.Load() + keyed.accepted.Load()
	ph.Notes = append(ph.Notes,
		fmt.Sprintf("without a credential: %d openings, %d sessions opened; statuses: %s", anon.attempts.Load(), anon.accepted.Load(), anon.codesLine()),
		fmt.Sprintf("with the agent key: %d openings, %d sessions opened (the oldest idle ones closed at mcp.max_sessions); statuses: %s",
			keyed.attempts.Load(), keyed.accepted.Load(), keyed.codesLine()))
}

// initialize sends one MCP initialize request and returns the HTTP status
// and whether the server opened a session (Mcp-Session-Id).
func initialize(ctx context.Context, c *http.Client, url string, key []byte) (int, bool) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"parley-soak","version":"1"}}}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if key != nil {
		req.Header.Set("Authorization", "Bearer "+string(key))
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.StatusCode == http.StatusOK && resp.Header.Get("Mcp-Session-Id") != ""
}
