package negotiation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTranscriptsCoverProtocol checks that the golden transcripts exercise
// every message type and every thread-level rejection code, so the
// transcripts stay a complete account of the state machine.
func TestTranscriptsCoverProtocol(t *testing.T) {
	files, _ := filepath.Glob("testdata/transcripts/*.txt")
	var all strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	text := all.String()
	for _, typ := range MessageTypes {
		if !strings.Contains(text, " "+string(typ)+" -> ok") {
			t.Errorf("no transcript shows an effective %s", typ)
		}
	}
	for _, c := range []Code{
		CodeNotAddressed, CodeSequenceGap, CodePreviousHashMismatch, CodeEquivocation, CodeClockSkew,
		CodeTimestampRegression, CodeMissingReference, CodeDuplicate,
		CodeRoleForbidden, CodeStateForbidden, CodeOfferExpired, CodeTermsChanged, CodeRevisionLimit,
		CodeAcceptAttemptsExhausted, CodeDigestMismatch, CodeSignerMismatch, CodeBoundByAcceptance,
		CodeTaskMismatch, CodeBadReference, CodeMilestoneInvalid,
		CodeAgreeWithCounter, CodeAgreeWithConflict, CodeDependsOnDisputed, CodeClaimRestated,
	} {
		if !strings.Contains(text, "-> "+string(c)+" ") {
			t.Errorf("no transcript produces %s", c)
		}
	}
}
