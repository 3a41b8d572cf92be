package p2p

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/ipfs/go-cid"
	pubsub "github.com/libp2p/go-libp2p-pubsub"
	pb "github.com/libp2p/go-libp2p-pubsub/pb"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/multiformats/go-multihash"
	"golang.org/x/time/rate"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
)

// TopicTaskBoard is the public task board: signed, unsealed announcements.
const TopicTaskBoard = "/parley/taskboard/1"

// EvidenceTopic returns the topic of one dispute's evidence thread.
func EvidenceTopic(disputeID string) string { return "/parley/evidence/1/" + disputeID }

// Peer-score thresholds (docs/p2p.md "Peer scoring"). A peer below
// GraylistThreshold has every message it sends ignored.
const (
	GossipThreshold   = -100.0
	PublishThreshold  = -200.0
	GraylistThreshold = -400.0
)

// maxCachedLinks bounds the cache of links verified on topics.
const maxCachedLinks = 4096

// validateQueue and outboundQueue size gossipsub's queues of messages
// waiting for validation and for the stream to one peer.
const (
	validateQueue = 1024
	outboundQueue = 512
)

// topics runs gossipsub: the task board and evidence topics, their
// validators, and the peer scores.
type topics struct {
	h *Host

	mu       sync.Mutex
	joined   map[string]*pubsub.Topic
	subs     map[string]context.CancelFunc
	members  map[string]map[negotiation.Address]bool // evidence topic -> members
	limiters map[negotiation.Address]*rate.Limiter   // per publisher
	self     *rate.Limiter                           // this node's own announcements
	links    map[[32]byte]*identity.Link
	scores   map[peer.ID]float64
}

// maxLimiters bounds the per-publisher rate limiters; past it the ones
// that have refilled (the same as new) are forgotten first.
const maxLimiters = 4096

func newTopics(h *Host) *topics {
	// This node's own allowance is the receivers' per-publisher bucket
	// less a tenth of the burst, so that network jitter, which bunches
	// messages up on the way, never takes one over a receiver's rate.
	selfBurst := max(1, h.cfg.TopicBurst-h.cfg.TopicBurst/10)
	return &topics{
		h:        h,
		joined:   make(map[string]*pubsub.Topic),
		subs:     make(map[string]context.CancelFunc),
		members:  make(map[string]map[negotiation.Address]bool),
		limiters: make(map[negotiation.Address]*rate.Limiter),
		self:     rate.NewLimiter(rate.Limit(h.cfg.TopicRate), selfBurst),
		links:    make(map[[32]byte]*identity.Link),
		scores:   make(map[peer.ID]float64),
	}
}

// topicScore is the score of one topic (docs/p2p.md "Peer scoring").
// Only messages the validator rejects as the forwarding peer's fault
// (ValidationReject) count as invalid deliveries, weighing heavily
// (squared): a peer that originates invalid messages falls below the
// graylist threshold after a handful. Valid messages, and those ignored
// because of their publisher (over its rate) or of the clock, never count
// against the peer that relayed them; first deliveries earn a little.
// Mesh delivery rates (P3) are not scored: a quiet board is not a fault.
func topicScore(weight float64) *pubsub.TopicScoreParams {
	return &pubsub.TopicScoreParams{
		TopicWeight:                    weight,
		TimeInMeshWeight:               0.01,
		TimeInMeshQuantum:              time.Second,
		TimeInMeshCap:                  100,
		FirstMessageDeliveriesWeight:   1,
		FirstMessageDeliveriesDecay:    0.99,
		FirstMessageDeliveriesCap:      50,
		InvalidMessageDeliveriesWeight: -10,
		InvalidMessageDeliveriesDecay:  0.99,
	}
}

// scoreParams are the peer-score parameters of docs/p2p.md; appScore is
// the application-specific score (the guard's: a banned peer is below the
// graylist threshold).
func scoreParams(appScore func(peer.ID) float64) (*pubsub.PeerScoreParams, *pubsub.PeerScoreThresholds) {
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	return &pubsub.PeerScoreParams{
			Topics:                      map[string]*pubsub.TopicScoreParams{TopicTaskBoard: topicScore(1)},
			TopicScoreCap:               100,
			AppSpecificScore:            appScore,
			AppSpecificWeight:           1,
			IPColocationFactorWeight:    -10,
			IPColocationFactorThreshold: 8,
			IPColocationFactorWhitelist: []*net.IPNet{loopback},
			BehaviourPenaltyWeight:      -10,
			BehaviourPenaltyThreshold:   6,
			BehaviourPenaltyDecay:       0.99,
			DecayInterval:               time.Second,
			DecayToZero:                 0.01,
			RetainScore:                 time.Hour,
		}, &pubsub.PeerScoreThresholds{
			GossipThreshold:             GossipThreshold,
			PublishThreshold:            PublishThreshold,
			GraylistThreshold:           GraylistThreshold,
			AcceptPXThreshold:           100,
			OpportunisticGraftThreshold: 5,
		}
}

