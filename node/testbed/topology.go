package testbed

import (
	"fmt"
	"strings"
)

// The testbed's internet is one bridge in the namespace "wan" with the
// prefix WAN. Its addresses are public ones (go-libp2p treats private
// and documentation ranges as unroutable and would neither advertise them
// to peers as public nor hole-punch to them), yet no packet reaches the
// real one: nothing links the testbed's namespaces to any other.
const (
	WAN       = "11.0.0.0/24"
	wanPrefix = "11.0.0."
	wanNS     = "wan"
	wanBridge = "br0"
)

// Host is one machine of the testbed: a namespace with one interface,
// eth0, at Addr, on the internet (Router empty) or on the LAN behind
// Router.
type Host struct {
	Name   string
	Addr   string
	Router string
	// MAC is a public host's hardware address, fixed by its address
	// (StaticNeighbours).
	MAC string
}

// Public reports whether the host is on the internet, not behind NAT.
func (h *Host) Public() bool { return h.Router == "" }

// Router is a home router: a namespace with wan0 on the internet at WAN
// and lan0, a bridge for its LAN at LAN.1/24, that masquerades the LAN's
// traffic (Linux MASQUERADE keeps a flow's source port where it can) and
// drops what arrives from the internet unasked, as home routers do.
type Router struct {
	Name string
	WAN  string
	LAN  string // the LAN's first three octets, "192.168.1"
}

// Topology is the machines of a testbed run, built on a Net.
type Topology struct {
	net     *Net
	Hosts   map[string]*Host
	Routers map[string]*Router
	order   []string
}

// NewTopology makes the internet on n: the namespace wan with its bridge.
func NewTopology(n *Net) (*Topology, error) {
	t := &Topology{net: n, Hosts: map[string]*Host{}, Routers: map[string]*Router{}}
	if err := n.AddNS(wanNS); err != nil {
		return nil, err
	}
	if err := n.Bridge(wanNS, wanBridge); err != nil {
		return nil, err
	}
	return t, nil
}

// PublicHost adds a host on the internet at 11.0.0.<octet>.
func (t *Topology) PublicHost(name string, octet int) (*Host, error) {
	h := &Host{Name: name, Addr: fmt.Sprintf("%s%d", wanPrefix, octet), MAC: fmt.Sprintf("02:00:0b:00:00:%02x", octet)}
	if err := t.add(name); err != nil {
		return nil, err
	}
	if err := t.net.Link(name, "eth0", h.Addr+"/24", h.MAC, wanNS, portName("w", name), "", wanBridge); err != nil {
		return nil, err
	}
	t.Hosts[name] = h
	return h, nil
}

