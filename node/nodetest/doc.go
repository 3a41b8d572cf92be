// Package nodetest starts real Parley nodes for tests: keys with
// test-strength scrypt in t.TempDir(), a node on loopback only with small
// Badger and libp2p limits, closed when the test ends, and the waits that
// multi-node tests share (two nodes knowing each other, a condition coming
// true), and the payload census: the members of the envelopes the nodes
// received, which node's TestMain compares with every payload type's
// (census.go).
//
// Only tests import it (package node_test and the packages above node:
// node/api, node/web, node/mcp, cmd/parley). It imports node, chain,
// identity, ledger, negotiation and p2p, so node's internal tests cannot use it; it
// never imports a _test file.
package nodetest
