// Package demo plays Parley's story for `make demo`: keys for a poster, a
// worker and an arbitrator, a negotiation from a public announcement to an
// agreed settlement, and the life of the task after it, each step printed
// on one line. Every step is checked: a step that did not happen as the
// story says is an error, and the command exits non-zero.
//
// It is a driver, not a participant: it uses the same packages a node uses
// and never reaches into their internals.
package demo
