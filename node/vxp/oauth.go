package vxp

import "net/http"

// oauthRoutes serves the token endpoint, the device authorization and
// the issuer's keys.
func (s *Server) oauthRoutes(mux *http.ServeMux) {}
