// Package transcript reads and replays golden transcripts, in the style of
// etcd-io/raft's interaction tests: a file of blocks, each a command line,
// a line "----" and the output the command is expected to print, with
// blank lines between blocks and comment lines starting with "#". The
// state machine's transcripts (negotiation/testdata/transcripts) and the
// nodes' (node/testdata/transcripts) are both read by it.
//
// It is for tests only (deps_test.go lets every package's tests import it,
// and nothing else) and imports nothing of the module.
package transcript
