package vxp

import (
	"testing"

	pure "github.com/parleynet/parley/vxp"
)

// TestNewRefusesWhatItCannotRun: vxp.json never offers an operation of the
// catalogue the request manager does not run.
func TestNewRefusesWhatItCannotRun(t *testing.T) {
	for _, c := range []struct {
		caps []string
		code pure.Code
	}{
		{nil, ""},
		{[]string{"negotiation.read", "offer.respond", "board.read"}, ""},
		{[]string{"offer.respond", "task.post"}, pure.CodeUnknownCapability},
		{[]string{"escrow.fund"}, pure.CodeUnknownCapability},
		{[]string{"no.such"}, pure.CodeUnknownCapability},
	} {
		_, err := New(nil, Config{PublicURL: "https://node.example", Capabilities: c.caps})
		if pure.CodeOf(err) != c.code {
			t.Errorf("%v: %v, want %q", c.caps, err, c.code)
		}
	}
}
