package gate_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"sync"
	"testing"
	"time"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/node/gate"
)

// memJournal is a Journal in memory.
type memJournal struct {
	mu      sync.Mutex
	entries []gate.Entry
}

func (j *memJournal) AppendApproval(_ context.Context, _ string, body []byte, at time.Time) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries = append(j.entries, gate.Entry{Seq: uint64(len(j.entries) + 1), Body: body, At: at})
	return nil
}

func (j *memJournal) Approvals(context.Context) iter.Seq2[gate.Entry, error] {
	j.mu.Lock()
	es := append([]gate.Entry(nil), j.entries...)
	j.mu.Unlock()
	return func(yield func(gate.Entry, error) bool) {
		for _, e := range es {
			if !yield(e, nil) {
				return
			}
		}
	}
}

func (j *memJournal) events(t *testing.T) []approval.EventKind {
	t.Helper()
	var out []approval.EventKind
	for e := range j.Approvals(t.Context()) {
		var ae approval.AuditEvent
		if err := json.Unmarshal(e.Body, &ae); err != nil {
			t.Fatal(err)
		}
		out = append(out, ae.Event)
	}
	return out
}

// newGate builds a gate over a fresh store and j, decided by d.
func newGate(t *testing.T, j gate.Journal, d gate.Decider) *gate.Gate {
	t.Helper()
	store, err := gate.OpenStore(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := approval.DefaultConfig()
	cfg.RPID = "localhost"
	cfg.Origins = []string{"http://localhost:8080"}
	cfg.UserID = []byte("0123456789abcdef0123")
	cfg.UserName, cfg.UserDisplayName = "parley-test", "Parley test"
	g, err := gate.New(gate.Config{WebAuthn: cfg, Store: store, DataDir: t.TempDir(), Agent: "0xagent", Decider: d, Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return g
}

// TestGateWithoutANode: a gate needs nothing of a node but its Config. An
// approval by the explicit decider is recorded (request, decision,
// consumption) before Authorize returns; a denial is recorded and refused
// with approval_denied, which errors.Is matches by code; a nil gate
// refuses with not_started.
func TestGateWithoutANode(t *testing.T) {
	j := &memJournal{}
	g := newGate(t, j, gate.AutoApprove("test"))
	if _, err := g.Authorize(t.Context(), gate.ActOpenDispute, "", map[string]any{"bond": "1"}, "a test act", "high"); err != nil {
		t.Fatal(err)
	}
	want := []approval.EventKind{approval.EventRequestCreated, approval.EventApproved, approval.EventConsumed}
	if got := j.events(t); len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("audit trail %v, want %v", got, want)
	}
	if trail, err := g.AuditTrail(t.Context(), 0); err != nil || len(trail) != 3 || trail[0].Event != approval.EventConsumed {
		t.Fatalf("AuditTrail: %v %v", trail, err)
	}

	j = &memJournal{}
	deny := gate.DeciderFunc(func(context.Context, gate.ApprovalRequest) (gate.Decision, error) {
		return gate.Decision{Approved: false, Method: "test", By: "a test"}, nil
	})
	g = newGate(t, j, deny)
	_, err := g.Authorize(t.Context(), gate.ActOpenDispute, "", map[string]any{"bond": "1"}, "a test act", "high")
	if gate.CodeOf(err) != gate.CodeApprovalDenied || !errors.Is(err, &gate.Error{Code: gate.CodeApprovalDenied}) || !errors.Is(err, codeOnly("approval_denied")) {
		t.Fatalf("a denial: %v", err)
	}
	if got := j.events(t); len(got) != 2 || got[1] != approval.EventDenied {
		t.Fatalf("audit trail of a denial %v", got)
	}

	var nilGate *gate.Gate
	if _, err := nilGate.Authorize(t.Context(), gate.ActOpenDispute, "", nil, "", ""); !errors.Is(err, gate.ErrNotStarted) {
		t.Fatalf("a nil gate: %v", err)
	}
	if p := nilGate.PendingApprovals(); p != nil {
		t.Fatalf("a nil gate's pending approvals: %v", p)
	}
}

// codeOnly is an error of another package that carries a code, as the
// node's sentinels do.
type codeOnly string

func (c codeOnly) Error() string     { return string(c) }
func (c codeOnly) ErrorCode() string { return string(c) }
