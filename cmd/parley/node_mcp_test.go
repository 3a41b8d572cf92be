package main

import (
	"net/http"
	"regexp"
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
// checks it with the MCP Go SDK's client: the tools are listed, and
// create_room is refused without the agent key (the API's bearer key)
// and not with it.
func checkMCPServed(t *testing.T, out string, key []byte) {
	t.Helper()
	m := mcpLineRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no mcp line in:\n%s", out)
	}
	connect := func(hc *http.Client) *sdk.ClientSession {
		c := sdk.NewClient(&sdk.Implementation{Name: "node-run-test", Version: "1"}, nil)
		cs, err := c.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: m[1], HTTPClient: hc, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	anon := connect(http.DefaultClient)
	tools, err := anon.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 14 {
		t.Fatalf("tools/list: %v, %v", tools, err)
	}
	args := map[string]any{"topic": "t", "your_principal": "P", "counterpart": "0x2222222222222222222222222222222222222222"}
	res, err := anon.CallTool(t.Context(), &sdk.CallToolParams{Name: mcp.ToolCreateRoom, Arguments: args})
	if err != nil || !res.IsError || res.Content[0].(*sdk.TextContent).Text != mcp.SignInRequired {
		t.Fatalf("create_room without the key: %+v, %v", res, err)
	}
	signed := connect(&http.Client{Transport: keyed{string(key)}})
	res, err = signed.CallTool(t.Context(), &sdk.CallToolParams{Name: mcp.ToolCreateRoom, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("create_room with the API's key: %+v, %v", res, err)
	}
}
