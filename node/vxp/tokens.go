package vxp

import (
	"net/http"

	pure "github.com/parleynet/parley/vxp"
)

// authState is the issuer's state: its key, the DPoP nonces, the replay
// caches, the client documents and the device codes.
type authState struct{}

// newAuthState opens the issuer's key in s's data directory.
func newAuthState(s *Server) (*authState, error) { return &authState{}, nil }

// authenticate checks a resource call's DPoP-bound access token and
// returns its caller.
func (s *Server) authenticate(r *http.Request) (*Caller, error) {
	if s.authHook != nil {
		return s.authHook(r)
	}
	return nil, &pure.Error{Code: pure.CodeInvalidToken, Msg: "not built yet"}
}
