// Package contracts holds Parley's Solidity contracts (src/), the script that
// compiles them with the solc pinned in package-lock.json (build.js), the ABI
// and bytecode artifacts (artifacts/), and the Go bindings generated from them
// with abigen v2 (bindings/ for the deployable contracts, testbindings/ for
// the adversarial and test contracts under src/test).
//
// Everything under artifacts/, bindings/ and testbindings/ is generated and
// committed: `make generate` rebuilds it (go generate runs build.js, then
// abigen) and `make verify` fails on any drift. Compilation is reproducible:
// metadata hashing is off, so `npm ci` followed by build.js yields the same
// bytes.
//
// This package has no Go code of its own beyond the generate directives; the
// chain package deploys and drives the contracts. It and its two binding
// packages import nothing of the module.
package contracts
