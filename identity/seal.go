package identity

import (
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/hpke"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"golang.org/x/crypto/chacha20poly1305"
)

// KeyLookup finds this node's private encryption keys by key id. A Keyring
// is one.
type KeyLookup interface {
	EncryptionKey(id KeyID) (*EncryptionKey, bool)
}

var _ KeyLookup = (*Keyring)(nil)

// SealerConfig configures a Sealer.
type SealerConfig struct {
	// Inbox is this node's inbox key: it signs session inits.
	Inbox *InboxKey
	// Link is this node's current identity link, carried in session inits.
	Link *Link
	// Keys finds this node's private encryption keys when opening.
	Keys KeyLookup
	// GracePeriod is how long after its notAfter a key still opens frames.
	GracePeriod time.Duration
	// MaxPlaintext bounds the plaintext of one frame.
	MaxPlaintext int
	// MaxSessions bounds the sessions cached in each direction; past it,
	// the oldest is forgotten (the peer re-keys).
	MaxSessions int
}

// Defaults of SealerConfig.
const (
	DefaultMaxPlaintext = 4 << 20
	DefaultMaxSessions  = 65536
)

// DefaultSealerConfig returns a SealerConfig for the given keys with
// default limits.
func DefaultSealerConfig(inbox *InboxKey, link *Link, keys KeyLookup) SealerConfig {
	return SealerConfig{
		Inbox:        inbox,
		Link:         link,
		Keys:         keys,
		GracePeriod:  DefaultGracePeriod,
		MaxPlaintext: DefaultMaxPlaintext,
		MaxSessions:  DefaultMaxSessions,
	}
}

// Validate returns an ErrBadConfig error naming the first bad field.
func (c SealerConfig) Validate() error {
	switch {
	case c.Inbox == nil:
		return fail(CodeBadConfig, "Inbox is nil")
	case c.Link == nil:
		return fail(CodeBadConfig, "Link is nil")
	case !c.Link.InboxKey.Equal(c.Inbox.PublicKey()):
		return fail(CodeBadConfig, "Link is not for Inbox")
	case c.Keys == nil:
		return fail(CodeBadConfig, "Keys is nil")
	case c.GracePeriod < 0:
		return fail(CodeBadConfig, "GracePeriod is negative")
	case c.MaxPlaintext < 1:
		return fail(CodeBadConfig, "MaxPlaintext %d is below 1", c.MaxPlaintext)
	case c.MaxSessions < 1:
		return fail(CodeBadConfig, "MaxSessions %d is below 1", c.MaxSessions)
	}
	return nil
}

// Sealer seals envelopes for named recipients and opens frames sealed to
// this node. It keeps one outgoing HPKE session per recipient key and
// remembers the incoming sessions it has opened; both live in memory only
// (after a restart peers re-key). It is safe for concurrent use.
type Sealer struct {
	cfg SealerConfig

	mu    sync.Mutex
	link  *Link
	out   map[KeyID]*outSession
	in    map[SessionID]*inSession
	links map[[32]byte]*Link // sender links verified in session inits, by hash
	tick  uint64             // orders sessions for eviction
}

type outSession struct {
	id      SessionID
	kem     KEM
	aead    cipher.AEAD
	enc     []byte // non-nil until the init has been sent once
	initSig []byte
	expires time.Time // the recipient key's notAfter
	used    uint64
}

type inSession struct {
	keyID  KeyID
	aead   cipher.AEAD
	sender peer.ID
	link   *Link
	used   uint64
}

// NewSealer returns a Sealer. It does no I/O.
func NewSealer(cfg SealerConfig) (*Sealer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Sealer{
		cfg:   cfg,
		link:  cfg.Link,
		out:   make(map[KeyID]*outSession),
		in:    make(map[SessionID]*inSession),
		links: make(map[[32]byte]*Link),
	}, nil
}

// SetLink replaces the link carried in new session inits (after the node
// re-issued its link). It must be for the same inbox key.
func (s *Sealer) SetLink(l *Link) error {
	if l == nil || !l.InboxKey.Equal(s.cfg.Inbox.PublicKey()) {
		return fail(CodeBadConfig, "link is not for this sealer's inbox key")
	}
	s.mu.Lock()
	s.link = l
	s.mu.Unlock()
	return nil
}

// Opened is the result of opening a frame.
type Opened struct {
	Plaintext     []byte
	NegotiationID [16]byte
	// Sender is the sender's identity link, verified when the session was
	// set up; SenderPeer is its peer id.
	Sender     *Link
	SenderPeer peer.ID
	KeyID      KeyID
	SessionID  SessionID
	// NewSession is true when this frame set up the session.
	NewSession bool
}

