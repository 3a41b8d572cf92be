package p2p

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"time"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
)

// ProtocolBlob fetches a file by CID (docs/p2p.md "Blobs"): the request
// names the CID and an offset, the answer gives a code and the file's
// size, then the bytes from the offset in chunks, each sealed to the
// requester.
const ProtocolBlob protocol.ID = "/parley/blob/1"

// blobTimeout bounds the silence between two messages of a transfer.
const blobTimeout = 30 * time.Second

// BlobProvider serves files by CID; the node implements it over the
// ledger's object store.
type BlobProvider interface {
	// Blob returns the file stored under c when requester (a verified
	// link) may read it: ErrNotFound (or any error) refuses.
	Blob(ctx context.Context, requester *identity.Link, c cid.Cid) ([]byte, error)
}

// handleBlob answers one fetch.
func (h *Host) handleBlob(s network.Stream) {
	defer s.Close()
	_ = s.SetDeadline(time.Now().Add(blobTimeout))
	remote := s.Conn().RemotePeer()
	req, err := readMsg(bufio.NewReader(s), 256)
	if err != nil || len(req) < 2 || req[0] != 1 {
		_ = s.Reset()
		return
	}
	offset, n := binary.Uvarint(req[1:])
	if n <= 0 {
		_ = s.Reset()
		return
	}
	c, err := cid.Cast(req[1+n:])
	if err != nil {
		_ = writeMsg(s, blobHeader(Code(negotiation.CodeBadCID), 0))
		return
	}
	link := h.book.byPeerID(remote)
	if link == nil {
		_ = writeMsg(s, blobHeader(CodeUnknownLink, 0))
		return
	}
	if h.cfg.Blobs == nil {
		_ = writeMsg(s, blobHeader(CodeNotFound, 0))
		return
	}
	data, err := h.cfg.Blobs.Blob(h.ctx, link, c)
	if err != nil {
		code := CodeOf(err)
		if code == "" {
			code = CodeNotFound
		}
		_ = writeMsg(s, blobHeader(code, 0))
		return
	}
	if int64(len(data)) > h.cfg.MaxBlobBytes {
		_ = writeMsg(s, blobHeader(Code(negotiation.CodeTooLarge), uint64(len(data))))
		return
	}
	if offset > uint64(len(data)) {
		_ = writeMsg(s, blobHeader(Code(negotiation.CodeTooLarge), uint64(len(data))))
		return
	}
	if err := writeMsg(s, blobHeader(CodeOK, uint64(len(data)))); err != nil {
		return
	}
	now := h.now()
	if k, err := link.CurrentKey(now); err == nil {
		h.cfg.Sealer.ResetSession(k.ID) // the first chunk opens a session
	}
	for off := int(offset); off < len(data); off += h.cfg.BlobChunk {
		end := min(off+h.cfg.BlobChunk, len(data))
		sealed, err := h.cfg.Sealer.Seal(now, [16]byte{}, []*identity.Link{link}, data[off:end])
		if err != nil {
			_ = s.Reset()
			return
		}
		_ = s.SetDeadline(time.Now().Add(blobTimeout))
		if err := writeMsg(s, sealed); err != nil {
			return
		}
	}
}

func blobHeader(code Code, size uint64) []byte {
	b := append([]byte{byte(len(code))}, code...)
	return binary.AppendUvarint(b, size)
}

// FetchBlob fetches the file c from peer p, resuming after have (bytes of
// the file fetched before, possibly none). It returns the whole file once
// it hashes to c. On a broken transfer it returns what it has so far with
// the error, so the caller can resume; bytes that do not hash to c give
// ErrCIDMismatch and are not returned.
func (h *Host) FetchBlob(ctx context.Context, p peer.ID, c cid.Cid, have []byte) ([]byte, error) {
	lp := h.Libp2p()
	if lp == nil {
		return have, fail(CodeClosed, "not started")
	}
	if h.book.byPeerID(p) == nil {
		if err := h.Connect(ctx, peer.AddrInfo{ID: p}); err != nil {
			return have, err
		}
	}
	s, err := lp.NewStream(overRelay(ctx, "blob"), p, ProtocolBlob)
	if err != nil {
		return have, failWrap(CodeNotFound, err, "blob stream to %s", p)
	}
	defer s.Close()
	_ = s.SetDeadline(time.Now().Add(blobTimeout))
	req := append([]byte{1}, binary.AppendUvarint(nil, uint64(len(have)))...)
	if err := writeMsg(s, req, c.Bytes()); err != nil {
		return have, failWrap(CodeBusy, err, "blob request")
	}
	r := bufio.NewReaderSize(s, 64<<10)
	hdr, err := readMsg(r, 128)
	if err != nil || len(hdr) < 2 || int(hdr[0])+1 > len(hdr) {
		return have, failWrap(CodeBusy, errors.Join(err, errors.New("bad blob header")), "blob header")
	}
	code := Code(hdr[1 : 1+int(hdr[0])])
	size, n := binary.Uvarint(hdr[1+int(hdr[0]):])
	if n <= 0 {
		return have, fail(CodeBusy, "bad blob header")
	}
	if code != CodeOK {
		return have, fail(code, "peer %s refused blob %s", p, c)
	}
	if size > uint64(h.cfg.MaxBlobBytes) {
		return have, fail(Code(negotiation.CodeTooLarge), "blob of %d bytes, over %d", size, h.cfg.MaxBlobBytes)
	}
	out := make([]byte, len(have), size)
	copy(out, have)
	for uint64(len(out)) < size {
		_ = s.SetDeadline(time.Now().Add(blobTimeout))
		sealed, err := readMsg(r, h.cfg.MaxFrameBytes)
		if err != nil {
			return out, failWrap(CodeBusy, err, "blob %s interrupted at %d of %d bytes", c, len(out), size)
		}
		o, err := h.cfg.Sealer.Open(h.now(), sealed)
		if err != nil {
			return out, err
		}
		if o.SenderPeer != p {
			return out, fail(CodeSenderMismatch, "blob chunk sealed by %s, not %s", o.SenderPeer, p)
		}
		if uint64(len(out)+len(o.Plaintext)) > size {
			return have, fail(ErrCIDMismatch.Code, "blob %s longer than announced", c)
		}
		out = append(out, o.Plaintext...)
	}
	got, err := c.Prefix().Sum(out)
	if err != nil || !got.Equals(c) {
		return have[:0], fail(CodeCIDMismatch, "fetched bytes do not hash to %s", c)
	}
	return out, nil
}
