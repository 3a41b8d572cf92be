package engine

// The classes of the engine's errors, in the words every package of the
// module uses (docs/api.md, "Errors"). The engine has no codes of its
// own: its sentinels know their class, and the node that holds it gives
// its own codes to what reaches its callers (unknown_negotiation,
// store_failed).
const (
	classNotFound    = "not_found"
	classUnavailable = "unavailable"
	classInternal    = "internal"
)

// Sentinels for errors.Is; each knows its class.
var (
	// ErrUnknown is the error With returns for a negotiation the engine
	// does not hold, when Config.Unknown is nil (class not_found).
	ErrUnknown error = &sentinel{"engine: unknown negotiation", classNotFound}
	// ErrNoLedger is the error Write returns before Open (class
	// unavailable).
	ErrNoLedger error = &sentinel{"engine: no ledger", classUnavailable}
	// ErrNotRecorded wraps the error of a step whose records could not be
	// written: nothing was applied (class internal).
	ErrNotRecorded error = &sentinel{"engine: step not recorded", classInternal}
)

// sentinel is an error without a code that knows its class.
type sentinel struct{ msg, class string }

// Error returns the sentinel's message.
func (e *sentinel) Error() string { return e.msg }

// Class returns the sentinel's class.
func (e *sentinel) Class() string { return e.class }
