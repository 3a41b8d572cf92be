package ledger

import (
	"crypto/sha256"
	"encoding/json"
	"strconv"
	"time"

	"github.com/ipfs/go-cid"
	"github.com/parleynet/parley/negotiation"
)

// Entry kinds. Kinds are lowercase dotted names; these are the ones Parley
// writes (docs/ledger.md describes each body). Other components may add
// kinds of the same shape. The kinds marked reserved are written only by the
// method named, which builds and checks their bodies.
const (
	KindEnvelopeSent     = "envelope.sent"     // reserved: AppendEnvelope; an authentic envelope this node sent
	KindEnvelopeReceived = "envelope.received" // reserved: AppendEnvelope; an authentic envelope this node received
	KindEnvelopeRejected = "envelope.rejected" // reserved: AppendRejected; non-authentic input, by hash and code only
	KindAnchor           = "anchor"            // reserved: RecordAnchor; a head anchored on chain
	KindRetentionPruned  = "retention.pruned"  // reserved: Prune; objects deleted under the retention rule
	KindTreeHead         = "tree.head"         // reserved: RecordTreeHead; a signed head of the Merkle tree
	KindTreeAnchor       = "tree.anchor"       // reserved: RecordTreeAnchor; a tree root anchored on chain
	KindThreadState      = "thread.state"      // a negotiation's state changed; body.state names the new state
	KindCardSealed       = "card.sealed"       // an intent card was sealed
	KindCardAmended      = "card.amended"      // the principal's answer sealed as an amendment
	KindEscalation       = "escalation"        // a question escalated to the principal
	KindApproval         = "approval"          // an approval receipt issued or consumed
	KindChainEvent       = "chain.event"       // a contract event observed on chain
	KindBlobStored       = "blob.stored"       // a deliverable or evidence file stored by CID
	KindOutboxQueued     = "outbox.queued"     // an envelope queued for delivery to a peer
	KindOutboxAcked      = "outbox.acked"      // a peer acknowledged an envelope
	KindOutboxAbandoned  = "outbox.abandoned"  // delivery given up with a final code
)

// reservedKinds may be written only by their own methods.
var reservedKinds = map[string]bool{
	KindEnvelopeSent: true, KindEnvelopeReceived: true, KindEnvelopeRejected: true,
	KindAnchor: true, KindRetentionPruned: true, KindTreeHead: true, KindTreeAnchor: true,
}

// Object codecs (multicodec): envelopes and other JSON documents are json,
// files are raw.
const (
	CodecJSON = negotiation.CodecJSON // 0x0200
	CodecRaw  = 0x55
)

// Record is what a caller appends.
type Record struct {
	// Kind names the event (see the Kind constants).
	Kind string
	// NegotiationID, when set, is a lowercase UUID v4 and indexes the entry
	// under that negotiation.
	NegotiationID string
	// Body is one JSON object (nil means {}). It is stored in JCS form.
	Body []byte
	// At is when the event happened; zero means the ledger's clock when the
	// append is made (Append, AppendAll or a Record method is called).
	At time.Time
	// Object, when set, is stored once under its CID and the ledger sets
	// body.cid to that CID. Appending an object already stored returns the
	// entry that stored it and writes nothing.
	Object []byte
	// ObjectCodec is CodecJSON (the default) or CodecRaw.
	ObjectCodec uint64

	// sealed is the record as EnvelopeRecord or RejectedRecord built it:
	// a reserved kind is appended only when the record is unchanged.
	sealed *Record
}

// Head names the last entry: its seq (the number of entries) and hash. The
// head hash identifies the whole history.
type Head struct {
	// Seq is the last entry's seq: the number of entries.
	Seq uint64
	// Hash is the last entry's hash.
	Hash negotiation.Hash
}

