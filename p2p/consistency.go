package p2p

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	"golang.org/x/time/rate"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
)

// ProtocolConsistency asks a node for an RFC 6962 consistency proof
// between two sizes of its ledger's Merkle tree (docs/p2p.md "Ledger
// consistency"), the way certificate-transparency monitors keep a log
// honest: a peer with a verified link sends {from, to} (to 0: the node's
// latest signed tree head), the node answers a code and, when ok, both
// roots, the proof and its latest signed tree head.
const ProtocolConsistency protocol.ID = "/parley/ledger-consistency/1"

// Bounds of the consistency protocol: a request is a version byte and two
// uvarints (at most 21 bytes); an answer holds at most two proofs' worth
// of hashes (a proof has at most 2·64 of them) and a tree head.
const (
	maxConsistencyRequest = 32
	maxConsistencyAnswer  = 64 << 10
	consistencyTimeout    = 30 * time.Second
)

// ConsistencyProvider answers consistency requests; the node implements
// it over its ledger's tree and signed heads.
type ConsistencyProvider interface {
	// Consistency returns the proof from size from to size to of the
	// node's tree (to 0: the size of its latest signed tree head) for
	// requester (a verified link). A refusal is an error whose code
	// (CodeOf, or an ErrorCode() method) goes on the wire.
	Consistency(ctx context.Context, requester *identity.Link, from, to uint64) (ConsistencyAnswer, error)
}

// ConsistencyAnswer is a node's answer to a consistency request: the
// tree's roots at From and To, the RFC 6962 consistency proof between
// them, and Head, the node's latest signed tree head as the body of its
// tree.head ledger entry (JCS {"root","signature","signer","size","time"}),
// which the asker checks against the node's identity link.
type ConsistencyAnswer struct {
	From, To         uint64
	FromRoot, ToRoot [32]byte
	Proof            [][32]byte
	Head             json.RawMessage
}

// consistencyWire is the JSON of an answer on the wire.
type consistencyWire struct {
	Code     Code            `json:"code"`
	From     uint64          `json:"from,omitempty"`
	To       uint64          `json:"to,omitempty"`
	FromRoot string          `json:"fromRoot,omitempty"`
	ToRoot   string          `json:"toRoot,omitempty"`
	Proof    []string        `json:"proof,omitempty"`
	Head     json.RawMessage `json:"head,omitempty"`
	Message  string          `json:"message,omitempty"`
}

// consistencyLimits holds each peer's rate of consistency requests.
type consistencyLimits struct {
	mu    sync.Mutex
	r     rate.Limit
	burst int
	peers map[peer.ID]*rate.Limiter
}

// allow takes one request of p from its budget.
func (l *consistencyLimits) allow(p peer.ID) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.peers == nil {
		l.peers = map[peer.ID]*rate.Limiter{}
	}
	lim, ok := l.peers[p]
	if !ok {
		if len(l.peers) >= 4096 {
			clear(l.peers) // bounded: a full table starts again (each peer gets a fresh burst)
		}
		lim = rate.NewLimiter(l.r, l.burst)
		l.peers[p] = lim
	}
	return lim.Allow()
}

func hex32(h [32]byte) string { return "0x" + hex.EncodeToString(h[:]) }

func parseHex32(s string) ([32]byte, error) {
	var out [32]byte
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil || len(b) != 32 || !strings.HasPrefix(s, "0x") {
		return out, fmt.Errorf("%q is not a 0x-prefixed 32-byte hash", s)
	}
	copy(out[:], b)
	return out, nil
}

func (h *Host) answerConsistency(s network.Stream, w consistencyWire) {
	b, err := json.Marshal(w)
	if err != nil {
		_ = s.Reset()
		return
	}
	_ = writeMsg(s, b)
}

