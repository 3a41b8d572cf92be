package ledger

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/strictjson"
)

// bundleFileV2 is the JSON shape of a version-2 proof bundle.
type bundleFileV2 struct {
	Format        string          `json:"format"`
	NegotiationID string          `json:"negotiationId"`
	TreeHead      json.RawMessage `json:"treeHead"`
	Signer        json.RawMessage `json:"signer"`
	Entries       []bundleEntryV2 `json:"entries"`
	Objects       []bundleObject  `json:"objects"`
	Pruned        []string        `json:"pruned"`
	Anchor        json.RawMessage `json:"anchor"`
}

type bundleEntryV2 struct {
	Seq   uint64          `json:"seq"`
	Entry json.RawMessage `json:"entry"`
	Proof *[]string       `json:"proof"` // nil when missing
}

// bundleAnchor is the anchor member of a version-2 bundle.
type bundleAnchor struct {
	Address     negotiation.Address `json:"address"`
	BlockNumber uint64              `json:"blockNumber"`
	ChainID     uint64              `json:"chainId"`
	Contract    negotiation.Address `json:"contract"`
	Root        negotiation.Hash    `json:"root"`
	Size        uint64              `json:"size"`
	TxHash      negotiation.Hash    `json:"txHash"`
	Consistency []string            `json:"consistency"`
}

// bundleFormat returns the format member of a bundle that strictjson.Check
// accepted, or "" (each format's decoder then matches names exactly).
func bundleFormat(b []byte) string {
	var f struct {
		Format string `json:"format"`
	}
	if json.Unmarshal(b, &f) != nil {
		return ""
	}
	return f.Format
}

// decodeBundleV2 decodes a version-2 bundle that strictjson.Check
// accepted: every member present, named exactly, none unknown.
func decodeBundleV2(b []byte) (*bundleFileV2, error) {
	fail := func(format string, args ...any) (*bundleFileV2, error) {
		return nil, bad(0, CodeBadBundle, format, args...)
	}
	var top map[string]json.RawMessage
	if err := strictjson.Unmarshal(b, &top); err != nil || top == nil {
		return fail("not a JSON object")
	}
	var f bundleFileV2
	fields := map[string]any{
		"format": &f.Format, "negotiationId": &f.NegotiationID, "treeHead": &f.TreeHead, "signer": &f.Signer,
		"entries": &f.Entries, "objects": &f.Objects, "pruned": &f.Pruned, "anchor": &f.Anchor,
	}
	for k := range top {
		if _, ok := fields[k]; !ok {
			return fail("unknown member %q", k)
		}
	}
	for _, k := range []string{"format", "negotiationId", "treeHead", "signer", "entries", "objects", "pruned", "anchor"} {
		raw, ok := top[k]
		if !ok {
			return fail("member %q is missing", k)
		}
		if err := strictjson.Unmarshal(raw, fields[k]); err != nil {
			return fail("%s: %v", k, err)
		}
	}
	if f.Format != BundleFormatV2 {
		return fail("format %q, want %q", f.Format, BundleFormatV2)
	}
	return &f, nil
}

