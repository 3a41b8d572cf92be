package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleynet/parley/node/mcp"
)

var mcpLineRe = regexp.MustCompile(`(?m)^  mcp (http://127\.0\.0\.1:\d+/mcp) \(`)

// keyed adds the agent key to every request.
type keyed struct{ key string }

func (k keyed) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+k.key)
	return http.DefaultTransport.RoundTrip(r)
}

// checkMCPServed finds the MCP endpoint in node run's startup lines and
// checks it with the MCP Go SDK's client: no session opens without the
// agent key (the API's bearer key) or a seat link; with the key the tools
// are listed and create_room works.
func checkMCPServed(t *testing.T, out string, key []byte) {
	t.Helper()
	m := mcpLineRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no mcp line in:\n%s", out)
	}
	connect := func(hc *http.Client) (*sdk.ClientSession, error) {
		c := sdk.NewClient(&sdk.Implementation{Name: "node-run-test", Version: "1"}, nil)
		cs, err := c.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: m[1], HTTPClient: hc, DisableStandaloneSSE: true}, nil)
		if err == nil {
			t.Cleanup(func() { _ = cs.Close() })
		}
		return cs, err
	}
	if _, err := connect(http.DefaultClient); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Fatalf("a session without the key: %v, want it refused", err)
	}
	signed, err := connect(&http.Client{Transport: keyed{string(key)}})
	if err != nil {
		t.Fatal(err)
	}
	tools, err := signed.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 37 { // 14, the three timeout exits, the nine task tools, veto, the four of revisions, payments and capabilities, and the six of the chain's registries and a contract arbitrator
		t.Fatalf("tools/list: %v, %v", tools, err)
	}
	args := map[string]any{"topic": "t", "your_principal": "P", "counterpart": "0x2222222222222222222222222222222222222222"}
	res, err := signed.CallTool(t.Context(), &sdk.CallToolParams{Name: mcp.ToolCreateRoom, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("create_room with the API's key: %+v, %v", res, err)
	}
}
