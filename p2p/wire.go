package p2p

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/ipfs/go-cid"
)

// Frames on every Parley protocol are a uvarint length followed by that
// many bytes (docs/p2p.md "Framing").

// errFrameTooLarge is returned by readMsg for a length over the limit.
var errFrameTooLarge = errors.New("p2p: frame over the size limit")

// readMsg reads one length-prefixed message of at most max bytes.
func readMsg(r *bufio.Reader, max int) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if n > uint64(max) {
		return nil, fmt.Errorf("%w: %d > %d", errFrameTooLarge, n, max)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}

// appendMsg appends the length prefix and parts as one message.
func appendMsg(dst []byte, parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	dst = binary.AppendUvarint(dst, uint64(n))
	for _, p := range parts {
		dst = append(dst, p...)
	}
	return dst
}

// writeMsg writes parts as one length-prefixed message in one Write.
func writeMsg(w io.Writer, parts ...[]byte) error {
	_, err := w.Write(appendMsg(nil, parts...))
	return err
}

// envelope stream frame: uvarint frame id || sealed frame.
func encodeFrame(id uint64, sealed []byte) []byte {
	b := binary.AppendUvarint(make([]byte, 0, 10+10+len(sealed)), id)
	return appendMsg(nil, b, sealed)
}

func decodeFrame(b []byte) (id uint64, sealed []byte, err error) {
	id, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, nil, errors.New("p2p: bad frame id")
	}
	return id, b[n:], nil
}

// ack: uvarint frame id || u8 code length || code || CID bytes (may be
// empty when the frame did not decode to an envelope).
type ack struct {
	id   uint64
	code Code
	cid  cid.Cid
}

func (a ack) encode() []byte {
	b := binary.AppendUvarint(make([]byte, 0, 64), a.id)
	b = append(b, byte(len(a.code)))
	b = append(b, a.code...)
	if a.cid.Defined() {
		b = append(b, a.cid.Bytes()...)
	}
	return appendMsg(nil, b)
}

func decodeAck(b []byte) (ack, error) {
	var a ack
	id, n := binary.Uvarint(b)
	if n <= 0 || len(b) < n+1 {
		return a, errors.New("p2p: bad ack")
	}
	a.id = id
	cl := int(b[n])
	rest := b[n+1:]
	if len(rest) < cl || cl == 0 {
		return a, errors.New("p2p: bad ack code")
	}
	a.code = Code(rest[:cl])
	if c := rest[cl:]; len(c) > 0 {
		parsed, err := cid.Cast(c)
		if err != nil {
			return a, fmt.Errorf("p2p: bad ack cid: %w", err)
		}
		a.cid = parsed
	}
	return a, nil
}
