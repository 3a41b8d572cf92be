package gate_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/parleynet/parley/node/gate"
)

// TestAskDecided: AskDecided tells its caller how the request was decided
// (a VXP device flow answers access_denied or the grant by it), true only
// for an approval the gate consumed, and then runs only after that.
func TestAskDecided(t *testing.T) {
	for _, c := range []struct {
		name    string
		approve bool
		want    []string
	}{
		{"approved", true, []string{"decided true", "then"}},
		{"denied", false, []string{"decided false"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := gate.DeciderFunc(func(context.Context, gate.ApprovalRequest) (gate.Decision, error) {
				return gate.Decision{Approved: c.approve, Method: "test"}, nil
			})
			g := newGate(t, &memJournal{}, d)
			var mu sync.Mutex
			var seen []string
			note := func(s string) {
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, s)
			}
			args := map[string]any{"user_code": "BCDF-GHJK", "authorization_details": "[]", "resource": "https://node.example/vxp/v1", "dpop_jkt": "x"}
			_, _ = g.AskDecided(gate.ActVXPGrant, "https://agent.example/agent.json", args, "grant", "high",
				func(context.Context) error { note("then"); return nil },
				func(approved bool) { note(fmt.Sprintf("decided %t", approved)) })
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				mu.Lock()
				n := len(seen)
				mu.Unlock()
				if n >= len(c.want) || time.Now().After(deadline) {
					break
				}
			}
			time.Sleep(20 * time.Millisecond) // nothing more comes

			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(seen, c.want) {
				t.Fatalf("saw %v, want %v", seen, c.want)
			}
		})
	}
}