// startTopics builds gossipsub with signing off (StrictNoSign: envelopes
// are signed already), message id = CID, scoring on, and joins the task
// board.
func (h *Host) startTopics() error {
	params, thresholds := scoreParams(h.guard.appScore)
	ps, err := pubsub.NewGossipSub(h.ctx, h.p2p,
		pubsub.WithMessageSignaturePolicy(pubsub.StrictNoSign),
		pubsub.WithNoAuthor(),
		pubsub.WithMessageIdFn(messageID),
		pubsub.WithMaxMessageSize(h.cfg.MaxFrameBytes+maxLinkBytes+64),
		pubsub.WithPeerExchange(false),
		pubsub.WithFloodPublish(true),
		// pubsub's queues of 32 (messages waiting for validation, and for
		// the stream to each peer) drop silently under a burst: a relayed
		// flood would crowd a poster's own announcements out.
		pubsub.WithValidateQueueSize(validateQueue),
		pubsub.WithPeerOutboundQueueSize(outboundQueue),
		pubsub.WithPeerScore(params, thresholds),
		pubsub.WithPeerScoreInspect(pubsub.PeerScoreInspectFn(h.topics.inspect), scoreInspect),
	)
	if err != nil {
		return failWrap(CodeBadConfig, err, "gossipsub")
	}
	h.ps = ps
	if err := ps.RegisterTopicValidator(TopicTaskBoard, h.topics.validateBoard); err != nil {
		return failWrap(CodeBadConfig, err, "task board validator")
	}
	return h.topics.subscribe(TopicTaskBoard)
}

// messageID is the CID of the envelope on the task board (a bundle whose
// envelope is named by its own CID) and the CID (raw codec) of the sealed
// bytes on evidence topics.
func messageID(m *pb.Message) string {
	if m.GetTopic() == TopicTaskBoard {
		if _, env, ok := splitBundle(m.Data); ok {
			return negotiation.CIDFromHash(sha256.Sum256(env)).KeyString()
		}
	}
	mh, _ := multihash.Sum(m.Data, multihash.SHA2_256, -1)
	return cid.NewCidV1(cid.Raw, mh).KeyString()
}

// bundle is a task-board message: uvarint link length, the publisher's
// identity link (JCS), then the envelope (JCS), so that any node can
// verify an announcement without having met its author.
func bundle(link, env []byte) []byte {
	b := binary.AppendUvarint(make([]byte, 0, 10+len(link)+len(env)), uint64(len(link)))
	b = append(b, link...)
	return append(b, env...)
}

func splitBundle(b []byte) (link, env []byte, ok bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n == 0 || n > maxLinkBytes || uint64(len(b)-k) <= n {
		return nil, nil, false
	}
	return b[k : k+int(n)], b[k+int(n):], true
}

// announcement is what the task-board validator hands to the subscriber.
type announcement struct {
	env  *negotiation.Envelope
	link *identity.Link
}

// validateBoard accepts only a public announcement, signed, by the holder
// of a valid link, within the clock window, from a publisher within its
// rate. What the peer that forwarded it could have checked the same way
// (the bytes, the link's and the envelope's signatures) is its fault and
// rejected (scored); what depends on this node's clock or on the
// publisher's rate here is ignored (not forwarded, not scored).
func (t *topics) validateBoard(ctx context.Context, from peer.ID, m *pubsub.Message) pubsub.ValidationResult {
	a, code := t.checkBoard(from, m.Data)
	if code != "" {
		t.h.in.reject(from, "", m.Data, code, TopicTaskBoard)
		return verdict(code)
	}
	m.ValidatorData = a
	return pubsub.ValidationAccept
}

// verdict is gossipsub's result for a topic message refused with code:
// ValidationIgnore when the forwarding peer is not at fault (the
// publisher over its rate, a timestamp or link validity judged by this
// node's clock), ValidationReject otherwise (it penalises the forwarder).
func verdict(code Code) pubsub.ValidationResult {
	switch code {
	case CodeOverRate, CodeBadTimestamp, Code(identity.CodeLinkExpired), Code(identity.CodeLinkNotYetValid):
		return pubsub.ValidationIgnore
	}
	return pubsub.ValidationReject
}

func (t *topics) checkBoard(from peer.ID, data []byte) (*announcement, Code) {
	return t.checkBoardAt(from, data, true, false)
}

