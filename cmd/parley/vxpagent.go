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

	"github.com/parleynet/parley/approval"
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
// approval's arguments and receipt.
func approveAgentGrant(ctx context.Context, p demo.Party, clientID, userCode string, wait time.Duration) (map[string]any, *approval.IntentReceipt, error) {
	deadline := time.Now().Add(wait)
	for {
		reqs, err := p.API.Approvals(ctx)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range reqs {
			if r.Act != node.ActVXPGrant || r.Request.Action.Tool != node.ToolVXPGrant || r.Request.Action.Target != clientID {
				continue
			}
			var args map[string]any
			if err := json.Unmarshal(r.Request.Action.Arguments, &args); err != nil {
				return nil, nil, err
			}
			if args["user_code"] != userCode {
				continue
			}
			rc, err := approveWith(ctx, p, r.Request.RequestID)
			return args, rc, err
		}
		if time.Now().After(deadline) {
			return nil, nil, fmt.Errorf("no grant to %s with user code %s waited at %s within %s", clientID, userCode, p.Name, wait)
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// approveWith approves p's pending request id with p's software key and
// keeps the key's new counter.
func approveWith(ctx context.Context, p demo.Party, id string) (*approval.IntentReceipt, error) {
	rc, err := p.API.Approve(ctx, id, p.Key)
	if p.Saved != nil {
		if serr := p.Saved(); serr != nil && err == nil {
			err = serr
		}
	}
	return rc, err
}

// approveAct waits for p's pending act on negotiation nid and approves it
// with p's software key.
func approveAct(ctx context.Context, p demo.Party, act node.Act, nid string, wait time.Duration) (*approval.IntentReceipt, error) {
	deadline := time.Now().Add(wait)
	for {
		reqs, err := p.API.Approvals(ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range reqs {
			if r.Act == act && r.Request.Action.Target == nid {
				return approveWith(ctx, p, r.Request.RequestID)
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no %s of %s waited at %s within %s", act, nid, p.Name, wait)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// passkeyLine is how the demo prints an approval a software key gave.
func passkeyLine(p demo.Party, act node.Act, rc *approval.IntentReceipt) string {
	kind := "passkey"
	if rc.Authenticator != nil && rc.Authenticator.Software {
		kind = "software key"
	}
	return fmt.Sprintf("    %s's passkey: %s approved (%s, intent %s…)\n", p.Name, act, kind, rc.IntentHash[:16])
}

// shortRef abbreviates an id for a line of the demo.
func shortRef(s string) string {
	if len(s) > 22 {
		return s[:12] + "…" + s[len(s)-6:]
	}
	return s
}

// demoOutsideAgent is the demo's task 3: scripts/vxp-agent.mjs acts for
// the worker's principal on the negotiation through the worker's VXP
// endpoint; the grant and the settlement it asks for are approved with the
// worker's software key (the devnet's passkey of its principal).
func demoOutsideAgent(d *devnetProcess, script, nodeBin string, wait time.Duration) demo.OutsideAgent {
	return func(ctx context.Context, nid string, story demo.Story) error {
		worker := d.parties["worker"]
		a, err := startOutsideAgent(ctx, script, nodeBin, filepath.Join(d.dir, "devnet.json"), "worker", nid, wait)
		if err != nil {
			return err
		}
		var clientID string
		proposed, succeeded, verified := 0, 0, 0
		for {
			s, err := a.next(3 * wait)
			if err != nil {
				return err
			}
			switch s.Step {
			case "discovered":
				story.Line("agent (Node.js: oauth4webapi, jose) discovers VXP", "vxp.json, RFC 8414", "", "")
				story.Printf("    the worker's issuer %s\n", s.str("issuer"))
			case "identified":
				clientID = s.str("client_id")
				story.Printf("    client_id %s (its Client ID Metadata Document), DPoP key %s\n", clientID, shortRef(s.str("dpop_jkt")))
			case "token":
				story.Line("agent's token: jwt-bearer for the worker, DPoP", "private_key_jwt", "", "no grant yet")
			case "authorization_required":
				story.Line("agent asks to respond to the offer: 202", "authorization_required", s.str("request_id"), "offer.respond")
			case "device_authorization":
				story.Line("agent's device authorization (RFC 8628)", "user code "+s.str("user_code"), "", "at "+s.str("verification_uri"))
				_, rc, err := approveAgentGrant(ctx, worker, clientID, s.str("user_code"), wait)
				if err != nil {
					return fmt.Errorf("approving the grant: %w", err)
				}
				story.Printf("%s", passkeyLine(worker, node.ActVXPGrant, rc))
			case "granted":
				story.Line("the principal grants offer.respond on this task", "RAR grant", s.str("relationship_id"), "")
			case "proposed":
				proposed++
				if proposed == 1 {
					story.Line("same Idempotency-Key re-evaluated: revision 1", "proposed", s.str("proposal_id"), "accept the offer")
				} else {
					story.Line("agent asks to accept its own counter-offer", "proposed", s.str("proposal_id"), "signs the settlement")
				}
			case "countered":
				story.Line("agent counters: revision 2, a tenth more", "counter", s.str("proposal_id"), "")
			case "terms_changed":
				story.Line("agent accepts revision 1 after its counter", "409 terms_changed", s.str("proposal_id"), "nothing ran")
			case "accepted":
				story.Line("agent accepts revision 2", "accepted", s.str("proposal_id"), "")
			case "succeeded":
				succeeded++
				what := "TaskCounterOffer"
				if succeeded == 2 {
					what = "TaskAcceptance"
				}
				ref := ""
				if effs, _ := s.Data["effects"].([]any); len(effs) > 0 {
					ref, _ = effs[0].(map[string]any)["cid"].(string)
				}
				story.Line("succeeded once the poster acknowledged it", what, ref, "read back")
			case "proof_verified":
				verified++
				story.Line("agent verifies the proof with the issuer's keys", "vxp-proof+jwt", s.str("kid"), fmt.Sprintf("request %d", verified))
			case "waiting_human":
				story.Line("signing the settlement waits for the principal", "waiting_human", s.str("request_id"), "approved_by \"user\" approves nothing")
				rc, err := approveAct(ctx, worker, node.ActSignSettlement, nid, wait)
				if err != nil {
					return fmt.Errorf("approving the settlement: %w", err)
				}
				story.Printf("%s", passkeyLine(worker, node.ActSignSettlement, rc))
			case "revoked":
				story.Line("agent revokes its relationship: token refused", fmt.Sprintf("%v %s", s.Data["status"], s.str("code")), "", "")
			case "done":
				return a.wait()
			}
		}
	}
}

// agentScriptFor finds the outside agent for the demo: from the working
// directory, else from the binary's (bin/parley in a clone).
func agentScriptFor() (script, nodeBin string, err error) {
	wd, _ := os.Getwd()
	if script, nodeBin, err = findAgentScript(wd); err == nil {
		return script, nodeBin, nil
	}
	if exe, xerr := os.Executable(); xerr == nil {
		if s, n, xerr := findAgentScript(filepath.Dir(exe)); xerr == nil {
			return s, n, nil
		}
	}
	return "", "", err
}
