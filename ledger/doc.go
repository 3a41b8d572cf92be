// Package ledger is the node's memory and the evidence an arbitrator reads:
// one append-only, hash-chained, content-addressed event log in a Badger v4
// directory (PXP section 6).
//
// Every entry is {seq, kind, negotiationId?, body, at}. Its hash is
// SHA-256(prev || JCS(entry)), where prev is the previous entry's hash (32
// zero bytes for the first); the head (the last entry's hash) identifies the
// whole history. The ledger stores the exact bytes it hashed and verifies by
// hashing what is stored; nothing is re-encoded from Go structs. Envelopes
// and blobs are stored once under their CID and named from the entry that
// stored them (body.cid). Beside the chain the ledger keeps an RFC 6962
// Merkle tree over the entries' stored bytes (transparency-dev/merkle),
// its nodes written in the entries' transactions: TreeHead,
// InclusionProof and ConsistencyProof answer for any size up to the head,
// VerifyInclusion and VerifyConsistency check their answers offline.
// docs/ledger.md pins the format, the tree and the proof bundle.
//
// Callers follow this contract:
//
//  1. Build with New (no I/O), then Start: it checks the Badger directory
//     and the ledger's record beside it (Config.RecordFile; a store emptier
//     than or different from its record, or without its MANIFEST, is
//     refused with a *storeguard.Error), opens the store, verifies every
//     entry after the last verified checkpoint, and starts the one writer
//     goroutine (and the one that rewrites the record after commits).
//     Close stops them and is safe to call twice.
//  2. Append records events; AppendEnvelope records an authentic envelope
//     whole (with the refusal code when its effect was refused);
//     AppendRejected records non-authentic input by hash and code only.
//     AppendAll records the records of one step in one transaction, in the
//     order given, all or none (EnvelopeRecord and RejectedRecord build
//     the envelope kinds' records for it; ObjectCID names an object an
//     earlier record of the batch stores), as go-ethereum's ethdb.Batch
//     writes a batch. Each returns after its entries are synced: concurrent
//     appends and batches share one synced transaction (group commit), a
//     batch never split. Bad input is refused with an *Error carrying a
//     Code (in a batch, a *BatchError naming the record) and writes
//     nothing.
//  3. Read by seq, by CID, by negotiation or by kind (objects are checked
//     against their CID: damaged bytes are a *VerifyError, never
//     returned); Verify the whole chain, or Scan it throttled without
//     stopping at damage, or VerifyNegotiation one negotiation; Export a
//     negotiation as a proof bundle that VerifyBundle checks offline, or
//     ExportV2 it as a version-2 bundle: only its entries (each names the
//     negotiation's previous entry, negotiationPrev), each with its
//     inclusion proof against a signed tree head, and the newest tree
//     anchor with its consistency proof. Damage any of them finds goes to
//     Config.OnDamage.
//  4. The anchor hook yields (head, count) for the chain layer; RecordAnchor
//     brings the anchored head back as an entry. RecordTreeHead records a
//     tree head the caller signed, RecordTreeAnchor a tree root the caller
//     anchored on chain: the writer refuses a root the tree does not have
//     at that size. Prune deletes the objects
//     of a closed negotiation, never of an open or disputed one, and never
//     an entry.
//
// It imports negotiation (hashes, canonical JSON, envelopes, the state
// machine for replay), storeguard (the record and the check before open),
// strictjson (proof bundles are read with it), Badger, transparency-dev/merkle
// and the CID libraries. It must never import
// p2p, chain, approval or node: those wire the ledger behind their own
// interfaces.
package ledger
