// Package identity owns a Parley node's keys and what binds and uses them:
//
//   - the inbox key (ed25519): the node's libp2p peer identity and the key
//     that signs envelopes (sender.xmtpPublicKey);
//   - the EVM key (secp256k1, go-ethereum keystore format): signs settlement
//     digests, transactions and the identity link;
//   - encryption keys (HPKE, ML-KEM-768+X25519 by default, X25519 accepted),
//     each with a key id and a notAfter, rotated, and deleted after a grace
//     period;
//   - the identity link, the document signed by both the EVM key (EIP-712)
//     and the inbox key (ed25519 over its JCS form) that binds them and lists
//     the encryption keys;
//   - sealing: the end-to-end encryption of envelopes for named recipients,
//     with one HPKE session per (sender, recipient, recipient key epoch) and
//     XChaCha20-Poly1305 under the session's exported key.
//
// Everything private is encrypted at rest in a data directory (see Keyring
// and docs/identity.md). Callers follow this contract:
//
//  1. Create a Keyring once with Create (it refuses to overwrite existing
//     keys), then Open it with the passphrase at every start. ReadPublic
//     reads the public parts without the passphrase.
//  2. Publish the Link the keyring issued (its JCS bytes); verify every
//     peer's link with VerifyLink (or DecodeLink, which also verifies)
//     before trusting any key in it. Only a link's canonical bytes parse
//     (CodeNotCanonical otherwise). Time is always an argument: the package
//     reads no clock.
//  3. Seal outgoing envelopes with a Sealer built from the keyring; open
//     incoming frames with the same Sealer. An error with CodeUnknownSession
//     asks the transport to request a re-key from the sender, never to drop
//     the message silently.
//  4. Rotate encryption keys with Keyring.RotateEncryptionKey, re-issue the
//     link, and call Keyring.Prune and Sealer.Prune regularly so that
//     expired private keys and their sessions are deleted.
//
// identity sits beside negotiation in the dependency order. It must not
// import negotiation, ledger, p2p, chain, approval or node; it uses
// go-ethereum's crypto, keystore and EIP-712 packages, go-libp2p's
// core/crypto and core/peer packages, filippo.io/age, gowebpki/jcs,
// golang.org/x/crypto, the standard library's crypto/hpke and the
// project's leaf strictjson.
package identity
