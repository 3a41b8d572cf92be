package demo

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestWalkthrough(t *testing.T) {
	var out bytes.Buffer
	if err := Walkthrough(&out, time.Date(2026, 6, 13, 12, 0, 0, 0, time.UTC)); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"TaskProposal", "TaskCounterOffer", "agreed", "TASK_STATE_AUTH_REQUIRED", "chain: task_funded", "completed  TASK_STATE_COMPLETED"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("walkthrough lacks %q:\n%s", want, out.String())
		}
	}
}
