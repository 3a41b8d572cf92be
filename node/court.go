package node

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/chain"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node/gate"
)

// A contract arbitrator (ERC-792). Both parties may name an arbitrator
// contract ("court") instead of a person's address: proposeArbitrator
// assigns it as it assigns a person (the thread goes to arbitrated), a
// party raises the dispute with it (RaiseWithArbitrator: the gated
// raiseWithArbitrator, paying the court's arbitrationCost), and the court
// rules by calling the ArbitrationModule's rule with its own dispute id.
// The node maps that id back to the task (ExternalDispute) so the ruling
// reaches both threads as the fact ruled, and the withdrawals follow as
// after a person's ruling. The bond goes to the court.
//
// A court reads ERC-1497 documents: the MetaEvidence the registry names
// at funding ("parley:terms:0x<termsHash>") and each Evidence URI (the
// CID of an evidence file). CourtDocuments builds, for a thread, the JSON
// documents those URIs resolve to (title, description, rulingOptions,
// fileURI, fileHash; docs/node.md, "Contract arbitrators"), stores them
// with the files they name as the thread's files, and the node serves
// them over the blob protocol, by CID, to the court's operator (the
// address a centralized court's owner() names) besides the parties.

// ActRaiseArbitrator is the gated act of raising a dispute with its
// arbitrator contract.
const ActRaiseArbitrator = gate.ActRaiseArbitrator

// RaiseWithArbitrator raises the thread's dispute with its assigned
// arbitrator contract, paying the court's fee, once the gate approves.
// It is refused (state_forbidden) when the arbitrator is a person's
// address or the dispute was raised already. Detail names the court's
// own dispute id (externalDisputeId) and the fee.
func (n *Node) RaiseWithArbitrator(ctx context.Context, nid string) (ActResult, error) {
	var (
		taskID [32]byte
		arb    negotiation.Address
	)
	read := func(t *thread) error { taskID, arb = taskOf(t), t.Th.Arbitrator(); return nil }
	a := actCall{act: negotiation.ActRaiseArbitrator, nid: nid, chain: chainAlways, locked: read}
	return n.do(a, func() (ActResult, error) {
		court := common.Address(arb)
		isCourt, err := n.client.IsContract(ctx, court)
		if err != nil {
			return ActResult{}, chainErr("code", err)
		}
		if !isCourt {
			return ActResult{}, fail(CodeStateForbidden, "the arbitrator %s is a person's address: it rules itself, there is no court to raise the dispute with", arb)
		}
		d, err := n.client.Dispute(ctx, taskID)
		if err != nil {
			return ActResult{}, chainErr("dispute", err)
		}
		if d.Raised {
			return ActResult{}, fail(CodeStateForbidden, "the dispute is raised with %s already", arb)
		}
		fee, err := n.client.ArbitrationCost(ctx, court, nil)
		if err != nil {
			return ActResult{}, chainErr("arbitrationCost", err)
		}
		disputeID := chain.DisputeID(taskID).String()
		args := map[string]any{"disputeId": disputeID, "arbitrator": arb.String(), "fee": fee.String()}
		reason := fmt.Sprintf("raise the dispute with the arbitrator contract %s, paying its fee of %s wei", arb, fee)
		if _, err := n.authorize(ctx, ActRaiseArbitrator, nid, args, reason, "medium"); err != nil {
			return ActResult{}, err
		}
		ext, rc, err := n.client.RaiseWithArbitrator(ctx, taskID, nil, fee)
		if err != nil {
			return ActResult{}, chainErr("raiseWithArbitrator", err)
		}
		if err := n.onchain.applyReceipt(ctx, rc); err != nil {
			return ActResult{}, err
		}
		r := n.onchain.result(nid, nil)
		r.Tx = txRef(rc)
		r.Detail = map[string]string{"disputeId": disputeID, "externalDisputeId": ext.String(), "fee": fee.String(), "arbitrator": arb.String()}
		n.courts.mark(nid, arb)
		n.log.Info("dispute raised with the arbitrator contract", "negotiation", nid, "court", arb, "externalId", ext)
		return r, nil
	})
}

