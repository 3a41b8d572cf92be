package negotiation

import (
	"strings"
	"testing"
)

// Tests of guards no other test would miss: each fails when its guard is
// turned into a no-op.

// fundedTranscript returns a transcript harness with a thread the poster proposed,
// both accepted and the chain funded.
func fundedTranscript(t *testing.T) *transcript {
	t.Helper()
	tr := newTranscript(t)
	for _, cmd := range []string{
		"thread",
		"send poster propose ms=100,100 as=P1",
		"send worker accept offer=P1 as=WA",
		"send poster accept offer=P1 as=PA",
		"fact funded",
	} {
		mustRun(t, tr, cmd, "ok")
	}
	return tr
}

// mustRun runs cmd and fails unless its first line names the result want.
func mustRun(t *testing.T, tr *transcript, cmd, want string) []string {
	t.Helper()
	out := tr.run(cmd)
	if len(out) == 0 || !strings.Contains(out[0], "-> "+want+" ") && !strings.HasPrefix(out[0], "state ") {
		t.Fatalf("%s: %v, want %s", cmd, out, want)
	}
	return out
}

// impersonated runs cmd with who's EIP-712 signatures made by the key of
// signer instead (the envelope is still who's, signed with who's inbox
// key), and returns its output.
func impersonated(tr *transcript, who, signer, cmd string) []string {
	p := tr.parties[who]
	saved := p.evm
	p.evm = tr.parties[signer].evm
	defer func() { p.evm = saved }()
	return tr.run(cmd)
}

// TestEVMSignerChecked: every EIP-712 signature an envelope carries must
// be its sender's (checkSigner): an acceptance, and after funding a
// cancel, an amendment and a replacement, signed over the right digest
// by another key, are refused with signer_mismatch and take no effect;
// the same envelope signed by the sender takes effect.
func TestEVMSignerChecked(t *testing.T) {
	t.Run("acceptance", func(t *testing.T) {
		tr := newTranscript(t)
		mustRun(t, tr, "thread", "")
		mustRun(t, tr, "send poster propose ms=100 as=P1", "ok")
		mustRun(t, tr, "send worker accept offer=P1 signer=stranger", "signer_mismatch")
		if a := tr.th.accepts[tr.parties["worker"].addr]; a != nil {
			t.Fatalf("the refused acceptance counts: %+v", a)
		}
		mustRun(t, tr, "send worker accept offer=P1 as=WA", "ok")
		out := mustRun(t, tr, "send poster accept offer=P1 as=PA", "ok")
		if tr.th.Agreement() == nil {
			t.Fatalf("no agreement from two genuine acceptances: %v", out)
		}
	})
	cases := []struct{ verb, kind string }{
		{"cancel nonce=1", "MutualCancel"},
		{"amend ms=100,150 nonce=1", "MilestoneDefinition"},
		{"replace new=newworker nonce=1", "ReplacementContext"},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			tr := fundedTranscript(t)
			for _, who := range []string{"worker", "poster"} {
				out := impersonated(tr, who, "stranger", "send "+who+" "+tc.verb)
				if len(out) != 1 || !strings.Contains(out[0], tc.kind+" -> signer_mismatch (kept)") {
					t.Fatalf("%s's %s signed by another key: %v", who, tc.kind, out)
				}
			}
			// At one time: an amendment's deadline follows its envelope's.
			mustRun(t, tr, "send worker "+tc.verb+" at=+1h", "ok")
			out := mustRun(t, tr, "send poster "+tc.verb+" at=+1h", "ok")
			if len(out) != 2 || !strings.HasPrefix(out[1], "cosigned "+tc.kind) {
				t.Fatalf("the genuine pair: %v", out)
			}
		})
	}
}

// TestAgreedArbitratorNeedsTheSameAddress: the arbitrator is agreed only
// when both parties named the same address; two different nominees, or
// one party's alone, agree on nobody.
func TestAgreedArbitratorNeedsTheSameAddress(t *testing.T) {
	tr := fundedTranscript(t)
	mustRun(t, tr, "fact dispute id=1", "ok")
	if a, ok := tr.th.AgreedArbitrator(); ok {
		t.Fatalf("agreed on %s before any proposal", a)
	}
	mustRun(t, tr, "send poster nominate arbitrator=arbitrator", "ok")
	if a, ok := tr.th.AgreedArbitrator(); ok {
		t.Fatalf("the poster's nominee alone is agreed: %s", a)
	}
	mustRun(t, tr, "send worker nominate arbitrator=stranger", "ok")
	if a, ok := tr.th.AgreedArbitrator(); ok {
		t.Fatalf("two different nominees agree on %s", a)
	}
	mustRun(t, tr, "send worker nominate arbitrator=arbitrator", "ok")
	if a, ok := tr.th.AgreedArbitrator(); !ok || a != tr.parties["arbitrator"].addr {
		t.Fatalf("both named the arbitrator: AgreedArbitrator = %s, %v", a, ok)
	}
}
