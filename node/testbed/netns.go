package testbed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Net is a set of network namespaces that one testbed run made: every
// namespace it creates is named with its prefix, and Close deletes them
// all (the veth pairs inside go with them). Nothing it builds is linked
// to the namespace the run started in, so no packet of a testbed host can
// leave the namespaces it made.
type Net struct {
	prefix string
	log    func(format string, args ...any)

	mu  sync.Mutex
	nss []string // created, in order
}

// ErrNotRoot is returned where the testbed needs what only root may do
// (network namespaces, iptables).
var ErrNotRoot = errors.New("testbed: network namespaces need root (run as root, or with sudo)")

// Check reports what the testbed needs and this machine lacks: root, the
// ip command (iproute2) and iptables.
func Check() error {
	if os.Geteuid() != 0 {
		return ErrNotRoot
	}
	for _, tool := range []string{"ip", "iptables"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("testbed: %s is not installed (scripts/install-testbed.sh installs iproute2 and iptables)", tool)
		}
	}
	return nil
}

// NewNet returns an empty Net whose namespaces are named prefix-<name>.
// It first deletes the namespaces an earlier run with the same prefix
// left behind (a run killed before its Close).
func NewNet(prefix string, log func(format string, args ...any)) (*Net, error) {
	if log == nil {
		log = func(string, ...any) {}
	}
	if err := Check(); err != nil {
		return nil, err
	}
	n := &Net{prefix: prefix, log: log}
	stale, err := listNamespaces()
	if err != nil {
		return nil, err
	}
	for _, ns := range stale {
		if strings.HasPrefix(ns, prefix+"-") {
			log("removing namespace %s left by an earlier run", ns)
			if err := run("ip", "netns", "delete", ns); err != nil {
				return nil, err
			}
		}
	}
	return n, nil
}

func listNamespaces() ([]string, error) {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return nil, fmt.Errorf("testbed: ip netns list: %w", err)
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names, nil
}

// NS returns the full name of the namespace called name.
func (n *Net) NS(name string) string { return n.prefix + "-" + name }

// AddNS creates the namespace name with its loopback up.
func (n *Net) AddNS(name string) error {
	ns := n.NS(name)
	if err := run("ip", "netns", "add", ns); err != nil {
		return err
	}
	n.mu.Lock()
	n.nss = append(n.nss, ns)
	n.mu.Unlock()
	return n.In(name, "ip", "link", "set", "lo", "up")
}

// In runs a command inside the namespace name and returns its error with
// what it printed.
func (n *Net) In(name string, args ...string) error {
	return run("ip", append([]string{"netns", "exec", n.NS(name)}, args...)...)
}

// Bridge creates a bridge dev inside the namespace name, up.
func (n *Net) Bridge(name, dev string) error {
	if err := n.In(name, "ip", "link", "add", dev, "type", "bridge"); err != nil {
		return err
	}
	return n.In(name, "ip", "link", "set", dev, "up")
}

// Link creates a veth pair between namespace a (device aDev, address
// aAddr in CIDR form, empty for none; hardware address aMAC, empty for a
// random one) and namespace b (device bDev, address bAddr); where bridge
// is not empty, bDev is enslaved to that bridge in b instead of getting
// an address.
func (n *Net) Link(a, aDev, aAddr, aMAC, b, bDev, bAddr, bridge string) error {
	args := []string{"link", "add", aDev}
	if aMAC != "" {
		args = append(args, "address", aMAC)
	}
	args = append(args, "netns", n.NS(a), "type", "veth", "peer", "name", bDev, "netns", n.NS(b))
	if err := run("ip", args...); err != nil {
		return err
	}
	if aAddr != "" {
		if err := n.In(a, "ip", "addr", "add", aAddr, "dev", aDev); err != nil {
			return err
		}
	}
	if err := n.In(a, "ip", "link", "set", aDev, "up"); err != nil {
		return err
	}
	if bridge != "" {
		if err := n.In(b, "ip", "link", "set", bDev, "master", bridge); err != nil {
			return err
		}
	} else if bAddr != "" {
		if err := n.In(b, "ip", "addr", "add", bAddr, "dev", bDev); err != nil {
			return err
		}
	}
	return n.In(b, "ip", "link", "set", bDev, "up")
}

// Batch runs ip's commands (one a line, as `ip -batch` reads them) in
// the namespace name, in one process.
func (n *Net) Batch(name string, lines []string) error {
	c := exec.Command("ip", "-n", n.NS(name), "-batch", "-")
	c.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("testbed: ip -n %s -batch: %w: %s", n.NS(name), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Close deletes every namespace the Net made, the last first, and
// returns the first error.
func (n *Net) Close() error {
	n.mu.Lock()
	nss := n.nss
	n.nss = nil
	n.mu.Unlock()
	var first error
	for i := len(nss) - 1; i >= 0; i-- {
		if err := run("ip", "netns", "delete", nss[i]); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Left returns the namespaces with the Net's prefix that exist now: none
// after Close.
func (n *Net) Left() ([]string, error) {
	all, err := listNamespaces()
	if err != nil {
		return nil, err
	}
	var left []string
	for _, ns := range all {
		if strings.HasPrefix(ns, n.prefix+"-") {
			left = append(left, ns)
		}
	}
	return left, nil
}

// Command returns a command that runs inside the namespace name.
func (n *Net) Command(name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", n.NS(name)}, args...)...)
}

// Dialer returns a DialContext that opens its sockets inside the
// namespace name, so that this process reaches a testbed host's loopback
// (its API) without any link between that namespace and this one: the
// socket is created on a thread switched into the namespace for that one
// call; once created it stays in that namespace.
func (n *Net) Dialer(name string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	path := filepath.Join("/run/netns", n.NS(name))
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		type result struct {
			c   net.Conn
			err error
		}
		ch := make(chan result, 1)
		go func() {
			c, err := dialIn(ctx, path, network, addr)
			ch <- result{c, err}
		}()
		r := <-ch
		return r.c, r.err
	}
}

// dialIn dials from inside the namespace at path, on a locked thread. If
// the thread cannot be switched back, it stays locked and the runtime
// ends it with the goroutine, so no other goroutine runs in the
// namespace by mistake.
func dialIn(ctx context.Context, path, network, addr string) (net.Conn, error) {
	runtime.LockOSThread()
	self, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	defer self.Close()
	target, err := os.Open(path)
	if err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("testbed: entering %s: %w", path, err)
	}
	var d net.Dialer
	c, derr := d.DialContext(ctx, network, addr)
	if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
		// Keep the thread locked: it dies with this goroutine.
		if c != nil {
			c.Close()
		}
		return nil, fmt.Errorf("testbed: leaving %s: %w", path, err)
	}
	runtime.UnlockOSThread()
	return c, derr
}

func run(name string, args ...string) error {
	var out bytes.Buffer
	c := exec.Command(name, args...)
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		return fmt.Errorf("testbed: %s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return nil
}
