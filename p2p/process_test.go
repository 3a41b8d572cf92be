package p2p_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

// The two-process test re-executes the test binary as the second node;
// these variables tell the child what to do.
const (
	envChild     = "PARLEY_P2P_CHILD"
	envDir       = "PARLEY_P2P_DIR"
	envBootstrap = "PARLEY_P2P_BOOTSTRAP"
	envExpect    = "PARLEY_P2P_EXPECT"
	envReplyTo   = "PARLEY_P2P_REPLY_TO"
	envMode      = "PARLEY_P2P_MODE"      // "receive" (default) or "send"
	envPeerLink  = "PARLEY_P2P_PEER_LINK" // send: file with the recipient's link
	envCount     = "PARLEY_P2P_COUNT"     // send: envelopes to queue at start
	envRecorded  = "PARLEY_P2P_RECORDED"  // send: "1" records each as sent with its outbox item in one commit (the node's path)
)

func TestMain(m *testing.M) {
	if os.Getenv(envChild) == "1" {
		run := runChild
		if os.Getenv(envMode) == "send" {
			run = runSender
		}
		if err := run(); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runChild is the second node: it joins through the bootstrap peer, prints
// each envelope it stores, answers with one envelope of its own once it
// has the expected number, and exits when its stdin closes.
func runChild() error {
	dir := os.Getenv(envDir)
	var expect int
	fmt.Sscan(os.Getenv(envExpect), &expect)
	replyTo, err := negotiation.ParseAddress(os.Getenv(envReplyTo))
	if err != nil {
		return err
	}
	kr, err := openKeyring(dir)
	if err != nil {
		return err
	}
	lcfg := ledger.DefaultConfig()
	lcfg.Dir = filepath.Join(dir, "ledger")
	led, err := ledger.New(lcfg)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if err := led.Start(ctx); err != nil {
		return err
	}
	defer led.Close()
	rec := &recorder{l: led, last: map[string]uint64{}}
	got := make(chan string, 64)
	acked := make(chan string, 4)
	sealer, err := identity.NewSealer(identity.DefaultSealerConfig(kr.Inbox(), kr.Link(), kr))
	if err != nil {
		return err
	}
	cfg := testConfig()
	cfg.Inbox, cfg.Link, cfg.Sealer = kr.Inbox(), kr.Link, sealer
	cfg.Outbox = node.NewOutboxStore(led)
	cfg.Handler = p2p.HandlerFunc(func(ctx context.Context, d p2p.Delivery) negotiation.Code {
		code := rec.HandleEnvelope(ctx, d)
		if code == "ok" {
			got <- d.Envelope.CID().String()
		}
		return code
	})
	cfg.OnEvent = func(e p2p.Event) {
		if e.Kind == p2p.EventDelivered {
			acked <- e.CID.String()
		}
	}
	cfg.Bootstrap = []string{os.Getenv(envBootstrap)}
	h, err := p2p.New(cfg)
	if err != nil {
		return err
	}
	if err := h.Start(ctx); err != nil {
		return err
	}
	defer h.Close()
	fmt.Printf("READY %s %s\n", h.Address(), h.ID())
	n := &testNode{kr: kr, seq: map[string]uint64{}, prev: map[string]negotiation.Hash{}}
	timeout := time.After(2 * time.Minute)
	for i := 0; i < expect; i++ {
		select {
		case c := <-got:
			fmt.Printf("GOT %s\n", c)
		case <-timeout:
			return fmt.Errorf("received %d of %d envelopes", i, expect)
		}
	}
	reply, err := n.build(newNID(), time.Now(), []negotiation.Address{replyTo})
	if err != nil {
		return err
	}
	if err := h.Send(ctx, reply); err != nil {
		return err
	}
	select {
	case c := <-acked:
		fmt.Printf("ACKED %s\n", c)
	case <-timeout:
		return fmt.Errorf("reply not acked")
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}

func TestTwoProcessesThroughBootstrap(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a second process")
	}
	a := newNode(t)
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		envChild+"=1", envDir+"="+dir, envBootstrap+"="+a.bootstrapAddr(),
		envExpect+"=3", envReplyTo+"="+a.addr().String())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	next := func(prefix string) string {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("child exited before %s", prefix)
				}
				if strings.HasPrefix(l, prefix+" ") {
					return strings.TrimPrefix(l, prefix+" ")
				}
			case <-time.After(90 * time.Second):
				t.Fatalf("no %s line from the child", prefix)
			}
		}
	}
	ready := strings.Fields(next("READY"))
	bAddr, err := negotiation.ParseAddress(ready[0])
	if err != nil {
		t.Fatal(err)
	}
	// The child dialled A through its bootstrap list; the handshake gave A
	// its verified link.
	eventually(t, "the child's link", func() bool { _, ok := a.host.Link(bAddr); return ok })
	nid := newNID()
	want := map[string]bool{}
	for range 3 {
		env := a.envelope(nid, bAddr)
		if err := a.host.Send(t.Context(), env); err != nil {
			t.Fatal(err)
		}
		want[env.CID().String()] = true
	}
	for range 3 {
		c := next("GOT")
		if !want[c] {
			t.Fatalf("child stored %s, which A did not send (or twice)", c)
		}
		delete(want, c)
	}
	reply := next("ACKED")
	effects, _ := a.rec.snapshot()
	if len(effects) != 1 || effects[0].String() != reply {
		t.Fatalf("A stored %v, want the child's reply %s", effects, reply)
	}
	eventually(t, "A's acks", func() bool { return len(a.ev.of(p2p.EventDelivered)) == 3 })
	_ = stdin.Close()
	select {
	case <-exited:
		if waitErr != nil {
			t.Fatalf("child: %v", waitErr)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("child did not exit")
	}
}
