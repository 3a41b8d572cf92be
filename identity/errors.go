package identity

import (
	"errors"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"
)

// Code is a stable, machine-readable error code. Tests, the CLI and peers
// speak in codes; messages are for people.
type Code string

// Key storage codes.
const (
	CodeWrongPassphrase Code = "wrong_passphrase" // the passphrase does not decrypt the key files
	CodeNoPassphrase    Code = "no_passphrase"    // no passphrase source gave a non-empty passphrase
	CodeKeyMissing      Code = "key_missing"      // the data directory holds no keys, or a key file is missing
	CodeKeyExists       Code = "key_exists"       // keys already exist; refusing to overwrite them
	CodeCorruptKeyFile  Code = "corrupt_key_file" // a key file does not parse or does not match public.json
	CodeBadConfig       Code = "bad_config"       // a Config field is out of range
)

// Identity link codes.
const (
	CodeMalformed          Code = "malformed"           // not JSON, or a field has the wrong type or format
	CodeDuplicateKey       Code = "duplicate_key"       // a JSON object names a member twice
	CodeUnknownField       Code = "unknown_field"       // a JSON member the format does not name
	CodeNotCanonical       Code = "not_canonical"       // a link whose bytes are not exactly its JCS form (white space, member order, escapes)
	CodeBadSignature       Code = "bad_signature"       // an ed25519 signature does not verify
	CodeBadEVMSignature    Code = "bad_evm_signature"   // an EIP-712 signature is malformed, high-s, or not by the address
	CodeLinkExpired        Code = "link_expired"        // now is at or after the link's expiresAt
	CodeLinkNotYetValid    Code = "link_not_yet_valid"  // the link's issuedAt is more than the allowed skew in the future
	CodePeerIDMismatch     Code = "peer_id_mismatch"    // peerId is not the libp2p id of inboxKey
	CodeUnknownKEM         Code = "unknown_kem"         // an encryption key names a KEM this node does not accept
	CodeNoCurrentKey       Code = "no_current_key"      // a link lists no encryption key valid now
	CodeRevocationMismatch Code = "revocation_mismatch" // a revocation does not name this link
)

// Sealing codes.
const (
	CodeBadFrame        Code = "bad_frame"        // a sealed frame does not parse
	CodeTooLarge        Code = "too_large"        // a frame or its plaintext exceeds the configured limit
	CodeNotAddressed    Code = "not_addressed"    // no recipient entry in the frame names one of this node's keys
	CodeUnknownKey      Code = "unknown_key"      // the frame names an encryption key this node does not hold
	CodeKeyExpired      Code = "key_expired"      // the encryption key is past its notAfter plus grace period
	CodeUnknownSession  Code = "unknown_session"  // a later message of a session this node does not know: request a re-key
	CodeSessionMismatch Code = "session_mismatch" // the frame's sender is not the sender that set up the session
	CodeOpenFailed      Code = "open_failed"      // authentication failed: the frame was altered or is not for this key
)

// The classes of codes: what kind of failure a code is, in the same words
// in every package of Parley (docs/api.md, "Errors").
const (
	classInvalid      = "invalid"      // the input does not parse or verify
	classUnauthorized = "unauthorized" // no passphrase, or one that does not open the keys
	classNotFound     = "not_found"    // no such key or session
	classConflict     = "conflict"     // refused now: expired, not yet valid, already there
	classTooLarge     = "too_large"    // over a size limit
	classInternal     = "internal"     // the node's own key files or configuration
)

// classes holds the class of every code of this package; a code missing
// here has no class, which a test of the node's API catches.
var classes = map[Code]string{
	CodeWrongPassphrase: classUnauthorized,
	CodeNoPassphrase:    classUnauthorized,
	CodeKeyMissing:      classNotFound,
	CodeKeyExists:       classConflict,
	CodeCorruptKeyFile:  classInternal,
	CodeBadConfig:       classInternal,
	CodeBadBackup:       classInvalid,

	CodeMalformed:          classInvalid,
	CodeDuplicateKey:       classInvalid,
	CodeUnknownField:       classInvalid,
	CodeNotCanonical:       classInvalid,
	CodeBadSignature:       classInvalid,
	CodeBadEVMSignature:    classInvalid,
	CodeLinkExpired:        classConflict,
	CodeLinkNotYetValid:    classConflict,
	CodePeerIDMismatch:     classInvalid,
	CodeUnknownKEM:         classInvalid,
	CodeNoCurrentKey:       classConflict,
	CodeRevocationMismatch: classInvalid,

	CodeBadFrame:        classInvalid,
	CodeTooLarge:        classTooLarge,
	CodeNotAddressed:    classInvalid,
	CodeUnknownKey:      classNotFound,
	CodeKeyExpired:      classConflict,
	CodeUnknownSession:  classNotFound,
	CodeSessionMismatch: classInvalid,
	CodeOpenFailed:      classInvalid,
}

// Class returns the class of c: unauthorized for a missing or wrong
// passphrase, internal for damaged key files and a bad Config, not_found
// for missing keys and unknown keys or sessions, conflict for what is
// refused at this time (expired, not yet valid, keys that exist), too_large
// for a frame over the limit, invalid for input that does not parse or
// verify; "" for a string that is no code of this package.
func (c Code) Class() string { return classes[c] }

