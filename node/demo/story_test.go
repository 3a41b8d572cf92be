package demo

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := Run(t.Context(), &out, Options{DataDir: t.TempDir(), Now: time.Now()}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"agreed", "the contract computes the same", "[task_funded]", "completed", "[ruled]", "resolved", "worker withdraws", "balances after"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
}
