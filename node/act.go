package node

import (
	"errors"

	"github.com/parleynet/parley/negotiation"
)

// The act runner. Every act of the node's API runs through do, which
// writes the skeleton every act shares once: the node is running, the
// chain is there when the act needs it, the act table (negotiation's
// Thread.May) allows this node the act in the thread as it stands, and the
// act's result is counted once. The bodies (one file per family of acts)
// hold only what is particular to the act; no body writes a role or state
// rule of its own: they are rows of the act table (docs/protocol.md,
// "Local acts").

// Acts the node counts that act in no thread, so that the act table has
// no row for them.
const (
	actPostTask negotiation.Act = "post_task" // an announcement on the task board
	actWithdraw negotiation.Act = "withdraw"  // a withdrawal of what the registry owes this node
)

// chainUse says when an act needs the chain.
type chainUse int

const (
	chainNever  chainUse = iota // the act needs no chain
	chainAlways                 // the act needs the chain in every state (checked before the thread)
	chainFunded                 // the act needs the chain once the task is funded (checked after the table)
)

// actCall is one act as the runner runs it.
type actCall struct {
	// act is the act: its row in the act table and the label it is
	// counted under.
	act negotiation.Act
	// nid is the negotiation the act is in; "" with fresh nil for an act
	// in no thread (post_task, withdraw), which the table does not judge.
	nid string
	// fresh is the thread, not registered yet, of an act that opens one
	// (a proposal, the first answer to an announcement), in place of nid.
	fresh *thread
	// chain says when the act needs the chain.
	chain chainUse
	// args are the act's arguments the table checks.
	args negotiation.ActArgs
	// check checks the act's arguments that need no thread; it runs
	// first, before the chain and the thread are looked at.
	check func() error
	// locked runs under the thread's lock right after the table allowed
	// the act: it reads what the body needs, or is the whole act (of an
	// act that needs no chain: that of a chainFunded act only reads, as
	// the chain is checked after it).
	locked func(t *thread) error
}

// do runs the act c with its body: running, the argument check, the chain
// when the act always needs it, the act table under the thread's lock
// (then c.locked under the same lock, and the chain when the task is
// funded), the body (without the lock: it takes it in closures around its
// own steps, n.with), and the act's metric, once, with the result. A node
// that is not running refuses without counting.
func (n *Node) do(c actCall, body func() (ActResult, error)) (ActResult, error) {
	if err := n.running(); err != nil {
		return ActResult{}, err
	}
	r, err := func() (ActResult, error) {
		if c.check != nil {
			if err := c.check(); err != nil {
				return ActResult{}, err
			}
		}
		if c.chain == chainAlways {
			if err := n.needChain(); err != nil {
				return ActResult{}, err
			}
		}
		funded := false
		if c.nid != "" || c.fresh != nil {
			err := n.onThread(c.nid, c.fresh, func(t *thread) error {
				if err := n.may(t, c.act, c.args); err != nil {
					return err
				}
				funded = t.Th.TaskID() != nil
				if c.locked != nil {
					return c.locked(t)
				}
				return nil
			})
			if err != nil {
				return ActResult{}, err
			}
		}
		if c.chain == chainFunded && funded {
			if err := n.needChain(); err != nil {
				return ActResult{}, err
			}
		}
		if body == nil {
			return ActResult{}, nil
		}
		return body()
	}()
	res := "ok"
	if err != nil {
		if res = string(CodeOf(err)); res == "" {
			res = "error"
		}
	}
	n.m.acts.WithLabelValues(string(c.act), res).Inc()
	return r, err
}

// onThread runs f with the thread locked: fresh (not registered yet), or
// else thread nid.
func (n *Node) onThread(nid string, fresh *thread, f func(*thread) error) error {
	if fresh != nil {
		return fresh.With(func() error { return f(fresh) })
	}
	return n.eng.With(nid, f)
}

// may asks the act table whether this node may do act in t as it stands
// with args (t.mu held): nil, or the table's refusal as the node's *Error
// with the table's code (not_party, state_forbidden, bad_argument, ...),
// wrapping the *negotiation.Error.
func (n *Node) may(t *thread, act negotiation.Act, args negotiation.ActArgs) error {
	return mayAct(t, n.self, act, args)
}

// mayAct is may for the actor self: the node's acts (Node.may) and the PXP
// service's (pxpService.may) ask the table through it.
func mayAct(t *thread, self negotiation.Address, act negotiation.Act, args negotiation.ActArgs) error {
	err := t.Th.May(act, self, args)
	if err == nil {
		return nil
	}
	var ne *negotiation.Error
	if errors.As(err, &ne) {
		return &Error{Code: Code(ne.Code), Msg: "the act table", Err: err}
	}
	return err
}

// needChain returns CodeNoChain on a node without a chain.
func (n *Node) needChain() error {
	if n.client == nil {
		return fail(CodeNoChain, "this node runs without a chain")
	}
	return nil
}
