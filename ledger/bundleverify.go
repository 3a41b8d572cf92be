package ledger

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/strictjson"
)

// DefaultMaxBundleBytes is the default size limit of a proof bundle.
const DefaultMaxBundleBytes = 256 << 20

// BundleOptions tune VerifyBundle. The zero value uses the defaults.
type BundleOptions struct {
	// MaxBytes is the size limit of the bundle; 0 means DefaultMaxBundleBytes.
	MaxBytes int64
	// Decode is passed to negotiation.Decode for every bundled envelope.
	Decode negotiation.DecodeOptions
}

// BundleReport is what a verified bundle proves.
type BundleReport struct {
	// Version is the bundle's format version: 1 or 2.
	Version int
	// NegotiationID is the negotiation the bundle is about.
	NegotiationID string
	// Head is the head the chain in the bundle ends at: the value to compare
	// with an anchor on chain or a head the ledger's owner published.
	Head Head
	// From is the seq of the first bundled entry; Prev is its prev.
	From uint64
	Prev negotiation.Hash
	// Entries counts every bundled entry.
	Entries int
	// Negotiation holds the negotiation's entries in chain order.
	Negotiation []Entry
	// Envelopes holds the negotiation's envelopes, decoded and signature
	// checked, in the order the ledger recorded them.
	Envelopes []*negotiation.Envelope
	// Anchors holds the anchor entries in the bundle. Each anchor whose
	// count falls inside the bundle was checked against the chain.
	Anchors []Entry
	// Pruned counts objects the negotiation's entries name that were deleted
	// under the retention rule (their entries and CIDs remain).
	Pruned int

	// Version 2 only (Head, Prev and Anchors stay zero; From is the first
	// bundled entry's seq).

	// TreeHead is the signed tree head every inclusion proof was checked
	// against. Its signature is NOT checked here (the ledger holds no
	// identity): the caller checks it with the inbox key of the identity
	// link Signer, whose SHA-256 must be TreeHead.Signer.
	TreeHead *TreeHead
	// Signer is the signer's identity link as bundled (its JCS bytes).
	Signer []byte
	// Anchor is the bundled tree anchor, whose root was checked to be a
	// prefix of the tree head's (nil when the bundle carries none). That it
	// is on chain, sent by the signer's address, is the caller's to check.
	Anchor *TreeAnchor
	// Unlinked counts the negotiation's entries stored before the
	// negotiationPrev back-link was kept: an omission among them cannot be
	// seen (they come before every linked entry).
	Unlinked int
}

// bundleFile is the JSON shape of a proof bundle.
type bundleFile struct {
	Format        string            `json:"format"`
	NegotiationID string            `json:"negotiationId"`
	Head          bundleHead        `json:"head"`
	From          uint64            `json:"from"`
	Prev          negotiation.Hash  `json:"prev"`
	Entries       []json.RawMessage `json:"entries"`
	Objects       []bundleObject    `json:"objects"`
	Pruned        []string          `json:"pruned"`
}

type bundleHead struct {
	Seq  uint64           `json:"seq"`
	Hash negotiation.Hash `json:"hash"`
}

type bundleObject struct {
	CID    string          `json:"cid"`
	JSON   json.RawMessage `json:"json,omitempty"`
	Base64 string          `json:"base64,omitempty"`
}

// VerifyBundle checks a proof bundle offline, with nothing but its bytes.
// It reads both formats: version 2 (BundleFormatV2, verifyBundleV2
// describes its checks) and version 1, read-only: the chain from the first bundled entry to the head (each entry
// canonicalised and hashed as SHA-256(prev || JCS(entry))), every object
// the negotiation's entries name against its CID, every envelope with
// negotiation.Decode and Verify (its signature) and against the entry that
// recorded it, and every anchor inside the bundle against the chain. It
// returns a *VerifyError naming the first failure (Seq 0 for the file
// itself).
func VerifyBundle(r io.Reader, opts BundleOptions) (*BundleReport, error) {
	limit := opts.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBundleBytes
	}
	lr := &io.LimitedReader{R: r, N: limit + 1}
	// The project's strict decoder judges the whole text first: a member
	// named twice at any depth, invalid UTF-8 or a lone surrogate anywhere
	// refuses the bundle; each member is then decoded with it too (names
	// matched exactly, no unknown members).
	b, err := io.ReadAll(lr)
	if lr.N <= 0 {
		return nil, bad(0, CodeBadBundle, "bundle exceeds %d bytes", limit)
	}
	if err != nil {
		return nil, bad(0, CodeBadBundle, "%v", err)
	}
	if err := strictjson.Check(b); err != nil {
		return nil, bad(0, CodeBadBundle, "%v", err)
	}
	if bundleFormat(b) == BundleFormatV2 {
		f, err := decodeBundleV2(b)
		if err != nil {
			return nil, err
		}
		return verifyBundleV2(f, opts)
	}
	f, err := decodeBundle(b)
	if err != nil {
		return nil, err
	}
	rep, err := verifyBundle(f, opts)
	if rep != nil {
		rep.Version = 1
	}
	return rep, err
}

