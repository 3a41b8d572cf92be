package schemas

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestValidateEnvelopeMatchesSchema: the looked-up payload dispatch gives the
// same verdict and code as the envelope schema's own if/then dispatch, for
// every fixture.
func TestValidateEnvelopeMatchesSchema(t *testing.T) {
	set, err := Compiled()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("fixtures/valid/*.json")
	inv, _ := filepath.Glob("fixtures/invalid/*.json")
	files = append(files, inv...)
	if len(files) < 50 {
		t.Fatalf("only %d fixtures", len(files))
	}
	compared := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			continue // not JSON: never reaches a schema
		}
		whole := set.Validate(Envelope, v)
		split := set.ValidateEnvelope(v)
		if (whole == nil) != (split == nil) {
			t.Errorf("%s: schema says %v, dispatch says %v", f, whole, split)
			continue
		}
		if whole != nil {
			var a, b *Error
			if !errors.As(whole, &a) || !errors.As(split, &b) || a.Code != b.Code {
				t.Errorf("%s: schema code %v, dispatch code %v", f, whole, split)
			}
		}
		compared++
	}
	t.Logf("%d fixtures compared", compared)
}
