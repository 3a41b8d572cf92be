package engine

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/ipfs/go-cid"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// OtherParty returns the counterparty of this node in t (zero when not
// known yet; t's lock held).
func (e *Engine) OtherParty(t *Thread) negotiation.Address {
	if t.Th.Poster() == e.self {
		return t.Th.Worker()
	}
	return t.Th.Poster()
}

// Recipients returns who a direct envelope of t goes to: the counterparty,
// and for the dispute's envelopes (evidence, arbitrator proposals) the
// arbitrator once one is assigned and every arbitrator that refused to
// rule (they hold the thread still and may be named again, so they must
// not miss an envelope: the next one would be a sequence gap), and the
// supervisors the parties named, which hold the thread; an arbitrator or
// a supervisor writes to both parties.
func (e *Engine) Recipients(t *Thread, evidence bool) []negotiation.Address {
	var to []negotiation.Address
	add := func(a negotiation.Address) {
		if a != (negotiation.Address{}) && a != e.self {
			to = append(to, a)
		}
	}
	if r := t.Th.RoleOf(e.self); r == negotiation.RoleArbitrator || r == negotiation.RoleSupervisor {
		add(t.Th.Poster())
		add(t.Th.Worker())
		return to
	}
	add(e.OtherParty(t))
	if evidence {
		add(t.Th.Arbitrator())
		for _, a := range t.Th.FormerArbitrators() {
			if !slices.Contains(to, a) {
				add(a)
			}
		}
	}
	for _, s := range t.Th.Supervisors() {
		add(s) // the supervisors hold the thread (node/veto.go)
	}
	return to
}

// Stored reports whether the ledger holds the object c.
func (e *Engine) Stored(ctx context.Context, c cid.Cid) bool {
	_, err := e.led.Object(ctx, c)
	return err == nil
}

// PrivateRecord returns the pxp.object record, at time at, that stores
// raw (in JCS form) in this node's ledger only, and the CID that names it, so that a
// record of the same batch can refer to it.
func PrivateRecord(what string, raw []byte, at time.Time) (ledger.Record, string, error) {
	canon, err := negotiation.Canonicalize(raw)
	if err != nil {
		return ledger.Record{}, "", err
	}
	c, err := ledger.ObjectCID(canon, ledger.CodecJSON)
	if err != nil {
		return ledger.Record{}, "", err
	}
	body, _ := json.Marshal(map[string]string{"what": what})
	return ledger.Record{Kind: KindPXPObject, Body: body, Object: canon, At: at}, c.String(), nil
}

// PrivateValueRecord is PrivateRecord of v's JSON.
func PrivateValueRecord(what string, v any, at time.Time) (ledger.Record, string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return ledger.Record{}, "", err
	}
	return PrivateRecord(what, raw, at)
}
