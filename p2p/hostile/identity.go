package hostile

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"sync"
	"time"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
)

// Identity is a throw-away Parley identity: fresh keys and a valid link.
// Its methods are safe for concurrent use.
type Identity struct {
	Inbox *identity.InboxKey
	EVM   *identity.EVMKey
	Enc   *identity.EncryptionKey
	Link  *identity.Link

	sealer *identity.Sealer

	mu   sync.Mutex
	seq  map[string]uint64
	prev map[string]negotiation.Hash
	n    uint64
}

// NewIdentity makes a throw-away identity whose link is valid from now for
// a day (X25519 encryption key).
func NewIdentity(now time.Time) (*Identity, error) {
	inbox, err := identity.GenerateInboxKey()
	if err != nil {
		return nil, err
	}
	evm, err := identity.GenerateEVMKey()
	if err != nil {
		return nil, err
	}
	enc, err := identity.GenerateEncryptionKey(identity.KEMX25519, now.Add(24*time.Hour))
	if err != nil {
		return nil, err
	}
	link, err := identity.CreateLink(evm, inbox, []*identity.PublicEncryptionKey{enc.PublicKey()}, now, now.Add(24*time.Hour))
	if err != nil {
		return nil, err
	}
	id := &Identity{Inbox: inbox, EVM: evm, Enc: enc, Link: link, seq: map[string]uint64{}, prev: map[string]negotiation.Hash{}}
	if id.sealer, err = identity.NewSealer(identity.DefaultSealerConfig(inbox, link, id)); err != nil {
		return nil, err
	}
	return id, nil
}

// EncryptionKey returns the identity's private encryption key by id
// (identity.KeyLookup).
func (id *Identity) EncryptionKey(k identity.KeyID) (*identity.EncryptionKey, bool) {
	if k == id.Enc.PublicKey().ID {
		return id.Enc, true
	}
	return nil, false
}

// Address returns the identity's EVM address.
func (id *Identity) Address() negotiation.Address { return negotiation.Address(id.EVM.Address()) }

// NewNegotiationID returns a random negotiation id.
func NewNegotiationID() string {
	var r [16]byte
	_, _ = rand.Read(r[:])
	return negotiation.NewNegotiationID(r)
}

// Envelope builds the identity's next envelope in negotiation nid: a valid
// TaskProposal at time at, addressed to to (none: an announcement).
func (id *Identity) Envelope(nid string, at time.Time, to ...negotiation.Address) (*negotiation.Envelope, error) {
	id.mu.Lock()
	defer id.mu.Unlock()
	var pk negotiation.PublicKey
	copy(pk[:], id.Inbox.PublicKey())
	id.n++
	h := negotiation.Header{
		NegotiationID: nid, Sequence: id.seq[nid] + 1, PreviousHash: id.prev[nid], Timestamp: at,
		Sender: negotiation.Sender{EVMAddress: id.Address(), XMTPPublicKey: pk}, Recipients: to,
	}
	p := &negotiation.TaskProposal{Terms: negotiation.Terms{
		Title: fmt.Sprintf("Task %d from a throw-away identity", id.n), ChainID: negotiation.U64(31337),
		Registry:   negotiation.Address{0x5f, 0xbd, 0xb2, 0x31, 0x56, 0x78, 0xaf, 0xec, 0xb3, 0x67, 0xf0, 0x32, 0xd9, 0x3f, 0x64, 0x2f, 0x64, 0x18, 0x0a, 0xa3},
		Milestones: []negotiation.Milestone{{Amount: negotiation.U64(1000), Description: "all of it"}},
		Deadline:   uint64(at.Add(30 * 24 * time.Hour).Unix()), Nonce: negotiation.U64(id.n),
	}}
	env, err := negotiation.Build(h, p, id.Inbox, negotiation.DecodeOptions{})
	if err != nil {
		return nil, err
	}
	id.seq[nid], id.prev[nid] = env.Sequence, env.Hash()
	return env, nil
}

// Announcement builds a valid task announcement (a TaskProposal without
// recipients in a new negotiation) at time at.
func (id *Identity) Announcement(at time.Time) (*negotiation.Envelope, error) {
	return id.Envelope(NewNegotiationID(), at)
}

// Bundle returns the task-board message for env: the identity's link
// beside the envelope.
func (id *Identity) Bundle(env *negotiation.Envelope) []byte {
	return Bundle(id.Link.Bytes(), env.Bytes())
}

// Seal seals env to the recipient's link in the identity's session with
// it (the first frame to a recipient carries the session init, so frames
// must arrive in order).
func (id *Identity) Seal(to *identity.Link, env *negotiation.Envelope, at time.Time) ([]byte, error) {
	nid, err := negotiation.ParseNegotiationID(env.NegotiationID)
	if err != nil {
		return nil, err
	}
	return id.sealer.Seal(at, nid, []*identity.Link{to}, env.Bytes())
}

// Bundle is a task-board message: uvarint link length, link, envelope.
func Bundle(link, env []byte) []byte {
	b := binary.AppendUvarint(make([]byte, 0, 10+len(link)+len(env)), uint64(len(link)))
	return append(append(b, link...), env...)
}

// Garbage returns the i-th garbage frame: bytes that are no sealed frame.
func Garbage(i int) []byte { return fmt.Appendf(nil, "PRLY garbage frame %d", i) }
