package node_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/parleynet/parley/approval"
	"github.com/parleynet/parley/node"
)

// TestEnrolTokenFromDataDir: the first passkey's token is made in the
// data directory while the node runs (the Badger store it holds locked is
// not touched) and read from its 0600 file; the registration redeems it
// once, durably: its text file goes, and after a restart the same token
// is token_used. A token made meanwhile replaces an earlier one, which
// then enrols nothing.
func TestEnrolTokenFromDataDir(t *testing.T) {
	w := newWorld(t, false)
	n := w.add("principal", withPasskeys())
	ctx := t.Context()
	old, err := node.IssueEnrolToken(ctx, n.dir, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	token, err := node.IssueEnrolToken(ctx, n.dir, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(n.dir, node.EnrolTokenFileName)
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the token's file: %v %v", fi, err)
	}
	if got, _, err := node.EnrolTokenOf(n.dir, time.Now()); err != nil || got != token {
		t.Fatalf("the data directory's token: %q %v", got, err)
	}
	if _, _, err := n.BeginPasskey(ctx, old, "laptop"); node.CodeOf(err) != node.Code(approval.CodeTokenInvalid) {
		t.Fatalf("a replaced token: %v", err)
	}
	register(t, n, node.PasskeyOptions{Token: token, Label: "first", Software: true})
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the redeemed token's file is still there: %v", err)
	}
	n.restart()
	creds, err := n.Passkeys(ctx)
	if err != nil || len(creds) != 1 {
		t.Fatalf("passkeys after the restart: %+v %v", creds, err)
	}
	if got, _, err := node.EnrolTokenOf(n.dir, time.Now()); err != nil || got != "" {
		t.Fatalf("the redeemed token is offered after a restart: %q %v", got, err)
	}
	if _, _, err := n.BeginPasskey(ctx, token, "again"); node.CodeOf(err) != node.Code(approval.CodeNotAuthorized) {
		t.Fatalf("the token after the first passkey, after a restart: %v", err)
	}
}