// Seal encrypts plaintext for recipients (verified links; 1 to
// MaxRecipients, one entry per link, sealed to each link's current key at
// now) in the negotiation negotiationID, and returns the sealed frame. The
// first frame of each session carries the HPKE encapsulation, a signature
// by this node's inbox key and this node's link; later frames name only
// the session.
func (s *Sealer) Seal(now time.Time, negotiationID [16]byte, recipients []*Link, plaintext []byte) ([]byte, error) {
	if len(recipients) == 0 || len(recipients) > MaxRecipients {
		return nil, fail(CodeBadConfig, "%d recipients, want 1..%d", len(recipients), MaxRecipients)
	}
	if len(plaintext) > s.cfg.MaxPlaintext {
		return nil, fail(CodeTooLarge, "plaintext is %d bytes, over %d", len(plaintext), s.cfg.MaxPlaintext)
	}
	h := FrameHeader{NegotiationID: negotiationID, Sender: s.cfg.Inbox.PeerID(), Entries: make([]FrameEntry, len(recipients))}
	aeads := make([]cipher.AEAD, len(recipients))
	keys := make([]*PublicEncryptionKey, len(recipients))
	for i, l := range recipients {
		if !now.Before(l.ExpiresAt) {
			return nil, fail(CodeLinkExpired, "link of %s expired at %s", l.PeerID, l.ExpiresAt.Format(time.RFC3339))
		}
		k, err := l.CurrentKey(now)
		if err != nil {
			return nil, err
		}
		for _, prev := range keys[:i] {
			if prev.ID == k.ID {
				return nil, fail(CodeBadConfig, "recipient %s named twice", l.PeerID)
			}
		}
		keys[i] = k
	}
	s.mu.Lock()
	link := s.link
	var started []*outSession
	for i, k := range keys {
		sess, err := s.outSessionLocked(k)
		if err != nil {
			s.mu.Unlock()
			return nil, err
		}
		e := FrameEntry{KEM: k.KEM, KeyID: k.ID, SessionID: sess.id}
		if sess.enc != nil {
			e.Enc, e.InitSig = sess.enc, sess.initSig
			started = append(started, sess)
		}
		h.Entries[i] = e
		aeads[i] = sess.aead
	}
	for _, sess := range started {
		sess.enc, sess.initSig = nil, nil // later frames carry only the session id
	}
	s.mu.Unlock()
	if len(started) > 0 {
		h.Link = link.Bytes()
	}

	header := appendFrameHeader(make([]byte, 0, 256+len(h.Link)), &h)
	headerHash := sha256.Sum256(header)
	var ck [contentKeySize]byte
	if _, err := rand.Read(ck[:]); err != nil {
		return nil, fmt.Errorf("identity: content key: %w", err)
	}
	content, err := chacha20poly1305.NewX(ck[:])
	if err != nil {
		return nil, err
	}
	size := len(header) + len(recipients)*wrapSize + nonceSize + len(plaintext) + tagSize
	frame := make([]byte, len(header)+len(recipients)*wrapSize, size)
	copy(frame, header)
	bodyStart := len(frame)
	frame = frame[:bodyStart+nonceSize]
	if _, err := rand.Read(frame[bodyStart:]); err != nil {
		return nil, fmt.Errorf("identity: nonce: %w", err)
	}
	var aadBuf [128]byte
	frame = content.Seal(frame, frame[bodyStart:bodyStart+nonceSize], plaintext, contentAAD(aadBuf[:0], headerHash))
	bodyHash := sha256.Sum256(frame[bodyStart:])
	for i, e := range h.Entries {
		w := frame[len(header)+i*wrapSize : len(header)+(i+1)*wrapSize]
		if _, err := rand.Read(w[:nonceSize]); err != nil {
			return nil, fmt.Errorf("identity: nonce: %w", err)
		}
		aeads[i].Seal(w[nonceSize:nonceSize], w[:nonceSize], ck[:], wrapAAD(aadBuf[:0], e.KeyID, e.SessionID, negotiationID, headerHash, bodyHash))
	}
	return frame, nil
}

// outSessionLocked returns the session to recipient key k, setting one up
// (an HPKE key exchange) when there is none.
func (s *Sealer) outSessionLocked(k *PublicEncryptionKey) (*outSession, error) {
	s.tick++
	if sess, ok := s.out[k.ID]; ok {
		sess.used = s.tick
		return sess, nil
	}
	enc, snd, err := hpke.NewSender(k.Public, hpke.HKDFSHA256(), hpke.ExportOnly(), hpkeInfo(k.ID))
	if err != nil {
		return nil, fmt.Errorf("identity: hpke sender: %w", err)
	}
	key, err := snd.Export(labelExporter, chacha20poly1305.KeySize)
	if err != nil {
		return nil, fmt.Errorf("identity: hpke export: %w", err)
	}
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return nil, err
	}
	id := sessionIDOf(enc)
	sess := &outSession{
		id:      id,
		kem:     k.KEM,
		aead:    aead,
		enc:     enc,
		initSig: s.cfg.Inbox.Sign(initSigningBytes(k.KEM.ID(), k.ID, id, enc)),
		expires: k.NotAfter,
		used:    s.tick,
	}
	if len(s.out) >= s.cfg.MaxSessions {
		evictOldest(s.out, func(o *outSession) uint64 { return o.used })
	}
	s.out[k.ID] = sess
	return sess, nil
}

