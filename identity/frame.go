package identity

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	"github.com/libp2p/go-libp2p/core/peer"
)

// Sealed frame format, version 1 (docs/identity.md "Sealed frames"). All
// integers are big-endian.
//
//	header:
//	  magic      4   "PRLY"
//	  version    1   0x01
//	  flags      1   0x00 (reserved)
//	  aead       2   0x0001 = XChaCha20-Poly1305 (for wraps and the body)
//	  kdf        2   HPKE KDF id, 0x0001 = HKDF-SHA256
//	  negotiation 16  negotiationId (UUID bytes; zero when none)
//	  senderLen  1   1..64
//	  sender     senderLen  sender's libp2p peer id (binary multihash)
//	  linkLen    4   0, or the length of the sender's identity link
//	  link       linkLen    the link's JCS bytes (present iff an entry opens a session)
//	  count      1   number of recipients, 1..64
//	  count x entry:
//	    kem      2   HPKE KEM id of the recipient key (0x647a, 0x0020)
//	    keyId    16  recipient key id
//	    session  16  session id
//	    encLen   2   0 for a later message of the session, else the KEM's enc size
//	    enc      encLen  HPKE encapsulation (session init only)
//	    initSig  64  session init only: sender's inbox-key ed25519 signature
//	count x wrap:
//	  nonce      24
//	  sealed     48  the content key under the session key (32 + 16 tag)
//	body:
//	  nonce      24
//	  ciphertext     the plaintext under the content key, + 16 tag
const (
	frameMagic      = "PRLY"
	frameVersion    = 1
	aeadIDXChaCha   = 0x0001
	maxFrameSender  = 64
	maxFrameLink    = 64 << 10
	nonceSize       = 24
	contentKeySize  = 32
	tagSize         = 16
	wrapSize        = nonceSize + contentKeySize + tagSize
	initSigSize     = 64
	entryFixedSize  = 2 + KeyIDSize + SessionIDSize + 2
	frameFixedSize  = 4 + 1 + 1 + 2 + 2 + 16 + 1 + 4 + 1
	minBodySize     = nonceSize + tagSize
	labelHPKEInfo   = "parley/seal/v1"
	labelExporter   = "parley/seal/v1 session key"
	labelSessionID  = "parley/seal/v1 session id"
	labelInitSig    = "parley/seal/v1 session init"
	labelWrapAAD    = "parley/seal/v1 wrap"
	labelContentAAD = "parley/seal/v1 content"
	encSizeX25519   = 32
	encSizeMLKEMX   = 1120
)

// MaxRecipients is the largest number of recipients one sealed frame may name.
const MaxRecipients = 64

// SessionIDSize is the length of a session id in bytes.
const SessionIDSize = 16

// SessionID names an HPKE session: the first 16 bytes of
// SHA-256("parley/seal/v1 session id" || enc).
type SessionID [SessionIDSize]byte

// String returns 0x + 32 lowercase hex digits.
func (s SessionID) String() string { return "0x" + hex.EncodeToString(s[:]) }

func sessionIDOf(enc []byte) SessionID {
	h := sha256.New()
	h.Write([]byte(labelSessionID))
	h.Write(enc)
	var id SessionID
	copy(id[:], h.Sum(nil))
	return id
}

func encSize(kemID uint16) int {
	switch kemID {
	case kemIDX25519:
		return encSizeX25519
	case kemIDMLKEM768X25519:
		return encSizeMLKEMX
	}
	return -1
}

// FrameEntry is one recipient of a sealed frame, as its clear header names it.
type FrameEntry struct {
	KEM       KEM
	KeyID     KeyID
	SessionID SessionID
	Enc       []byte // HPKE encapsulation; nil for a later message of the session
	InitSig   []byte // sender's signature over the session init; nil when Enc is
}

