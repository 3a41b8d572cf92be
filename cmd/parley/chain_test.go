package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleynet/parley/chain"
)

// syncBuffer is a bytes.Buffer safe for a command writing while a test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runChainCmd runs parley with args and stdin, returning stdout and the error.
func runChainCmd(t *testing.T, ctx context.Context, stdin string, stdout *syncBuffer, args ...string) error {
	t.Helper()
	root := newRootCmd()
	root.SetOut(stdout)
	root.SetErr(&syncBuffer{})
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

const settlementJSON = `{"domain":{"chainId":"1337","verifyingContract":"0x5FbDB2315678afecb367f032d93F642f64180aa3"},
"settlement":{"negotiationId":"6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b","poster":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
"worker":"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC","token":"0x0000000000000000000000000000000000000000",
"amount":"3000000000000000000","milestoneAmounts":["1000000000000000000","2000000000000000000"],"deadline":1790000000,
"termsHash":"0x1111111111111111111111111111111111111111111111111111111111111111",
"acceptedOfferHash":"0x2222222222222222222222222222222222222222222222222222222222222222","nonce":"340282366920938463463374607431768211455"}}`

func TestSettlementDigestCommand(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(file, []byte(settlementJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	d, s, err := chain.ParseSettlementInput([]byte(settlementJSON), nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := chain.SettlementDigest(d, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"settlement", "digest", file}, {"settlement", "digest", "-"}} {
		var out syncBuffer
		if err := runChainCmd(t, t.Context(), settlementJSON, &out, args...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		var got chain.DigestOutput
		if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
			t.Fatalf("%v: output is not JSON: %v\n%s", args, err, out.String())
		}
		if got.Digest != want.Digest || got.TypedData.PrimaryType != "Settlement" || got.TypedData.Domain.Name != "Parley" ||
			len(got.TypedData.Types["Settlement"]) != 10 || got.TypedData.Message.Nonce != "340282366920938463463374607431768211455" {
			t.Fatalf("%v: output %+v", args, got)
		}
	}
	// The domain can come from flags; it changes the digest.
	var out syncBuffer
	if err := runChainCmd(t, t.Context(), "", &out, "settlement", "digest", "--digest-only", "--chain-id", "1", "--verifying-contract", "0x5FbDB2315678afecb367f032d93F642f64180aa3", file); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); !strings.HasPrefix(got, "0x") || len(got) != 66 || got == want.Digest {
		t.Fatalf("digest with --chain-id 1: %q", got)
	}
}

func TestSettlementDigestCommandRejects(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		args     []string
		code     string
	}{
		{"bad address", strings.Replace(settlementJSON, "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "0x70997970c51812dc3a010c7d01b50e0d17dc79c8", 1), nil, "bad_address"},
		{"unknown field", strings.Replace(settlementJSON, `"nonce"`, `"tip":"1","nonce"`, 1), nil, "unknown_field"},
		{"not json", "{", nil, "malformed_json"},
		{"half a domain flag", settlementJSON, []string{"--chain-id", "1"}, "schema_invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out syncBuffer
			args := append([]string{"settlement", "digest"}, tc.args...)
			err := runChainCmd(t, t.Context(), tc.in, &out, append(args, "-")...)
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != 1 {
				t.Fatalf("exit %v, want status 1", err)
			}
			if got := strings.TrimSpace(out.String()); got != tc.code {
				t.Fatalf("printed %q, want %q", got, tc.code)
			}
		})
	}
}

func TestDevchainCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out syncBuffer
	done := make(chan error, 1)
	dir := filepath.Join(t.TempDir(), "devchain")
	go func() {
		done <- runChainCmd(t, ctx, "", &out, "devchain", "--data-dir", dir, "--http-port", "0", "--json")
	}()
	var info devchainInfo
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if line, _, ok := strings.Cut(out.String(), "\n"); ok {
			if err := json.Unmarshal([]byte(line), &info); err != nil {
				t.Fatalf("not JSON: %v: %q", err, line)
			}
			break
		}
		select {
		case err := <-done:
			t.Fatalf("devchain exited: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("devchain printed nothing")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.HasPrefix(info.RPCURL, "http://127.0.0.1:") || info.ChainID != "1337" || len(info.Accounts) != 4 ||
		info.Contracts.TaskRegistry == ([20]byte{}) || !strings.HasPrefix(info.Accounts[0].PrivateKey, "0x") {
		t.Fatalf("devchain info %+v", info)
	}
	b, err := chain.DialRPC(t.Context(), info.RPCURL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := chain.CheckDeployed(t.Context(), b, info.Contracts); err != nil {
		t.Fatal(err)
	}
	// Ctrl-C: the command stops cleanly.
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("devchain stopped with %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("devchain did not stop")
	}
	if _, err := os.Stat(filepath.Join(dir, "parley-devchain.json")); err != nil {
		t.Fatalf("no contract record in the data dir: %v", err)
	}
}
