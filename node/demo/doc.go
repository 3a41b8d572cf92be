// Package demo plays Parley's story for `make demo` over three running
// nodes (a poster, a worker and an arbitrator), each driven through its
// HTTP API exactly as an operator or a local agent would: both
// principals' intent cards, the task board, a counter-offer that crosses
// the poster's card (an escalation, the principal's answer sealed as an
// amendment), both signatures on one settlement digest, escrow, a
// delivered file checked against its CID, acceptance, withdrawal, a
// second task through a dispute to a ruling (the arbitrator joins from a
// version-2 proof bundle, which the story verifies and, given
// Options.VerifyOnChain, prints `parley bundle verify --rpc` of), and each side's decision
// brief, and, given Options.OutsideAgent, a third task whose offer an
// outside AI agent answers for the worker's principal through VXP. Every
// gated act waits in the
// node's approval gate until the driver approves it through the API. Every
// step is checked: a step that did not happen as the story says is an
// error, and the command exits non-zero.
//
// demo imports node and node/api (its client), ledger and negotiation;
// only cmd imports it.
package demo
