package node_test

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// The transcript harness's waits and inspections (transcript_test.go
// runs the commands): stabilize, the views it prints, and the names it
// gives to what the nodes report.

// stabilize waits until every running node has processed everything in
// flight: no outbox holds an envelope (but held[node] envelopes in that
// node's outbox, which wait for an act of another node: a replacement's
// ReplacementContext to the new worker, retried until the chain made it),
// no thread waits for facts, the poster and the arbitrator fetched every
// delivery, every node a thread names as a party holds it and the
// parties agree on it (state, log length, task, dispute, ruling,
// milestones, deliveries and their chain proofs: a chain fact one node
// applied the others applied too), every announcement is on every board
// (published again while it is not), and no node reported an event for a
// quarter of a second.
func (s *story) stabilize(held map[string]int) {
	const quiet = 250 * time.Millisecond
	deadline := time.Now().Add(60 * time.Second)
	lastAnnounce := time.Now()
	for {
		why := s.unsettled(held)
		if why == "" {
			last := time.Time{}
			for _, name := range s.order {
				n := s.nodes[name]
				n.mu.Lock()
				if n.last.After(last) {
					last = n.last
				}
				n.mu.Unlock()
			}
			if time.Since(last) >= quiet {
				return
			}
			why = "events still arriving"
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("stabilize: still unsettled after a minute: %s", why)
		}
		if strings.HasPrefix(why, "announcement") && time.Since(lastAnnounce) > 1500*time.Millisecond {
			// Gossip keeps no history: publish again in case the mesh
			// was not formed yet (an operator would, too).
			for h, by := range s.own {
				_ = s.nodes[by].n.Announce(s.t.Context(), h)
			}
			lastAnnounce = time.Now()
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fingerprint is what the parties of a thread must agree on.
func fingerprint(v node.ThreadView) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d %s %s %v %v", v.State, len(v.Log), v.TaskID, v.DisputeID, v.Worker, v.Arbitrator)
	if v.Ruling != nil {
		fmt.Fprintf(&b, " ruling=%d", *v.Ruling)
	}
	for _, m := range v.Milestones {
		fmt.Fprintf(&b, " %s", m.Amount.String())
	}
	for _, d := range v.Deliveries {
		fmt.Fprintf(&b, " m%d:%s:%s:%v", d.Milestone, d.ProofCID, d.ChainProof, d.Accepted)
	}
	for _, p := range v.Payments {
		fmt.Fprintf(&b, " paid m%d:%s", p.Milestone, p.Released)
	}
	return b.String()
}

// unsettled says what is still in flight, "" when nothing is.
func (s *story) unsettled(held map[string]int) string {
	views := map[string]map[string]node.ThreadView{} // nid -> node -> view
	for _, name := range s.order {
		n := s.nodes[name]
		if !n.up {
			continue
		}
		st, err := n.n.Status()
		if err != nil {
			return name + ": " + err.Error()
		}
		if st.Outbox != held[name] {
			return fmt.Sprintf("%s's outbox holds %d, not %d", name, st.Outbox, held[name])
		}
		if k := n.n.ChainSubmissionsForTest(); k > 0 {
			return fmt.Sprintf("%s submits %d co-signed acts on chain", name, k)
		}
		for _, v := range n.n.Threads() {
			if v.Pending > 0 {
				return fmt.Sprintf("%s's thread %s waits for %d facts", name, v.NegotiationID, v.Pending)
			}
			for _, d := range v.Deliveries {
				// The poster and the arbitrator fetch every delivery; a
				// new worker does not fetch its predecessor's.
				if !d.Fetched && (v.Role == negotiation.RolePoster || v.Role == negotiation.RoleArbitrator) {
					return fmt.Sprintf("%s has not fetched milestone %d of %s", name, d.Milestone, v.NegotiationID)
				}
			}
			for _, c := range v.Capabilities {
				if c.File == negotiation.ProofPending {
					return fmt.Sprintf("%s has not checked capability proof %s of %s", name, c.Proof, v.NegotiationID)
				}
			}
			if views[v.NegotiationID] == nil {
				views[v.NegotiationID] = map[string]node.ThreadView{}
			}
			views[v.NegotiationID][name] = v
		}
	}
	for h, by := range s.own {
		for _, name := range s.order {
			n := s.nodes[name]
			if name == by || !n.up || !s.nodes[by].up {
				continue
			}
			if !slices.ContainsFunc(n.n.Board(), func(a node.Announcement) bool { return a.Hash == h }) {
				return fmt.Sprintf("announcement %s not on %s's board", h, name)
			}
		}
	}
	for nid, byNode := range views {
		// The parties are the nodes the views name as poster, worker and
		// arbitrator now; each holds the thread and they agree on it.
		parties := map[string]bool{}
		for _, v := range byNode {
			for _, a := range []*negotiation.Address{v.Poster, v.Worker, v.Arbitrator} {
				if a == nil {
					continue
				}
				if name, ok := s.names.lookupName(strings.ToLower(a.String())); ok && s.nodes[name] != nil && s.nodes[name].up {
					parties[name] = true
				}
			}
		}
		want := ""
		for _, name := range s.order {
			if !parties[name] {
				continue
			}
			v, ok := byNode[name]
			if !ok {
				return fmt.Sprintf("%s does not hold %s", name, nid)
			}
			if v.Observer && v.Role != negotiation.RoleArbitrator {
				continue
			}
			f := fingerprint(v)
			if want == "" {
				want = f
			} else if f != want {
				return fmt.Sprintf("the parties of %s disagree: %q, %s has %q", nid, want, name, f)
			}
		}
	}
	return ""
}

// showThread prints NODE's view of a thread.
func (s *story) showThread(n *actor, a args) []string {
	v, err := n.n.Thread(s.nid(a, 1))
	if err != nil {
		return []string{"refused " + refusalCode(err)}
	}
	nm := s.names
	w := []string{"state=" + string(v.State), "a2a=" + string(v.A2A), "role=" + string(v.Role)}
	for _, p := range []struct {
		k string
		a *negotiation.Address
	}{{"poster", v.Poster}, {"worker", v.Worker}, {"arbitrator", v.Arbitrator}} {
		if p.a != nil {
			w = append(w, p.k+"="+nm.value("", strings.ToLower(p.a.String())))
		}
	}
	if v.Observer {
		w = append(w, "observer")
	}
	out := []string{strings.Join(w, " ")}
	w = nil
	if v.Announcement != nil {
		w = append(w, "announcement="+nm.name("A", v.Announcement.String()))
	}
	if c := v.Current; c != nil {
		w = append(w, fmt.Sprintf("offer=r%d by=%s", c.Revision, nm.value("", strings.ToLower(c.By.String()))))
	}
	if ag := v.Agreement; ag != nil {
		amt, _ := new(big.Int).SetString(ag.Amount, 10)
		w = append(w, "agreed="+node.FormatETH(amt), "digest="+nm.name("D", ag.Digest.String()))
	}
	if v.TaskID != "" {
		w = append(w, "task="+nm.name("K", v.TaskID))
	}
	if v.DisputeID != "" {
		w = append(w, "dispute="+nm.name("K", v.DisputeID))
	}
	if v.Ruling != nil {
		w = append(w, fmt.Sprintf("ruling=%d", *v.Ruling))
	}
	if len(v.Milestones) > 0 {
		var ms []string
		for _, m := range v.Milestones {
			ms = append(ms, node.FormatETH(m.Amount.Big()))
		}
		w = append(w, "milestones="+strings.Join(ms, ","))
	}
	if len(w) > 0 {
		out = append(out, strings.Join(w, " "))
	}
	// order=sorted writes the log by sender and sequence, without the
	// state each record left the thread in: for envelopes two nodes send
	// at once, whose order and states differ from run to run (the proof
	// bundles both parties hand an assigned arbitrator, the
	// ReplacementContexts a new worker takes from both senders' retries
	// once it joined).
	sorted := a.get("order", "") == "sorted"
	type line struct {
		sender string
		seq    uint64
		text   string
	}
	var log []line
	for _, r := range v.Log {
		sender := nm.value("", strings.ToLower(r.Sender.String()))
		l := fmt.Sprintf("  %s %s#%d %s", r.Type, sender, r.Seq, r.Code)
		if !sorted {
			l += " " + string(r.State)
		}
		log = append(log, line{sender, r.Seq, l})
	}
	if sorted {
		slices.SortStableFunc(log, func(x, y line) int {
			if c := strings.Compare(x.sender, y.sender); c != 0 {
				return c
			}
			return int(x.seq) - int(y.seq)
		})
	}
	for _, l := range log {
		out = append(out, l.text)
	}
	for _, d := range v.Deliveries {
		l := fmt.Sprintf("  delivery m%d proof=%s", d.Milestone, nm.name("C", string(d.ProofCID)))
		if d.ChainProof != "" {
			l += " chain=" + nm.name("C", string(d.ChainProof))
		}
		if d.Fetched {
			l += " fetched"
		}
		if d.Accepted {
			l += " accepted"
		}
		out = append(out, l)
	}
	for _, p := range v.Payments {
		l := fmt.Sprintf("  payments m%d released=%s outstanding=%s requestable=%s", p.Milestone, ethOf(p.Released), ethOf(p.Outstanding), ethOf(p.Requestable))
		for _, q := range p.Requests {
			l += fmt.Sprintf(" %s:%s", q.Basis, ethOf(q.Amount))
			if q.Paid {
				l += ":paid"
			}
		}
		out = append(out, l)
	}
	for _, c := range v.Capabilities {
		l := fmt.Sprintf("  capability %s kind=%s", c.Capability, c.Kind)
		if c.File != "" {
			l += " file=" + c.File
		}
		if c.Attestation != "" {
			l += " attestation=" + c.Attestation
		}
		if c.Checked {
			l += " checked"
		}
		out = append(out, l)
	}
	for _, r := range v.Refused {
		out = append(out, fmt.Sprintf("  refused %+v", r))
	}
	return out
}

// ethOf writes a decimal wei string in ETH.
func ethOf(wei string) string {
	x, ok := new(big.Int).SetString(wei, 10)
	if !ok {
		return wei
	}
	return node.FormatETH(x)
}

// showBoard prints the announcements a node knows, by name, in the order
// the transcript named them.
func (s *story) showBoard(n *actor) []string {
	var out []string
	for _, a := range n.n.Board() {
		out = append(out, s.names.name("A", a.Hash.String())+" by "+s.names.value("", strings.ToLower(a.Poster.String())))
	}
	slices.Sort(out)
	if len(out) == 0 {
		return []string{"empty"}
	}
	return out
}

// showOwed prints what the chain owes each node with a chain.
func (s *story) showOwed() []string {
	var out []string
	for _, name := range s.order {
		n := s.nodes[name]
		if !n.up || n.n.Chain() == nil {
			continue
		}
		owed, err := n.n.Owed(s.t.Context(), negotiation.Address{})
		if err != nil {
			out = append(out, name+" refused "+refusalCode(err))
			continue
		}
		out = append(out, name+" "+node.FormatETH(owed))
	}
	return out
}

// showTask prints a negotiation's task as the chain holds it: its status,
// worker and nonce, each milestone's state and amount, and the escrow
// left.
func (s *story) showTask(nid string) []string {
	var c *chain.Client
	var id string
	for _, name := range s.order {
		n := s.nodes[name]
		if !n.up || n.n.Chain() == nil {
			continue
		}
		if v, err := n.n.Thread(nid); err == nil && v.TaskID != "" {
			c, id = n.n.Chain(), v.TaskID
			break
		}
	}
	if c == nil {
		return []string{"no task"}
	}
	taskID, err := chain.ParseTaskID(id)
	if err != nil {
		s.t.Fatal(err)
	}
	task, err := c.TaskState(s.t.Context(), taskID)
	if err != nil {
		s.t.Fatalf("the task of %s: %v", nid, err)
	}
	if h, err := c.TaskStateHash(s.t.Context(), taskID); err == nil && h == chain.ClosedByDispute {
		// The registry keeps no milestones of a task a ruling paid out.
		return []string{s.names.name("K", id) + " status=closed by=ruling"}
	}
	status := map[uint8]string{chain.TaskNone: "none", chain.TaskActive: "active", chain.TaskDisputed: "disputed", chain.TaskClosed: "closed"}
	state := map[uint8]string{chain.MilestoneOpen: "open", chain.MilestoneSubmitted: "submitted", chain.MilestoneReleased: "released", chain.MilestoneRefunded: "refunded",
		chain.MilestoneRevising: "revising"}
	out := []string{fmt.Sprintf("%s status=%s worker=%s nonce=%d escrow=%s", s.names.name("K", id), status[task.Status],
		s.names.value("", strings.ToLower(task.Worker.Hex())), task.Nonce, node.FormatETH(chain.Escrow(task)))}
	for i, m := range task.Milestones {
		l := fmt.Sprintf("  m%d %s %s", i, node.FormatETH(m.Amount), state[m.State])
		if m.Released != nil && m.Released.Sign() > 0 && m.State != chain.MilestoneReleased {
			l += " released=" + node.FormatETH(m.Released)
		}
		out = append(out, l)
	}
	return out
}

// showEvents prints a node's events since the last time they were shown
// (order=sorted: sorted, for events of concurrent sends).
// Envelopes on a dispute's evidence topic are left out: gossip may or may
// not bring a copy of what arrived directly.
func (s *story) showEvents(n *actor, a args) []string {
	n.mu.Lock()
	evs := slices.Clone(n.events[n.read:])
	n.read = len(n.events)
	n.mu.Unlock()
	envs := s.envelopeNames()
	nm := s.names
	var out []string
	for _, ev := range evs {
		if ev.Kind == node.EventTopic {
			continue
		}
		w := []string{string(ev.Kind)}
		if ev.NegotiationID != "" {
			w = append(w, nm.name("T", ev.NegotiationID))
		}
		if ev.Direction != "" {
			w = append(w, ev.Direction)
		}
		if ev.Type != "" {
			w = append(w, string(ev.Type))
		}
		if ev.Hash != "" {
			switch {
			case envs[ev.Hash] != "":
				w = append(w, envs[ev.Hash])
			case ev.Kind == node.EventAnnouncement:
				w = append(w, nm.name("A", ev.Hash))
			case ev.Kind != node.EventApproval: // an approval's hash is its intent's
				w = append(w, nm.name("H", ev.Hash))
			}
		}
		if ev.From != "" || ev.State != "" {
			if ev.From != "" {
				w = append(w, string(ev.From)+"->"+string(ev.State))
			} else {
				w = append(w, string(ev.State))
			}
		}
		if ev.Fact != "" {
			w = append(w, "fact="+ev.Fact)
		}
		if ev.Code != "" {
			w = append(w, "code="+ev.Code)
		}
		if ev.CID != "" {
			w = append(w, "cid="+nm.name("C", ev.CID))
		}
		if ev.Detail != "" {
			// A recipient's address, a file's name, an act.
			w = append(w, "detail="+nm.value("", strings.ToLower(ev.Detail)))
		}
		out = append(out, strings.Join(w, " "))
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	if a.get("order", "") == "sorted" {
		slices.Sort(out)
	}
	return out
}

// envelopeNames names every envelope any node holds by its sender and
// sequence.
func (s *story) envelopeNames() map[string]string {
	out := map[string]string{}
	for _, name := range s.order {
		n := s.nodes[name]
		if !n.up {
			continue
		}
		for _, v := range n.n.Threads() {
			for _, r := range v.Log {
				out[r.Hash.String()] = fmt.Sprintf("%s#%d", s.names.value("", strings.ToLower(r.Sender.String())), r.Seq)
			}
		}
	}
	return out
}

// namer gives stable names to the ids, hashes, addresses and CIDs a
// transcript meets, in the order it meets them.
type namer struct {
	byValue map[string]string
	byName  map[string]string
	next    map[string]int
}

func newNamer() *namer {
	n := &namer{byValue: map[string]string{}, byName: map[string]string{}, next: map[string]int{}}
	n.set(strings.ToLower(negotiation.Address{}.String()), "eth")
	return n
}

func (n *namer) set(value, name string) {
	n.byValue[value], n.byName[name] = name, value
}

// name returns value's name, giving it the next one with prefix if it has
// none.
func (n *namer) name(prefix, value string) string {
	if value == "" {
		return "-"
	}
	if l, ok := n.byValue[value]; ok {
		return l
	}
	if l, ok := n.byValue[strings.ToLower(value)]; ok {
		return l
	}
	n.next[prefix]++
	l := prefix + strconv.Itoa(n.next[prefix])
	n.set(value, l)
	return l
}

// lookup returns the value a name stands for.
func (n *namer) lookup(name string) (string, bool) {
	v, ok := n.byName[name]
	return v, ok
}

// lookupName returns the name of value, if it has one.
func (n *namer) lookupName(value string) (string, bool) {
	l, ok := n.byValue[value]
	return l, ok
}

// value returns a value's name if it has one, the value itself if it is
// plain (a number, a word), else a new name with prefix.
func (n *namer) value(prefix, v string) string {
	if l, ok := n.lookupName(v); ok {
		return l
	}
	if l, ok := n.lookupName(strings.ToLower(v)); ok {
		return l
	}
	if plain(v) || prefix == "" {
		return v
	}
	return n.name(prefix, v)
}

// plain reports whether v is a number, a boolean or a short word, which
// a transcript prints as it is.
func plain(v string) bool {
	if _, err := strconv.ParseUint(v, 10, 64); err == nil {
		return true
	}
	if len(v) > 24 || strings.HasPrefix(v, "0x") {
		return false
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// detail writes an act's detail value: amounts in ETH, ids and hashes by
// name.
func (n *namer) detail(key, v string) string {
	switch key {
	case "amount", "bond", "refund", "topUp":
		if x, ok := new(big.Int).SetString(v, 10); ok {
			return node.FormatETH(x)
		}
	case "taskId", "disputeId":
		return n.name("K", v)
	case "digest":
		return n.name("D", v)
	case "cid", "handoffCid", "proofCid", "bundleCid":
		return n.name("C", v)
	}
	if strings.HasPrefix(v, "0x") && len(v) == 42 {
		return n.value("", strings.ToLower(v))
	}
	return n.value("V", v)
}
