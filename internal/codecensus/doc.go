// Package codecensus reads the error codes and sentinels a package
// declares, from its source, for the tests that hold every one of them to
// a class (docs/api.md, "Errors"): a code added without a class fails its
// package's test, without a list for anyone to forget to extend.
//
// It is for tests only (deps_test.go lets every package's tests import it,
// and nothing else) and imports nothing of the module; every package
// with coded errors calls Check from its errors_test.go, and node/api's
// census of the whole module reads each package with Declared.
package codecensus