// Error is an identity error with a stable code. KeyID, SessionID and
// Sender are set on sealing errors where they are known, so a transport can
// answer CodeUnknownSession with a re-key request naming the session.
//
// Class returns the class of its code (Code.Class), and errors.Is(err,
// &Error{Code: c}) (or a sentinel such as ErrKeyMissing) is true for every
// *Error with code c, whatever the other fields of either: the one meaning
// Is has for the coded errors of every package of Parley.
type Error struct {
	Code Code
	Msg  string
	Err  error
	// File is the key file a key storage error is about (a damaged one),
	// when one is.
	File      string
	KeyID     KeyID
	SessionID SessionID
	Sender    peer.ID
}

// Error returns "identity: <code>: <msg>".
func (e *Error) Error() string {
	s := "identity: " + string(e.Code)
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, &Error{Code: c}) (a sentinel ErrX) match any
// *Error with code c, whatever its other fields (and the target's).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Class returns the class of e's code (Code.Class).
func (e *Error) Class() string { return e.Code.Class() }

// Sentinels for errors.Is; each matches every Error with its code.
var (
	// ErrWrongPassphrase is returned when the passphrase does not decrypt a key file.
	ErrWrongPassphrase = &Error{Code: CodeWrongPassphrase}
	// ErrNoPassphrase is returned when no source yields a non-empty passphrase.
	ErrNoPassphrase = &Error{Code: CodeNoPassphrase}
	// ErrKeyMissing is returned when the data directory holds no keys or lacks a key file.
	ErrKeyMissing = &Error{Code: CodeKeyMissing}
	// ErrKeyExists is returned by Create when keys already exist.
	ErrKeyExists = &Error{Code: CodeKeyExists}
	// ErrCorruptKeyFile is returned when a key file does not parse or does not match public.json.
	ErrCorruptKeyFile = &Error{Code: CodeCorruptKeyFile}
	// ErrBadConfig is returned by Config.Validate for an out-of-range field.
	ErrBadConfig = &Error{Code: CodeBadConfig}
	// ErrMalformed is returned for input that is not JSON or has a field of the wrong form.
	ErrMalformed = &Error{Code: CodeMalformed}
	// ErrDuplicateKey is returned for JSON objects that name a member twice.
	ErrDuplicateKey = &Error{Code: CodeDuplicateKey}
	// ErrUnknownField is returned for JSON members the format does not name.
	ErrUnknownField = &Error{Code: CodeUnknownField}
	// ErrBadSignature is returned when an ed25519 signature does not verify.
	ErrBadSignature = &Error{Code: CodeBadSignature}
	// ErrBadEVMSignature is returned when an EIP-712 signature is malformed or not by the named address.
	ErrBadEVMSignature = &Error{Code: CodeBadEVMSignature}
	// ErrLinkExpired is returned when a link is verified at or after its expiresAt.
	ErrLinkExpired = &Error{Code: CodeLinkExpired}
	// ErrLinkNotYetValid is returned when a link's issuedAt is too far in the future.
	ErrLinkNotYetValid = &Error{Code: CodeLinkNotYetValid}
	// ErrPeerIDMismatch is returned when a link's peerId is not the id of its inbox key.
	ErrPeerIDMismatch = &Error{Code: CodePeerIDMismatch}
	// ErrUnknownKEM is returned for an encryption key whose KEM is not accepted.
	ErrUnknownKEM = &Error{Code: CodeUnknownKEM}
	// ErrNoCurrentKey is returned when a link lists no encryption key valid at the given time.
	ErrNoCurrentKey = &Error{Code: CodeNoCurrentKey}
	// ErrRevocationMismatch is returned when a revocation does not name the link it is checked against.
	ErrRevocationMismatch = &Error{Code: CodeRevocationMismatch}
	// ErrBadFrame is returned for a sealed frame that does not parse.
	ErrBadFrame = &Error{Code: CodeBadFrame}
	// ErrTooLarge is returned for a frame or plaintext over the configured limit.
	ErrTooLarge = &Error{Code: CodeTooLarge}
	// ErrNotAddressed is returned when a frame names none of this node's keys.
	ErrNotAddressed = &Error{Code: CodeNotAddressed}
	// ErrUnknownKey is returned when a frame names an encryption key this node does not hold.
	ErrUnknownKey = &Error{Code: CodeUnknownKey}
	// ErrKeyExpired is returned when an encryption key is past its notAfter plus grace period.
	ErrKeyExpired = &Error{Code: CodeKeyExpired}
	// ErrUnknownSession is returned for a later message of a session this node does not know.
	ErrUnknownSession = &Error{Code: CodeUnknownSession}
	// ErrSessionMismatch is returned when a frame's sender is not the session's sender.
	ErrSessionMismatch = &Error{Code: CodeSessionMismatch}
	// ErrOpenFailed is returned when a frame fails authentication.
	ErrOpenFailed = &Error{Code: CodeOpenFailed}
)

func fail(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

func failWrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Err: err}
}

// CodeOf returns the code of err, or "" when err carries none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
