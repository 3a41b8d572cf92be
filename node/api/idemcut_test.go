package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
)

// TestCutClientsActOnce is issue 12's test of "one key, one act": against
// a real node (nodetest: keys, Badger, libp2p on loopback), clients post
// tasks (POST /v1/tasks) and cut their connections at some point of the
// request: before the body is complete, while the act runs (after a delay
// spread over twice the act's duration, so cuts land before, inside and
// after the point where the task is recorded and published), or once the
// answer has begun. Each then retries with the same Idempotency-Key. Each
// key must have exactly one effect: the board holds one announcement with
// its title, and the retry's answer names it (a fresh 201 when the cut
// came before the act began, the first answer replayed otherwise).
//
// It runs twice: with the node alone on the board, where publishing waits
// (boundedly, about 3 s) for a board peer, so a cut lands inside a long
// act, many rounds at once; and with a peer, where an act takes
// milliseconds. Before the fix the answer to a client that went away was
// not kept and its act ran on the request's context: the act stopped
// after recording the announcement, and the retry posted it again.
func TestCutClientsActOnce(t *testing.T) {
	alone := startNode(t, nodeSpec{name: "alone"})
	t.Run("alone on the board", func(t *testing.T) { cutRounds(t, serve(t, alone, Options{}), 45, 45) })
	poster := startNode(t, nodeSpec{name: "poster"})
	nodetest.Connect(t, poster, startNode(t, nodeSpec{name: "peer", bootstrap: []*node.Node{poster}}))
	t.Run("with a board peer", func(t *testing.T) { cutRounds(t, serve(t, poster, Options{}), 90, 1) })
}

// cutRounds runs rounds cut-and-retry rounds, at most parallel at a time,
// and checks one effect per key.
func cutRounds(t *testing.T, s *served, rounds, parallel int) {
	u, err := url.Parse(s.url)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)
	body := func(title string) []byte {
		return []byte(`{"title":"` + title + `","milestones":[{"amount":1000,"description":"all"}],"deadline":"` + deadline + `"}`)
	}
	start := time.Now()
	if r := s.do(call{method: http.MethodPost, path: "/v1/tasks", idem: freshKey(), body: body(t.Name() + " warm-up")}); r.status != http.StatusCreated {
		t.Fatalf("warm-up: %d %s", r.status, r.body)
	}
	span := max(2*time.Since(start), 2*time.Millisecond)

	type result struct {
		title, mode string
		retry       reply
		err         error
	}
	modes := []string{"before the body", "while the act runs", "once answered"}
	results := make([]result, rounds)
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := range rounds {
		mode := modes[i%len(modes)]
		results[i] = result{title: fmt.Sprintf("%s: cut %d (%s)", t.Name(), i, mode), mode: mode}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			key, b := freshKey(), body(results[i].title)
			if err := cutClient(u.Host, key, b, mode, time.Duration(rand.Int64N(int64(span)))); err != nil {
				results[i].err = err
				return
			}
			results[i].retry, results[i].err = postOnce(s.url, key, b)
		})
	}
	wg.Wait()

	board := map[string][]node.Announcement{}
	for _, a := range s.Board() {
		board[a.Terms.Title] = append(board[a.Terms.Title], a)
	}
	posted := map[string]int{}
	for _, res := range results {
		if res.err != nil {
			t.Errorf("%s: %v", res.title, res.err)
			continue
		}
		got := board[res.title]
		switch res.retry.status {
		case http.StatusCreated:
			var a node.Announcement
			if err := json.Unmarshal(res.retry.body, &a); err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Hash != a.Hash {
				t.Errorf("%s: the retry answered %s; the board holds %d announcements with its title", res.title, a.Hash, len(got))
			}
			posted[res.mode]++
		case http.StatusTooManyRequests:
			// The board's rate refused the post: nothing was posted.
			if len(got) != 0 {
				t.Errorf("%s: refused with 429, yet the board holds %d", res.title, len(got))
			}
		default:
			t.Errorf("%s: the retry answered %d %s", res.title, res.retry.status, res.retry.body)
		}
	}
	for _, m := range modes {
		if posted[m] == 0 {
			t.Errorf("no task was posted after a cut %s", m)
		}
	}
	t.Logf("cuts spread over %s; tasks posted per cut: %v", span, posted)
}