// FrameHeader is the clear part of a sealed frame: what a store or relay
// needs to route it without any key.
type FrameHeader struct {
	NegotiationID [16]byte
	Sender        peer.ID
	Link          []byte // the sender's link, present when an entry opens a session
	Entries       []FrameEntry
}

// parsedFrame is a decoded frame with the byte ranges the AEADs bind.
type parsedFrame struct {
	FrameHeader
	header []byte // the header bytes, magic through the last entry
	wraps  []byte // count x wrapSize
	body   []byte // nonce || ciphertext
}

// ParseFrameHeader decodes the clear header of a sealed frame. It checks
// the whole frame's structure but opens nothing. The header's byte slices
// alias b.
func ParseFrameHeader(b []byte) (*FrameHeader, error) {
	f, err := parseFrame(b)
	if err != nil {
		return nil, err
	}
	return &f.FrameHeader, nil
}

type reader struct {
	b   []byte
	off int
	bad bool
}

func (r *reader) take(n int) []byte {
	if r.bad || n < 0 || len(r.b)-r.off < n {
		r.bad = true
		return nil
	}
	out := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return out
}

func (r *reader) u8() int {
	v := r.take(1)
	if v == nil {
		return 0
	}
	return int(v[0])
}

func (r *reader) u16() uint16 {
	v := r.take(2)
	if v == nil {
		return 0
	}
	return binary.BigEndian.Uint16(v)
}

func (r *reader) u32() uint32 {
	v := r.take(4)
	if v == nil {
		return 0
	}
	return binary.BigEndian.Uint32(v)
}

func parseFrame(b []byte) (*parsedFrame, error) {
	r := &reader{b: b}
	if string(r.take(4)) != frameMagic {
		return nil, fail(CodeBadFrame, "not a sealed frame (magic)")
	}
	if v := r.u8(); v != frameVersion {
		return nil, fail(CodeBadFrame, "version %d, want %d", v, frameVersion)
	}
	if fl := r.u8(); fl != 0 {
		return nil, fail(CodeBadFrame, "flags %#x, want 0", fl)
	}
	if a := r.u16(); a != aeadIDXChaCha {
		return nil, fail(CodeBadFrame, "aead %#04x is not supported", a)
	}
	if k := r.u16(); k != kdfIDHKDFSHA256 {
		return nil, fail(CodeBadFrame, "kdf %#04x is not supported", k)
	}
	f := &parsedFrame{}
	copy(f.NegotiationID[:], r.take(16))
	sl := r.u8()
	if sl == 0 || sl > maxFrameSender {
		return nil, fail(CodeBadFrame, "sender length %d", sl)
	}
	sender := r.take(sl)
	if r.bad {
		return nil, fail(CodeBadFrame, "truncated header")
	}
	id, err := peer.IDFromBytes(sender)
	if err != nil {
		return nil, failWrap(CodeBadFrame, err, "sender peer id")
	}
	f.Sender = id
	ll := r.u32()
	if ll > maxFrameLink {
		return nil, fail(CodeBadFrame, "link length %d over %d", ll, maxFrameLink)
	}
	if ll > 0 {
		f.Link = r.take(int(ll))
	}
	n := r.u8()
	if n == 0 || n > MaxRecipients {
		return nil, fail(CodeBadFrame, "recipient count %d, want 1..%d", n, MaxRecipients)
	}
	f.Entries = make([]FrameEntry, n)
	inits := 0
	seen := make(map[KeyID]bool, n)
	for i := range f.Entries {
		e := &f.Entries[i]
		kemID := r.u16()
		kem, ok := kemFromID(kemID)
		if !ok && !r.bad {
			return nil, fail(CodeBadFrame, "entry %d: kem %#04x is not supported", i, kemID)
		}
		e.KEM = kem
		copy(e.KeyID[:], r.take(KeyIDSize))
		copy(e.SessionID[:], r.take(SessionIDSize))
		el := int(r.u16())
		if r.bad {
			return nil, fail(CodeBadFrame, "truncated entry %d", i)
		}
		if seen[e.KeyID] {
			return nil, fail(CodeBadFrame, "entry %d repeats key %s", i, e.KeyID)
		}
		seen[e.KeyID] = true
		if el != 0 {
			if el != encSize(kemID) {
				return nil, fail(CodeBadFrame, "entry %d: enc is %d bytes, want %d", i, el, encSize(kemID))
			}
			e.Enc = r.take(el)
			e.InitSig = r.take(initSigSize)
			if r.bad {
				return nil, fail(CodeBadFrame, "truncated entry %d", i)
			}
			if sessionIDOf(e.Enc) != e.SessionID {
				return nil, fail(CodeBadFrame, "entry %d: session id is not that of its enc", i)
			}
			inits++
		}
	}
	if (inits > 0) != (len(f.Link) > 0) {
		return nil, fail(CodeBadFrame, "a link must come with, and only with, a session init")
	}
	f.header = b[:r.off:r.off]
	f.wraps = r.take(n * wrapSize)
	if r.bad || len(b)-r.off < minBodySize {
		return nil, fail(CodeBadFrame, "truncated frame")
	}
	f.body = b[r.off:]
	return f, nil
}

