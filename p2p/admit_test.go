package p2p

import (
	"testing"

	"github.com/libp2p/go-libp2p"
	rcmgr "github.com/libp2p/go-libp2p/p2p/host/resource-manager"
)

// TestAdmitPeers checks AdmitPeers against the limits go-libp2p derives
// from the budget, as New derives them: n peers fit, inbound and in all,
// and the connection manager does not trim below them.
func TestAdmitPeers(t *testing.T) {
	limits := rcmgr.DefaultLimits
	libp2p.SetDefaultServiceLimits(&limits)
	def := DefaultConfig()
	if sys := limits.Scale(def.ResourceMemory, def.ResourceFDs).ToPartialLimitConfig().System; int(sys.ConnsInbound) >= 200 {
		t.Fatalf("the defaults already admit %v inbound connections: the test shows nothing", sys.ConnsInbound)
	}
	for _, n := range []int{1, 100, 500, 5000} {
		c := DefaultConfig()
		c.AdmitPeers(n)
		sys := limits.Scale(c.ResourceMemory, c.ResourceFDs).ToPartialLimitConfig().System
		if int(sys.ConnsInbound) < n+16 || int(sys.Conns) < n+16 || int(sys.FD) < n+16 {
			t.Errorf("n=%d: budget %d MiB, %d fds admits %v inbound connections, %v in all, %v fds", n, c.ResourceMemory>>20, c.ResourceFDs, sys.ConnsInbound, sys.Conns, sys.FD)
		}
		if c.ConnLow < min(n, def.ConnLow) || c.ConnHigh < n || c.ConnLow > c.ConnHigh {
			t.Errorf("n=%d: watermarks %d..%d", n, c.ConnLow, c.ConnHigh)
		}
		// Unidentified peers get room to identify, and leave most of the
		// inbound budget to identified ones.
		if c.MaxUnidentified < max(def.MaxUnidentified, n/4) || 2*c.MaxUnidentified > int(sys.ConnsInbound) {
			t.Errorf("n=%d: MaxUnidentified %d of %v inbound connections", n, c.MaxUnidentified, sys.ConnsInbound)
		}
	}
	c := DefaultConfig()
	c.AdmitPeers(0)
	if c.ResourceMemory != def.ResourceMemory || c.ConnHigh != def.ConnHigh {
		t.Error("AdmitPeers(0) changed the defaults")
	}
}

// TestDefaultWatermarks: at the default budget the connection manager
// trims before the resource manager refuses inbound connections: its high
// watermark is below the inbound limit, with room for newcomers between.
func TestDefaultWatermarks(t *testing.T) {
	limits := rcmgr.DefaultLimits
	libp2p.SetDefaultServiceLimits(&limits)
	def := DefaultConfig()
	sys := limits.Scale(def.ResourceMemory, def.ResourceFDs).ToPartialLimitConfig().System
	if def.ConnHigh+16 > int(sys.ConnsInbound) || def.ConnLow >= def.ConnHigh {
		t.Fatalf("watermarks %d..%d beside %v inbound connections", def.ConnLow, def.ConnHigh, sys.ConnsInbound)
	}
}
