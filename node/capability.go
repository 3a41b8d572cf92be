package node

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// Capability proofs (negotiation/capability.go): the worker attaches a
// file by CID and/or an attestation another address signed; the poster's
// node fetches the file over the blob protocol, checks it against its CID
// (the transport refuses bytes that do not hash to it), verifies the
// attestation, records both results in the ledger (KindCapabilityChecked)
// and tells its principal (EventCapability). The thread view and the
// decision brief say which proofs were checked.

// KindCapabilityChecked records the poster's check of one capability
// proof: body {proof, fileCid?, file?, note?, attestation?} (capabilityCheck).
const KindCapabilityChecked = "capability.checked"

// EventCapability: a capability proof was checked (Hash the proof, CID
// its file, Detail the result: verified or failed).
const EventCapability EventKind = "capability"

// capabilityFetchBound bounds the poster's fetch of a proof's file, its
// retries included: a file the worker does not serve is reported failed.
const capabilityFetchBound = 10 * time.Second

// CapabilitySpec is one capability proof a worker attaches.
type CapabilitySpec struct {
	// Capability names the domain proved ("translation:en-de").
	Capability string `json:"capability"`
	// Kind says what the proof is ("portfolio", "certificate",
	// "attestation"); not "escalation", which the node's PXP carrier uses.
	Kind string `json:"kind"`
	// Description is what the proof shows, for the poster; an attestation
	// signs it (negotiation.AttestationText).
	Description string `json:"description"`
	// Ref is a further reference (a URL), shown but not machine-checked.
	Ref string `json:"ref,omitempty"`
	// Name, MediaType and Data are a file the node stores under its CID
	// and the proof names; the poster's node fetches and checks it.
	Name      string `json:"name,omitempty"`
	MediaType string `json:"mediaType,omitempty"`
	Data      []byte `json:"data,omitempty"`
	// CID names a file without Data: one this node stored in this
	// negotiation already (the poster's node fetches it from this node,
	// which serves a negotiation's files to its parties only: a file of
	// another negotiation, or one this node does not hold, is reported
	// failed).
	CID negotiation.CID `json:"cid,omitempty"`
	// Attester and Signature are an attestation: Attester's EIP-191
	// signature over negotiation.AttestationText of this node's address,
	// Capability and Description. The node refuses one that does not
	// verify before anything is sent.
	Attester  *negotiation.Address     `json:"attester,omitempty"`
	Signature negotiation.EVMSignature `json:"signature,omitempty"`
}

// check checks s's arguments that need no thread.
func (s CapabilitySpec) check(self negotiation.Address) error {
	if strings.TrimSpace(s.Capability) == "" || strings.TrimSpace(s.Kind) == "" {
		return fail(CodeBadArgument, "a capability proof names its capability and its kind")
	}
	if s.Kind == negotiation.ProofKindEscalation {
		return fail(CodeBadArgument, "kind %q is the node's escalation carrier", s.Kind)
	}
	if len(s.Data) > 0 {
		if s.CID != "" {
			return fail(CodeBadArgument, "a proof's file is given as data or as a CID, not both")
		}
		if err := negotiation.CheckFileName(s.Name); err != nil {
			return failWrap(Code(negotiation.CodeBadFileName), err, "the file's name")
		}
	}
	if s.CID != "" {
		if _, err := s.CID.Parse(); err != nil {
			return failWrap(Code(negotiation.CodeBadCID), err, "the proof's CID")
		}
	}
	if (s.Attester == nil) != (len(s.Signature) == 0) {
		return fail(CodeBadArgument, "an attestation gives its attester and its signature, both or neither")
	}
	if len(s.Data) == 0 && s.CID == "" && s.Attester == nil && s.Ref == "" {
		return fail(CodeBadArgument, "a capability proof names a file, an attestation or a reference")
	}
	if s.Attester != nil {
		p := negotiation.CapabilityProof{Capability: s.Capability, Description: s.Description, Attester: s.Attester, Signature: s.Signature}
		if err := p.VerifyAttestation(self); err != nil {
			return &Error{Code: CodeOf(err), Msg: "the attestation does not verify", Err: err}
		}
	}
	return nil
}