// courtRuling returns the fact of a court's Ruling event as the thread
// takes it: the ArbitrationModule's Ruling names the court's own dispute
// id when the dispute was raised with it, which the module maps back to
// the task (externalDispute, as its rule does). Any other event is
// returned as it is.
func (c *chainActs) courtRuling(ctx context.Context, ev chain.Event, f negotiation.Fact, ref chain.FactRef) (negotiation.Fact, chain.FactRef, error) {
	court, ext, ok := chain.RulingOf(ev)
	ruled, isRuled := f.(negotiation.Ruled)
	if !ok || !isRuled || c.client == nil {
		return f, ref, nil
	}
	id, err := c.client.ExternalDispute(ctx, court, ext)
	if err != nil {
		return nil, ref, chainErr("externalDispute", err)
	}
	if id == ([32]byte{}) {
		return f, ref, nil // a person's ruling names the dispute itself
	}
	ruled.DisputeID = negotiation.NewUint256(new(big.Int).SetBytes(id[:]))
	ref.TaskID = id
	return ruled, ref, nil
}

// The ERC-1497 documents.

// RulingOptions are a MetaEvidence's ruling options (ERC-1497).
type RulingOptions struct {
	Type         string   `json:"type"`
	Titles       []string `json:"titles"`
	Descriptions []string `json:"descriptions"`
}

// MetaEvidence is the ERC-1497 MetaEvidence document of a task: what the
// dispute is about, the question, the ruling options and the agreed
// terms (fileURI, fileHash).
type MetaEvidence struct {
	Category          string        `json:"category"`
	Title             string        `json:"title"`
	Description       string        `json:"description"`
	Question          string        `json:"question"`
	RulingOptions     RulingOptions `json:"rulingOptions"`
	FileURI           string        `json:"fileURI"`
	FileHash          string        `json:"fileHash"`
	FileTypeExtension string        `json:"fileTypeExtension"`
	ArbitrableChainID string        `json:"arbitrableChainID"`
}

// EvidenceDocument is the ERC-1497 Evidence document of one evidence
// file.
type EvidenceDocument struct {
	Name              string `json:"name"`
	Description       string `json:"description"`
	FileURI           string `json:"fileURI"`
	FileHash          string `json:"fileHash"`
	FileTypeExtension string `json:"fileTypeExtension,omitempty"`
}

// CourtDocument is one ERC-1497 URI as the chain names it and the JSON
// document it resolves to, stored under CID.
type CourtDocument struct {
	// URI is the URI of the chain's MetaEvidence or Evidence event.
	URI string `json:"uri"`
	// CID is the JSON document's content identifier, served over the blob
	// protocol.
	CID string `json:"cid"`
	// File is the CID of the file the document describes (its fileURI).
	File string `json:"file"`
}

// CourtDocuments are the ERC-1497 documents of a disputed thread.
type CourtDocuments struct {
	MetaEvidence CourtDocument   `json:"metaEvidence"`
	Evidence     []CourtDocument `json:"evidence"`
}

// FileURIPrefix starts the fileURI of an ERC-1497 document: the CID of a
// file the parties' nodes serve over the blob protocol.
const FileURIPrefix = "parley:cid:"

// MetaEvidenceURI returns the MetaEvidence URI the registry emits for a
// task whose agreed terms hash to termsHash.
func MetaEvidenceURI(termsHash negotiation.Hash) string {
	return "parley:terms:0x" + hex.EncodeToString(termsHash[:])
}

// fileHash is an ERC-1497 fileHash: the SHA-256 of the file, 0x and hex.
func fileHash(data []byte) string {
	h := sha256.Sum256(data)
	return "0x" + hex.EncodeToString(h[:])
}

// courtFiles keeps, per negotiation, the CIDs of the documents and files
// the court's operator may fetch. It owns its map and its lock, a leaf.
type courtFiles struct {
	mu     sync.Mutex
	files  map[string]map[cid.Cid]negotiation.Address // nid -> CID -> the operator it is served to
	courts map[string]negotiation.Address             // nid -> its arbitrator, known to be a contract
}

