package node_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/merkle/testonly"

	"github.com/parleynet/parley/ledger"
	"github.com/parleynet/parley/negotiation"
)

// checkScript is the independent checker of scripts/.
const checkScript = "../scripts/check-bundle.mjs"

// runCheckScript runs scripts/check-bundle.mjs on args and returns its
// output and whether it exited 0; it skips the test when Node.js is not
// installed.
func runCheckScript(t *testing.T, args ...string) (string, bool) {
	t.Helper()
	bin, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node (Node.js) is not installed")
	}
	out, err := exec.CommandContext(t.Context(), bin, append([]string{checkScript}, args...)...).CombinedOutput()
	var ee *exec.ExitError
	if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) {
		t.Fatalf("check-bundle.mjs %v: %v\n%s", args, err, out)
	}
	return string(out), err == nil
}

// TestCheckScriptSelfTest runs the script's RFC 6962 test vectors.
func TestCheckScriptSelfTest(t *testing.T) {
	out, ok := runCheckScript(t, "--self-test")
	if !ok || !strings.HasPrefix(out, "ok self-test: 10 RFC 6962 proofs") {
		t.Fatalf("self-test: %s", out)
	}
}

// tinyBundle is a hand-built parley-proof-bundle/2 of three entries (seqs
// 2, 5, 7) of a seven-entry tree, with proofs from transparency-dev's
// reference tree (testonly) and an anchor at size 3; the Go side of each
// proof is checked with ledger.VerifyInclusion and ledger.VerifyConsistency.
func tinyBundle(t *testing.T) map[string]any {
	t.Helper()
	tree := testonly.New(rfc6962.DefaultHasher)
	entries := make([]map[string]any, 7)
	for i := range entries {
		e := map[string]any{"seq": i + 1, "kind": "chain.event", "at": "2026-06-13T12:00:00.000Z", "body": map[string]any{"i": i, "note": "é €😀", "z": []any{true, nil}}}
		if i%3 == 1 {
			e["negotiationId"] = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"
		}
		entries[i] = e
		tree.AppendData(jcsOf(t, e))
	}
	hx := func(hs [][]byte) []any {
		out := []any{}
		for _, h := range hs {
			out = append(out, "0x"+hex.EncodeToString(h))
		}
		return out
	}
	root := tree.HashAt(7)
	var items []any
	for _, seq := range []uint64{2, 5, 7} {
		p, err := tree.InclusionProof(seq-1, 7)
		if err != nil {
			t.Fatal(err)
		}
		if err := ledger.VerifyInclusion(jcsOf(t, entries[seq-1]), seq, 7, to32s(p), [32]byte(root)); err != nil {
			t.Fatalf("the Go verifier refuses the reference tree's proof of %d: %v", seq, err)
		}
		items = append(items, map[string]any{"seq": seq, "entry": entries[seq-1], "proof": hx(p)})
	}
	cp, err := tree.ConsistencyProof(3, 7)
	if err != nil {
		t.Fatal(err)
	}
	if err := ledger.VerifyConsistency(3, 7, to32s(cp), [32]byte(tree.HashAt(3)), [32]byte(root)); err != nil {
		t.Fatal(err)
	}
	return map[string]any{
		"format": "parley-proof-bundle/2", "negotiationId": "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b",
		"treeHead": map[string]any{"size": 7, "root": "0x" + hex.EncodeToString(root), "time": "2026-06-13T12:00:01.000Z", "signer": "0x" + strings.Repeat("ab", 32), "signature": "0x" + strings.Repeat("cd", 64)},
		"entries":  items, "objects": []any{}, "pruned": []any{},
		"anchor": map[string]any{"size": 3, "root": "0x" + hex.EncodeToString(tree.HashAt(3)), "consistency": hx(cp),
			"address": "0x" + strings.Repeat("11", 20), "contract": "0x" + strings.Repeat("22", 20), "chainId": 31337, "blockNumber": 9, "txHash": "0x" + strings.Repeat("33", 32)},
	}
}

