package node

import "github.com/parleynet/parley/node/engine"

// Ledger kinds the node writes besides the ledger's own (docs/node.md
// describes each body).
const (
	// KindThreadOpened starts a negotiation thread: body {role, observer,
	// announcement?}; the thread is rebuilt from it at start.
	KindThreadOpened = engine.KindThreadOpened
	// KindThreadJoined records that the node joined a thread late (an
	// arbitrator) from a proof bundle: body {bundle, head, from, entries}.
	KindThreadJoined = "thread.joined"
	// KindBundleChecked records what the arbitrator found when it held the
	// version-2 bundle it joined from to the chain: body {bundle, from,
	// code ("ok" or the failing check's code), checks (the names passed),
	// error?}.
	KindBundleChecked = "bundle.checked"
	// KindIdentityLink records a party's identity link in a negotiation,
	// so that the negotiation's proof bundle verifies with nothing else:
	// body {address, link}.
	KindIdentityLink = engine.KindIdentityLink
	// KindEquivocation keeps the second of two envelopes a sender signed
	// at one sequence, as evidence: body {sender, sequence, first}, object
	// the envelope.
	KindEquivocation = "envelope.equivocation"
	// KindInputRejected records one peer's input rejected as not authentic
	// (by the transport or the node) in one window, by hash and code only:
	// body {peer, from, to, total, codes, first, last, negotiations?,
	// moreNegotiations?, topics?, peers?, peersCapped?} (rejections.go).
	KindInputRejected = "input.rejected"
	// KindChainCursor records the next block the chain watcher scans:
	// body {next}.
	KindChainCursor = "chain.cursor"
)

// Media types of files the node stores and exchanges.
const (
	// MediaTypeBundle is a proof bundle (ledger.BundleFormat).
	MediaTypeBundle = "application/vnd.parley.proof-bundle+json"
	// MediaTypeEnvelope is one envelope (an announcement handed to a
	// late joiner).
	MediaTypeEnvelope = "application/vnd.parley.envelope+json"
)

type blobBody struct {
	Name      string `json:"name"`
	Size      int    `json:"size"`
	MediaType string `json:"mediaType,omitempty"`
	From      string `json:"from,omitempty"`
}