// Capability attaches a capability proof, as the worker: a file given as
// data is stored under its CID (served to the parties over the blob
// protocol), an attestation is verified, and a CapabilityProof naming
// them is sent to the poster, whose node checks them. Not gated: it
// commits the principal to nothing.
func (n *Node) Capability(ctx context.Context, nid string, spec CapabilitySpec) (ActResult, error) {
	var r ActResult
	send := func(t *thread) error {
		c := spec.CID
		if len(spec.Data) > 0 {
			stored, err := n.blobs.store(ctx, nid, spec.Name, spec.MediaType, "", spec.Data)
			if err != nil {
				return err
			}
			c = negotiation.CID(stored.String())
		}
		p := &negotiation.CapabilityProof{Capability: spec.Capability, Kind: spec.Kind, Ref: spec.Ref, CID: c,
			Description: spec.Description, Attester: spec.Attester, Signature: spec.Signature}
		env, _, err := n.snd.send(ctx, t, p, n.eng.Recipients(t, false), false)
		if err != nil {
			return err
		}
		r = ActResult{Envelope: envRef(env), Thread: n.viewLocked(t)}
		if c != "" {
			r.Detail = map[string]string{"cid": string(c)}
		}
		return nil
	}
	check := func() error { return spec.check(n.self) }
	return n.do(actCall{act: negotiation.ActCapability, nid: nid, check: check, locked: send}, func() (ActResult, error) {
		return r, nil
	})
}

// capabilityCheck is the body of a KindCapabilityChecked record.
type capabilityCheck struct {
	Proof       negotiation.Hash `json:"proof"`
	CID         negotiation.CID  `json:"fileCid,omitempty"`
	File        string           `json:"file,omitempty"`
	Note        string           `json:"note,omitempty"`
	Attestation string           `json:"attestation,omitempty"`
}

// CapabilityView is one capability proof of a thread and its check.
type CapabilityView struct {
	Proof       negotiation.Hash     `json:"proof"`
	Capability  string               `json:"capability"`
	Kind        string               `json:"kind"`
	Description string               `json:"description,omitempty"`
	Ref         string               `json:"ref,omitempty"`
	CID         negotiation.CID      `json:"cid,omitempty"`
	Attester    *negotiation.Address `json:"attester,omitempty"`
	// File is the check of the file (verified, failed, pending; unchecked
	// on a node that is not the poster's), "" without a file.
	File     string `json:"file,omitempty"`
	FileNote string `json:"fileNote,omitempty"`
	// Attestation is the check of the attestation (verified, failed), ""
	// without one.
	Attestation string `json:"attestation,omitempty"`
	// Checked is set when everything the proof names was verified.
	Checked bool `json:"checked"`
}