func jcsOf(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	c, err := negotiation.Canonicalize(b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func to32s(hs [][]byte) [][32]byte {
	out := make([][32]byte, len(hs))
	for i, h := range hs {
		out[i] = [32]byte(h)
	}
	return out
}

func writeJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "bundle.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCheckScriptTinyBundle: the script accepts the hand-built bundle
// (reformatted: its entries are not in JCS member order in the file) and
// names the first failure of each tampered copy.
func TestCheckScriptTinyBundle(t *testing.T) {
	if out, ok := runCheckScript(t, writeJSON(t, tinyBundle(t))); !ok || !strings.HasPrefix(out, "ok 3 entries") || !strings.Contains(out, "anchor at size 3 consistent") {
		t.Fatalf("the tiny bundle: %s", out)
	}
	item := func(b map[string]any, i int) map[string]any { return b["entries"].([]any)[i].(map[string]any) }
	for _, tc := range []struct {
		name, want string
		tamper     func(b map[string]any)
	}{
		{"a changed entry", "FAIL bad_inclusion: entry 5", func(b map[string]any) {
			item(b, 1)["entry"].(map[string]any)["body"].(map[string]any)["i"] = 40
		}},
		{"a changed proof hash", "FAIL bad_inclusion: entry 2", func(b map[string]any) {
			item(b, 0)["proof"].([]any)[0] = "0x" + strings.Repeat("00", 32)
		}},
		{"a proof moved to another seq", "FAIL seq_mismatch", func(b map[string]any) { item(b, 0)["seq"] = 3 }},
		{"reordered entries", "FAIL out_of_order: entries[2]", func(b map[string]any) {
			es := b["entries"].([]any)
			es[1], es[2] = es[2], es[1]
		}},
		{"another root", "FAIL bad_inclusion: entry 2", func(b map[string]any) {
			b["treeHead"].(map[string]any)["root"] = "0x" + strings.Repeat("00", 32)
		}},
		{"a rewritten anchored tree", "FAIL inconsistent", func(b map[string]any) {
			b["anchor"].(map[string]any)["root"] = "0x" + strings.Repeat("00", 32)
		}},
		{"a consistency proof cut short", "FAIL inconsistent", func(b map[string]any) {
			a := b["anchor"].(map[string]any)
			a["consistency"] = a["consistency"].([]any)[1:]
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tinyBundle(t)
			tc.tamper(b)
			if out, ok := runCheckScript(t, writeJSON(t, b)); ok || !strings.HasPrefix(out, tc.want) {
				t.Fatalf("got %q, want %q", out, tc.want)
			}
		})
	}
}

// goldenV2 returns the paths of the version-2 golden bundles in
// ledger/testdata.
func goldenV2(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob("../ledger/testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(`"format":"parley-proof-bundle/2"`)) || bytes.Contains(b, []byte(`"format": "parley-proof-bundle/2"`)) {
			out = append(out, p)
		}
	}
	return out
}

// TestCheckScriptAgreesOnGoldenBundles runs the script on every
// version-2 golden bundle of ledger/testdata and on a tampered copy of
// each (one entry's time changed, its inclusion proof left): the script
// and the Go verifier (ledger.VerifyBundle) accept the first and refuse
// the second, both with bad_inclusion.
func TestCheckScriptAgreesOnGoldenBundles(t *testing.T) {
	paths := goldenV2(t)
	if len(paths) == 0 {
		t.Skip("no version-2 golden bundle in ledger/testdata yet")
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out, ok := runCheckScript(t, p)
			_, goErr := ledger.VerifyBundle(bytes.NewReader(raw), ledger.BundleOptions{})
			if !ok || goErr != nil {
				t.Fatalf("the golden bundle: script %q, Go %v", out, goErr)
			}
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			var b map[string]any
			if err := dec.Decode(&b); err != nil {
				t.Fatal(err)
			}
			e := b["entries"].([]any)[0].(map[string]any)["entry"].(map[string]any)
			e["at"] = "2000-01-01T00:00:00.000Z"
			tampered := writeJSON(t, b)
			out, ok = runCheckScript(t, tampered)
			tb, _ := os.ReadFile(tampered)
			_, goErr = ledger.VerifyBundle(bytes.NewReader(tb), ledger.BundleOptions{})
			if ok || !strings.HasPrefix(out, "FAIL bad_inclusion") || ledger.CodeOf(goErr) != "bad_inclusion" {
				t.Fatalf("the tampered copy: script %q, Go %v", out, goErr)
			}
		})
	}
}