func newCourtFiles() *courtFiles {
	return &courtFiles{files: map[string]map[cid.Cid]negotiation.Address{}, courts: map[string]negotiation.Address{}}
}

// mark records that negotiation nid's arbitrator is the contract court.
func (f *courtFiles) mark(nid string, court negotiation.Address) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.courts[nid] = court
}

// recipients returns to without nid's arbitrator contract: a court takes
// no envelopes (it reads the ERC-1497 documents), so none is queued for it.
func (f *courtFiles) recipients(nid string, to []negotiation.Address) []negotiation.Address {
	f.mu.Lock()
	court, ok := f.courts[nid]
	f.mu.Unlock()
	if !ok {
		return to
	}
	out := to[:0:0]
	for _, a := range to {
		if a != court {
			out = append(out, a)
		}
	}
	return out
}

func (f *courtFiles) allow(nid string, operator negotiation.Address, cs ...cid.Cid) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.files[nid]
	if m == nil {
		m = map[cid.Cid]negotiation.Address{}
		f.files[nid] = m
	}
	for _, c := range cs {
		m[c] = operator
	}
}

// serves reports whether file c of negotiation nid is served to who.
func (f *courtFiles) serves(nid string, who negotiation.Address, c cid.Cid) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	op, ok := f.files[nid][c]
	return ok && op == who && who != (negotiation.Address{})
}

