package main

import (
	"bytes"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// TestBundleVerifyV2 verifies a version-2 bundle with the CLI: offline it
// prints every check by name (anchors not checked); with --rpc and
// --ledger-anchor it checks the anchor the node's key posted on a dev
// chain; a head signed by another key fails with forged_head and names
// the failing check; --rpc with no contract to read is a usage error.
func TestBundleVerifyV2(t *testing.T) {
	ctx := t.Context()
	dcfg := chain.DefaultDevchainConfig()
	dcfg.Logger = slog.New(slog.DiscardHandler)
	dev, err := chain.StartDevchain(ctx, dcfg)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	kcfg := identity.DefaultConfig(t.TempDir())
	kcfg.ScryptWorkFactor = 10
	kcfg.KeystoreScryptN, kcfg.KeystoreScryptP = keystore.LightScryptN, keystore.LightScryptP
	kcfg.KEM = identity.KEMX25519
	keys, err := identity.Create(kcfg, []byte("bundle cli test"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	link, err := keys.IssueLink(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b, err := chain.DialRPC(ctx, dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	funder, err := chain.New(b, dev.Deployer.Signer(), dev.ClientConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	to := keys.EVM().Address()
	if _, err := funder.Transact(ctx, &to, big.NewInt(1e18), nil); err != nil {
		t.Fatal(err)
	}
	c, err := chain.New(b, keys.EVM(), dev.ClientConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}

	lcfg := ledger.DefaultConfig()
	lcfg.Dir = filepath.Join(t.TempDir(), "ledger")
	lcfg.MemTableSize, lcfg.MaxBatchBytes, lcfg.MaxObjectBytes, lcfg.MaxEntryBytes = 8<<20, 1<<20, 256<<10, 64<<10
	l, err := ledger.New(lcfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	nid := negotiation.NewNegotiationID([16]byte{5, 5})
	add := func(n int) {
		for i := range n {
			r := ledger.Record{Kind: ledger.KindChainEvent, NegotiationID: nid, Body: []byte(`{"n":` + string(rune('0'+i)) + `}`)}
			if i%2 == 1 {
				r.NegotiationID = negotiation.NewNegotiationID([16]byte{6, 6})
			}
			if _, _, err := l.Append(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	add(6)
	root, err := l.TreeHead(6)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Anchor(ctx, root, 6)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.RecordTreeAnchor(ctx, ledger.TreeAnchor{Size: 6, Root: root, ChainID: dev.ChainID.Uint64(), Contract: negotiation.Address(dev.Contracts.LedgerAnchor),
		Address: negotiation.Address(to), TxHash: negotiation.Hash(r.TxHash), BlockNumber: r.BlockNumber.Uint64()}); err != nil {
		t.Fatal(err)
	}
	add(4)
	size := l.Head().Seq
	hroot, err := l.TreeHead(size)
	if err != nil {
		t.Fatal(err)
	}
	head := ledger.TreeHead{Size: size, Root: hroot, Time: time.Now().UTC().Truncate(time.Millisecond), Signer: negotiation.Hash(link.Hash())}
	export := func(sign func([]byte) []byte) string {
		h := head
		h.Signature = sign(h.SigningBytes())
		var buf bytes.Buffer
		if err := l.ExportV2(ctx, nid, h, link.Bytes(), &buf); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "bundle.json")
		if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := export(keys.Inbox().Sign)
	t.Setenv("PARLEY_DATA_DIR", t.TempDir())
	t.Setenv("PARLEY_CONFIG", "")

	out, err := runParley(t, "bundle", "verify", good)
	for _, want := range []string{"(parley-proof-bundle/2)", "anchored head: size 6", "ok bundle: 5 entries of the negotiation", "ok tree head: size 11",
		"ok identity links:", "anchors on chain not checked (no --rpc)"} {
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("bundle verify: %v, want %q in\n%s", err, want, out)
		}
	}
	out, err = runParley(t, "bundle", "verify", good, "--rpc", dev.URL, "--ledger-anchor", dev.Contracts.LedgerAnchor.Hex())
	for _, want := range []string{"ok anchor on chain: size 6 root " + negotiation.Hash(root).String() + " in transaction " + r.TxHash.Hex(),
		"ok consistency from the anchored head: the newest of 1 anchors of " + to.Hex() + " at or below size 11 is size 6"} {
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("bundle verify --rpc: %v, want %q in\n%s", err, want, out)
		}
	}

	other, err := identity.GenerateInboxKey()
	if err != nil {
		t.Fatal(err)
	}
	out, err = runParley(t, "bundle", "verify", export(other.Sign), "--rpc", dev.URL, "--ledger-anchor", dev.Contracts.LedgerAnchor.Hex())
	if exitCode(err) != 1 || !strings.Contains(out, "ok bundle:") || !strings.Contains(out, "FAIL forged_head: the tree head's signature does not verify") ||
		!strings.Contains(out, "failed check: tree head") || strings.Contains(out, "ok tree head") {
		t.Fatalf("a forged head: %v\n%s", err, out)
	}
	if _, err := runParley(t, "bundle", "verify", good, "--rpc", dev.URL); exitCode(err) != exitUsage || !strings.Contains(err.Error(), "--ledger-anchor") {
		t.Fatalf("--rpc without a contract: %v", err)
	}
}
