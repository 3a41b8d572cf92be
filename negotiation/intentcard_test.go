package negotiation

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/schemas"
)

const cardFixtures = "../schemas/fixtures/intent-card"

func readCard(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(cardFixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustCard(t testing.TB, b []byte) *IntentCard {
	t.Helper()
	c, err := ParseIntentCard(b)
	if err != nil {
		t.Fatalf("parse card: %v", err)
	}
	return c
}

// TestIntentCardFixtures parses every card fixture: the valid ones (two in
// the reference implementation's plain-string form) parse; each invalid one
// fails with the code its name gives. ajv-check.mjs judges the same files.
func TestIntentCardFixtures(t *testing.T) {
	valid, _ := filepath.Glob(filepath.Join(cardFixtures, "valid", "*.json"))
	invalid, _ := filepath.Glob(filepath.Join(cardFixtures, "invalid", "*.json"))
	if len(valid) < 3 || len(invalid) < 10 {
		t.Fatalf("%d valid and %d invalid card fixtures", len(valid), len(invalid))
	}
	for _, f := range valid {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, _ := os.ReadFile(f)
			c, err := ParseIntentCard(b)
			if err != nil {
				t.Fatal(err)
			}
			canon, _ := Canonicalize(b)
			if c.Seal() != sha256.Sum256(canon) || !bytes.Equal(c.Bytes(), canon) {
				t.Fatal("intentCardHash is not SHA-256(JCS(card))")
			}
		})
	}
	for _, f := range invalid {
		name := filepath.Base(f)
		want := Code(strings.SplitN(name, "--", 2)[0])
		t.Run(name, func(t *testing.T) {
			b, _ := os.ReadFile(f)
			_, err := ParseIntentCard(b)
			if got := CodeOf(err); got != want {
				t.Fatalf("code %q, want %q (%v)", got, want, err)
			}
		})
	}
}

// TestReferenceCardShape checks the reference card's plain strings decode
// as clauses without rules and its empty role survives.
func TestReferenceCardShape(t *testing.T) {
	c := mustCard(t, readCard(t, "valid/reference-v0.json"))
	if c.Principal.Name != "Dana Okafor" || c.Principal.Role != "" || len(c.MustHaves) != 2 || c.MustHaves[1].Text != "Delivery before 1 July" {
		t.Fatalf("%+v", c)
	}
	for _, l := range c.clauseLists() {
		for _, cl := range *l.list {
			if cl.Compiled() != nil {
				t.Fatalf("%s: a plain-string clause has a rule", l.name)
			}
		}
	}
	if c.Public() != (PublicCard{Principal: "Dana Okafor", IntentCardHash: c.Seal()}) {
		t.Fatal("public card")
	}
	p := mustCard(t, readCard(t, "valid/parley-rules.json"))
	if p.MustNever[0].Compiled() == nil || !p.MustNever[0].Compiled().Reads(RuleVarTotal) || !p.MustNever[0].Compiled().Reads(RuleVarMilestones) {
		t.Fatal("rule not compiled or its variables not found")
	}
	if f, i, ok := p.Fact("page_count"); !ok || i != 1 || string(f.Value) != "40" {
		t.Fatalf("fact: %+v %d %v", f, i, ok)
	}
}

// TestCardSealIsCanonical: member order and whitespace do not change the
// hash; a changed clause does.
func TestCardSealIsCanonical(t *testing.T) {
	a := mustCard(t, []byte(`{"pxp":"0","principal":{"name":"A"},"goal":"g","must_never":["x"]}`))
	b := mustCard(t, []byte("{ \"must_never\": [ \"x\" ],\n \"goal\": \"g\", \"principal\": {\"name\": \"A\"}, \"pxp\": \"0\" }"))
	c := mustCard(t, []byte(`{"pxp":"0","principal":{"name":"A"},"goal":"g","must_never":["y"]}`))
	if a.Seal() != b.Seal() {
		t.Fatal("formatting changed the hash")
	}
	if a.Seal() == c.Seal() {
		t.Fatal("a different clause has the same hash")
	}
}

// TestCardRefusals covers what the schema cannot see.
func TestCardRefusals(t *testing.T) {
	big := `{"pxp":"0","principal":{"name":"A"},"goal":"` + strings.Repeat("g", MaxIntentCardBytes) + `"}`
	for _, tc := range []struct {
		name, card string
		want       Code
	}{
		{"too large", big, CodeTooLarge},
		{"fact key twice", `{"pxp":"0","principal":{"name":"A"},"goal":"g","known_facts":[{"text":"a","key":"k","value":1},{"text":"b","key":"k","value":2}]}`, CodeSchemaInvalid},
		{"blank name", `{"pxp":"0","principal":{"name":"  "},"goal":"g"}`, CodeSchemaInvalid},
		{"rule yields a uint256", `{"pxp":"0","principal":{"name":"A"},"goal":"g","must_never":[{"text":"x","rule":"total"}]}`, CodeRuleInvalid},
		{"rule compares uint256 with a double", `{"pxp":"0","principal":{"name":"A"},"goal":"g","must_never":[{"text":"x","rule":"total > 1.5"}]}`, CodeRuleInvalid},
		{"not json", `pxp`, CodeMalformedJSON},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseIntentCard([]byte(tc.card))
			if CodeOf(err) != tc.want {
				t.Fatalf("code %q, want %q: %v", CodeOf(err), tc.want, err)
			}
		})
	}
}