// cutClient sends one POST /v1/tasks on a connection of its own and
// resets it: before the body is complete, delay after the whole request
// is sent, or after the first line of the answer.
func cutClient(host, key string, body []byte, mode string, delay time.Duration) error {
	c, err := net.Dial("tcp", host)
	if err != nil {
		return err
	}
	defer c.Close()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // a reset, as from a client that crashed or timed out
	}
	head := "POST /v1/tasks HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + apiKey +
		"\r\n" + HeaderIdempotencyKey + ": " + key + "\r\nContent-Type: application/json\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n"
	switch mode {
	case "before the body":
		_, err = c.Write([]byte(head + string(body[:len(body)/2])))
		time.Sleep(delay / 8)
	case "while the act runs":
		_, err = c.Write([]byte(head + string(body)))
		time.Sleep(delay)
	case "once answered":
		if _, err = c.Write([]byte(head + string(body))); err == nil {
			_ = c.SetReadDeadline(time.Now().Add(time.Minute))
			var line string
			if line, err = bufio.NewReader(c).ReadString('\n'); err == nil && !strings.HasPrefix(line, "HTTP/1.1 ") {
				err = errors.New("the answer began " + line)
			}
		}
	}
	return err
}

// postOnce is the client's retry: the same request under the same key.
func postOnce(base, key string, body []byte) (reply, error) {
	req, err := http.NewRequest(http.MethodPost, base+"/v1/tasks", bytes.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("Authorization", "Bearer "+apiKey)
	req.Header.Set(HeaderIdempotencyKey, key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: b}, err
}

// TestApprovalOutlivesItsClient: a gated act whose client went away goes
// on waiting for the principal within the approval's window (it was
// cancelled before); a retry under its key waits for it and answers with
// its result once the principal approves; the act ran once.
func TestApprovalOutlivesItsClient(t *testing.T) {
	pn := startNode(t, nodeSpec{name: "poster", gate: node.AutoApprove("test")})
	wn := startNode(t, nodeSpec{name: "worker", bootstrap: []*node.Node{pn}})
	poster, worker := serve(t, pn, Options{}), serve(t, wn, Options{})
	wkey := worker.enrol("worker's automation")
	var res node.ActResult
	poster.post("/v1/tasks/propose", ProposeRequest{Worker: wn.Address(), Task: node.TaskSpec{
		Title: "Index", Deadline: time.Now().Add(time.Hour), Milestones: []node.MilestoneSpec{{Amount: wei(10), Description: "all"}},
	}}, http.StatusCreated, &res)
	nid := res.Thread.NegotiationID
	eventually(t, "the proposal at the worker", func() bool {
		return worker.do(call{method: http.MethodGet, path: "/v1/negotiations/" + nid}).status == http.StatusOK
	})
	key, path := freshKey(), "/v1/negotiations/"+nid+"/accept"
	ctx, cancel := context.WithCancel(t.Context())
	gone := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, worker.url+path, strings.NewReader(`{}`))
		req.Header.Set("Authorization", "Bearer "+apiKey)
		req.Header.Set(HeaderIdempotencyKey, key)
		_, err := http.DefaultClient.Do(req)
		gone <- err
	}()
	eventually(t, "the act waiting for its approval", func() bool { return len(wn.Gate().PendingApprovals()) == 1 })
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Fatalf("the client: %v", err)
	}
	time.Sleep(200 * time.Millisecond) // the server has seen the client go
	if p := wn.Gate().PendingApprovals(); len(p) != 1 {
		t.Fatalf("the approval ended with its client: %d pending", len(p))
	}
	retry := make(chan reply, 1)
	go func() { retry <- worker.do(call{method: http.MethodPost, path: path, idem: key, body: []byte(`{}`)}) }()
	eventually(t, "the retry waiting for the first", func() bool { return worker.api.idem.waiting() == 1 })
	approveWhenAsked(worker, wkey, node.ActSignSettlement)
	r := <-retry
	if r.status != http.StatusOK || r.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the retry: %d %s (replayed %q)", r.status, r.body, r.header.Get("Idempotent-Replayed"))
	}
	var v node.ThreadView
	worker.get("/v1/negotiations/"+nid, &v)
	sent := 0
	for _, rec := range v.Log {
		if rec.Sender == wn.Address() {
			sent++
		}
	}
	if sent != 1 {
		t.Fatalf("the worker sent %d envelopes, want its one acceptance", sent)
	}
}
