package vxp

import "context"

// manager owns each request's act: it runs it, reads its effect back and
// holds it in pending_verification while that is unknown.
type manager struct{ s *Server }

func newManager(s *Server) (*manager, error) { return &manager{s: s}, nil }

// resume picks up the requests left open at the last stop.
func (m *manager) resume(ctx context.Context) error { return nil }
