package node_test

import (
	"testing"
	"time"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
)

// TestCloseWhileAGoroutineActs: Close waits for every goroutine the node
// spawned while it holds the lifecycle lock; one that calls a public
// method meanwhile (a background identity look-up, a timeout exit the
// policy takes) is answered not_started at once instead of waiting for
// that lock, so Close returns.
func TestCloseWhileAGoroutineActs(t *testing.T) {
	n := nodetest.New(t, "closing", nil)
	called := make(chan error, 1)
	node.SpawnForTest(n, func() { _, err := n.Fund(t.Context(), "00000000-0000-4000-8000-000000000000"); called <- err })
	done := make(chan error, 1)
	go func() { done <- n.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close waits for a goroutine that waits for Close's lock")
	}
	if err := <-called; node.CodeOf(err) != node.CodeNotStarted {
		t.Fatalf("an act during Close: %v, want not_started", err)
	}
}
