package node_test

import (
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/parleynet/parley/contracts/testbindings"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/nodetest"
)

// storyCourt is an arbitrator contract (TestCourt) of a story and the
// node whose address operates it.
type storyCourt struct {
	addr common.Address
	by   *actor
}

// onchain runs the transcript commands of the chain's registries and of
// contract arbitrators (transcript_test.go lists them).
func (s *story) onchain(cmd string, a args) []string {
	t, ctx := s.t, s.t.Context()
	switch cmd {
	case "link":
		n := s.actor(a, 0)
		c, err := n.n.LookupLink(ctx, s.addrOf(a.get("of", "")))
		if err != nil {
			return []string{"refused " + refusalCode(err)}
		}
		return []string{"ok " + string(c.State)}
	case "relink":
		n := s.actor(a, 0)
		addr := n.n.Addrs()[0].String()
		if err := n.n.Close(); err != nil {
			t.Fatal(err)
		}
		k, err := identity.Open(nodetest.KeyConfig(n.cfg.DataDir), nodetest.Passphrase)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := k.IssueLink(time.Now().Add(2 * time.Second)); err != nil {
			t.Fatal(err)
		}
		n.cfg.P2P.Listen = []string{addr[:strings.Index(addr, "/p2p/")]}
		n.cfg.P2P.Bootstrap = nil
		for _, other := range s.order {
			if o := s.nodes[other]; o.up && o != n {
				nodetest.Bootstrap(&n.cfg, o.n)
			}
		}
		n.n = nodetest.Start(t, n.cfg, node.WithGate(n.gate))
		events, stop := n.n.Subscribe(4096)
		t.Cleanup(stop)
		go func() {
			for ev := range events {
				n.mu.Lock()
				n.events = append(n.events, ev)
				n.last = time.Now()
				n.mu.Unlock()
			}
		}()
		fresh := n.n.Link().Hash()
		for _, other := range s.order {
			if o := s.nodes[other]; o.up && o != n {
				nodetest.Eventually(t, o.name+" to hold "+n.name+"'s new link", func() bool {
					l, ok := o.n.Host().Link(n.n.Address())
					return ok && l.Hash() == fresh
				})
			}
		}
		return []string{"ok"}
	case "scope":
		n := s.actor(a, 0)
		c, err := n.n.CheckScope(ctx, s.ann(a))
		switch {
		case err != nil:
			return []string{"refused " + refusalCode(err)}
		case c == nil:
			return []string{"ok none"}
		}
		return []string{"ok " + string(c.State)}
	case "court":
		if len(a.pos) != 1 || s.courts[a.pos[0]] != nil || s.nodes[a.pos[0]] != nil {
			badScript("court NAME by=NODE: a new name")
		}
		by := s.named(a.get("by", ""))
		fee, ok := new(big.Int).SetString(a.get("fee", "12345"), 10)
		if !ok {
			badScript("fee=%q", a.get("fee", ""))
		}
		bin, err := hexutil.Decode(testbindings.TestCourtMetaData.Bin)
		if err != nil {
			t.Fatal(err)
		}
		rc, err := by.n.Chain().Transact(ctx, nil, nil, append(bin, testbindings.NewTestCourt().PackConstructor(fee)...))
		if err != nil {
			t.Fatal(err)
		}
		s.courts[a.pos[0]] = &storyCourt{addr: rc.ContractAddress, by: by}
		s.names.set(strings.ToLower(rc.ContractAddress.Hex()), a.pos[0])
		return []string{"ok"}
	case "court-rule":
		if len(a.pos) != 1 || s.courts[a.pos[0]] == nil {
			badScript("court-rule NAME: no court %v", a.pos)
		}
		c := s.courts[a.pos[0]]
		r, err1 := strconv.ParseInt(a.get("ruling", ""), 10, 64)
		id, err2 := strconv.ParseInt(a.get("id", "0"), 10, 64)
		if err1 != nil || err2 != nil {
			badScript("ruling=%q id=%q", a.get("ruling", ""), a.get("id", ""))
		}
		data := testbindings.NewTestCourt().PackGiveRuling(big.NewInt(id), big.NewInt(r))
		if _, err := c.by.n.Chain().Transact(ctx, &c.addr, nil, data); err != nil {
			return []string{"refused chain"}
		}
		return []string{"ok"}
	}
	badScript("unknown command %q", cmd)
	return nil
}
