package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/approval"
)

var approveRE = regexp.MustCompile(`(req_[0-9a-f]{32})`)

// waitingRequest runs parley with args in the background until its
// stderr names a request id to approve; it returns the id and a function
// that waits for the command's error and output.
func waitingRequest(t *testing.T, args ...string) (string, func() (string, error)) {
	t.Helper()
	var out, errb syncBuffer
	done := make(chan error, 1)
	go func() { done <- runCLI(t.Context(), &out, &errb, args...) }()
	var id string
	eventually(t, "a request to approve", func() bool {
		if m := approveRE.FindStringSubmatch(errb.String()); m != nil {
			id = m[1]
			return true
		}
		select {
		case err := <-done:
			t.Fatalf("parley %s returned %v before asking:\n%s\n%s", strings.Join(args, " "), err, out.String(), errb.String())
		default:
		}
		return false
	})
	return id, func() (string, error) {
		select {
		case err := <-done:
			return out.String(), err
		case <-time.After(60 * time.Second):
			t.Fatalf("parley %s did not finish", strings.Join(args, " "))
			return "", nil
		}
	}
}

func refOf(t *testing.T, keyFile string) string {
	t.Helper()
	k, err := loadSoftwareKey(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	return approval.CredentialRef(k.CredentialID())
}

// TestPasskeysCommands: approvals passkeys list shows every credential;
// passkeys revoke of one while another exists waits for the other's
// approval (printed with how to give it) and revokes it, after which it
// approves nothing; the last one is revoked only with a token made in the
// node's own data directory (one made in another directory is refused).
// The software key file says it is a credential.
func TestPasskeysCommands(t *testing.T) {
	t.Setenv("PARLEY_DATA_DIR", t.TempDir()) // not the node's: a default never reaches it
	n := startAPINode(t, "principal", nil)
	P := n.conn()
	dir := t.TempDir()
	aFile, bFile := filepath.Join(dir, "a.key"), filepath.Join(dir, "b.key")
	ok(t, with(P, "approvals", "software-key", "new", "--out", aFile, "--label", "laptop", "--data-dir", n.dir)...)
	var saved map[string]json.RawMessage
	if b, err := os.ReadFile(aFile); err != nil || json.Unmarshal(b, &saved) != nil || !strings.Contains(string(saved["warning"]), "credential") {
		t.Fatalf("the key file does not say it is a credential: %v", err)
	}
	req, finish := waitingRequest(t, with(P, "approvals", "software-key", "new", "--out", bFile, "--label", "phone", "--wait", "1m")...)
	ok(t, with(P, "approvals", "approve", req, "--software-key", aFile)...)
	if _, err := finish(); err != nil {
		t.Fatal(err)
	}
	refA, refB := refOf(t, aFile), refOf(t, bFile)
	out := ok(t, with(P, "approvals", "passkeys", "list")...)
	if strings.Count(out, "in use") != 2 || !strings.Contains(out, refA) || !strings.Contains(out, refB) {
		t.Fatalf("passkeys list:\n%s", out)
	}

	req, finish = waitingRequest(t, with(P, "approvals", "passkeys", "revoke", refA)...)
	// The node does not offer the passkey revoked, and refuses its
	// assertion.
	if r := cli(t, with(P, "approvals", "approve", req, "--software-key", aFile)...); r.e == nil {
		t.Fatal("the passkey approved its own revocation")
	}
	ok(t, with(P, "approvals", "approve", req, "--software-key", bFile)...)
	if out, err := finish(); err != nil || !strings.Contains(out, "revoked "+refA) {
		t.Fatalf("passkeys revoke: %v\n%s", err, out)
	}
	if out := ok(t, with(P, "approvals", "passkeys", "list")...); !strings.Contains(out, "revoked 20") || strings.Count(out, "in use") != 1 {
		t.Fatalf("passkeys list after the revocation:\n%s", out)
	}
	if r := cli(t, with(P, "approvals", "passkeys", "revoke", refA)...); exitCode(r.e) != exitRefused {
		t.Fatalf("revoking twice: %v", r.e)
	}

	// The last one: the token must come from the node's own data
	// directory.
	if r := cli(t, with(P, "approvals", "passkeys", "revoke", refB)...); exitCode(r.e) != exitRefused || !strings.Contains(r.e.Error(), "token_invalid") {
		t.Fatalf("revoking the last passkey with a token of another directory: %v\n%s", r.e, r.err)
	}
	if out := ok(t, with(P, "approvals", "passkeys", "revoke", refB, "--data-dir", n.dir)...); !strings.Contains(out, "revoked "+refB) {
		t.Fatalf("revoking the last passkey: %s", out)
	}
}