// appendFrameHeader appends the header of f to dst.
func appendFrameHeader(dst []byte, h *FrameHeader) []byte {
	dst = append(dst, frameMagic...)
	dst = append(dst, frameVersion, 0)
	dst = binary.BigEndian.AppendUint16(dst, aeadIDXChaCha)
	dst = binary.BigEndian.AppendUint16(dst, kdfIDHKDFSHA256)
	dst = append(dst, h.NegotiationID[:]...)
	sender := []byte(h.Sender)
	dst = append(dst, byte(len(sender)))
	dst = append(dst, sender...)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(h.Link)))
	dst = append(dst, h.Link...)
	dst = append(dst, byte(len(h.Entries)))
	for _, e := range h.Entries {
		dst = binary.BigEndian.AppendUint16(dst, e.KEM.ID())
		dst = append(dst, e.KeyID[:]...)
		dst = append(dst, e.SessionID[:]...)
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(e.Enc)))
		if len(e.Enc) > 0 {
			dst = append(dst, e.Enc...)
			dst = append(dst, e.InitSig...)
		}
	}
	return dst
}

// initSigningBytes is what the sender's inbox key signs to open a session:
// label || kem id || kdf id || key id || session id || enc.
func initSigningBytes(kemID uint16, keyID KeyID, sid SessionID, enc []byte) []byte {
	b := make([]byte, 0, len(labelInitSig)+4+KeyIDSize+SessionIDSize+len(enc))
	b = append(b, labelInitSig...)
	b = binary.BigEndian.AppendUint16(b, kemID)
	b = binary.BigEndian.AppendUint16(b, kdfIDHKDFSHA256)
	b = append(b, keyID[:]...)
	b = append(b, sid[:]...)
	return append(b, enc...)
}

// wrapAAD binds a recipient's wrap to its key id, session id, the
// negotiation, the whole header and the body:
// label || key id || session id || negotiationId || SHA-256(header) || SHA-256(body).
func wrapAAD(dst []byte, keyID KeyID, sid SessionID, neg [16]byte, headerHash, bodyHash [32]byte) []byte {
	dst = append(dst, labelWrapAAD...)
	dst = append(dst, keyID[:]...)
	dst = append(dst, sid[:]...)
	dst = append(dst, neg[:]...)
	dst = append(dst, headerHash[:]...)
	return append(dst, bodyHash[:]...)
}

// contentAAD binds the body to the header: label || SHA-256(header).
func contentAAD(dst []byte, headerHash [32]byte) []byte {
	dst = append(dst, labelContentAAD...)
	return append(dst, headerHash[:]...)
}

func hpkeInfo(keyID KeyID) []byte {
	return append([]byte(labelHPKEInfo), keyID[:]...)
}