// checkBoardAt checks a task-board message. rated spends the publisher's
// rate (its own announcements are this node's, spent by
// ReserveAnnouncement); history relaxes the time window to "not in the
// future" (catch-up replays old announcements).
func (t *topics) checkBoardAt(from peer.ID, data []byte, rated, history bool) (*announcement, Code) {
	h := t.h
	if len(data) > h.cfg.MaxEnvelopeBytes+maxLinkBytes+16 {
		return nil, Code(negotiation.CodeTooLarge)
	}
	lb, eb, ok := splitBundle(data)
	if !ok {
		return nil, Code(identity.CodeBadFrame)
	}
	now := h.now()
	link, err := t.link(lb, now)
	if err != nil {
		return nil, CodeOf(err)
	}
	env, err := negotiation.Decode(eb, negotiation.DecodeOptions{MaxBytes: h.cfg.MaxEnvelopeBytes})
	if err != nil {
		return nil, CodeOf(err)
	}
	if !env.IsAnnouncement() {
		return nil, CodeNotAnnounce
	}
	if code := h.in.checkSender(env, link); code != "" {
		return nil, code
	}
	if err := env.Verify(); err != nil {
		return nil, CodeOf(err)
	}
	if d := env.Timestamp.Sub(now); d > h.cfg.MaxClockSkew || (!history && d < -h.cfg.MaxClockSkew) {
		return nil, CodeBadTimestamp
	}
	// The rate is the publisher's, judged only once its announcement is
	// known to be its own: a forgery cannot spend an honest poster's rate.
	if rated && env.Sender.EVMAddress != h.self && !t.allow(env.Sender.EVMAddress) {
		return nil, CodeOverRate
	}
	return &announcement{env: env, link: link}, ""
}

// link verifies a link, caching verified links by hash.
func (t *topics) link(b []byte, now time.Time) (*identity.Link, error) {
	k := sha256.Sum256(b)
	t.mu.Lock()
	l := t.links[k]
	t.mu.Unlock()
	if l != nil {
		if err := checkTimes(l, now); err != nil {
			return nil, err
		}
		return l, nil
	}
	l, err := identity.DecodeLink(b, now)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	if len(t.links) >= maxCachedLinks {
		clear(t.links)
	}
	t.links[k] = l
	t.mu.Unlock()
	return l, nil
}

// checkTimes re-checks a cached link's validity window.
func checkTimes(l *identity.Link, now time.Time) error {
	if !now.Before(l.ExpiresAt) {
		return &identity.Error{Code: identity.CodeLinkExpired}
	}
	return nil
}

// allow spends one token of publisher's rate.
func (t *topics) allow(publisher negotiation.Address) bool {
	now := t.h.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.limiters[publisher]
	if l == nil {
		if len(t.limiters) >= maxLimiters {
			t.pruneLimitersLocked(now)
		}
		l = rate.NewLimiter(rate.Limit(t.h.cfg.TopicRate), t.h.cfg.TopicBurst)
		t.limiters[publisher] = l
	}
	return l.AllowN(now, 1)
}

// pruneLimitersLocked forgets the limiters that have refilled (a new one
// is the same) and, if that is not enough, all of them (t.mu held).
func (t *topics) pruneLimitersLocked(now time.Time) {
	for a, l := range t.limiters {
		if l.TokensAt(now) >= float64(l.Burst()) {
			delete(t.limiters, a)
		}
	}
	if len(t.limiters) >= maxLimiters {
		clear(t.limiters)
	}
}

// ReserveAnnouncement takes one announcement from this node's own
// allowance on the task board, which mirrors the per-publisher rate every
// receiver applies (TopicRate per second with a burst of TopicBurst, less
// a tenth of the burst for network jitter). It returns 0 when the
// allowance was taken: publish the announcement with Announce (which
// spends nothing itself). Otherwise it takes nothing and returns how long
// until an announcement would be within the rate, for a Retry-After; an
// announcement published over it is ignored by the receivers.
func (h *Host) ReserveAnnouncement() time.Duration {
	now := h.now()
	t := h.topics
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.self.ReserveN(now, 1)
	if !r.OK() {
		return time.Duration(float64(time.Second) / h.cfg.TopicRate)
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d
	}
	return 0
}