// Entry is one stored ledger entry.
type Entry struct {
	// Seq is the entry's position in the chain, counting from 1.
	Seq uint64
	// Kind names the event.
	Kind string
	// NegotiationID is the negotiation the entry belongs to, or "".
	NegotiationID string
	// NegotiationPrev is the seq of the negotiation's previous entry (0
	// for its first, and for an entry of no negotiation). Linked says
	// whether the entry carries it: an entry of a negotiation stored before
	// the back-link was kept does not.
	NegotiationPrev uint64
	Linked          bool
	// Body is the entry's body in JCS form.
	Body json.RawMessage
	// At is when the event happened (millisecond precision, UTC).
	At time.Time
	// CID is body.cid: the object the entry stored, or cid.Undef.
	CID cid.Cid
	// Prev is the previous entry's hash (zero for the first entry).
	Prev negotiation.Hash
	// Hash is SHA-256(Prev || Raw).
	Hash negotiation.Hash
	// Raw is JCS(entry): the exact bytes that were hashed.
	Raw []byte
}

// entryOverhead bounds what one append adds to a transaction beyond its
// entry and object bytes: its index keys (each counted as at least 128
// bytes, see keyCost), the head, and the Merkle tree's nodes (treeOverhead).
const entryOverhead = 2048 + treeOverhead

// treeOverhead bounds the Merkle tree's share of one transaction beyond
// the key of two node hashes each entry is counted for (prepare):
// appending n leaves completes fewer than n + 64 inner nodes, so at most
// 64 more hashes, and 128 bytes of slack.
const treeOverhead = 64*32 + 128

// encodeEntry returns JCS({seq, kind, negotiationId?, negotiationPrev?,
// body, at}). kind and negotiationID are validated plain ASCII, body is
// canonical, and the members are written in JCS order: at, body, kind,
// negotiationId, negotiationPrev, seq. An entry of a negotiation carries
// negotiationPrev, the seq of the negotiation's previous entry (0 for its
// first); an entry of none carries neither.
func encodeEntry(seq uint64, kind, negotiationID string, negotiationPrev uint64, body []byte, at time.Time) []byte {
	return appendEntryTail(entryPrefix(kind, negotiationID, body, at), negotiationID, negotiationPrev, seq)
}

// entryPrefix returns the bytes of encodeEntry up to the first value only
// the writer knows (negotiationPrev's, else seq's): what the caller's
// goroutine can write, and hash, before the writer assigns the seq. It
// leaves room for the tail.
func entryPrefix(kind, negotiationID string, body []byte, at time.Time) []byte {
	out := make([]byte, 0, len(body)+len(kind)+len(negotiationID)+128)
	out = append(out, `{"at":"`...)
	out = at.UTC().AppendFormat(out, negotiation.TimeLayout)
	out = append(out, `","body":`...)
	out = append(out, body...)
	out = append(out, `,"kind":"`...)
	out = append(out, kind...)
	if negotiationID != "" {
		out = append(out, `","negotiationId":"`...)
		out = append(out, negotiationID...)
		return append(out, `","negotiationPrev":`...)
	}
	return append(out, `","seq":`...)
}

// appendEntryTail appends to an entryPrefix the values the writer assigns.
func appendEntryTail(out []byte, negotiationID string, negotiationPrev, seq uint64) []byte {
	if negotiationID != "" {
		out = strconv.AppendUint(out, negotiationPrev, 10)
		out = append(out, `,"seq":`...)
	}
	out = strconv.AppendUint(out, seq, 10)
	return append(out, '}')
}

// chainHash returns SHA-256(prev || raw).
func chainHash(prev negotiation.Hash, raw []byte) negotiation.Hash {
	h := sha256.New()
	h.Write(prev[:])
	h.Write(raw)
	var out negotiation.Hash
	h.Sum(out[:0])
	return out
}

// storedValue is the value under an entry key: prev, hash, then the bytes.
func storedValue(prev, hash negotiation.Hash, raw []byte) []byte {
	v := make([]byte, 0, 64+len(raw))
	v = append(v, prev[:]...)
	v = append(v, hash[:]...)
	return append(v, raw...)
}

// parsedEntry is an entry's members, read from its JCS bytes.
type parsedEntry struct {
	seq           uint64
	kind          string
	negotiationID string
	negPrev       uint64 // negotiationPrev
	linked        bool   // negotiationPrev is present
	body          []byte
	at            string
	cid           []byte // raw body.cid value, or nil
}

