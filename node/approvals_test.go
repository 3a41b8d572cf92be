package node_test

import (
	"testing"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/gate"
)

// TestGateWordsMatchTheProtocol: the gate, which does not import
// negotiation, names how words arrived and the native token by the
// protocol's own values.
func TestGateWordsMatchTheProtocol(t *testing.T) {
	for _, c := range []struct{ gate, wire string }{
		{gate.ViaWeb, string(negotiation.ViaWeb)},
		{gate.ViaAPI, string(negotiation.ViaAPI)},
		{gate.ViaMCP, string(negotiation.ViaMCP)},
		{gate.NativeToken, negotiation.Address{}.String()},
	} {
		if c.gate != c.wire {
			t.Errorf("the gate says %q, the protocol %q", c.gate, c.wire)
		}
	}
}
