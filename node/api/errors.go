package api

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/parleynet/parley/node"
)

// The classes of errors. Every coded error of every package of Parley
// knows its class (a method Class() string, decided per code by the package
// that owns the code), spelled with these strings in every package; the
// server asks an error for its class and answers each class with one HTTP
// status (docs/api.md, "Errors").
const (
	ClassInvalid       = "invalid"       // 400: the input is malformed or out of range
	ClassUnauthorized  = "unauthorized"  // 401: the caller did not prove who it is
	ClassForbidden     = "forbidden"     // 403: the caller, its role or its authority may not do this
	ClassNotFound      = "not_found"     // 404: what the request names does not exist
	ClassConflict      = "conflict"      // 409: the state does not allow it (now, or any more)
	ClassTooLarge      = "too_large"     // 413: over a size limit
	ClassUnprocessable = "unprocessable" // 422: a document the request names does not verify
	ClassRateLimited   = "rate_limited"  // 429: over a rate; Retry-After says when to try again
	ClassInternal      = "internal"      // 500: the node's own configuration, stores, or a bug
	ClassUpstream      = "upstream"      // 502: a service the node depends on (the chain) refused or failed
	ClassUnavailable   = "unavailable"   // 503: the node, or what the act needs, is not running
)

// classes are the classes, in the order of their statuses.
var classes = []string{
	ClassInvalid, ClassUnauthorized, ClassForbidden, ClassNotFound, ClassConflict, ClassTooLarge,
	ClassUnprocessable, ClassRateLimited, ClassInternal, ClassUpstream, ClassUnavailable,
}

// classed is what the server asks of an error: its class. Every coded
// error of the packages below the API implements it.
type classed interface {
	Class() string
}

// statusOf returns the HTTP status of class; ok is false for a string that
// is no class.
func statusOf(class string) (status int, ok bool) {
	switch class {
	case ClassInvalid:
		return http.StatusBadRequest, true
	case ClassUnauthorized:
		return http.StatusUnauthorized, true
	case ClassForbidden:
		return http.StatusForbidden, true
	case ClassNotFound:
		return http.StatusNotFound, true
	case ClassConflict:
		return http.StatusConflict, true
	case ClassTooLarge:
		return http.StatusRequestEntityTooLarge, true
	case ClassUnprocessable:
		return http.StatusUnprocessableEntity, true
	case ClassRateLimited:
		return http.StatusTooManyRequests, true
	case ClassInternal:
		return http.StatusInternalServerError, true
	case ClassUpstream:
		return http.StatusBadGateway, true
	case ClassUnavailable:
		return http.StatusServiceUnavailable, true
	}
	return http.StatusInternalServerError, false
}

// classOfStatus returns the class whose status is status, "" for a status
// no class answers.
func classOfStatus(status int) string {
	for _, c := range classes {
		if st, _ := statusOf(c); st == status {
			return c
		}
	}
	return ""
}

// classOf returns the class of the outermost error in err's chain that
// knows one; internal when none does, or when what it says is no class.
func classOf(err error) string {
	var c classed
	if errors.As(err, &c) {
		if k := c.Class(); k != "" {
			if _, ok := statusOf(k); ok {
				return k
			}
		}
	}
	return ClassInternal
}

// httpError is an error answer the server makes: its HTTP status and the
// stable code and message of its ErrorBody.
type httpError struct {
	Status  int
	Code    string
	Message string
	// RetryAfter, in seconds, is sent as the Retry-After header (429).
	RetryAfter int
}

func (e *httpError) Error() string {
	return fmt.Sprintf("api: %d %s: %s", e.Status, e.Code, e.Message)
}

func badRequest(format string, args ...any) *httpError {
	return &httpError{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: fmt.Sprintf(format, args...)}
}

// refusal is the answer of a node code the server decides itself (a
// route's own lookup): the status of the code's class.
func refusal(code node.Code, msg string) *httpError {
	st, _ := statusOf(code.Class())
	return &httpError{Status: st, Code: string(code), Message: msg}
}

// errorOf turns an act's error into an error answer: an *httpError as it
// is; any other error with the status of its class (classOf) and the code
// of the node's vocabulary it carries (node.CodeOf), or, when it carries
// none (a ledger read, a transport failure), the API's code of its class.
func errorOf(err error) *httpError {
	var ae *httpError
	if errors.As(err, &ae) {
		return ae
	}
	class := classOf(err)
	st, _ := statusOf(class)
	code := string(node.CodeOf(err))
	if code == "" {
		code = classCode(class)
	}
	return &httpError{Status: st, Code: code, Message: err.Error(), RetryAfter: int(node.RetryAfter(err) / time.Second)}
}

// classCode is the code of an answer whose error carries no code of the
// node's vocabulary: the API's own bad_request for invalid and not_started
// for unavailable, else the class's name (not_found, too_large and
// internal are the API's own codes too).
func classCode(class string) string {
	switch class {
	case ClassInvalid:
		return CodeBadRequest
	case ClassUnavailable:
		return string(node.CodeNotStarted)
	}
	return class
}