// TestWithAmendment seals an answer into a new card and leaves the old one.
func TestWithAmendment(t *testing.T) {
	c := mustCard(t, readCard(t, "valid/reference-v0.json"))
	before := bytes.Clone(c.Bytes())
	n, err := c.WithAmendment(CardAmendment{Question: "Accept 1.5 ETH?", Answer: "Yes.", At: FormatTime(t0), Via: ViaMCP})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c.Bytes(), before) || len(c.Amendments) != 0 {
		t.Fatal("the original card changed")
	}
	if n.Seal() == c.Seal() || len(n.Amendments) != 1 || n.Amendments[0].Via != ViaMCP {
		t.Fatalf("amended card: %+v", n.Amendments)
	}
	if again := mustCard(t, n.Bytes()); again.Seal() != n.Seal() {
		t.Fatal("the amended card does not re-parse to the same hash")
	}
	if txt, ok := n.Resolve("amendments[0]"); !ok || !strings.Contains(txt, "Accept 1.5 ETH?") {
		t.Fatalf("resolve: %q", txt)
	}
	if _, ok := n.Resolve("amendment[0]"); !ok {
		t.Fatal("the reference's singular amendment[i] does not resolve")
	}
	if _, err := c.WithAmendment(CardAmendment{Question: "q", Answer: "a", At: "now"}); CodeOf(err) != CodeBadTimestamp {
		t.Fatalf("bad time: %v", err)
	}
}

func TestClauseRefs(t *testing.T) {
	c := mustCard(t, readCard(t, "valid/parley-rules.json"))
	for ref, want := range map[string]bool{
		"goal": true, "principal": true, "must_haves[0]": true, "must_haves[2]": false, "known_facts[2]": true,
		"may_agree_to[1]": true, "must_never[01]": false, "must_never[-1]": false, "amendments[0]": true, "budget[0]": false, "": false,
	} {
		if _, ok := c.Resolve(ref); ok != want {
			t.Errorf("Resolve(%q) = %v, want %v", ref, ok, want)
		}
	}
}

