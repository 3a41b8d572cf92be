// Package chain is Parley's side of the EVM: the EIP-712 settlement digest as
// the contracts compute it, the JSON form of a settlement a wallet can check,
// a client with a typed call for every contract function, an event watcher,
// contract deployment, and the embedded development chain.
//
// The client talks to a Backend, which has two implementations: RPC (ethclient
// over JSON-RPC, any EVM node) and Simulated (go-ethereum's simulated backend,
// in process, on mainnet fork rules). It signs through a Signer, which the
// node's identity.EVMKey satisfies; tests use KeySigner over a plain key.
// Callers follow this contract:
//
//  1. Build a Client with New (no I/O). Every transaction it sends has its gas
//     estimated, its nonce taken from one counter per client (so concurrent
//     sends never collide), its fees from the node's suggestion; it is
//     replaced with higher fees when it sits unmined for Config.StuckAfter,
//     and its receipt is awaited for Config.Confirmations blocks.
//  2. A call the contract refuses returns a *RevertError naming the contract's
//     custom error (errors.Is(err, ErrReverted); Code gives a stable
//     snake_case code such as "digest_used"). Refusals found while estimating
//     gas cost nothing and change nothing.
//  3. Task state lives on chain as one hash per task; each call that changes a
//     task takes the current Task and returns the new one (from the
//     TaskUpdated event of its receipt). TaskState rebuilds it from the logs.
//  4. A Watcher reports contract events after Config.Confirmations blocks and
//     records the last block it handled in a Cursor, so it resumes there after
//     a restart. Delivery is at least once: handlers must be idempotent.
//     FactOf turns an event into the negotiation fact it reports and the
//     task it concerns, so callers never read the bindings' event structs.
//     AnchorsOf reads a node's ledger anchors back from LedgerAnchor's
//     Anchored events (indexed by the sending address), oldest first.
//  5. StartDevchain runs an embedded chain like `geth --dev` with a data
//     directory, JSON-RPC on 127.0.0.1, funded dev accounts and the contracts
//     deployed on first start.
//
// chain may import negotiation, identity, contracts/bindings and the leaf
// strictjson (settlement input and its own files are read with it), and is
// the only package that imports contracts/bindings. It must not import
// ledger, p2p, approval or node.
package chain
