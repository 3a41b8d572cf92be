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

	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/p2p"
)

// runSender is a sending node in its own process: it queues PARLEY_P2P_COUNT
// envelopes to the peer whose link is in PARLEY_P2P_PEER_LINK, prints
// QUEUED, and keeps delivering until its stdin closes (or it is killed).
func runSender() error {
	dir := os.Getenv(envDir)
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
	sealer, err := identity.NewSealer(identity.DefaultSealerConfig(kr.Inbox(), kr.Link(), kr))
	if err != nil {
		return err
	}
	cfg := testConfig()
	cfg.Inbox, cfg.Link, cfg.Sealer = kr.Inbox(), kr.Link, sealer
	cfg.Outbox = node.NewOutboxStore(led)
	cfg.Handler = &recorder{l: led, last: map[string]uint64{}}
	if b := os.Getenv(envBootstrap); b != "" {
		cfg.Bootstrap = []string{b}
	}
	h, err := p2p.New(cfg)
	if err != nil {
		return err
	}
	if err := h.Start(ctx); err != nil {
		return err
	}
	defer h.Close()
	lb, err := os.ReadFile(os.Getenv(envPeerLink))
	if err != nil {
		return err
	}
	link, err := identity.DecodeLink(lb, time.Now())
	if err != nil {
		return err
	}
	if err := h.AddPeer(link, nil); err != nil {
		return err
	}
	var count int
	fmt.Sscan(os.Getenv(envCount), &count)
	n := &testNode{kr: kr, led: led, host: h, seq: map[string]uint64{}, prev: map[string]negotiation.Hash{}}
	send := h.Send
	if os.Getenv(envRecorded) == "1" {
		send = n.sendRecorded
	}
	nid := newNID()
	fmt.Println("SENDING")
	for range count {
		env, err := n.build(nid, time.Now(), []negotiation.Address{negotiation.Address(link.EVMAddress)})
		if err != nil {
			return err
		}
		if err := send(ctx, env); err != nil {
			return err
		}
	}
	fmt.Printf("QUEUED %d\n", count)
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}

// child is a running sender process.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	exited chan struct{}
}

func startSender(t *testing.T, dir, linkFile, bootstrap string, count int, recorded bool) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"=1", envMode+"=send", envDir+"="+dir,
		envPeerLink+"="+linkFile, envBootstrap+"="+bootstrap, fmt.Sprintf("%s=%d", envCount, count))
	if recorded {
		cmd.Env = append(cmd.Env, envRecorded+"=1")
	}
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
	c := &child{cmd: cmd, stdin: stdin, lines: make(chan string, 16), exited: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
		_ = cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-c.exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-c.exited
		}
	})
	return c
}

func (c *child) await(t *testing.T, prefix string) {
	t.Helper()
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				t.Fatalf("child exited before %q", prefix)
			}
			if strings.HasPrefix(l, prefix) {
				return
			}
		case <-time.After(90 * time.Second):
			t.Fatalf("no %q from the child", prefix)
		}
	}
}

// TestSenderKilledAndRestarted kills a sending node with SIGKILL right
// after its envelopes are queued (with the recipient offline, and with it
// online so that some are in flight), restarts it from the same data
// directory, and checks that the recipient took every envelope exactly
// once. On the node's path (recorded: each envelope's envelope.sent entry
// and outbox item in one commit) it also checks the sender's ledger after
// the kill: no envelope recorded as sent without its outbox item, no item
// of an envelope not recorded.
func TestSenderKilledAndRestarted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	for _, tc := range []struct {
		name        string
		recipientUp bool
		count       int
		recorded    bool
	}{
		{"recipient offline", false, 20, false},
		{"recipient online and slow, killed mid-stream", true, 150, false},
		{"recorded with its outbox item, killed while sending", true, 400, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newNode(t)
			b.rec.delay = 5 * time.Millisecond
			linkFile := filepath.Join(t.TempDir(), "link.json")
			if err := os.WriteFile(linkFile, b.kr.Link().Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			boot := ""
			if tc.recipientUp {
				boot = b.bootstrapAddr()
			} else {
				b.stop()
			}
			dir := t.TempDir()
			first := startSender(t, dir, linkFile, boot, tc.count, tc.recorded)
			var sent []cid.Cid
			if tc.recorded {
				// Killed while it sends: some envelopes are committed,
				// the one in flight may not be.
				first.await(t, "SENDING")
				time.Sleep(50 * time.Millisecond)
			} else {
				first.await(t, "QUEUED")
			}
			if err := first.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			<-first.exited
			if tc.recorded {
				sent = checkSenderLedger(t, dir)
				t.Logf("%d of %d recorded as sent before the kill", len(sent), tc.count)
			}
			if !tc.recipientUp {
				b.start()
				b.rec.delay = 5 * time.Millisecond
			}
			before, _ := b.rec.snapshot()
			if len(before) == tc.count {
				t.Logf("all %d arrived before the kill: nothing was left in flight", tc.count)
			}
			second := startSender(t, dir, linkFile, b.bootstrapAddr(), 0, tc.recorded)
			second.await(t, "QUEUED")
			if tc.recorded {
				// Exactly the envelopes the killed sender recorded.
				eventually(t, "every recorded envelope at the recipient", func() bool {
					e, _ := b.rec.snapshot()
					return len(e) >= len(sent)
				})
				effects, _ := b.rec.snapshot()
				distinct(t, effects, sent)
				_ = second.stdin.Close()
				<-second.exited
				return
			}
			eventually(t, "every envelope at the recipient", func() bool {
				e, _ := b.rec.snapshot()
				return len(e) >= tc.count
			})
			effects, _ := b.rec.snapshot()
			count := map[string]int{}
			for _, c := range effects {
				count[c.String()]++
			}
			if len(count) != tc.count || len(effects) != tc.count {
				t.Fatalf("%d effects of %d distinct envelopes (%d before the restart), want %d once each",
					len(effects), len(count), len(before), tc.count)
			}
			t.Logf("%d of %d delivered before the kill", len(before), tc.count)
			_ = second.stdin.Close()
			<-second.exited
		})
	}
}

// checkSenderLedger opens the ledger a killed sender left in dir, checks
// that each envelope it records as sent has its outbox item and that no
// item is without its envelope, and returns the envelopes recorded.
func checkSenderLedger(t *testing.T, dir string) []cid.Cid {
	t.Helper()
	cfg := ledger.DefaultConfig()
	cfg.Dir = filepath.Join(dir, "ledger")
	led, err := ledger.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := led.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	return sentWithItems(t, led)
}
