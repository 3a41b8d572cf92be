package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/demo"
)

// AgentScript is the outside agent of VXP's flow: a Node.js program
// written from the RFCs with npm oauth4webapi and jose (pinned in
// package-lock.json), no Parley code.
const AgentScript = "scripts/vxp-agent.mjs"

// agentStep is one JSON line of the outside agent: its step and the
// rest of its members.
type agentStep struct {
	Step string
	Data map[string]any
}

// str returns member k of the step as a string.
func (s agentStep) str(k string) string {
	v, _ := s.Data[k].(string)
	return v
}

// outsideAgent is a running scripts/vxp-agent.mjs.
type outsideAgent struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	steps  chan agentStep
	stderr *strings.Builder
	mu     sync.Mutex
	done   chan error
}

// findAgentScript returns the outside agent's path and the node binary
// when both are there with the npm packages it imports installed
// (node_modules beside scripts/: `make npm`), searching from dir upwards.
func findAgentScript(dir string) (script, nodeBin string, err error) {
	if nodeBin, err = exec.LookPath("node"); err != nil {
		return "", "", errors.New("node (Node.js) is not installed")
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return "", "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		s := filepath.Join(d, filepath.FromSlash(AgentScript))
		if _, err := os.Stat(s); err == nil {
			for _, pkg := range []string{"oauth4webapi", "jose"} {
				if _, err := os.Stat(filepath.Join(d, "node_modules", pkg, "package.json")); err != nil {
					return "", "", fmt.Errorf("the npm package %s is not installed beside %s (make npm)", pkg, s)
				}
			}
			return s, nodeBin, nil
		}
		if filepath.Dir(d) == d {
			return "", "", fmt.Errorf("%s not found from %s up", AgentScript, dir)
		}
	}
}

// startOutsideAgent runs the outside agent against role's node of the
// devnet whose state is devnetJSON, on negotiation nid, pausing after the
// steps pauseAt until resume.
func startOutsideAgent(ctx context.Context, script, nodeBin, devnetJSON, role, nid string, wait time.Duration, pauseAt ...string) (*outsideAgent, error) {
	args := []string{script, "--devnet", devnetJSON, "--role", role, "--negotiation", nid, "--wait", fmt.Sprint(int(wait / time.Second))}
	if len(pauseAt) > 0 {
		args = append(args, "--pause-at", strings.Join(pauseAt, ","))
	}
	a := &outsideAgent{cmd: exec.CommandContext(ctx, nodeBin, args...), steps: make(chan agentStep, 64), stderr: &strings.Builder{}, done: make(chan error, 1)}
	a.cmd.Stderr = lockedWriter{&a.mu, a.stderr}
	var err error
	if a.stdin, err = a.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := a.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := a.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", script, err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"step": "unparsed", "line": sc.Text()}
			}
			st, _ := m["step"].(string)
			a.steps <- agentStep{Step: st, Data: m}
		}
		close(a.steps)
		a.done <- a.cmd.Wait()
	}()
	return a, nil
}

// next returns the agent's next step, or an error when it ended or wait
// passed first.
func (a *outsideAgent) next(wait time.Duration) (agentStep, error) {
	select {
	case s, ok := <-a.steps:
		if !ok {
			return agentStep{}, fmt.Errorf("the outside agent ended: %v\n%s", <-a.done, a.logs())
		}
		if s.Step == "failed" || s.Step == "unparsed" {
			b, _ := json.Marshal(s.Data)
			return s, fmt.Errorf("the outside agent failed: %s\n%s", b, a.logs())
		}
		return s, nil
	case <-time.After(wait):
		return agentStep{}, fmt.Errorf("the outside agent said nothing for %s\n%s", wait, a.logs())
	}
}

// resume lets a paused agent go on.
func (a *outsideAgent) resume() error {
	_, err := io.WriteString(a.stdin, "go\n")
	return err
}

// wait waits for the agent's exit.
func (a *outsideAgent) wait() error {
	for range a.steps {
	}
	return <-a.done
}

func (a *outsideAgent) logs() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stderr.String()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// approveAgentGrant waits for p's pending grant (tool parley.vxp.grant)
// to clientID with userCode and approves it with p's software key, as a
// person would on the node's /device page with a passkey. It returns the
// approval's arguments.
func approveAgentGrant(ctx context.Context, p demo.Party, clientID, userCode string, wait time.Duration) (map[string]any, error) {
	deadline := time.Now().Add(wait)
	for {
		reqs, err := p.API.Approvals(ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range reqs {
			if r.Act != node.ActVXPGrant || r.Request.Action.Tool != node.ToolVXPGrant || r.Request.Action.Target != clientID {
				continue
			}
			var args map[string]any
			if err := json.Unmarshal(r.Request.Action.Arguments, &args); err != nil {
				return nil, err
			}
			if args["user_code"] != userCode {
				continue
			}
			_, err := p.API.Approve(ctx, r.Request.RequestID, p.Key)
			if p.Saved != nil {
				if serr := p.Saved(); serr != nil && err == nil {
					err = serr
				}
			}
			return args, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no grant to %s with user code %s waited at %s within %s", clientID, userCode, p.Name, wait)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// approveAct waits for p's pending act on negotiation nid and approves it
// with p's software key.
func approveAct(ctx context.Context, p demo.Party, act node.Act, nid string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		reqs, err := p.API.Approvals(ctx)
		if err != nil {
			return err
		}
		for _, r := range reqs {
			if r.Act != act || r.Request.Action.Target != nid {
				continue
			}
			_, err := p.API.Approve(ctx, r.Request.RequestID, p.Key)
			if p.Saved != nil {
				if serr := p.Saved(); serr != nil && err == nil {
					err = serr
				}
			}
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no %s of %s waited at %s within %s", act, nid, p.Name, wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
