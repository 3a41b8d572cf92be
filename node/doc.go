// Package node is Parley's composition root: it wires the identity keys,
// the ledger, the peer-to-peer transport, the chain client and the approval
// gate, and owns their lifecycles. It is the only package that knows all of
// them; the parts behind it never import each other, so node adapts one to
// another's interface (for example OutboxStore puts the ledger behind
// p2p.OutboxStore).
//
// node may import every package of the module except cmd; nothing but cmd
// imports node.
package node