// AddRouter adds a NAT router at 11.0.0.<octet> for the LAN lan.0/24.
func (t *Topology) AddRouter(name string, octet int, lan string) (*Router, error) {
	r := &Router{Name: name, WAN: fmt.Sprintf("%s%d", wanPrefix, octet), LAN: lan}
	if err := t.add(name); err != nil {
		return nil, err
	}
	n := t.net
	steps := [][]string{
		{"ip", "link", "add", "lan0", "type", "bridge"},
		{"ip", "addr", "add", lan + ".1/24", "dev", "lan0"},
		{"ip", "link", "set", "lan0", "up"},
		{"sysctl", "-qw", "net.ipv4.ip_forward=1"},
		{"iptables", "-t", "nat", "-A", "POSTROUTING", "-o", "wan0", "-j", "MASQUERADE"},
		{"iptables", "-A", "FORWARD", "-i", "wan0", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT"},
		{"iptables", "-A", "FORWARD", "-i", "wan0", "-j", "DROP"},
		{"iptables", "-A", "INPUT", "-i", "wan0", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT"},
		{"iptables", "-A", "INPUT", "-i", "wan0", "-j", "DROP"},
	}
	if err := n.Link(name, "wan0", r.WAN+"/24", "", wanNS, portName("w", name), "", wanBridge); err != nil {
		return nil, err
	}
	for _, s := range steps {
		if err := n.In(name, s...); err != nil {
			return nil, err
		}
	}
	t.Routers[name] = r
	return r, nil
}

// PrivateHost adds a host on router's LAN at <lan>.<octet>, its default
// route through the router.
func (t *Topology) PrivateHost(name, router string, octet int) (*Host, error) {
	r := t.Routers[router]
	if r == nil {
		return nil, fmt.Errorf("testbed: no router %s", router)
	}
	h := &Host{Name: name, Addr: fmt.Sprintf("%s.%d", r.LAN, octet), Router: router}
	if err := t.add(name); err != nil {
		return nil, err
	}
	if err := t.net.Link(name, "eth0", h.Addr+"/24", "", router, portName("l", name), "", "lan0"); err != nil {
		return nil, err
	}
	if err := t.net.In(name, "ip", "route", "add", "default", "via", r.LAN+".1"); err != nil {
		return nil, err
	}
	t.Hosts[name] = h
	return h, nil
}

func (t *Topology) add(name string) error {
	if _, ok := t.Hosts[name]; ok || t.Routers[name] != nil || name == wanNS {
		return fmt.Errorf("testbed: %s twice", name)
	}
	t.order = append(t.order, name)
	return t.net.AddNS(name)
}

// StaticNeighbours gives every public host a permanent neighbour entry
// for every other one, so that none of them resolves another by ARP:
// with a hundred hosts on one software bridge and two cores, ARP's
// broadcasts, copied to every port, overflow the veths' queues and
// connections time out while a neighbour is being resolved (seen with
// the scale run). Hosts on the internet reach each other through routers
// and ARP only for their gateway; this is the nearest a flat bridge gets.
func (t *Topology) StaticNeighbours() error {
	var pub []*Host
	for _, name := range t.order {
		if h := t.Hosts[name]; h != nil && h.Public() {
			pub = append(pub, h)
		}
	}
	for _, h := range pub {
		var lines []string
		for _, o := range pub {
			if o != h {
				lines = append(lines, fmt.Sprintf("neigh replace %s lladdr %s dev eth0 nud permanent", o.Addr, o.MAC))
			}
		}
		if err := t.net.Batch(h.Name, lines); err != nil {
			return err
		}
	}
	return nil
}

// Cut drops every packet in and out of host's eth0, as if its cable were
// pulled (the link stays up, so its routes stay: restoring needs nothing
// but Restore).
func (t *Topology) Cut(host string) error {
	for _, s := range [][]string{
		{"iptables", "-I", "INPUT", "1", "-i", "eth0", "-j", "DROP"},
		{"iptables", "-I", "OUTPUT", "1", "-o", "eth0", "-j", "DROP"},
	} {
		if err := t.net.In(host, s...); err != nil {
			return err
		}
	}
	return nil
}

// Restore undoes Cut.
func (t *Topology) Restore(host string) error {
	for _, s := range [][]string{
		{"iptables", "-D", "INPUT", "-i", "eth0", "-j", "DROP"},
		{"iptables", "-D", "OUTPUT", "-o", "eth0", "-j", "DROP"},
	} {
		if err := t.net.In(host, s...); err != nil {
			return err
		}
	}
	return nil
}

// Describe is the topology, one line a machine.
func (t *Topology) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "internet %s (bridge in namespace %s)\n", WAN, t.net.NS(wanNS))
	for _, name := range t.order {
		if r := t.Routers[name]; r != nil {
			fmt.Fprintf(&b, "  router %-10s %-12s NAT for %s.0/24\n", r.Name, r.WAN, r.LAN)
			continue
		}
		h := t.Hosts[name]
		where := "public"
		if !h.Public() {
			where = "behind " + h.Router
		}
		fmt.Fprintf(&b, "  host   %-10s %-12s %s\n", h.Name, h.Addr, where)
	}
	return b.String()
}

// portName names a veth end in a bridge's namespace (at most 15 bytes).
func portName(side, host string) string {
	n := side + "-" + host
	if len(n) > 15 {
		n = n[:15]
	}
	return n
}