// decodeBundle decodes a version-1 bundle that strictjson.Check accepted.
func decodeBundle(b []byte) (*bundleFile, error) {
	fail := func(format string, args ...any) (*bundleFile, error) {
		return nil, bad(0, CodeBadBundle, format, args...)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fail("not a JSON object")
	}
	var f bundleFile
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fail("%v", err)
		}
		key, _ := tok.(string)
		if seen[key] {
			return fail("member %q appears twice", key)
		}
		seen[key] = true
		var dst any
		switch key {
		case "format":
			dst = &f.Format
		case "negotiationId":
			dst = &f.NegotiationID
		case "head":
			dst = &f.Head
		case "from":
			dst = &f.From
		case "prev":
			dst = &f.Prev
		case "entries":
			dst = &f.Entries
		case "objects":
			dst = &f.Objects
		case "pruned":
			dst = &f.Pruned
		default:
			return fail("unknown member %q", key)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fail("%s: %v", key, err)
		}
		if err := strictjson.Unmarshal(raw, dst); err != nil {
			return fail("%s: %v", key, err)
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return fail("unterminated object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail("trailing data after the bundle")
	}
	for _, k := range []string{"format", "negotiationId", "head", "from", "prev", "entries", "objects", "pruned"} {
		if !seen[k] {
			return fail("member %q is missing", k)
		}
	}
	if f.Format != BundleFormat {
		return fail("format %q, want %q", f.Format, BundleFormat)
	}
	return &f, nil
}