// CourtDocuments builds the ERC-1497 documents of the disputed thread
// nid, whose arbitrator is a contract: the MetaEvidence of the agreed
// terms and one Evidence document per evidence file in the thread. It
// stores each document and the agreed terms as files of the thread (the
// same bytes give the same CIDs, so calling it again changes nothing) and
// serves them, and the evidence files they name, to the court's operator.
func (n *Node) CourtDocuments(ctx context.Context, nid string) (CourtDocuments, error) {
	var (
		out      CourtDocuments
		terms    []byte
		title    string
		desc     string
		chainID  string
		court    negotiation.Address
		evidence []*negotiation.DisputeEvidence
		from     []string
	)
	if err := n.running(); err != nil {
		return out, err
	}
	if err := n.needChain(); err != nil {
		return out, err
	}
	err := n.eng.With(nid, func(t *thread) error {
		court = t.Th.Arbitrator()
		ag := t.Th.Agreement()
		if ag == nil || court == (negotiation.Address{}) {
			return fail(CodeStateForbidden, "no arbitrator is assigned in %s", nid)
		}
		off := t.Th.Envelope(ag.Offer)
		var m struct {
			Payload struct {
				Terms json.RawMessage `json:"terms"`
			} `json:"payload"`
		}
		if off == nil || json.Unmarshal(off.Bytes(), &m) != nil || len(m.Payload.Terms) == 0 {
			return fail(CodeStateForbidden, "the agreed offer is not in the thread")
		}
		terms = m.Payload.Terms
		f := n.onchain.funded(t)
		title, desc, chainID = f.terms.Title, f.terms.Description, fmtAmount(ag.Domain.ChainID)
		for _, r := range t.Th.Log() {
			if r.Type != negotiation.TypeDisputeEvidence || r.Code != "" {
				continue
			}
			if p, ok := t.Th.Envelope(r.Hash).Payload.(*negotiation.DisputeEvidence); ok && bundleFile(p) == nil {
				evidence = append(evidence, p)
				from = append(from, r.Sender.String())
			}
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	isCourt, err := n.client.IsContract(ctx, common.Address(court))
	if err != nil {
		return out, chainErr("code", err)
	}
	if !isCourt {
		return out, fail(CodeStateForbidden, "the arbitrator %s is a person's address: it reads the thread, not ERC-1497 documents", court)
	}
	op, err := n.client.CourtOperator(ctx, common.Address(court))
	if err != nil {
		return out, chainErr("owner", err)
	}
	operator := negotiation.Address(op)
	store := func(name, media string, data []byte) (cid.Cid, error) {
		c, err := n.blobs.store(ctx, nid, name, media, "", data)
		if err == nil {
			n.courts.allow(nid, operator, c)
		}
		return c, err
	}
	termsCID, err := store("terms.json", "application/json", terms)
	if err != nil {
		return out, err
	}
	if desc == "" {
		desc = title
	}
	me := MetaEvidence{
		Category: "Parley task", Title: title,
		Description: desc + " (the agreed terms are the file; each party's evidence follows as Evidence)",
		Question:    "What share of the escrow goes to the worker?",
		RulingOptions: RulingOptions{
			Type:         "uint",
			Titles:       []string{"Refuse to rule", "Worker's share"},
			Descriptions: []string{"0 refuses to rule: the parties name another arbitrator", fmt.Sprintf("r in 1..%d gives the worker r-1 basis points of the escrow and the poster the rest", negotiation.MaxRuling)},
		},
		FileURI: FileURIPrefix + termsCID.String(), FileHash: fileHash(terms), FileTypeExtension: "json", ArbitrableChainID: chainID,
	}
	doc, err := canonicalJSON(me)
	if err != nil {
		return out, err
	}
	mc, err := store("meta-evidence.json", "application/json", doc)
	if err != nil {
		return out, err
	}
	out.MetaEvidence = CourtDocument{URI: MetaEvidenceURI(negotiation.Hash(sha256.Sum256(terms))), CID: mc.String(), File: termsCID.String()}
	for i, p := range evidence {
		for _, f := range evidenceFiles(p) {
			data, err := n.led.Object(ctx, f.c)
			if err != nil {
				continue // not fetched yet: its document follows once it is
			}
			n.courts.allow(nid, operator, f.c)
			ext := ""
			if j := strings.LastIndexByte(f.ref.Name, '.'); j >= 0 {
				ext = f.ref.Name[j+1:]
			}
			ed := EvidenceDocument{Name: f.ref.Name, Description: p.Description + " (submitted by " + from[i] + ")", FileURI: FileURIPrefix + f.c.String(), FileHash: fileHash(data), FileTypeExtension: ext}
			doc, err := canonicalJSON(ed)
			if err != nil {
				return out, err
			}
			dc, err := store("evidence-"+f.c.String()+".json", "application/json", doc)
			if err != nil {
				return out, err
			}
			out.Evidence = append(out.Evidence, CourtDocument{URI: f.c.String(), CID: dc.String(), File: f.c.String()})
		}
	}
	return out, nil
}

// FetchCourtDocument fetches the file c of negotiation nid by CID over
// the blob protocol from the party from, as a court's operator does: the
// bytes are checked against the CID and not stored.
func (n *Node) FetchCourtDocument(ctx context.Context, from negotiation.Address, c cid.Cid) ([]byte, error) {
	if err := n.running(); err != nil {
		return nil, err
	}
	l, ok := n.host.Link(from)
	if !ok {
		return nil, fail(CodeBadArgument, "no identity link of %s: connect to it first", from)
	}
	data, err := n.blobs.raw(ctx, l.PeerID, c)
	if err != nil {
		return nil, failWrap(CodeBadArgument, err, "file %s from %s", c, from)
	}
	return data, nil
}

// canonicalJSON returns v as JCS bytes, so a document's CID does not
// depend on how it was encoded.
func canonicalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return negotiation.Canonicalize(b)
}

// courtArbitrator reports whether the assigned arbitrator arb is a
// contract: the hand-over then sends no proof bundle (nothing would take
// it; the court reads the ERC-1497 documents instead).
func (h *handover) courtArbitrator(ctx context.Context, nid string, arb negotiation.Address) (bool, error) {
	if h.chain == nil {
		return false, nil
	}
	court, err := h.chain.IsContract(ctx, common.Address(arb))
	if err != nil {
		return false, chainErr("code", err)
	}
	if court {
		h.courts.mark(nid, arb)
	}
	return court, nil
}