// verifyBundleV2 checks a version-2 bundle, in this order, and returns a
// *VerifyError naming the first failure: the negotiation id, the tree head
// (its form, not its signature) and the signer link (a JSON object); each
// entry canonical and its seq (malformed_entry, seq_mismatch), seqs
// strictly increasing (out_of_order), each of the negotiation
// (foreign_entry), its inclusion proof against the tree head's root
// (bad_inclusion); the negotiationPrev back-links complete from the last
// entry back to the negotiation's first (omitted_entry); the objects and
// envelopes as version 1 does; each sender's envelopes a contiguous run of
// sequences, each naming the hash of the one before it (sender_chain); the
// anchor's root a prefix of the tree head's, by its consistency proof
// (inconsistent).
func verifyBundleV2(f *bundleFileV2, opts BundleOptions) (*BundleReport, error) {
	if _, err := negotiation.ParseNegotiationID(f.NegotiationID); err != nil {
		return nil, bad(0, CodeBadBundle, "negotiationId: %v", err)
	}
	hb, err := canonicalText(f.TreeHead)
	if err != nil {
		return nil, bad(0, CodeBadBundle, "treeHead: %v", err)
	}
	head, err := ParseTreeHead(hb)
	if err != nil {
		return nil, bad(0, CodeBadBundle, "treeHead: %v", err)
	}
	signer, err := canonicalText(f.Signer)
	if err != nil || len(signer) < 2 || signer[0] != '{' {
		return nil, bad(0, CodeBadBundle, "signer: want the identity link's JSON object")
	}
	if len(f.Entries) == 0 {
		return nil, bad(0, CodeBadBundle, "no entries")
	}
	rep := &BundleReport{
		Version: 2, NegotiationID: f.NegotiationID, TreeHead: &head, Signer: signer,
		From: f.Entries[0].Seq, Entries: len(f.Entries),
	}
	var last uint64
	for i, be := range f.Entries {
		seq := be.Seq
		raw, err := canonicalText(be.Entry)
		if err != nil {
			return nil, bad(seq, CodeMalformedEntry, "entries[%d]: %v", i, err)
		}
		p, err := parseEntry(raw)
		if err != nil {
			return nil, bad(seq, CodeMalformedEntry, "entries[%d]: %v", i, err)
		}
		if p.seq != seq {
			return nil, bad(seq, CodeSeqMismatch, "entries[%d] is listed as seq %d and says seq %d", i, seq, p.seq)
		}
		if seq <= last {
			return nil, bad(seq, CodeOutOfOrder, "entries[%d] has seq %d after seq %d", i, seq, last)
		}
		last = seq
		if p.negotiationID != f.NegotiationID {
			return nil, bad(seq, CodeForeignEntry, "entry %d is of negotiation %q, not %s", seq, p.negotiationID, f.NegotiationID)
		}
		if be.Proof == nil {
			return nil, bad(seq, CodeBadInclusion, "entry %d has no inclusion proof", seq)
		}
		proof, err := parseProof(*be.Proof)
		if err != nil {
			return nil, bad(seq, CodeBadInclusion, "entry %d: %v", seq, err)
		}
		if err := VerifyInclusion(raw, seq, head.Size, proof, head.Root); err != nil {
			return nil, bad(seq, CodeBadInclusion, "entry %d is not in the tree of size %d with root %s: %v", seq, head.Size, negotiation.Hash(head.Root), err)
		}
		at, err := negotiation.ParseTime(p.at)
		if err != nil {
			return nil, bad(seq, CodeMalformedEntry, "at: %v", err)
		}
		e := Entry{Seq: seq, Kind: p.kind, NegotiationID: p.negotiationID, NegotiationPrev: p.negPrev, Linked: p.linked, Body: p.body, At: at, Raw: raw}
		if p.cid != nil {
			if e.CID, err = parseCIDValue(p.cid); err != nil {
				return nil, bad(seq, CodeMalformedEntry, "body.cid: %v", err)
			}
		}
		rep.Negotiation = append(rep.Negotiation, e)
	}
	if err := checkBackLinks(rep); err != nil {
		return nil, err
	}
	v1 := &bundleFile{NegotiationID: f.NegotiationID, Objects: f.Objects, Pruned: f.Pruned}
	if err := checkBundledObjects(v1, rep, opts); err != nil {
		return nil, err
	}
	if err := checkSenderChains(rep); err != nil {
		return nil, err
	}
	if err := checkBundledTreeAnchor(f.Anchor, head, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// checkBackLinks follows the negotiationPrev back-links from the last
// bundled entry to the negotiation's first: each linked entry must name the
// bundled entry before it (0 for the first). Entries stored before the
// back-link was kept may only precede every linked one; they are counted
// in rep.Unlinked.
func checkBackLinks(rep *BundleReport) error {
	es := rep.Negotiation
	for rep.Unlinked < len(es) && !es[rep.Unlinked].Linked {
		rep.Unlinked++
	}
	for _, e := range es[rep.Unlinked:] {
		if !e.Linked {
			return bad(e.Seq, CodeOmittedEntry, "entry %d has no back-link, but an earlier entry of the negotiation has one", e.Seq)
		}
	}
	for i := len(es) - 1; i >= rep.Unlinked; i-- {
		e := es[i]
		var want uint64
		if i > 0 {
			want = es[i-1].Seq
		}
		switch {
		case e.NegotiationPrev == want:
		case e.NegotiationPrev == 0:
			return bad(e.Seq, CodeOmittedEntry, "entry %d says it is the negotiation's first, but entry %d precedes it", e.Seq, want)
		default:
			return bad(e.Seq, CodeOmittedEntry, "entry %d follows the negotiation's entry %d, which the bundle omits", e.Seq, e.NegotiationPrev)
		}
	}
	return nil
}

// checkSenderChains checks each sender's envelopes, from the entries that
// recorded them (an envelope deleted under retention keeps its entry: its
// sender, sequence and hash): taken by sequence, they must be contiguous
// from the sender's first recorded one, and each bundled envelope must name
// as previousHash the hash of an envelope of the sequence before it (two
// envelopes of one sequence, an equivocation, are the comparison's to
// report: either may be named).
func checkSenderChains(rep *BundleReport) error {
	type item struct {
		sequence uint64
		hash     negotiation.Hash
		env      *negotiation.Envelope // nil when deleted under retention
		seq      uint64                // the entry that recorded it
	}
	envs := make(map[negotiation.Hash]*negotiation.Envelope, len(rep.Envelopes))
	for _, env := range rep.Envelopes {
		envs[env.Hash()] = env
	}
	bySender := map[string][]item{}
	for _, e := range rep.Negotiation {
		if !e.CID.Defined() || (e.Kind != KindEnvelopeSent && e.Kind != KindEnvelopeReceived) {
			continue
		}
		var body struct {
			Sender   string `json:"sender"`
			Sequence uint64 `json:"sequence"`
		}
		if err := json.Unmarshal(e.Body, &body); err != nil || body.Sequence == 0 {
			return bad(e.Seq, CodeMalformedEntry, "envelope entry body: %v", err)
		}
		h, err := negotiation.HashFromCID(e.CID)
		if err != nil {
			return bad(e.Seq, CodeMalformedEntry, "envelope entry cid: %v", err)
		}
		bySender[body.Sender] = append(bySender[body.Sender], item{sequence: body.Sequence, hash: h, env: envs[h], seq: e.Seq})
	}
	senders := make([]string, 0, len(bySender))
	for a := range bySender {
		senders = append(senders, a)
	}
	sort.Strings(senders)
	for _, a := range senders {
		items := bySender[a]
		sort.SliceStable(items, func(i, j int) bool { return items[i].sequence < items[j].sequence })
		hashes := map[uint64][]negotiation.Hash{}
		for _, it := range items {
			hashes[it.sequence] = append(hashes[it.sequence], it.hash)
		}
		first := items[0].sequence
		for _, it := range items {
			if it.sequence == first {
				continue
			}
			prev, ok := hashes[it.sequence-1]
			if !ok {
				return bad(it.seq, CodeSenderChain, "envelope %d of %s follows no recorded envelope %d of its sender", it.sequence, a, it.sequence-1)
			}
			if it.env == nil {
				continue
			}
			linked := false
			for _, h := range prev {
				linked = linked || h == it.env.PreviousHash
			}
			if !linked {
				return bad(it.seq, CodeSenderChain, "envelope %d of %s names previousHash %s, not the hash of its sender's envelope %d", it.sequence, a, it.env.PreviousHash, it.sequence-1)
			}
		}
	}
	return nil
}

// checkBundledTreeAnchor checks the bundle's anchor member: null, or an
// anchor of a size at most the tree head's whose root is a prefix of the
// tree head's root by the bundled consistency proof.
func checkBundledTreeAnchor(raw json.RawMessage, head TreeHead, rep *BundleReport) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var ba bundleAnchor
	if err := strictjson.Unmarshal(raw, &ba); err != nil {
		return bad(0, CodeBadBundle, "anchor: %v", err)
	}
	var present map[string]json.RawMessage
	if err := json.Unmarshal(raw, &present); err != nil {
		return bad(0, CodeBadBundle, "anchor: %v", err)
	}
	for _, k := range []string{"address", "blockNumber", "chainId", "contract", "root", "size", "txHash", "consistency"} {
		if _, ok := present[k]; !ok {
			return bad(0, CodeBadBundle, "anchor: member %q is missing", k)
		}
	}
	switch {
	case ba.Size == 0 || ba.Size > MaxTreeSize:
		return bad(0, CodeBadBundle, "anchor: size %d is outside 1..%d", ba.Size, uint64(MaxTreeSize))
	case ba.ChainID == 0 || ba.ChainID > MaxTreeSize || ba.BlockNumber > MaxTreeSize:
		return bad(0, CodeBadBundle, "anchor: chain id %d, block %d", ba.ChainID, ba.BlockNumber)
	}
	a := TreeAnchor{Size: ba.Size, Root: ba.Root, ChainID: ba.ChainID, Contract: ba.Contract, Address: ba.Address, TxHash: ba.TxHash, BlockNumber: ba.BlockNumber}
	if a.Size > head.Size {
		return bad(0, CodeInconsistent, "the anchor's size %d is beyond the tree head's %d", a.Size, head.Size)
	}
	proof, err := parseProof(ba.Consistency)
	if err != nil {
		return bad(0, CodeInconsistent, "anchor: %v", err)
	}
	if err := VerifyConsistency(a.Size, head.Size, proof, a.Root, head.Root); err != nil {
		return bad(0, CodeInconsistent, "the anchored root %s at size %d is not a prefix of the tree head's root %s at size %d: %v",
			negotiation.Hash(a.Root), a.Size, negotiation.Hash(head.Root), head.Size, err)
	}
	rep.Anchor = &a
	return nil
}

// parseProof reads a bundled proof: at most maxProofHashes hashes, each
// 0x and 64 lowercase hex digits.
func parseProof(ss []string) ([][32]byte, error) {
	if len(ss) > maxProofHashes {
		return nil, fmt.Errorf("a proof of %d hashes exceeds %d", len(ss), maxProofHashes)
	}
	out := make([][32]byte, len(ss))
	for i, s := range ss {
		h, err := negotiation.ParseHash(s)
		if err != nil {
			return nil, fmt.Errorf("proof[%d]: %v", i, err)
		}
		out[i] = h
	}
	return out, nil
}
