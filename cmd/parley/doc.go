// Command parley is Parley's one binary: the node daemon, the devnet and the
// client commands. It parses flags and calls into the packages; it holds no
// protocol logic of its own. It has the one config loader (flags > env
// PARLEY_* > file > defaults) and is the only place that maps errors to
// exit codes.
//
// It sits at the top of the dependency order and may import every package
// of the module but the test-only ones (node/nodetest, p2p/hostile), which
// only its tests use; nothing imports it.
package main