var (
	entryMembers4 = []string{"at", "body", "kind", "seq"}
	entryMembers5 = []string{"at", "body", "kind", "negotiationId", "seq"}
	entryMembers6 = []string{"at", "body", "kind", "negotiationId", "negotiationPrev", "seq"}
)

// parseEntry reads the members of JCS(entry) without decoding the body.
// It requires exactly the members at, body, kind, negotiationId and
// negotiationPrev (both optional, the second only with the first) and seq,
// in that order.
func parseEntry(raw []byte) (parsedEntry, error) {
	var p parsedEntry
	var arr [6]member
	ms := arr[:0]
	tooMany := false
	err := eachMember(raw, func(m member) bool {
		if len(ms) == len(arr) {
			tooMany = true
			return false
		}
		ms = append(ms, m)
		return true
	})
	if err != nil {
		return p, err
	}
	if tooMany {
		return p, errMalformed
	}
	want := entryMembers4
	switch len(ms) {
	case 5:
		want = entryMembers5
	case 6:
		want = entryMembers6
	}
	if len(ms) != len(want) {
		return p, errMalformed
	}
	for i, m := range ms {
		if string(m.key) != want[i] {
			return p, errMalformed
		}
		switch string(m.key) {
		case "at":
			s, ok := plainString(m.val)
			if !ok {
				return p, errMalformed
			}
			p.at = s
		case "body":
			if len(m.val) < 2 || m.val[0] != '{' {
				return p, errMalformed
			}
			p.body = m.val
		case "kind":
			s, ok := plainString(m.val)
			if !ok {
				return p, errMalformed
			}
			p.kind = s
		case "negotiationId":
			s, ok := plainString(m.val)
			if !ok {
				return p, errMalformed
			}
			p.negotiationID = s
		case "negotiationPrev":
			v, err := parseSeq(m.val)
			if err != nil {
				return p, err
			}
			p.negPrev, p.linked = v, true
		case "seq":
			v, err := parseSeq(m.val)
			if err != nil {
				return p, err
			}
			p.seq = v
		}
	}
	if p.kind == "" || p.seq == 0 || (p.linked && p.negPrev >= p.seq) {
		return p, errMalformed
	}
	v, ok, err := lookupSorted(p.body, "cid")
	if err != nil {
		return p, err
	}
	if ok {
		p.cid = v
	}
	return p, nil
}

func parseSeq(v []byte) (uint64, error) {
	if len(v) == 0 || len(v) > 20 || (v[0] == '0' && len(v) > 1) {
		return 0, errMalformed
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, errMalformed
		}
	}
	return strconv.ParseUint(string(v), 10, 64)
}

// decodeStored turns a stored entry value into an Entry.
func decodeStored(seq uint64, val []byte) (Entry, error) {
	if len(val) < 64+2 {
		return Entry{}, bad(seq, CodeMalformedEntry, "value of %d bytes", len(val))
	}
	var e Entry
	copy(e.Prev[:], val[:32])
	copy(e.Hash[:], val[32:64])
	e.Raw = val[64:]
	p, err := parseEntry(e.Raw)
	if err != nil {
		return Entry{}, bad(seq, CodeMalformedEntry, "%v", err)
	}
	if p.seq != seq {
		return Entry{}, bad(seq, CodeSeqMismatch, "entry says seq %d", p.seq)
	}
	at, err := negotiation.ParseTime(p.at)
	if err != nil {
		return Entry{}, bad(seq, CodeMalformedEntry, "at: %v", err)
	}
	e.Seq, e.Kind, e.NegotiationID, e.Body, e.At = p.seq, p.kind, p.negotiationID, p.body, at
	e.NegotiationPrev, e.Linked = p.negPrev, p.linked
	if p.cid != nil {
		c, err := parseCIDValue(p.cid)
		if err != nil {
			return Entry{}, bad(seq, CodeMalformedEntry, "body.cid: %v", err)
		}
		e.CID = c
	}
	return e, nil
}

func parseCIDValue(v []byte) (cid.Cid, error) {
	s, ok := plainString(v)
	if !ok {
		return cid.Undef, errMalformed
	}
	return negotiation.CID(s).Parse()
}
