package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
	"github.com/parleynet/parley/p2p"
)

// boardRate is the test transport tuning with a task-board rate of 1 a
// second and a burst of 2.
func boardRate() node.Option {
	return node.WithP2PTuning(func(c *p2p.Config) {
		c.RetryMin, c.AckTimeout, c.DialTimeout = 20*time.Millisecond, 10*time.Second, 5*time.Second
		c.ResourceMemory, c.ResourceFDs = 64<<20, 256
		c.TopicRate, c.TopicBurst = 1, 2
	})
}

// TestPostTaskRateLimited: a post beyond the board's rate is 429
// rate_limited with Retry-After in seconds, and publishes nothing; the
// 429 is not kept under its Idempotency-Key, so the same key after the
// wait posts. Publishing an announcement again follows the same rule.
func TestPostTaskRateLimited(t *testing.T) {
	worker := nodetest.New(t, "worker", nil, boardRate())
	poster := nodetest.New(t, "poster", func(c *node.Config) { nodetest.Bootstrap(c, worker) }, boardRate())
	nodetest.Connect(t, poster, worker)
	s := serve(t, poster, Options{})
	deadline := time.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)
	body := []byte(`{"title":"Proofread","milestones":[{"amount":1000,"description":"all"}],"deadline":"` + deadline + `"}`)
	var first node.Announcement
	for range 2 {
		r := s.do(call{method: http.MethodPost, path: "/v1/tasks", idem: freshKey(), body: body})
		if r.status != http.StatusCreated {
			t.Fatalf("a post within the burst: %d %s", r.status, r.body)
		}
		if err := json.Unmarshal(r.body, &first); err != nil {
			t.Fatal(err)
		}
	}
	board := len(poster.Board())
	key := freshKey()
	r := s.do(call{method: http.MethodPost, path: "/v1/tasks", idem: key, body: body})
	secs, err := strconv.Atoi(r.header.Get("Retry-After"))
	if r.status != http.StatusTooManyRequests || r.errCode() != string(node.CodeRateLimited) || err != nil || secs < 1 || secs > 2 {
		t.Fatalf("a post beyond the burst: %d %s, Retry-After %q", r.status, r.body, r.header.Get("Retry-After"))
	}
	checkSchema(t, "ErrorBody", r.body)
	if n := len(poster.Board()); n != board {
		t.Fatalf("a refused post is on the board: %d announcements, had %d", n, board)
	}
	time.Sleep(time.Duration(secs) * time.Second)
	if r := s.do(call{method: http.MethodPost, path: "/v1/tasks", idem: key, body: body}); r.status != http.StatusCreated || r.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("the same key after Retry-After: %d %s (replayed %q)", r.status, r.body, r.header.Get("Idempotent-Replayed"))
	}
	path := "/v1/tasks/" + first.Hash.String() + "/announce"
	limited := false
	for range 3 {
		r := s.do(call{method: http.MethodPost, path: path, idem: freshKey(), body: []byte(`{}`)})
		if r.status == http.StatusTooManyRequests && r.errCode() == string(node.CodeRateLimited) && r.header.Get("Retry-After") != "" {
			limited = true
			break
		}
		if r.status != http.StatusOK {
			t.Fatalf("announce: %d %s", r.status, r.body)
		}
	}
	if !limited {
		t.Fatal("publishing again three times at once at 1/s was never refused")
	}
}
