package node

import (
	"crypto/sha256"
	"log/slog"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// newHeadKeys creates a node's keys with test-strength costs and an identity
// link issued at now.
func newHeadKeys(t *testing.T, now time.Time) (*identity.Keyring, *identity.Link) {
	t.Helper()
	cfg := identity.DefaultConfig(t.TempDir())
	cfg.ScryptWorkFactor = 10
	cfg.KeystoreScryptN, cfg.KeystoreScryptP = keystore.LightScryptN, keystore.LightScryptP
	cfg.KEM = identity.KEMX25519
	k, err := identity.Create(cfg, []byte("bundle test passphrase"), now)
	if err != nil {
		t.Fatal(err)
	}
	l, err := k.IssueLink(now)
	if err != nil {
		t.Fatal(err)
	}
	return k, l
}

// signedHead returns a tree head of size and root signed by k's inbox key
// and named by link.
func signedHead(k *identity.Keyring, link *identity.Link, size uint64, root [32]byte, at time.Time) ledger.TreeHead {
	h := ledger.TreeHead{Size: size, Root: root, Time: at.UTC().Truncate(time.Millisecond), Signer: negotiation.Hash(link.Hash())}
	h.Signature = k.Inbox().Sign(h.SigningBytes())
	return h
}

// TestCheckTreeHead: a head signed by the inbox key of the link it names
// verifies; a head signed by another key, naming another link, carrying a
// link that does not verify (or not at the head's time), or changed after
// it was signed, is forged_head.
func TestCheckTreeHead(t *testing.T) {
	now := time.Now()
	k, link := newHeadKeys(t, now)
	other, otherLink := newHeadKeys(t, now)
	root := sha256.Sum256([]byte("root"))
	good := signedHead(k, link, 7, root, now)
	if l, err := checkTreeHead(good, link.Bytes()); err != nil || l.EVMAddress != link.EVMAddress {
		t.Fatalf("a good head: %v", err)
	}
	// Another link of the same keys (issued later): the same inbox key,
	// another hash.
	later, err := k.IssueLink(now.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	tampered := link.Bytes()
	tampered[len(tampered)-5] ^= 1
	for _, tc := range []struct {
		name string
		head ledger.TreeHead
		link []byte
	}{
		{"signed by another key", func() ledger.TreeHead {
			h := good
			h.Signature = other.Inbox().Sign(h.SigningBytes())
			return h
		}(), link.Bytes()},
		{"another key's head with this link", signedHead(other, link, 7, root, now), link.Bytes()},
		{"naming another link", good, otherLink.Bytes()},
		{"naming another link of the same keys", good, later.Bytes()},
		{"its size changed", func() ledger.TreeHead { h := good; h.Size = 8; return h }(), link.Bytes()},
		{"its root changed", func() ledger.TreeHead { h := good; h.Root[0] ^= 1; return h }(), link.Bytes()},
		{"a link that does not parse", good, []byte(`{"evmAddress":"0x00"}`)},
		{"a tampered link", good, tampered},
		{"a head after the link expired", signedHead(k, link, 7, root, link.ExpiresAt.Add(time.Hour)), link.Bytes()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := checkTreeHead(tc.head, tc.link); CodeOf(err) != CodeForgedHead {
				t.Fatalf("got %v, want forged_head", err)
			}
		})
	}
}

// anchorWorld is a dev chain, a node's keys and link with a funded
// client acting as its EVM key, and another address's client.
type anchorWorld struct {
	keys  *identity.Keyring
	link  *identity.Link
	node  *chain.Client
	other *chain.Client
	dev   *chain.Devchain
}

func newAnchorWorld(t *testing.T) *anchorWorld {
	t.Helper()
	cfg := chain.DefaultDevchainConfig()
	cfg.Logger = slog.New(slog.DiscardHandler)
	dev, err := chain.StartDevchain(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	b, err := chain.DialRPC(t.Context(), dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	w := &anchorWorld{dev: dev}
	w.keys, w.link = newHeadKeys(t, time.Now())
	funder, err := chain.New(b, dev.Deployer.Signer(), dev.ClientConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	to := w.keys.EVM().Address()
	if _, err := funder.Transact(t.Context(), &to, new(big.Int).Exp(big.NewInt(10), big.NewInt(19), nil), nil); err != nil {
		t.Fatal(err)
	}
	if w.node, err = chain.New(b, w.keys.EVM(), dev.ClientConfig(), nil); err != nil {
		t.Fatal(err)
	}
	if w.other, err = chain.New(b, dev.Accounts[1].Signer(), dev.ClientConfig(), nil); err != nil {
		t.Fatal(err)
	}
	return w
}

// anchor posts (root, size) from c and returns the bundle's record of it.
func (w *anchorWorld) anchor(t *testing.T, c *chain.Client, root [32]byte, size uint64) ledger.TreeAnchor {
	t.Helper()
	r, err := c.Anchor(t.Context(), root, size)
	if err != nil {
		t.Fatal(err)
	}
	return ledger.TreeAnchor{Size: size, Root: root, ChainID: w.dev.ChainID.Uint64(), Contract: negotiation.Address(w.dev.Contracts.LedgerAnchor),
		Address: negotiation.Address(c.Address()), TxHash: negotiation.Hash(r.TxHash), BlockNumber: r.BlockNumber.Uint64()}
}

func (w *anchorWorld) check(t *testing.T, head ledger.TreeHead, a *ledger.TreeAnchor) (*BundleVerification, error) {
	t.Helper()
	v := &BundleVerification{Signer: w.link}
	err := checkAnchors(t.Context(), v, head, a, w.node)
	return v, err
}

// TestCheckAnchors holds a bundle's head and anchor to the anchors on a
// dev chain: the node's own anchor, the newest at or below the head,
// passes; an anchor another address sent is anchor_foreign; one the
// chain does not have is anchor_missing; a history rewritten after an
// anchor (the node anchored root R at size n, the bundle's tree at n has
// another root, or the bundle proves nothing from the anchor) is
// rewritten_after_anchor.
func TestCheckAnchors(t *testing.T) {
	w := newAnchorWorld(t)
	h := func(s string) [32]byte { return sha256.Sum256([]byte(s)) }
	head := signedHead(w.keys, w.link, 20, h("head at 20"), time.Now())

	// No anchor on chain and none in the bundle: nothing to hold it to.
	if v, err := w.check(t, head, nil); err != nil || v.Newest != nil || len(v.Checks) != 2 {
		t.Fatalf("no anchors: %+v %v", v, err)
	}

	// Another address's anchor, named as the node's.
	foreign := w.anchor(t, w.other, h("root at 5"), 5)
	claimed := foreign
	claimed.Address = negotiation.Address(w.link.EVMAddress)
	if _, err := w.check(t, head, &claimed); CodeOf(err) != CodeAnchorForeign {
		t.Fatalf("an anchor sent by another address: %v", err)
	}
	if _, err := w.check(t, head, &foreign); CodeOf(err) != CodeAnchorForeign {
		t.Fatalf("an anchor naming another address: %v", err)
	}

	// The node's anchor of (R, 10).
	good := w.anchor(t, w.node, h("root at 10"), 10)
	v, err := w.check(t, head, &good)
	if err != nil || v.Anchored == nil || v.Newest == nil || v.Newest.TxHash != common.Hash(good.TxHash) || v.OnChain != 1 {
		t.Fatalf("the node's anchor: %+v %v", v, err)
	}
	if len(v.Checks) != 2 || v.Checks[0].Name != CheckAnchorOnChain || v.Checks[1].Name != CheckAnchorConsistency {
		t.Fatalf("checks: %+v", v.Checks)
	}

	// Not on chain: an unknown transaction, another contract or chain.
	missing := good
	missing.TxHash = negotiation.Hash(h("no such tx"))
	if _, err := w.check(t, head, &missing); CodeOf(err) != CodeAnchorMissing {
		t.Fatalf("an anchor not on chain: %v", err)
	}
	elsewhere := good
	elsewhere.ChainID++
	if _, err := w.check(t, head, &elsewhere); CodeOf(err) != CodeAnchorMissing {
		t.Fatalf("an anchor on another chain: %v", err)
	}
	resized := good
	resized.Size = 9
	if _, err := w.check(t, head, &resized); CodeOf(err) != CodeAnchorMissing {
		t.Fatalf("an anchor of another size: %v", err)
	}

	// A rewritten history: the bundle's tree at size 10 has another root
	// (its anchor names the node's transaction with its own root).
	rewritten := good
	rewritten.Root = h("another root at 10")
	if _, err := w.check(t, head, &rewritten); CodeOf(err) != CodeRewrittenAfterAnchor {
		t.Fatalf("a rewritten tree at the anchor: %v", err)
	}
	// ... or the bundle carries no anchor at all.
	if _, err := w.check(t, head, nil); CodeOf(err) != CodeRewrittenAfterAnchor {
		t.Fatalf("a bundle without the anchor: %v", err)
	}
	// ... or an older one, while a newer anchor at or below the head is on chain.
	newer := w.anchor(t, w.node, h("root at 15"), 15)
	if _, err := w.check(t, head, &good); CodeOf(err) != CodeRewrittenAfterAnchor {
		t.Fatalf("a bundle whose anchor is not the newest: %v", err)
	}
	if v, err := w.check(t, head, &newer); err != nil || v.Newest.Size != 15 {
		t.Fatalf("the newest anchor: %+v %v", v, err)
	}
	// An anchor above the head is later than it: not held to it.
	w.anchor(t, w.node, h("root at 30"), 30)
	if v, err := w.check(t, head, &newer); err != nil || v.Newest.Size != 15 || v.OnChain != 3 {
		t.Fatalf("an anchor above the head: %+v %v", v, err)
	}
	// An anchor at the head's own size must have its root.
	head40 := signedHead(w.keys, w.link, 40, h("head at 40"), time.Now())
	w.anchor(t, w.node, h("root at 40"), 40)
	if _, err := w.check(t, head40, nil); CodeOf(err) != CodeRewrittenAfterAnchor {
		t.Fatalf("an anchor at the head's size with another root: %v", err)
	}
	head40.Root = h("root at 40")
	if _, err := w.check(t, head40, nil); err != nil {
		t.Fatalf("an anchor of the head itself: %v", err)
	}
}
