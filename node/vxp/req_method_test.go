package vxp

import "testing"

// TestReqMethods: a known path with another method is method_not_allowed
// (405), an unknown path not_found (404), both in Parley's error body.
func TestReqMethods(t *testing.T) {
	w := newWorld(t)
	for _, c := range []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/requests", 405, "method_not_allowed"},
		{"DELETE", "/requests/req_x", 405, "method_not_allowed"},
		{"GET", "/proposals/p/accept", 405, "method_not_allowed"},
		{"PUT", "/relationships/r", 405, "method_not_allowed"},
		{"GET", "/requests/req_x/nothing", 404, "not_found"},
		{"GET", "/nothing", 404, "not_found"},
	} {
		mustStatus(t, c.method+" "+c.path, w.call(c.method, c.path, agentA, "", nil), c.status, c.code)
	}
}
