package node_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/parleynet/parley/contracts/testbindings"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
)

// TestContractArbitrator: both parties name an ERC-792 arbitrator
// contract (TestCourt, operated by a third node's address); the worker
// raises the dispute with it through the gate, paying its fee; the
// court's operator fetches the ERC-1497 MetaEvidence and Evidence
// documents by CID from a party's node and checks each against the files
// they name; the court first refuses to rule (both threads go back to
// disputed and the dispute is raised again), then rules 70/30 with its
// own dispute id, the ruling reaches both threads, and everyone
// withdraws, to the wei.
func TestContractArbitrator(t *testing.T) {
	w := newWorld(t, true)
	wgate := &recGate{}
	poster := w.add("poster")
	worker := w.add("worker", withBootstrap(poster), withGate(wgate))
	operator := w.add("operator", withBootstrap(poster, worker))
	connect(t, poster, worker)
	connect(t, poster, operator)
	ctx := t.Context()

	fee := big.NewInt(12345)
	tc := testbindings.NewTestCourt()
	bin, err := hexutil.Decode(testbindings.TestCourtMetaData.Bin)
	if err != nil {
		t.Fatal(err)
	}
	dep, err := operator.Chain().Transact(ctx, nil, nil, append(bin, tc.PackConstructor(fee)...))
	if err != nil {
		t.Fatal(err)
	}
	court := dep.ContractAddress

	nid := agree(t, poster, worker, eth(400))
	deliver(t, poster, worker, nid, 0, []byte("Glosario técnico (incompleto)"))
	if _, err := poster.OpenDispute(ctx, nid); err != nil {
		t.Fatal(err)
	}
	worker.waitState(nid, negotiation.StateDisputed)
	if _, err := poster.SubmitEvidence(ctx, nid, node.EvidenceSpec{Name: "timeline.txt", Data: []byte("the glossary stops at letter M"), Description: "what was delivered"}); err != nil {
		t.Fatal(err)
	}
	if _, err := worker.RaiseWithArbitrator(ctx, nid); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("raising before an arbitrator is assigned: %v", err)
	}
	for _, p := range []*tnode{poster, worker} {
		if _, err := p.ProposeArbitrator(ctx, nid, negotiation.Address(court)); err != nil {
			t.Fatal(err)
		}
	}
	poster.waitState(nid, negotiation.StateArbitrated)
	if v := worker.waitState(nid, negotiation.StateArbitrated); *v.Arbitrator != negotiation.Address(court) {
		t.Fatalf("the worker's arbitrator: %v", v.Arbitrator)
	}

	raise, err := worker.RaiseWithArbitrator(ctx, nid)
	if err != nil {
		t.Fatal(err)
	}
	if raise.Tx == nil || raise.Detail["fee"] != fee.String() || raise.Detail["externalDisputeId"] != "0" || raise.Thread.State != negotiation.StateArbitrated {
		t.Fatalf("RaiseWithArbitrator = %+v", raise)
	}
	if a := wgate.asked(node.ActRaiseArbitrator); len(a) != 1 || argsOf(t, a[0])["fee"] != fee.String() || argsOf(t, a[0])["arbitrator"] != negotiation.Address(court).String() {
		t.Fatalf("the gate was asked %+v", a)
	}
	if _, err := poster.RaiseWithArbitrator(ctx, nid); node.CodeOf(err) != node.CodeStateForbidden {
		t.Fatalf("raising twice: %v", err)
	}
	if n := len(wgate.asked(node.ActRaiseArbitrator)); n != 1 {
		t.Fatalf("the gate was asked %d times", n)
	}
	if _, err := worker.SubmitEvidence(ctx, nid, node.EvidenceSpec{Name: "letters.txt", Data: []byte("A to M were agreed for the first milestone"), Description: "scope"}); err != nil {
		t.Fatal(err)
	}

	// The ERC-1497 documents, as the court's operator reads them.
	var docs node.CourtDocuments
	eventually(t, "both pieces of evidence in the poster's documents", func() bool {
		docs, err = poster.CourtDocuments(ctx, nid)
		return err == nil && len(docs.Evidence) == 2
	})
	fetch := func(c string) []byte {
		t.Helper()
		b, err := operator.FetchCourtDocument(ctx, poster.Address(), mustCID(t, c))
		if err != nil {
			t.Fatalf("the operator fetches %s: %v", c, err)
		}
		return b
	}
	member := func(doc map[string]any, k string) string {
		t.Helper()
		s, ok := doc[k].(string)
		if !ok || s == "" {
			t.Fatalf("the document has no %s: %v", k, doc)
		}
		return s
	}
	// resolve checks a document's fileURI and fileHash against the file
	// the operator fetches.
	resolve := func(doc map[string]any) []byte {
		t.Helper()
		uri := member(doc, "fileURI")
		file := fetch(strings.TrimPrefix(uri, node.FileURIPrefix))
		h := sha256.Sum256(file)
		if member(doc, "fileHash") != "0x"+hex.EncodeToString(h[:]) || !strings.HasPrefix(uri, node.FileURIPrefix) {
			t.Fatalf("the document's file %s does not hash to %s", uri, doc["fileHash"])
		}
		return file
	}
	var meta map[string]any
	if err := json.Unmarshal(fetch(docs.MetaEvidence.CID), &meta); err != nil {
		t.Fatal(err)
	}
	member(meta, "title")
	member(meta, "description")
	ro, _ := meta["rulingOptions"].(map[string]any)
	if ro["type"] != "uint" || len(ro["titles"].([]any)) == 0 || len(ro["descriptions"].([]any)) == 0 {
		t.Fatalf("rulingOptions: %v", meta["rulingOptions"])
	}
	terms := resolve(meta)
	th := sha256.Sum256(terms)
	if docs.MetaEvidence.URI != node.MetaEvidenceURI(th) {
		t.Fatalf("the MetaEvidence URI %s is not the terms' %x", docs.MetaEvidence.URI, th)
	}
	seen := map[string]bool{}
	for _, d := range docs.Evidence {
		var ev map[string]any
		if err := json.Unmarshal(fetch(d.CID), &ev); err != nil {
			t.Fatal(err)
		}
		member(ev, "name")
		member(ev, "description")
		seen[string(resolve(ev))] = true
		if d.URI != d.File || member(ev, "fileURI") != node.FileURIPrefix+d.URI {
			t.Fatalf("the Evidence URI %s resolves to %v", d.URI, ev)
		}
	}
	if !seen["the glossary stops at letter M"] || !seen["A to M were agreed for the first milestone"] {
		t.Fatalf("the evidence documents name %v", seen)
	}
	// The worker is a party: it may fetch; a stranger may not.
	stranger := w.add("stranger", withBootstrap(poster))
	connect(t, poster, stranger)
	sctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if _, err := stranger.FetchCourtDocument(sctx, poster.Address(), mustCID(t, docs.MetaEvidence.CID)); err == nil {
		t.Fatal("a stranger fetched the court's documents")
	}

	// The court rules 70/30 with its own dispute id.
	bond, err := poster.Chain().Bond(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The court first refuses to rule (ruling 0, with its own id): both
	// threads go back to disputed, the parties name the court again and
	// the worker raises the dispute with it again.
	ext, _ := new(big.Int).SetString(raise.Detail["externalDisputeId"], 10)
	if _, err := operator.Chain().Transact(ctx, &court, nil, tc.PackGiveRuling(ext, big.NewInt(0))); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*tnode{poster, worker} {
		p.waitState(nid, negotiation.StateDisputed)
	}
	for _, p := range []*tnode{poster, worker} {
		if _, err := p.ProposeArbitrator(ctx, nid, negotiation.Address(court)); err != nil {
			t.Fatal(err)
		}
	}
	worker.waitState(nid, negotiation.StateArbitrated)
	again, err := worker.RaiseWithArbitrator(ctx, nid)
	if err != nil || again.Detail["externalDisputeId"] != "1" {
		t.Fatalf("raising again after the refusal: %+v, %v", again, err)
	}
	ext, _ = new(big.Int).SetString(again.Detail["externalDisputeId"], 10)
	if _, err := operator.Chain().Transact(ctx, &court, nil, tc.PackGiveRuling(ext, big.NewInt(7001))); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*tnode{poster, worker} {
		if v := p.waitState(nid, negotiation.StateResolved); v.Ruling == nil || *v.Ruling != 7001 {
			t.Fatalf("%s's ruling: %v", p.name, v.Ruling)
		}
	}
	withdraw(t, worker, eth(280))
	withdraw(t, poster, eth(120))
	eth0 := common.Address{}
	if owed, err := operator.Chain().Owed(ctx, eth0, court); err != nil || owed.Cmp(bond) != 0 {
		t.Fatalf("the court is owed %v (%v), want the bond %s", owed, err, bond)
	}
	before, err := operator.Balance(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := operator.Chain().Transact(ctx, &court, nil, tc.PackWithdrawFrom(w.dev.ClientConfig().Contracts.TaskRegistry, bond))
	if err != nil {
		t.Fatal(err)
	}
	after, err := operator.Balance(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gas := new(big.Int).Mul(new(big.Int).SetUint64(rc.GasUsed), rc.EffectiveGasPrice)
	fees := new(big.Int).Mul(fee, big.NewInt(2)) // raised twice
	want := new(big.Int).Sub(new(big.Int).Add(new(big.Int).Add(before, bond), fees), gas)
	if after.Cmp(want) != 0 {
		t.Fatalf("the operator holds %s after the court's withdrawal, want %s (bond %s, fee %s, gas %s)", after, want, bond, fee, gas)
	}
	if owed, _ := operator.Chain().Owed(ctx, eth0, court); owed.Sign() != 0 {
		t.Fatalf("the court is still owed %s", owed)
	}
}
