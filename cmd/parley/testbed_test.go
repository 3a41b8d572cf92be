package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleynet/parley/node/testbed"
)

// lockedBuffer is a buffer the testbed writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestTestbedShort runs the testbed's short run (make testbed runs the
// whole): real processes on hosts in network namespaces behind NAT
// routers, a negotiation over the relays, the partition, the move to a
// new address, the store node killed, a bootstrap node gone, every
// ledger verified, and every namespace removed after. It needs root,
// ip and iptables (scripts/install-testbed.sh, run by make test), and
// skips without them.
func TestTestbedShort(t *testing.T) {
	if testing.Short() {
		t.Skip("the testbed runs processes for about a minute")
	}
	if err := testbed.Check(); err != nil {
		t.Skipf("no testbed on this machine: %v", err)
	}
	t.Setenv("PARLEY_TEST_AS_MAIN", "1") // the nodes and the chain are this binary, run as parley
	var out lockedBuffer
	err := runTestbed(t.Context(), &out, testbedOptions{dir: t.TempDir(), prefix: "ptt", short: true, light: true, wait: 90 * time.Second})
	t.Logf("testbed output:\n%s", out.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"passed partition: the worker's link cut mid-negotiation and restored",
		"passed the worker killed and restarted on another host",
		"passed the store node killed: the sender retries",
		"passed a node started while a bootstrap node is gone",
		"passed every ledger verified",
		"every namespace removed (ptt-*)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	net, err := testbed.NewNet("ptt", nil)
	if err != nil {
		t.Fatal(err)
	}
	if left, err := net.Left(); err != nil || len(left) > 0 {
		t.Fatalf("namespaces left: %v (%v)", left, err)
	}
}
