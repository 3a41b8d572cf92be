package node

import (
	"cmp"
	"slices"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// The kinds of evidence a comparison of two bundles finds.
const (
	// EvidenceEquivocation: two different envelopes, both signed by their
	// sender, with the same sender and sequence.
	EvidenceEquivocation = "equivocation"
	// EvidenceOmitted: an envelope one bundle holds and the other does
	// not, although the other holds a later envelope of the same sender.
	EvidenceOmitted = "omitted"
)

// BundleEvidence is one finding of CompareBundles.
type BundleEvidence struct {
	// Kind is EvidenceEquivocation or EvidenceOmitted.
	Kind string `json:"kind"`
	// Sender and Sequence name the envelope (or the envelopes).
	Sender   negotiation.Address `json:"sender"`
	Sequence uint64              `json:"sequence"`
	// A and B are the CIDs of the envelopes with that sender and sequence
	// in each bundle: for an equivocation, every one of them (both
	// bundles' when they differ, or two in one bundle); for an omission,
	// the envelope in the bundle that holds it (the other list empty).
	A []string `json:"a"`
	B []string `json:"b"`
	// MissingFrom names the bundle ("a" or "b") that omits the envelope,
	// and Later the sequence of the later envelope of the same sender it
	// holds (omissions only).
	MissingFrom string `json:"missingFrom,omitempty"`
	Later       uint64 `json:"later,omitempty"`
}

// BundleComparison is what CompareBundles reports of two bundles of one
// negotiation.
type BundleComparison struct {
	NegotiationID string `json:"negotiationId"`
	// EnvelopesA and EnvelopesB count each bundle's envelopes; Same counts
	// those in both, by CID.
	EnvelopesA int `json:"envelopesA"`
	EnvelopesB int `json:"envelopesB"`
	Same       int `json:"same"`
	// OnlyA and OnlyB are the CIDs of envelopes one bundle holds and the
	// other does not, that are not evidence (the other bundle ends before
	// them: it was exported earlier, or its node has not received them).
	OnlyA []string `json:"onlyA"`
	OnlyB []string `json:"onlyB"`
	// Evidence lists every equivocation and omission, by sender and
	// sequence.
	Evidence []BundleEvidence `json:"evidence"`
	// Agree is true when there is no evidence.
	Agree bool `json:"agree"`
}

// CompareBundles compares two verified bundles of one negotiation (both
// parties' exports, say) envelope by envelope, by CID: two different
// envelopes with the same sender and sequence, in either or across both,
// are an equivocation; an envelope one bundle holds that the other lacks,
// although the other holds a later envelope of the same sender, is an
// omission. Bundles of different negotiations are a CodeBadArgument
// error. It reads the reports only: verify both first (VerifyBundle).
func CompareBundles(a, b *ledger.BundleReport) (*BundleComparison, error) {
	if a.NegotiationID != b.NegotiationID {
		return nil, fail(CodeBadArgument, "the bundles are of different negotiations: %s and %s", a.NegotiationID, b.NegotiationID)
	}
	type key struct {
		sender negotiation.Address
		seq    uint64
	}
	type side struct {
		byCID  map[string]*negotiation.Envelope
		byKey  map[key][]string
		latest map[negotiation.Address]uint64
	}
	index := func(envs []*negotiation.Envelope) side {
		s := side{byCID: map[string]*negotiation.Envelope{}, byKey: map[key][]string{}, latest: map[negotiation.Address]uint64{}}
		for _, e := range envs {
			c := e.CID().String()
			if _, dup := s.byCID[c]; dup {
				continue
			}
			s.byCID[c] = e
			k := key{e.Sender.EVMAddress, e.Sequence}
			s.byKey[k] = append(s.byKey[k], c)
			s.latest[k.sender] = max(s.latest[k.sender], k.seq)
		}
		return s
	}
	sa, sb := index(a.Envelopes), index(b.Envelopes)
	out := &BundleComparison{NegotiationID: a.NegotiationID, EnvelopesA: len(sa.byCID), EnvelopesB: len(sb.byCID), OnlyA: []string{}, OnlyB: []string{}, Evidence: []BundleEvidence{}}
	keys := map[key]bool{}
	for k := range sa.byKey {
		keys[k] = true
	}
	for k := range sb.byKey {
		keys[k] = true
	}
	sorted := make([]key, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.SortFunc(sorted, func(x, y key) int {
		return cmp.Or(cmp.Compare(x.sender.String(), y.sender.String()), cmp.Compare(x.seq, y.seq))
	})
	for _, k := range sorted {
		ca, cb := sa.byKey[k], sb.byKey[k]
		distinct := map[string]bool{}
		for _, c := range append(slices.Clone(ca), cb...) {
			distinct[c] = true
		}
		ev := BundleEvidence{Sender: k.sender, Sequence: k.seq, A: orEmpty(ca), B: orEmpty(cb)}
		switch {
		case len(distinct) > 1:
			ev.Kind = EvidenceEquivocation
			out.Evidence = append(out.Evidence, ev)
		case len(ca) > 0 && len(cb) > 0:
			out.Same++
		case len(cb) == 0 && sb.latest[k.sender] > k.seq:
			ev.Kind, ev.MissingFrom, ev.Later = EvidenceOmitted, "b", sb.latest[k.sender]
			out.Evidence = append(out.Evidence, ev)
		case len(ca) == 0 && sa.latest[k.sender] > k.seq:
			ev.Kind, ev.MissingFrom, ev.Later = EvidenceOmitted, "a", sa.latest[k.sender]
			out.Evidence = append(out.Evidence, ev)
		case len(cb) == 0:
			out.OnlyA = append(out.OnlyA, ca...)
		default:
			out.OnlyB = append(out.OnlyB, cb...)
		}
	}
	out.Agree = len(out.Evidence) == 0
	return out, nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