// checkProof checks the capability proof env of negotiation nid, which
// the worker at peer p sent, in the background: its attestation, and its
// file fetched from p (bounded by capabilityFetchBound) and checked
// against the CID; the result is recorded and published.
func (b *blobStore) checkProof(nid string, p peer.ID, env *negotiation.Envelope) {
	proof := env.Payload.(*negotiation.CapabilityProof)
	rec := capabilityCheck{Proof: env.Hash(), CID: proof.CID}
	if proof.HasAttestation() {
		rec.Attestation = negotiation.ProofVerified
		if proof.VerifyAttestation(env.Sender.EVMAddress) != nil {
			rec.Attestation = negotiation.ProofFailed
		}
	}
	b.spawn(func(ctx context.Context) {
		if proof.CID != "" {
			rec.File = negotiation.ProofVerified
			c, err := proof.CID.Parse()
			if err == nil {
				fctx, cancel := context.WithTimeout(ctx, capabilityFetchBound)
				_, err = b.fetch(fctx, nid, p, fileRef{c: c, ref: negotiation.FileRef{Name: "capability", CID: proof.CID}})
				cancel()
			}
			if err != nil {
				if ctx.Err() != nil {
					return // the node stops: checked again at no later point, the view says pending
				}
				rec.File, rec.Note = negotiation.ProofFailed, "not fetched from the worker: "+err.Error()
			}
		}
		body, err := json.Marshal(rec)
		if err == nil {
			_, _, err = b.led.Append(ctx, ledger.Record{Kind: KindCapabilityChecked, NegotiationID: nid, Body: body, At: b.now()})
		}
		if err != nil {
			b.log.Warn("capability check not recorded", "negotiation", nid, "proof", rec.Proof, "err", err)
			return
		}
		result := negotiation.ProofVerified
		if rec.File == negotiation.ProofFailed || rec.Attestation == negotiation.ProofFailed {
			result = negotiation.ProofFailed
		}
		b.log.Info("capability proof checked", "negotiation", nid, "proof", rec.Proof, "result", result)
		b.events.publish(Event{Kind: EventCapability, NegotiationID: nid, Hash: rec.Proof.String(), CID: string(rec.CID), Detail: result, At: b.now()})
	})
}

// capabilityChecks returns the recorded checks of negotiation nid's
// capability proofs, by proof.
func capabilityChecks(ctx context.Context, led *ledger.Ledger, nid string) map[negotiation.Hash]capabilityCheck {
	out := map[negotiation.Hash]capabilityCheck{}
	for e, err := range led.ByNegotiation(ctx, nid) {
		if err != nil {
			break
		}
		if e.Kind != KindCapabilityChecked {
			continue
		}
		var c capabilityCheck
		if json.Unmarshal(e.Body, &c) == nil {
			out[c.Proof] = c
		}
	}
	return out
}

// capabilityViews returns the views of t's capability proofs (t.mu held):
// on the poster's node with the checks recorded (pending until then), on
// any other with the files unchecked.
func capabilityViews(ctx context.Context, led *ledger.Ledger, t *thread, self negotiation.Address) []CapabilityView {
	envs := t.Th.CapabilityProofs()
	if len(envs) == 0 {
		return nil
	}
	poster := t.Th.RoleOf(self) == negotiation.RolePoster
	checks := capabilityChecks(ctx, led, t.ID)
	out := make([]CapabilityView, 0, len(envs))
	for _, e := range envs {
		p := e.Payload.(*negotiation.CapabilityProof)
		v := CapabilityView{Proof: e.Hash(), Capability: p.Capability, Kind: p.Kind, Description: p.Description,
			Ref: p.Ref, CID: p.CID, Attester: p.Attester}
		if p.HasAttestation() {
			v.Attestation = negotiation.ProofVerified
			if p.VerifyAttestation(e.Sender.EVMAddress) != nil {
				v.Attestation = negotiation.ProofFailed
			}
		}
		if p.CID != "" {
			switch c, ok := checks[e.Hash()]; {
			case ok:
				v.File, v.FileNote = c.File, c.Note
			case poster:
				v.File = negotiation.ProofPending
			default:
				v.File = negotiation.ProofUnchecked
			}
		}
		v.Checked = negotiation.BriefProof{File: v.File, Attestation: v.Attestation}.Checked()
		out = append(out, v)
	}
	return out
}

// setBriefChecks puts the file checks of t's capability proofs into b
// (t.mu held), as capabilityViews finds them.
func setBriefChecks(ctx context.Context, led *ledger.Ledger, t *thread, self negotiation.Address, b *negotiation.Brief) {
	for _, v := range capabilityViews(ctx, led, t, self) {
		if v.CID != "" {
			b.SetFileCheck(v.Proof, v.File, v.FileNote)
		}
	}
}
