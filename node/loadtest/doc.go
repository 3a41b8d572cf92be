// Package loadtest drives one worker node with many counterparty nodes on
// loopback and measures what the worker sustains: negotiations agreed per
// second, the latency of each negotiation, the process's CPU time per
// negotiation, its peak resident memory and Go heap. It is the engine of
// `parley bench` (docs/benchmarks.md).
//
// Every node is a real node: its own keys and Badger ledger in a temporary
// directory, libp2p on 127.0.0.1, the AutoApprove gate (no human in the
// loop). Each counterparty loops: it proposes a task directly to the
// worker, waits for the worker's acceptance, accepts too, and waits until
// the worker holds the agreement (both settlement signatures at both
// nodes); with Config.Fund it then funds the escrow on an embedded dev
// chain. The worker's driver accepts every proposal it receives, reading
// the worker's event stream.
//
// Run builds everything, measures a baseline with one counterparty and the
// load with Config.Counterparties, and closes every node and the chain
// before it returns. It imports node, negotiation, identity, ledger, p2p
// and chain; only cmd imports it.
package loadtest
