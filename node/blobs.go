package node

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/ipfs/go-cid"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

var _ p2p.BlobProvider = (*Node)(nil)

// fileRef is one file to fetch: its CID and what the envelope says of it.
type fileRef struct {
	c   cid.Cid
	ref negotiation.FileRef
}

func refsOf(proof negotiation.CID, files []negotiation.FileRef) []fileRef {
	var out []fileRef
	seen := map[cid.Cid]bool{}
	for _, f := range files {
		if c, err := f.CID.Parse(); err == nil && !seen[c] {
			seen[c] = true
			out = append(out, fileRef{c: c, ref: f})
		}
	}
	if c, err := proof.Parse(); err == nil && !seen[c] {
		out = append(out, fileRef{c: c, ref: negotiation.FileRef{Name: "proof", CID: proof}})
	}
	return out
}

func deliveryFiles(p *negotiation.DeliveryNotice) []fileRef { return refsOf(p.ProofCID, p.Files) }

func evidenceFiles(p *negotiation.DisputeEvidence) []fileRef {
	return refsOf(p.EvidenceCID, p.Files)
}

// bundleFile returns the proof bundle a hand-over carries, or nil.
func bundleFile(p *negotiation.DisputeEvidence) *negotiation.FileRef {
	for i := range p.Files {
		if p.Files[i].MediaType == MediaTypeBundle {
			return &p.Files[i]
		}
	}
	return nil
}

// storeBlob stores a file under its CID (raw codec) in negotiation nid
// and returns the CID. Storing the same bytes again returns the same CID.
func (n *Node) storeBlob(ctx context.Context, nid, name, mediaType, from string, data []byte) (cid.Cid, error) {
	body, err := json.Marshal(blobBody{Name: name, Size: len(data), MediaType: mediaType, From: from})
	if err != nil {
		return cid.Undef, err
	}
	e, _, err := n.led.Append(ctx, ledger.Record{
		Kind: ledger.KindBlobStored, NegotiationID: nid, Body: body, Object: data, ObjectCodec: ledger.CodecRaw, At: n.now(),
	})
	if err != nil {
		return cid.Undef, failWrap(CodeStoreFailed, err, "file %q", name)
	}
	return e.CID, nil
}

// Blob serves a file by CID over /parley/blob/1 (p2p.BlobProvider): a
// public announcement to anyone; a file or envelope of a negotiation only
// to its parties and its arbitrator (assigned, or agreed by both parties).
func (n *Node) Blob(ctx context.Context, requester *identity.Link, c cid.Cid) ([]byte, error) {
	e, err := n.led.ByCID(ctx, c)
	if err != nil {
		return nil, p2p.ErrNotFound
	}
	data, err := n.led.Object(ctx, c)
	if err != nil {
		return nil, p2p.ErrNotFound
	}
	if e.Kind == ledger.KindEnvelopeSent || e.Kind == ledger.KindEnvelopeReceived {
		if env, err := negotiation.Decode(data, negotiation.DecodeOptions{MaxBytes: len(data)}); err == nil && env.IsAnnouncement() {
			return data, nil
		}
	}
	if e.NegotiationID == "" || requester == nil {
		return nil, p2p.ErrNotFound
	}
	party := false
	err = n.eng.With(e.NegotiationID, func(t *thread) error {
		who := negotiation.Address(requester.EVMAddress)
		agreed, _ := t.Th.AgreedArbitrator()
		party = who != (negotiation.Address{}) && (who == t.Th.Poster() || who == t.Th.Worker() || who == t.Th.Arbitrator() || who == agreed)
		return nil
	})
	if err != nil || !party {
		return nil, p2p.ErrNotFound
	}
	return data, nil
}

// fetchFiles fetches files of negotiation nid from peer p in the
// background, checks each against its CID (the transport refuses bytes
// that do not hash to it) and stores it. Files already stored, or being
// fetched, are skipped.
func (n *Node) fetchFiles(nid string, p peer.ID, files []fileRef) {
	for _, f := range files {
		k := fetchKey{nid: nid, c: f.c}
		n.tmu.Lock()
		busy := n.fetching[k]
		n.fetching[k] = true
		n.tmu.Unlock()
		if busy {
			continue
		}
		n.spawn(func(ctx context.Context) {
			defer func() {
				n.tmu.Lock()
				delete(n.fetching, k)
				n.tmu.Unlock()
			}()
			if _, err := n.fetchFile(ctx, nid, p, f); err != nil && ctx.Err() == nil {
				n.log.Warn("file not fetched", "negotiation", nid, "cid", f.c, "err", err)
			}
		})
	}
}

// fetchFile fetches one file (fetchRaw) unless it is stored already, and
// stores it.
func (n *Node) fetchFile(ctx context.Context, nid string, p peer.ID, f fileRef) ([]byte, error) {
	if data, err := n.led.Object(ctx, f.c); err == nil {
		return data, nil
	}
	data, err := n.fetchRaw(ctx, p, f.c)
	if err != nil {
		return nil, err
	}
	if _, err := n.storeBlob(ctx, nid, f.ref.Name, f.ref.MediaType, p.String(), data); err != nil {
		return nil, err
	}
	n.events.publish(Event{Kind: EventFile, NegotiationID: nid, CID: f.c.String(), Detail: f.ref.Name, At: n.now()})
	return data, nil
}

// fetchRaw fetches the file c from p without storing it, retrying with
// backoff (a party may not yet know the fetching node's role): a broken
// transfer resumes after the bytes it got, bytes that do not hash to c
// are dropped and fetched again. It counts each result in the files
// metric.
func (n *Node) fetchRaw(ctx context.Context, p peer.ID, c cid.Cid) ([]byte, error) {
	var have []byte
	var lastErr error
	for attempt, delay := 0, 200*time.Millisecond; attempt < 8; attempt, delay = attempt+1, min(2*delay, 5*time.Second) {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(delay):
			}
		}
		fctx, cancel := context.WithTimeout(ctx, n.cfg.FetchTimeout)
		data, err := n.host.FetchBlob(fctx, p, c, have)
		cancel()
		if err == nil {
			n.m.files.WithLabelValues("ok").Inc()
			return data, nil
		}
		lastErr, have = err, data
		if errors.Is(err, p2p.ErrCIDMismatch) {
			have = nil
			n.m.files.WithLabelValues("cid_mismatch").Inc()
		}
	}
	n.m.files.WithLabelValues("failed").Inc()
	return nil, lastErr
}

// File returns a file the node stores (delivered, evidence, or its own)
// by CID, with the negotiation it belongs to.
func (n *Node) File(ctx context.Context, c cid.Cid) ([]byte, error) {
	if err := n.running(); err != nil {
		return nil, err
	}
	data, err := n.led.Object(ctx, c)
	if err != nil {
		return nil, fail(CodeBadArgument, "no file %s", c)
	}
	return data, nil
}
