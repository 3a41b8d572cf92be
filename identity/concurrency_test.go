package identity

import (
	"fmt"
	"sync"
	"testing"
)

func TestSealerConcurrent(t *testing.T) {
	a, b, c := newParty(t, "alice", KEMX25519), newParty(t, "bob", KEMX25519), newParty(t, "carol", KEMX25519)
	sa, sb, sc := a.sealer(t), b.sealer(t), c.sealer(t)
	var frames sync.Map
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 20 {
				msg := fmt.Sprint(w, "/", i)
				f, err := sa.Seal(t0, negA, []*Link{b.link, c.link}, []byte(msg))
				if err != nil {
					t.Error(err)
					return
				}
				frames.Store(msg, f)
			}
		})
	}
	wg.Wait()
	// Open everything, concurrently and out of order, until each frame
	// opened for both members (a later frame may arrive before its init).
	pending := map[string][]byte{}
	frames.Range(func(k, v any) bool { pending[k.(string)] = v.([]byte); return true })
	for round := 0; len(pending) > 0 && round < 3; round++ {
		var mu sync.Mutex
		var done []string
		var wg sync.WaitGroup
		for msg, f := range pending {
			wg.Go(func() {
				_, e1 := sb.Open(t0, f)
				_, e2 := sc.Open(t0, f)
				for _, err := range []error{e1, e2} {
					if err != nil && CodeOf(err) != CodeUnknownSession {
						t.Error(err)
					}
				}
				if e1 == nil && e2 == nil {
					mu.Lock()
					done = append(done, msg)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		for _, msg := range done {
			delete(pending, msg)
		}
	}
	if len(pending) != 0 {
		t.Fatalf("%d frames never opened", len(pending))
	}
}
