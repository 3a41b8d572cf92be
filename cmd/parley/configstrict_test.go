package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/node/mcp"
	"github.com/parleynet/parley/strictjson"
)

// TestConfigFileStrict: the YAML configuration file is read as strictly as
// every JSON the node reads, with the same codes (issue 12, section 5).
// YAML itself takes the first of several documents, lets escapes spell
// NUL, control and bidi characters, resolves anchors and !!binary, and
// the loader took api.listen and api: {listen} as two keys.
func TestConfigFileStrict(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body string
		code       strictjson.Code
		says       string
	}{
		{"duplicate key", "name: a\nname: b\n", strictjson.CodeDuplicateKey, "name is given twice"},
		{"duplicate nested key", "api:\n  listen: 127.0.0.1:1\n  listen: 127.0.0.1:2\n", strictjson.CodeDuplicateKey, "api.listen"},
		{"duplicate map", "api:\n  listen: 127.0.0.1:1\napi:\n  max_body: 1KiB\n", strictjson.CodeDuplicateKey, "api is given twice"},
		{"one key in two spellings", "api:\n  listen: 127.0.0.1:1\napi.listen: 127.0.0.1:2\n", strictjson.CodeDuplicateKey, "api.listen is given twice"},
		{"unknown key", "chain:\n  rcp: http://x\n", strictjson.CodeUnknownField, "unknown key chain.rcp"},
		{"key in another case", "API:\n  listen: 127.0.0.1:1\n", strictjson.CodeUnknownField, "unknown key API"},
		{"nested key in another case", "api:\n  Listen: 127.0.0.1:1\n", strictjson.CodeUnknownField, "unknown key api.Listen"},
		{"invalid UTF-8", "name: caf\xe9\n", strictjson.CodeMalformedJSON, "UTF-8"},
		{"invalid UTF-8 quoted", "name: \"caf\xe9\"\n", strictjson.CodeMalformedJSON, "UTF-8"},
		{"lone surrogate escape", "name: \"\\ud800\"\n", strictjson.CodeMalformedJSON, "c.yaml"},
		{"NUL escape", "name: \"a\\x00b\"\n", strictjson.CodeMalformedJSON, "U+0000"},
		{"bidi override", "name: \"\\u202eevil\"\n", strictjson.CodeMalformedJSON, "U+202E"},
		{"second document", "name: a\n---\nname: b\n", strictjson.CodeMalformedJSON, "more than one YAML document"},
		{"alias", "name: &n a\nlog:\n  level: *n\n", strictjson.CodeMalformedJSON, "aliases"},
		{"merge key", "base: &b\n  level: info\nlog:\n  <<: *b\n", strictjson.CodeMalformedJSON, "c.yaml"},
		{"binary tag", "name: !!binary aGk=\n", strictjson.CodeMalformedJSON, "!!binary"},
		{"list for a value", "name:\n  - a\n", strictjson.CodeSchemaInvalid, "must be a single value"},
		{"value for a list", "p2p:\n  listen: /ip4/127.0.0.1/tcp/1\n", strictjson.CodeSchemaInvalid, "must be a list"},
		{"not a map", "- a\n", strictjson.CodeSchemaInvalid, "must be a map"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "c.yaml")
			if err := os.WriteFile(f, []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := loadSettings(flagsWith(t), envOf(map[string]string{"PARLEY_DATA_DIR": dir, "PARLEY_CONFIG": f}))
			if err == nil {
				t.Fatal("accepted")
			}
			if got := strictjson.CodeOf(err); got != tc.code || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "c.yaml") {
				t.Fatalf("%v (code %q), want %s saying %q and naming the file", err, got, tc.code, tc.says)
			}
		})
	}
	// The example files stay valid (TestConfigExamples loads them all).
}

// TestConfigMCPSessions: mcp.max_sessions and mcp.session_idle reach the
// settings, with defaults, and out-of-range values are refused naming
// their key.
func TestConfigMCPSessions(t *testing.T) {
	dir := t.TempDir()
	s, err := loadSettings(flagsWith(t), envOf(map[string]string{"PARLEY_DATA_DIR": dir}))
	if err != nil {
		t.Fatal(err)
	}
	if s.MCPMaxSessions != mcp.DefaultMaxSessions || s.MCPSessionIdle != mcp.DefaultSessionTimeout {
		t.Fatalf("defaults %d %s", s.MCPMaxSessions, s.MCPSessionIdle)
	}
	s, err = loadSettings(flagsWith(t, "mcp-max-sessions", "8"), envOf(map[string]string{"PARLEY_DATA_DIR": dir, "PARLEY_MCP_SESSION_IDLE": "90s"}))
	if err != nil || s.MCPMaxSessions != 8 || s.MCPSessionIdle != 90*time.Second {
		t.Fatalf("%d %s %v", s.MCPMaxSessions, s.MCPSessionIdle, err)
	}
	for _, kv := range [][2]string{{"PARLEY_MCP_MAX_SESSIONS", "0"}, {"PARLEY_MCP_SESSION_IDLE", "1s"}, {"PARLEY_MCP_SESSION_IDLE", "48h"}} {
		_, err := loadSettings(flagsWith(t), envOf(map[string]string{"PARLEY_DATA_DIR": dir, kv[0]: kv[1]}))
		if err == nil || !strings.Contains(err.Error(), strings.ToLower(strings.Replace(strings.TrimPrefix(kv[0], "PARLEY_"), "_", ".", 1))) {
			t.Errorf("%s=%s: %v", kv[0], kv[1], err)
		}
	}
}