// ResetSession forgets the outgoing session to the recipient key id, so
// that the next Seal to it sets up a new one. The transport calls it when
// the recipient answers CodeUnknownSession (a re-key request).
func (s *Sealer) ResetSession(id KeyID) {
	s.mu.Lock()
	delete(s.out, id)
	s.mu.Unlock()
}

// Open authenticates and decrypts a frame sealed to one of this node's
// keys at now. A later message of a session this node does not know gives
// CodeUnknownSession (answer with a re-key request; the Error names the
// key, session and sender). A key past its notAfter plus the grace period
// gives CodeKeyExpired, and a frame that was altered in any byte this node
// can check gives CodeOpenFailed or CodeBadFrame. A failed Open changes
// nothing.
func (s *Sealer) Open(now time.Time, frame []byte) (*Opened, error) {
	if len(frame) > s.cfg.MaxPlaintext+frameFixedSize+maxFrameSender+maxFrameLink+MaxRecipients*(entryFixedSize+encSizeMLKEMX+initSigSize+wrapSize)+minBodySize {
		return nil, fail(CodeTooLarge, "frame is %d bytes", len(frame))
	}
	f, err := parseFrame(frame)
	if err != nil {
		return nil, err
	}
	idx, ek := -1, (*EncryptionKey)(nil)
	for i, e := range f.Entries {
		if k, ok := s.cfg.Keys.EncryptionKey(e.KeyID); ok && k.KEM == e.KEM {
			idx, ek = i, k
			break
		}
	}
	if idx < 0 {
		if len(f.Entries) == 1 {
			e := f.Entries[0]
			return nil, &Error{Code: CodeUnknownKey, Msg: "no private key " + e.KeyID.String(), KeyID: e.KeyID, SessionID: e.SessionID, Sender: f.Sender}
		}
		return nil, &Error{Code: CodeNotAddressed, Msg: "no entry names a key of this node", Sender: f.Sender}
	}
	e := f.Entries[idx]
	errAt := func(code Code, format string, args ...any) *Error {
		return &Error{Code: code, Msg: fmt.Sprintf(format, args...), KeyID: e.KeyID, SessionID: e.SessionID, Sender: f.Sender}
	}
	if !ek.Usable(now, s.cfg.GracePeriod) {
		return nil, errAt(CodeKeyExpired, "key %s expired at %s", e.KeyID, ek.NotAfter.Format(time.RFC3339))
	}

	s.mu.Lock()
	sess, known := s.in[e.SessionID]
	s.mu.Unlock()
	if known && !now.Before(sess.link.ExpiresAt) {
		known = false // the sender's link has expired: make it re-key with a fresh one
		s.forgetIn(e.SessionID)
	}
	fresh := false
	switch {
	case known:
		if sess.keyID != e.KeyID || sess.sender != f.Sender {
			return nil, errAt(CodeSessionMismatch, "session %s belongs to another sender or key", e.SessionID)
		}
	case e.Enc == nil:
		return nil, errAt(CodeUnknownSession, "session %s is unknown; re-key", e.SessionID)
	default:
		if sess, err = s.acceptInit(now, f, e, ek); err != nil {
			return nil, err
		}
		fresh = true
	}

	headerHash := sha256.Sum256(f.header)
	bodyHash := sha256.Sum256(f.body)
	w := f.wraps[idx*wrapSize : (idx+1)*wrapSize]
	var aadBuf [128]byte
	ck, err := sess.aead.Open(nil, w[:nonceSize], w[nonceSize:], wrapAAD(aadBuf[:0], e.KeyID, e.SessionID, f.NegotiationID, headerHash, bodyHash))
	if err != nil {
		return nil, errAt(CodeOpenFailed, "content key does not authenticate")
	}
	content, err := chacha20poly1305.NewX(ck)
	if err != nil {
		return nil, errAt(CodeOpenFailed, "content key: %v", err)
	}
	pt, err := content.Open(nil, f.body[:nonceSize], f.body[nonceSize:], contentAAD(aadBuf[:0], headerHash))
	if err != nil {
		return nil, errAt(CodeOpenFailed, "body does not authenticate")
	}
	if len(pt) > s.cfg.MaxPlaintext {
		return nil, errAt(CodeTooLarge, "plaintext is %d bytes, over %d", len(pt), s.cfg.MaxPlaintext)
	}
	if fresh {
		s.mu.Lock()
		if cur, ok := s.in[e.SessionID]; ok {
			sess = cur // a concurrent Open of the same init got there first
		} else {
			if len(s.in) >= s.cfg.MaxSessions {
				evictOldest(s.in, func(i *inSession) uint64 { return i.used })
			}
			s.in[e.SessionID] = sess
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.tick++
	sess.used = s.tick
	s.mu.Unlock()
	return &Opened{
		Plaintext:     pt,
		NegotiationID: f.NegotiationID,
		Sender:        sess.link,
		SenderPeer:    sess.sender,
		KeyID:         e.KeyID,
		SessionID:     e.SessionID,
		NewSession:    fresh,
	}, nil
}

// acceptInit verifies a session init (the sender's link at now, its peer
// id, the init signature) and decapsulates the session key. It registers
// nothing: Open does once the frame authenticates.
func (s *Sealer) acceptInit(now time.Time, f *parsedFrame, e FrameEntry, ek *EncryptionKey) (*inSession, error) {
	errAt := func(err error) error {
		if ie, ok := err.(*Error); ok {
			c := *ie
			c.KeyID, c.SessionID, c.Sender = e.KeyID, e.SessionID, f.Sender
			return &c
		}
		return err
	}
	link, err := s.verifiedLink(now, f.Link)
	if err != nil {
		return nil, errAt(err)
	}
	if link.PeerID != f.Sender {
		return nil, errAt(fail(CodePeerIDMismatch, "frame sender %s, link names %s", f.Sender, link.PeerID))
	}
	if !ed25519.Verify(link.InboxKey, initSigningBytes(e.KEM.ID(), e.KeyID, e.SessionID, e.Enc), e.InitSig) {
		return nil, errAt(fail(CodeBadSignature, "session init signature does not verify"))
	}
	rcp, err := hpke.NewRecipient(e.Enc, ek.private, hpke.HKDFSHA256(), hpke.ExportOnly(), hpkeInfo(e.KeyID))
	if err != nil {
		return nil, errAt(failWrap(CodeOpenFailed, err, "hpke decapsulation"))
	}
	key, err := rcp.Export(labelExporter, chacha20poly1305.KeySize)
	if err != nil {
		return nil, errAt(failWrap(CodeOpenFailed, err, "hpke export"))
	}
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return nil, err
	}
	return &inSession{keyID: e.KeyID, aead: aead, sender: f.Sender, link: link}, nil
}

// verifiedLink decodes and verifies a sender's link at now. Links already
// verified (by hash of their bytes) only have their times checked again.
func (s *Sealer) verifiedLink(now time.Time, raw []byte) (*Link, error) {
	h := sha256.Sum256(raw)
	s.mu.Lock()
	l, ok := s.links[h]
	s.mu.Unlock()
	if ok {
		if err := l.checkTimes(now); err != nil {
			return nil, err
		}
		return l, nil
	}
	l, err := DecodeLink(raw, now)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.links) >= s.cfg.MaxSessions {
		for k := range s.links { // forget any one: it is only a cache
			delete(s.links, k)
			break
		}
	}
	s.links[h] = l
	s.mu.Unlock()
	return l, nil
}