// handleConsistency answers one consistency request.
func (h *Host) handleConsistency(s network.Stream) {
	defer s.Close()
	_ = s.SetDeadline(time.Now().Add(consistencyTimeout))
	remote := s.Conn().RemotePeer()
	r := bufio.NewReader(s)
	n, err := binary.ReadUvarint(r)
	if err != nil {
		_ = s.Reset()
		return
	}
	if n > maxConsistencyRequest {
		h.answerConsistency(s, consistencyWire{Code: Code(negotiation.CodeTooLarge), Message: fmt.Sprintf("a request of %d bytes, over %d", n, maxConsistencyRequest)})
		return
	}
	req := make([]byte, n)
	if _, err := io.ReadFull(r, req); err != nil || len(req) < 3 || req[0] != 1 {
		_ = s.Reset()
		return
	}
	from, k := binary.Uvarint(req[1:])
	if k <= 0 {
		_ = s.Reset()
		return
	}
	to, k2 := binary.Uvarint(req[1+k:])
	if k2 <= 0 || 1+k+k2 != len(req) {
		_ = s.Reset()
		return
	}
	link := h.book.byPeerID(remote)
	if link == nil {
		h.answerConsistency(s, consistencyWire{Code: CodeUnknownLink, Message: "no verified identity link for this peer"})
		return
	}
	if !h.consistency.allow(remote) {
		h.answerConsistency(s, consistencyWire{Code: CodeOverRate, Message: "over this peer's rate of consistency requests"})
		return
	}
	if to != 0 && from > to {
		h.answerConsistency(s, consistencyWire{Code: CodeBadRange, Message: fmt.Sprintf("from %d is above to %d", from, to)})
		return
	}
	if h.cfg.Consistency == nil {
		h.answerConsistency(s, consistencyWire{Code: CodeNotFound, Message: "this node serves no consistency proofs"})
		return
	}
	a, err := h.cfg.Consistency.Consistency(h.ctx, link, from, to)
	if err != nil {
		h.answerConsistency(s, consistencyWire{Code: wireCode(err), Message: err.Error()})
		return
	}
	w := consistencyWire{Code: CodeOK, From: a.From, To: a.To, FromRoot: hex32(a.FromRoot), ToRoot: hex32(a.ToRoot), Head: a.Head, Proof: make([]string, len(a.Proof))}
	for i, p := range a.Proof {
		w.Proof[i] = hex32(p)
	}
	h.answerConsistency(s, w)
}

// wireCode is the code of a provider's refusal: the transport's
// vocabulary (CodeOf), else an ErrorCode() of the error, else not_found.
func wireCode(err error) Code {
	if c := CodeOf(err); c != "" {
		return c
	}
	var coded interface{ ErrorCode() string }
	if errors.As(err, &coded) && coded.ErrorCode() != "" {
		return Code(coded.ErrorCode())
	}
	return CodeNotFound
}

// FetchConsistency asks peer p for the consistency proof of its ledger's
// tree from size from to size to (0: its latest signed tree head). A
// refusal is an *Error with the peer's code (unknown_link, over_rate,
// bad_range, too_large, or the node's own such as unknown_size). The
// answer is returned as the peer sent it: the caller verifies the proof,
// the roots and the head's signature.
func (h *Host) FetchConsistency(ctx context.Context, p peer.ID, from, to uint64) (ConsistencyAnswer, error) {
	lp := h.Libp2p()
	if lp == nil {
		return ConsistencyAnswer{}, fail(CodeClosed, "not started")
	}
	if h.book.byPeerID(p) == nil {
		if err := h.Connect(ctx, peer.AddrInfo{ID: p}); err != nil {
			return ConsistencyAnswer{}, err
		}
	}
	s, err := lp.NewStream(overRelay(ctx, "consistency"), p, ProtocolConsistency)
	if err != nil {
		return ConsistencyAnswer{}, failWrap(CodeNotFound, err, "consistency stream to %s", p)
	}
	defer s.Close()
	_ = s.SetDeadline(time.Now().Add(consistencyTimeout))
	req := binary.AppendUvarint([]byte{1}, from)
	req = binary.AppendUvarint(req, to)
	if err := writeMsg(s, req); err != nil {
		return ConsistencyAnswer{}, failWrap(CodeBusy, err, "consistency request")
	}
	return readConsistency(bufio.NewReader(s), p)
}

// readConsistency reads and decodes one answer of peer p.
func readConsistency(r *bufio.Reader, p peer.ID) (ConsistencyAnswer, error) {
	b, err := readMsg(r, maxConsistencyAnswer)
	if err != nil {
		return ConsistencyAnswer{}, failWrap(CodeBusy, err, "consistency answer of %s", p)
	}
	var w consistencyWire
	if err := json.Unmarshal(b, &w); err != nil || w.Code == "" {
		return ConsistencyAnswer{}, fail(CodeBadRecord, "consistency answer of %s is not an answer", p)
	}
	if w.Code != CodeOK {
		return ConsistencyAnswer{}, fail(w.Code, "peer %s refused: %s", p, w.Message)
	}
	a := ConsistencyAnswer{From: w.From, To: w.To, Head: w.Head, Proof: make([][32]byte, len(w.Proof))}
	if a.FromRoot, err = parseHex32(w.FromRoot); err == nil {
		a.ToRoot, err = parseHex32(w.ToRoot)
	}
	for i := 0; err == nil && i < len(w.Proof); i++ {
		a.Proof[i], err = parseHex32(w.Proof[i])
	}
	if err != nil {
		return ConsistencyAnswer{}, failWrap(CodeBadRecord, err, "consistency answer of %s", p)
	}
	return a, nil
}
