package vxp

import "net/http"

// resourceRoutes serves the native endpoints under <issuer>/v1.
func (s *Server) resourceRoutes(mux *http.ServeMux) {}