func (s *Sealer) forgetIn(id SessionID) {
	s.mu.Lock()
	delete(s.in, id)
	s.mu.Unlock()
}

// Prune forgets incoming sessions whose key this node no longer holds or
// that is past its notAfter plus the grace period, or whose sender's link
// has expired, and outgoing sessions whose recipient key has expired. It
// returns how many sessions it forgot. Call it after Keyring.Prune: once
// both have run, nothing this node holds opens frames of a pruned epoch.
func (s *Sealer) Prune(now time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, sess := range s.in {
		k, ok := s.cfg.Keys.EncryptionKey(sess.keyID)
		if !ok || !k.Usable(now, s.cfg.GracePeriod) || !now.Before(sess.link.ExpiresAt) {
			delete(s.in, id)
			n++
		}
	}
	for h, l := range s.links {
		if !now.Before(l.ExpiresAt) {
			delete(s.links, h)
		}
	}
	for id, sess := range s.out {
		if !now.Before(sess.expires) {
			delete(s.out, id)
			n++
		}
	}
	return n
}

// Sessions returns how many outgoing and incoming sessions the sealer holds.
func (s *Sealer) Sessions() (out, in int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.out), len(s.in)
}

func evictOldest[K comparable, V any](m map[K]V, used func(V) uint64) {
	var oldest K
	first, min := true, uint64(0)
	for k, v := range m {
		if u := used(v); first || u < min {
			oldest, min, first = k, u, false
		}
	}
	if !first {
		delete(m, oldest)
	}
}