func evalRule(t *testing.T, src string, terms Terms) bool {
	t.Helper()
	r, err := CompileRule(src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	ok, err := r.Eval(RuleInput{Terms: &terms, Counterparty: testRegistry, Now: t0})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return ok
}

// TestRuleHelpersBeyond64Bits: amounts are uint256 in rules, so limits and
// sums beyond 2^64 compare exactly.
func TestRuleHelpersBeyond64Bits(t *testing.T) {
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	big1 := NewUint256(new(big.Int).Add(two64, big.NewInt(1))) // 2^64+1 wei
	terms := testTerms()
	terms.Milestones = []Milestone{{Amount: big1, Description: "a"}, {Amount: NewUint256(two64), Description: "b"}}
	for src, want := range map[string]bool{
		`total == wei("36893488147419103233")`:                         true, // 2^65+1
		`total > wei("36893488147419103232")`:                          true,
		`total < wei("36893488147419103233")`:                          false,
		`milestones[0] > milestones[1]`:                                true,
		`milestones[0] - milestones[1] == wei("1")`:                    true,
		`total > eth("36")`:                                            true, // 36.89 ETH
		`total <= eth("36.893488147419103233")`:                        true,
		`total < eth("36.893488147419103233")`:                         false,
		`total / 2 > milestones[1]`:                                    false,
		`milestones.all(m, m >= eth(18))`:                              true,
		`total > 9223372036854775807 && total > 18446744073709551615u`: true, // int and uint compare exactly too
		`milestones[1] <= 18446744073709551615u`:                       false,
		`string(total) == "36893488147419103233"`:                      true,
		`size(milestones) == milestone_count && milestone_count == 2`:  true,
		`wei("115792089237316195423570985008687907853269984665640564039457584007913129639935") > total`: true,
	} {
		if got := evalRule(t, src, terms); got != want {
			t.Errorf("%s = %v, want %v", src, got, want)
		}
	}
	for _, src := range []string{
		`wei("115792089237316195423570985008687907853269984665640564039457584007913129639935") + wei("1") > total`,
		`milestones[1] - milestones[0] > wei("0")`,
		`eth("1.0000000000000000001") > total`,
		`eth("-1") > total`,
		`total / 0 > total`,
		`deadline > now + days(1000000)`,
	} {
		r, err := CompileRule(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if _, err := r.Eval(RuleInput{Terms: &terms, Now: t0}); err == nil {
			t.Errorf("%s evaluated without error", src)
		}
	}
}

func TestRuleTimeAndStrings(t *testing.T) {
	terms := testTerms(100)
	terms.Category = "translation"
	for src, want := range map[string]bool{
		`deadline == now + days(3)`:                                  true, // testTerms: t0 + 72h
		`deadline > now + hours(71) && deadline < now + hours(73)`:   true,
		`deadline - now >= duration('72h')`:                          true,
		`category == 'translation' && title.startsWith('Translate')`: true,
		`token == '0x0000000000000000000000000000000000000000'`:      true,
		`counterparty == '` + testRegistry.String() + `'`:            true,
	} {
		if got := evalRule(t, src, terms); got != want {
			t.Errorf("%s = %v, want %v", src, got, want)
		}
	}
	if _, err := (&Rule{}).Eval(RuleInput{}); err == nil {
		t.Fatal("a rule evaluated without terms")
	}
}

func TestEther(t *testing.T) {
	for s, want := range map[string]string{"0.5": "500000000000000000", "12": "12000000000000000000", "0.000000000000000001": "1"} {
		v, err := ParseEther(s)
		if err != nil || v.String() != want {
			t.Errorf("ParseEther(%q) = %v, %v", s, v, err)
		}
		if back := FormatEther(v); back != s {
			t.Errorf("FormatEther = %q, want %q", back, s)
		}
	}
	for _, s := range []string{"", ".5", "1.", "1e3", "-1", "1,5", " 1", "0.0000000000000000001"} {
		if _, err := ParseEther(s); err == nil {
			t.Errorf("ParseEther(%q) accepted", s)
		}
	}
}

func TestKeyedClaims(t *testing.T) {
	for text, want := range map[string][2]string{
		"page_count = 40":        {"page_count", "40"},
		"launch_date=2026-07-01": {"launch_date", "2026-07-01"},
		"The guide = long":       {"", ""},
		"page_count =":           {"", ""},
		"no equals here":         {"", ""},
	} {
		k, v, ok := KeyedClaim(text)
		if ok != (want[0] != "") || k != want[0] || v != want[1] {
			t.Errorf("KeyedClaim(%q) = %q %q %v", text, k, v, ok)
		}
	}
	for _, tc := range []struct {
		fact, claimed string
		same          bool
	}{
		{`40`, "40", true}, {`40`, "4e1", true}, {`40`, "41", false}, {`40`, `"40"`, false},
		{`"2026-07-01"`, "2026-07-01", true}, {`"2026-07-01"`, `"2026-07-01"`, true}, {`"a"`, "b", false},
		{`true`, "true", true}, {`true`, "false", false},
	} {
		if got := SameFactValue(json.RawMessage(tc.fact), tc.claimed); got != tc.same {
			t.Errorf("SameFactValue(%s, %s) = %v", tc.fact, tc.claimed, got)
		}
	}
}

// TestIntentCardSchemaMirrorsGo holds intent-card.schema.json to the Go
// types member for member, as mirror_test does for payloads.
func TestIntentCardSchemaMirrorsGo(t *testing.T) {
	b, err := fs.ReadFile(schemas.FS(), IntentCardSchema)
	if err != nil {
		t.Fatal(err)
	}
	var sch map[string]any
	if err := json.Unmarshal(b, &sch); err != nil {
		t.Fatal(err)
	}
	members := func(v any) []string {
		var out []string
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			if tag, ok := rt.Field(i).Tag.Lookup("json"); ok {
				out = append(out, strings.Split(tag, ",")[0])
			}
		}
		slices.Sort(out)
		return out
	}
	keys := func(m any) []string {
		var out []string
		for k := range m.(map[string]any) {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	props := sch["properties"].(map[string]any)
	defs := sch["$defs"].(map[string]any)
	for name, pair := range map[string][2][]string{
		"card":      {keys(props), members(IntentCard{})},
		"principal": {keys(props["principal"].(map[string]any)["properties"]), members(Principal{})},
		"amendment": {keys(defs["amendment"].(map[string]any)["properties"]), members(CardAmendment{})},
	} {
		if !slices.Equal(pair[0], pair[1]) {
			t.Errorf("%s: schema %v, Go %v", name, pair[0], pair[1])
		}
	}
}

// FuzzParseIntentCard: whatever the input, parsing either fails with a code
// or yields a card whose canonical bytes parse again to the same hash.
func FuzzParseIntentCard(f *testing.F) {
	for _, n := range []string{"valid/reference-v0.json", "valid/parley-rules.json", "valid/reference-v0-answered.json"} {
		f.Add(readCard(f, n))
	}
	f.Add([]byte(`{"pxp":"0","principal":{"name":"A"},"goal":"g","must_never":[{"text":"x","rule":"total > eth(\"1\")"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseIntentCard(b)
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("an error without a code: %v", err)
			}
			return
		}
		again, err := ParseIntentCard(c.Bytes())
		if err != nil || again.Seal() != c.Seal() {
			t.Fatalf("canonical bytes do not re-parse: %v", err)
		}
		terms := testTerms(1, 2)
		for _, l := range c.clauseLists() {
			for _, cl := range *l.list {
				if r := cl.Compiled(); r != nil {
					_, _ = r.Eval(RuleInput{Terms: &terms, Now: time.Unix(0, 0)})
				}
			}
		}
	})
}
