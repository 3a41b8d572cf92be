// Package testbed builds real hosts on one Linux machine for Parley's
// network testbed (`make testbed`, docs/p2p.md "Running nodes across the
// internet"): network namespaces joined by veth pairs and bridges, an
// "internet" bridge with public addresses of the testbed's own, home
// routers that masquerade and drop what arrives unasked, hosts on their
// LANs, and processes started inside them. It reaches a host's loopback
// (a node's API and metrics) by opening sockets inside that namespace,
// never by linking it to the namespace the run started in, so no packet
// of the testbed leaves the namespaces it made; Net.Close deletes every
// one of them.
//
// It imports nothing of the module: cmd/parley's testbed command plays
// the scenarios with it.
package testbed
