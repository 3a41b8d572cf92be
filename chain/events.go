package chain

import (
	"fmt"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/parleynet/parley/contracts/bindings"
)

// Event is one decoded contract event.
type Event struct {
	// Contract names the emitting contract ("TaskRegistry", ...).
	Contract string
	// Name is the event's name ("TaskUpdated", ...).
	Name string
	// Value is the binding's event struct, for example
	// *bindings.TaskRegistryTaskUpdated.
	Value any
	// Log is the raw log, with its block, transaction and index.
	Log types.Log
}

type eventKey struct {
	addr  common.Address
	topic common.Hash
}

type eventDecoder struct {
	contract, name string
	unpack         func(*types.Log) (any, error)
}

func wrap[T any](f func(*types.Log) (*T, error)) func(*types.Log) (any, error) {
	return func(l *types.Log) (any, error) {
		v, err := f(l)
		if err != nil {
			return nil, err
		}
		return v, nil
	}
}

// eventTable maps (contract address, topic 0) to the decoder of every event
// Parley's contracts emit.
type eventTable map[eventKey]eventDecoder

func newEventTable(a Addresses) eventTable {
	t := eventTable{}
	add := func(addr common.Address, contract string, parsed abi.ABI, name string, f func(*types.Log) (any, error)) {
		ev, ok := parsed.Events[name]
		if !ok {
			panic(fmt.Sprintf("chain: %s has no event %s", contract, name))
		}
		t[eventKey{addr, ev.ID}] = eventDecoder{contract: contract, name: name, unpack: f}
	}
	reg := bindings.NewTaskRegistry()
	r, ra := a.TaskRegistry, reg.GetABI()
	add(r, "TaskRegistry", ra, "TaskCreated", wrap(reg.UnpackTaskCreatedEvent))
	add(r, "TaskRegistry", ra, "TaskUpdated", wrap(reg.UnpackTaskUpdatedEvent))
	add(r, "TaskRegistry", ra, "MetaEvidence", wrap(reg.UnpackMetaEvidenceEvent))
	add(r, "TaskRegistry", ra, "ProofSubmitted", wrap(reg.UnpackProofSubmittedEvent))
	add(r, "TaskRegistry", ra, "MilestoneReleased", wrap(reg.UnpackMilestoneReleasedEvent))
	add(r, "TaskRegistry", ra, "EscrowRefunded", wrap(reg.UnpackEscrowRefundedEvent))
	add(r, "TaskRegistry", ra, "TaskAmended", wrap(reg.UnpackTaskAmendedEvent))
	add(r, "TaskRegistry", ra, "WorkerReplaced", wrap(reg.UnpackWorkerReplacedEvent))
	add(r, "TaskRegistry", ra, "DisputeOpened", wrap(reg.UnpackDisputeOpenedEvent))
	add(r, "TaskRegistry", ra, "DisputeSettled", wrap(reg.UnpackDisputeSettledEvent))
	add(r, "TaskRegistry", ra, "Credited", wrap(reg.UnpackCreditedEvent))
	add(r, "TaskRegistry", ra, "Withdrawn", wrap(reg.UnpackWithdrawnEvent))
	add(r, "TaskRegistry", ra, "RevisionRequested", wrap(reg.UnpackRevisionRequestedEvent))
	add(r, "TaskRegistry", ra, "PartReleased", wrap(reg.UnpackPartReleasedEvent))

	arb := bindings.NewArbitrationModule()
	m, ma := a.ArbitrationModule, arb.GetABI()
	add(m, "ArbitrationModule", ma, "DisputeOpened", wrap(arb.UnpackDisputeOpenedEvent))
	add(m, "ArbitrationModule", ma, "ArbitratorProposed", wrap(arb.UnpackArbitratorProposedEvent))
	add(m, "ArbitrationModule", ma, "ArbitratorAssigned", wrap(arb.UnpackArbitratorAssignedEvent))
	add(m, "ArbitrationModule", ma, "ArbitrationRefused", wrap(arb.UnpackArbitrationRefusedEvent))
	add(m, "ArbitrationModule", ma, "DisputeResolved", wrap(arb.UnpackDisputeResolvedEvent))
	add(m, "ArbitrationModule", ma, "Dispute", wrap(arb.UnpackDisputeEvent))
	add(m, "ArbitrationModule", ma, "Evidence", wrap(arb.UnpackEvidenceEvent))
	add(m, "ArbitrationModule", ma, "MetaEvidence", wrap(arb.UnpackMetaEvidenceEvent))
	add(m, "ArbitrationModule", ma, "Ruling", wrap(arb.UnpackRulingEvent))

	idl := bindings.NewIdentityLink()
	add(a.IdentityLink, "IdentityLink", idl.GetABI(), "LinkRegistered", wrap(idl.UnpackLinkRegisteredEvent))
	add(a.IdentityLink, "IdentityLink", idl.GetABI(), "LinkRotated", wrap(idl.UnpackLinkRotatedEvent))
	add(a.IdentityLink, "IdentityLink", idl.GetABI(), "LinkRevoked", wrap(idl.UnpackLinkRevokedEvent))

	sc := bindings.NewTaskScopeRegistry()
	add(a.TaskScopeRegistry, "TaskScopeRegistry", sc.GetABI(), "ScopePublished", wrap(sc.UnpackScopePublishedEvent))
	add(a.TaskScopeRegistry, "TaskScopeRegistry", sc.GetABI(), "ScopeWithdrawn", wrap(sc.UnpackScopeWithdrawnEvent))

	an := bindings.NewLedgerAnchor()
	add(a.LedgerAnchor, "LedgerAnchor", an.GetABI(), "Anchored", wrap(an.UnpackAnchoredEvent))
	return t
}

// decode returns the decoded event of l, or false for a log of no known
// event.
func (t eventTable) decode(l types.Log) (Event, bool) {
	if len(l.Topics) == 0 {
		return Event{}, false
	}
	d, ok := t[eventKey{l.Address, l.Topics[0]}]
	if !ok {
		return Event{}, false
	}
	lc := l
	v, err := d.unpack(&lc)
	if err != nil {
		return Event{}, false
	}
	return Event{Contract: d.contract, Name: d.name, Value: v, Log: l}, true
}

// DecodeEvents returns the events of Parley's contracts among logs (for
// example a receipt's), in order.
func DecodeEvents(a Addresses, logs []*types.Log) []Event {
	t := newEventTable(a)
	var out []Event
	for _, l := range logs {
		if ev, ok := t.decode(*l); ok {
			out = append(out, ev)
		}
	}
	return out
}