func verifyBundle(f *bundleFile, opts BundleOptions) (*BundleReport, error) {
	if _, err := negotiation.ParseNegotiationID(f.NegotiationID); err != nil {
		return nil, bad(0, CodeBadBundle, "negotiationId: %v", err)
	}
	if len(f.Entries) == 0 || f.From == 0 {
		return nil, bad(0, CodeBadBundle, "no entries")
	}
	if f.From+uint64(len(f.Entries))-1 != f.Head.Seq {
		return nil, bad(f.Head.Seq, CodeHeadMismatch, "%d entries from %d do not end at the head %d", len(f.Entries), f.From, f.Head.Seq)
	}
	rep := &BundleReport{NegotiationID: f.NegotiationID, Head: Head{Seq: f.Head.Seq, Hash: f.Head.Hash}, From: f.From, Prev: f.Prev, Entries: len(f.Entries)}
	hashes := make([]negotiation.Hash, len(f.Entries))
	prev := f.Prev
	for i, text := range f.Entries {
		seq := f.From + uint64(i)
		raw, err := canonicalText(text)
		if err != nil {
			return nil, bad(seq, CodeMalformedEntry, "%v", err)
		}
		p, err := parseEntry(raw)
		if err != nil {
			return nil, bad(seq, CodeMalformedEntry, "%v", err)
		}
		if p.seq != seq {
			return nil, bad(seq, CodeSeqMismatch, "entry at position %d says seq %d", seq, p.seq)
		}
		e, err := decodeStored(seq, storedValue(prev, chainHash(prev, raw), raw))
		if err != nil {
			return nil, err
		}
		hashes[i], prev = e.Hash, e.Hash
		if i == 0 && e.NegotiationID != f.NegotiationID {
			return nil, bad(seq, CodeBadBundle, "the first entry is not of negotiation %s", f.NegotiationID)
		}
		if e.Kind == KindAnchor {
			rep.Anchors = append(rep.Anchors, e)
		}
		if e.NegotiationID == f.NegotiationID {
			rep.Negotiation = append(rep.Negotiation, e)
		}
	}
	if prev != f.Head.Hash {
		return nil, bad(f.Head.Seq, CodeHeadMismatch, "chain hash %s, bundle head %s", prev, f.Head.Hash)
	}
	if err := checkBundledObjects(f, rep, opts); err != nil {
		return nil, err
	}
	for _, a := range rep.Anchors {
		if err := checkBundledAnchor(a, f.From, hashes); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// canonicalText returns the JCS form of the JSON text b: b itself when it
// is already canonical (an untouched bundle), else the library's output (a
// reformatted one).
func canonicalText(b []byte) ([]byte, error) {
	if isCanonical(b) {
		return b, nil
	}
	return negotiation.Canonicalize(b)
}

// checkBundledAnchor checks an anchor entry whose count falls inside the
// bundle against the recomputed chain.
func checkBundledAnchor(a Entry, from uint64, hashes []negotiation.Hash) error {
	var body struct {
		Count uint64           `json:"count"`
		Head  negotiation.Hash `json:"head"`
	}
	if err := json.Unmarshal(a.Body, &body); err != nil {
		return bad(a.Seq, CodeMalformedEntry, "anchor body: %v", err)
	}
	if body.Count >= from && body.Count < from+uint64(len(hashes)) && hashes[body.Count-from] != body.Head {
		return bad(a.Seq, CodeHeadMismatch, "anchor names %s for entry %d, the chain has %s", body.Head, body.Count, hashes[body.Count-from])
	}
	return nil
}

// checkBundledObjects checks the negotiation's objects and envelopes.
func checkBundledObjects(f *bundleFile, rep *BundleReport, opts BundleOptions) error {
	objects := make(map[string][]byte, len(f.Objects))
	for i, o := range f.Objects {
		c, err := negotiation.CID(o.CID).Parse()
		if err != nil {
			return bad(0, CodeBadBundle, "objects[%d].cid: %v", i, err)
		}
		if _, dup := objects[c.KeyString()]; dup {
			return bad(0, CodeBadBundle, "object %s appears twice", c)
		}
		var b []byte
		switch {
		case o.JSON != nil && o.Base64 == "":
			if b, err = canonicalText(o.JSON); err != nil {
				return bad(0, CodeBadBundle, "object %s: %v", c, err)
			}
		case o.JSON == nil && o.Base64 != "":
			if b, err = base64.StdEncoding.DecodeString(o.Base64); err != nil {
				return bad(0, CodeBadBundle, "object %s: %v", c, err)
			}
		default:
			return bad(0, CodeBadBundle, "object %s needs exactly one of json and base64", c)
		}
		objects[c.KeyString()] = b
	}
	pruned := map[string]bool{}
	for _, s := range f.Pruned {
		c, err := negotiation.CID(s).Parse()
		if err != nil {
			return bad(0, CodeBadBundle, "pruned: %v", err)
		}
		pruned[c.KeyString()] = false // not yet vouched for by a retention entry
	}
	for _, e := range rep.Negotiation {
		if e.Kind != KindRetentionPruned {
			continue
		}
		var body struct {
			CIDs []negotiation.CID `json:"cids"`
		}
		if err := json.Unmarshal(e.Body, &body); err != nil {
			return bad(e.Seq, CodeMalformedEntry, "retention body: %v", err)
		}
		for _, s := range body.CIDs {
			if c, err := s.Parse(); err == nil {
				if _, listed := pruned[c.KeyString()]; listed {
					pruned[c.KeyString()] = true
				}
			}
		}
	}
	used := 0
	for _, e := range rep.Negotiation {
		if !e.CID.Defined() {
			continue
		}
		b, ok := objects[e.CID.KeyString()]
		if !ok {
			vouched, listed := pruned[e.CID.KeyString()]
			if listed && vouched {
				rep.Pruned++
				continue
			}
			return bad(e.Seq, CodeObjectMissing, "object %s is neither bundled nor pruned by a retention entry", e.CID)
		}
		used++
		if !objectMatches(e.CID, b) {
			return bad(e.Seq, CodeObjectMismatch, "object %s does not hash to its CID", e.CID)
		}
		if e.Kind == KindEnvelopeSent || e.Kind == KindEnvelopeReceived {
			env, err := checkBundledEnvelope(e, b, f.NegotiationID, opts)
			if err != nil {
				return err
			}
			rep.Envelopes = append(rep.Envelopes, env)
		}
	}
	if used != len(objects) {
		return bad(0, CodeBadBundle, "%d bundled objects are named by no entry of the negotiation", len(objects)-used)
	}
	return nil
}

// checkBundledEnvelope decodes and verifies an envelope and checks that the
// entry that recorded it describes it truthfully.
func checkBundledEnvelope(e Entry, b []byte, negotiationID string, opts BundleOptions) (*negotiation.Envelope, error) {
	env, err := negotiation.Decode(b, opts.Decode)
	if err != nil {
		return nil, bad(e.Seq, CodeBadEnvelope, "%v", err)
	}
	if err := env.Verify(); err != nil {
		return nil, bad(e.Seq, CodeBadEnvelope, "%v", err)
	}
	if !bytes.Equal(env.Bytes(), b) {
		return nil, bad(e.Seq, CodeBadEnvelope, "stored bytes are not the envelope's canonical form")
	}
	var body struct {
		CID      string `json:"cid"`
		Code     string `json:"code"`
		Sender   string `json:"sender"`
		Sequence uint64 `json:"sequence"`
		Type     string `json:"type"`
	}
	dec := json.NewDecoder(bytes.NewReader(e.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		return nil, bad(e.Seq, CodeMalformedEntry, "envelope entry body: %v", err)
	}
	switch {
	case env.NegotiationID != negotiationID:
		return nil, bad(e.Seq, CodeBadEnvelope, "envelope of negotiation %s", env.NegotiationID)
	case body.Sender != env.Sender.EVMAddress.String() || body.Sequence != env.Sequence || body.Type != string(env.Type):
		return nil, bad(e.Seq, CodeBadEnvelope, "entry says %s #%d from %s, the envelope is %s #%d from %s",
			body.Type, body.Sequence, body.Sender, env.Type, env.Sequence, env.Sender.EVMAddress)
	case body.Code != "ok" && !negotiation.Code(body.Code).Authentic():
		return nil, bad(e.Seq, CodeBadEnvelope, "effect code %q", body.Code)
	}
	return env, nil
}
