// Package workload is what both halves of the side-by-side benchmark share
// (make bench-peers; docs/benchmarks.md "Side by side with go-waku"): the
// plan a worker process runs, the seeded topology, the delivery tracker,
// the phases of a task-board run and of a point-to-point run, and the
// figures each reports. It imports only the standard library, so that
// Parley's worker (bench/peers, on Parley's go-libp2p) and go-waku's
// (bench/waku, on go-waku's own go-libp2p and pubsub fork, which cannot
// share a build with Parley's) measure with the same code.
//
// A worker is one process: it reads a Plan as JSON on its standard input,
// starts the plan's nodes on 127.0.0.1, runs RunBoard or RunDirect over
// them and writes one Result as JSON on its standard output.
package workload

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"time"
)

// The systems and modes a Plan names.
const (
	SystemParley = "parley"
	SystemWaku   = "go-waku"

	ModeBoard  = "board"  // N nodes on one gossip topic
	ModeDirect = "direct" // two nodes, point to point
)

// Plan is one worker run.
type Plan struct {
	System string `json:"system"`
	Mode   string `json:"mode"`
	Round  int    `json:"round"`
	// N nodes, each dialling the later node of its edges: Edges[i] is
	// {from, to} with to < from (Topology).
	N     int      `json:"n"`
	Edges [][2]int `json:"edges"`
	Seed  uint64   `json:"seed"`
	// MsgBytes is the size of every message on the wire: the gossipsub
	// message's data on the board, the envelope (Parley) or the Waku
	// message (lightpush) point to point.
	MsgBytes int `json:"msgBytes"`

	// The board run (RunBoard).
	Settle   time.Duration `json:"settle"`   // after every node has a topic peer
	Idle     time.Duration `json:"idle"`     // the idle baseline
	Messages int           `json:"messages"` // the latency phase
	Interval time.Duration `json:"interval"` // between its messages
	Drain    time.Duration `json:"drain"`    // wait for deliveries after a phase's last publish
	Rates    []float64     `json:"rates"`    // the rate sweep, messages/s network-wide
	Step     time.Duration `json:"step"`     // each rate's publishing time
	OverRate float64       `json:"overRate"` // one publisher's rate in the over-limit phase
	OverFor  time.Duration `json:"overFor"`
	// CPUProfile, when set, is where the worker writes a CPU profile of
	// its latency phase and rate sweep.
	CPUProfile string `json:"cpuProfile,omitempty"`

	// The point-to-point run (RunDirect).
	Sequential int `json:"sequential"` // sent one at a time, each waited for
	Concurrent int `json:"concurrent"` // sent by Senders goroutines at once
	Senders    int `json:"senders"`
}

// Topology is the seeded graph both systems run on: node i dials k
// distinct nodes chosen at random among the nodes before it (all of them
// when there are fewer than k), so the graph is connected and its early
// nodes, like a real network's old ones, hold more connections.
func Topology(n, k int, seed uint64) [][2]int {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	var edges [][2]int
	for i := 1; i < n; i++ {
		for _, j := range r.Perm(i)[:min(k, i)] {
			edges = append(edges, [2]int{i, j})
		}
	}
	return edges
}

// ReadPlan decodes the plan on r (a worker's standard input).
func ReadPlan(r io.Reader) (Plan, error) {
	var p Plan
	if err := json.NewDecoder(r).Decode(&p); err != nil {
		return p, fmt.Errorf("workload: read plan: %w", err)
	}
	if p.N < 2 || p.MsgBytes < 64 {
		return p, fmt.Errorf("workload: plan with %d nodes and %d-byte messages", p.N, p.MsgBytes)
	}
	return p, nil
}

// WriteResult encodes res on w (a worker's standard output), on one line.
func WriteResult(w io.Writer, res Result) error {
	return json.NewEncoder(w).Encode(res)
}