// subscribe joins name and hands every valid message to the Handler.
func (t *topics) subscribe(name string) error {
	h := t.h
	tp, err := h.ps.Join(name)
	if err != nil {
		return failWrap(CodeBadConfig, err, "join %s", name)
	}
	if name != TopicTaskBoard {
		// Evidence topics are scored as the board is.
		if err := tp.SetScoreParams(topicScore(1)); err != nil {
			h.log.Debug("topic score not set", "topic", name, "err", err)
		}
	}
	sub, err := tp.Subscribe(pubsub.WithBufferSize(h.cfg.SubscriptionBuffer))
	if err != nil {
		_ = tp.Close()
		return failWrap(CodeBadConfig, err, "subscribe %s", name)
	}
	ctx, cancel := context.WithCancel(h.ctx)
	t.mu.Lock()
	t.joined[name] = tp
	t.subs[name] = cancel
	t.mu.Unlock()
	h.go1(func(context.Context) {
		defer sub.Cancel()
		for {
			m, err := sub.Next(ctx)
			if err != nil {
				return
			}
			if h.cfg.Mailbox != nil && m.ValidatorData != nil {
				if err := h.cfg.Mailbox.Record(ctx, name, m.Data); err != nil {
					h.log.Warn("topic history not recorded", "topic", name, "err", err)
				}
			}
			if m.ReceivedFrom == h.ID() {
				continue
			}
			var d Delivery
			switch v := m.ValidatorData.(type) {
			case *announcement:
				d = Delivery{Envelope: v.env, Sender: v.link, From: m.ReceivedFrom, Topic: name}
			case *Delivery:
				d = *v
				d.From, d.Topic = m.ReceivedFrom, name
			default:
				continue // relayed only (a store on an evidence topic)
			}
			if code := h.in.call(ctx, d); code.Outcome() != Delivered {
				h.log.Debug("topic message not taken", "topic", name, "cid", d.Envelope.CID(), "code", code)
			}
		}
	})
	return nil
}

func (t *topics) topic(name string) *pubsub.Topic {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.joined[name]
}

// Announce publishes a public task announcement (a TaskProposal without
// recipients, from this node) on the task board.
func (h *Host) Announce(ctx context.Context, env *negotiation.Envelope) error {
	if !env.IsAnnouncement() {
		return fail(CodeNotAnnounce, "only a TaskProposal without recipients goes on the task board")
	}
	if env.Sender.EVMAddress != h.self {
		return fail(CodeSenderMismatch, "announcement is from %s, this node is %s", env.Sender.EVMAddress, h.self)
	}
	tp := h.topics.topic(TopicTaskBoard)
	if tp == nil {
		return fail(CodeClosed, "not started")
	}
	return publish(ctx, tp, bundle(h.cfg.Link().Bytes(), env.Bytes()))
}

// readyWait bounds how long a publish waits for the topic to have a peer
// (a node that just joined has not yet heard its neighbours' subscriptions).
const readyWait = 3 * time.Second

// publish waits (bounded) until the topic has a peer, then publishes; flood
// publishing sends a node's own messages to every topic peer at once.
func publish(ctx context.Context, tp *pubsub.Topic, data []byte, want ...peer.ID) error {
	deadline := time.Now().Add(readyWait)
	for !hasPeers(tp.ListPeers(), want) && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	if err := tp.Publish(ctx, data); err != nil {
		return failWrap(CodeClosed, err, "publish")
	}
	return nil
}

// hasPeers reports whether have holds a peer and every peer of want: a
// topic whose members are known (a dispute's) waits for each of them, so
// that flood publishing reaches every member the node is connected to.
func hasPeers(have, want []peer.ID) bool {
	if len(have) == 0 {
		return false
	}
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// scoreInspect is how often gossipsub reports every peer's score to
// inspect. Each report scores every peer on every topic (with the IP
// colocation factor), which was 14% of a 300-node simulation's CPU at
// 250 ms; scores move at the heartbeat's pace (1 s) anyway.
const scoreInspect = time.Second

// inspect records the peer scores gossipsub reports.
func (t *topics) inspect(scores map[peer.ID]float64) {
	t.mu.Lock()
	t.scores = scores
	t.mu.Unlock()
}

// PeerScore returns the gossipsub score of p as last reported (every
// scoreInspect), and whether p has one.
func (h *Host) PeerScore(p peer.ID) (float64, bool) {
	h.topics.mu.Lock()
	defer h.topics.mu.Unlock()
	s, ok := h.topics.scores[p]
	return s, ok
}

// TopicPeers returns the peers this node knows on topic name.
func (h *Host) TopicPeers(name string) []peer.ID {
	if tp := h.topics.topic(name); tp != nil {
		return tp.ListPeers()
	}
	return nil
}

func (t *topics) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for name, cancel := range t.subs {
		cancel()
		delete(t.subs, name)
	}
	for name, tp := range t.joined {
		_ = tp.Close()
		delete(t.joined, name)
	}
}
