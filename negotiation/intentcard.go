package negotiation

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/parleynet/parley/schemas"
)

// PXPVersion is the intent card version Parley reads and writes.
const PXPVersion = "0"

// IntentCardSchema names the intent card's JSON Schema in the schemas package.
const IntentCardSchema = "intent-card.schema.json"

// MaxIntentCardBytes is the size limit of one intent card (64 KiB).
const MaxIntentCardBytes = 64 << 10

// The clause lists of a card, as a clause reference names them
// ("must_never[0]").
const (
	ClauseMustHaves    = "must_haves"
	ClauseMayAgreeTo   = "may_agree_to"
	ClauseMustNever    = "must_never"
	ClauseEscalateWhen = "escalate_when"
	ClauseKnownFacts   = "known_facts"
	ClauseAmendments   = "amendments"
)

// Via says how a principal's answer reached the node.
type Via string

// The ways an answer (or a card) arrives (PXP section 8). Only web is
// the principal's own confirmed word: the node's pages give it after a
// passkey signed the exact text. What arrives through the node's API or
// MCP is an agent's (api, mcp) and binds only once the principal
// confirms it with a passkey.
const (
	ViaWeb Via = "web" // the principal's own page on the node, confirmed with a passkey
	ViaMCP Via = "mcp" // relayed by an agent over MCP
	ViaAPI Via = "api" // sent through the node's HTTP API (an agent or a script holding its key)
)

// Valid reports whether v is web, api or mcp.
func (v Via) Valid() bool { return v == ViaWeb || v == ViaMCP || v == ViaAPI }

// Relayed reports whether v is an agent's (api or mcp): an answer that
// arrived so is unconfirmed until the principal confirms it.
func (v Via) Relayed() bool { return v == ViaMCP || v == ViaAPI }

// Principal is who a proxy speaks for.
type Principal struct {
	Name string `json:"name"`
	Role string `json:"role,omitempty"`
	Org  string `json:"org,omitempty"`
}

// Clause is one entry of must_haves, may_agree_to, must_never or
// escalate_when: plain text for the agent and, optionally, a CEL rule over
// the terms (docs/pxp.md says what a rule means in each list).
type Clause struct {
	Text string
	Rule string

	rule *Rule
}

// UnmarshalJSON accepts a string or an object {text, rule?}.
func (c *Clause) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &c.Text)
	}
	var o struct {
		Text string `json:"text"`
		Rule string `json:"rule,omitempty"`
	}
	if err := strictUnmarshal(b, &o); err != nil {
		return err
	}
	c.Text, c.Rule = o.Text, o.Rule
	return nil
}

// MarshalJSON writes a string when the clause has no rule.
func (c Clause) MarshalJSON() ([]byte, error) {
	if c.Rule == "" {
		return json.Marshal(c.Text)
	}
	return json.Marshal(struct {
		Text string `json:"text"`
		Rule string `json:"rule"`
	}{c.Text, c.Rule})
}

// Compiled returns the clause's compiled rule, or nil when it has none.
func (c *Clause) Compiled() *Rule { return c.rule }

// KnownFact is a fact the principal asserts. Key and Value, when set, let a
// claim of the form "key = value" be compared with it mechanically.
type KnownFact struct {
	Text  string
	Key   string
	Value json.RawMessage // a JSON string, number or boolean; nil without a key
}

// UnmarshalJSON accepts a string or an object {text, key?, value?}.
func (f *KnownFact) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &f.Text)
	}
	var o struct {
		Text  string          `json:"text"`
		Key   string          `json:"key,omitempty"`
		Value json.RawMessage `json:"value,omitempty"`
	}
	if err := strictUnmarshal(b, &o); err != nil {
		return err
	}
	f.Text, f.Key, f.Value = o.Text, o.Key, o.Value
	return nil
}

// MarshalJSON writes a string when the fact has no key.
func (f KnownFact) MarshalJSON() ([]byte, error) {
	if f.Key == "" {
		return json.Marshal(f.Text)
	}
	return json.Marshal(struct {
		Text  string          `json:"text"`
		Key   string          `json:"key"`
		Value json.RawMessage `json:"value"`
	}{f.Text, f.Key, f.Value})
}

// CardAmendment is a principal's answer sealed into the card.
type CardAmendment struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	At       string `json:"at"`
	Via      Via    `json:"via,omitempty"`
}

// IntentCard is a principal's parsed intent card. It keeps the canonical
// bytes it was parsed from: intentCardHash = SHA-256 of those bytes, and
// nothing is re-encoded from the fields, which are for reading only.
type IntentCard struct {
	PXP          string          `json:"pxp"`
	Principal    Principal       `json:"principal"`
	Goal         string          `json:"goal"`
	MustHaves    []Clause        `json:"must_haves,omitempty"`
	MayAgreeTo   []Clause        `json:"may_agree_to,omitempty"`
	MustNever    []Clause        `json:"must_never,omitempty"`
	EscalateWhen []Clause        `json:"escalate_when,omitempty"`
	KnownFacts   []KnownFact     `json:"known_facts,omitempty"`
	Amendments   []CardAmendment `json:"amendments,omitempty"`

	raw  []byte
	hash Hash
}

// ParseIntentCard parses a card strictly: size limit, well-formed JSON
// without duplicate members, intent-card.schema.json (a reference PXP v0
// card with plain-string clauses validates), then Validate. Every failure
// is an *Error with a code (too_large, malformed_json, duplicate_key,
// unknown_field, schema_invalid, bad_timestamp, rule_invalid).
func ParseIntentCard(b []byte) (*IntentCard, error) {
	if len(b) > MaxIntentCardBytes {
		return nil, reject(CodeTooLarge, "", "%d bytes exceeds the card limit of %d", len(b), MaxIntentCardBytes)
	}
	raw, err := Canonicalize(b)
	if err != nil {
		return nil, err
	}
	var generic any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return nil, &Error{Code: CodeMalformedJSON, Msg: err.Error(), Err: err}
	}
	set, err := schemas.Compiled()
	if err != nil {
		return nil, fmt.Errorf("negotiation: schemas: %w", err)
	}
	if err := set.Validate(IntentCardSchema, generic); err != nil {
		var se *schemas.Error
		if errors.As(err, &se) {
			return nil, &Error{Code: Code(se.Code), Field: se.Pointer, Msg: se.Msg, Err: err}
		}
		return nil, &Error{Code: CodeSchemaInvalid, Msg: err.Error(), Err: err}
	}
	c := &IntentCard{}
	if err := strictUnmarshal(raw, c); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c.raw, c.hash = raw, sha256.Sum256(raw)
	return c, nil
}

// Validate checks what the schema cannot and compiles every rule: the
// version, a named principal and a goal, rules that compile to a bool
// (rule_invalid), known-fact keys used once, amendment times in RFC 3339
// and a known via.
func (c *IntentCard) Validate() error {
	if c.PXP != PXPVersion {
		return reject(CodeSchemaInvalid, "/pxp", "want %q", PXPVersion)
	}
	if strings.TrimSpace(c.Principal.Name) == "" {
		return reject(CodeSchemaInvalid, "/principal/name", "the principal needs a name")
	}
	if strings.TrimSpace(c.Goal) == "" {
		return reject(CodeSchemaInvalid, "/goal", "the card needs a goal")
	}
	for _, l := range c.clauseLists() {
		for i := range *l.list {
			cl := &(*l.list)[i]
			if strings.TrimSpace(cl.Text) == "" {
				return reject(CodeSchemaInvalid, fmt.Sprintf("/%s/%d", l.name, i), "a clause needs text")
			}
			if cl.Rule == "" {
				cl.rule = nil
				continue
			}
			r, err := CompileRule(cl.Rule)
			if err != nil {
				return withField(err, fmt.Sprintf("/%s/%d/rule", l.name, i))
			}
			cl.rule = r
		}
	}
	keys := map[string]int{}
	for i, f := range c.KnownFacts {
		if strings.TrimSpace(f.Text) == "" {
			return reject(CodeSchemaInvalid, fmt.Sprintf("/known_facts/%d", i), "a fact needs text")
		}
		if (f.Key == "") != (len(f.Value) == 0) {
			return reject(CodeSchemaInvalid, fmt.Sprintf("/known_facts/%d", i), "key and value come together")
		}
		if f.Key == "" {
			continue
		}
		if _, err := factValue(f.Value); err != nil {
			return reject(CodeSchemaInvalid, fmt.Sprintf("/known_facts/%d/value", i), "%v", err)
		}
		if j, dup := keys[f.Key]; dup {
			return reject(CodeSchemaInvalid, fmt.Sprintf("/known_facts/%d/key", i), "key %q is already known_facts[%d]'s", f.Key, j)
		}
		keys[f.Key] = i
	}
	for i, a := range c.Amendments {
		if _, err := time.Parse(time.RFC3339Nano, a.At); err != nil {
			return reject(CodeBadTimestamp, fmt.Sprintf("/amendments/%d/at", i), "want RFC 3339, got %q", a.At)
		}
		if a.Via != "" && !a.Via.Valid() {
			return reject(CodeSchemaInvalid, fmt.Sprintf("/amendments/%d/via", i), "want web, api or mcp")
		}
		if strings.TrimSpace(a.Question) == "" || strings.TrimSpace(a.Answer) == "" {
			return reject(CodeSchemaInvalid, fmt.Sprintf("/amendments/%d", i), "an amendment needs a question and an answer")
		}
	}
	return nil
}

type clauseList struct {
	name string
	list *[]Clause
}

func (c *IntentCard) clauseLists() []clauseList {
	return []clauseList{
		{ClauseMustHaves, &c.MustHaves}, {ClauseMayAgreeTo, &c.MayAgreeTo},
		{ClauseMustNever, &c.MustNever}, {ClauseEscalateWhen, &c.EscalateWhen},
	}
}

// Clauses returns the clauses of one list (ClauseMustHaves, ...), or nil.
func (c *IntentCard) Clauses(list string) []Clause {
	for _, l := range c.clauseLists() {
		if l.name == list {
			return *l.list
		}
	}
	return nil
}

// Bytes returns the card's canonical (JCS) bytes. The caller must not
// modify them.
func (c *IntentCard) Bytes() []byte { return c.raw }

// Seal returns the card's intentCardHash: SHA-256(JCS(card)). It is what the
// ledger records and what every envelope sent under the card carries.
func (c *IntentCard) Seal() Hash { return c.hash }

// PublicCard is what peers see of a card: the principal's display name and
// the hash; the body stays private to its principal.
type PublicCard struct {
	Principal      string `json:"principal"`
	IntentCardHash Hash   `json:"intentCardHash"`
}

// Public returns the card's public face.
func (c *IntentCard) Public() PublicCard {
	return PublicCard{Principal: c.Principal.Name, IntentCardHash: c.hash}
}

// WithAmendment returns a new card: this one with a appended to amendments,
// re-canonicalised and re-sealed. The receiver is unchanged.
func (c *IntentCard) WithAmendment(a CardAmendment) (*IntentCard, error) {
	if _, err := time.Parse(time.RFC3339Nano, a.At); err != nil {
		return nil, reject(CodeBadTimestamp, "at", "want RFC 3339, got %q", a.At)
	}
	var generic map[string]any
	dec := json.NewDecoder(bytes.NewReader(c.raw))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return nil, &Error{Code: CodeMalformedJSON, Msg: err.Error(), Err: err}
	}
	list, _ := generic[ClauseAmendments].([]any)
	m := map[string]any{"question": a.Question, "answer": a.Answer, "at": a.At}
	if a.Via != "" {
		m["via"] = string(a.Via)
	}
	generic[ClauseAmendments] = append(list, m)
	b, err := json.Marshal(generic)
	if err != nil {
		return nil, err
	}
	return ParseIntentCard(b)
}

// ClauseRef returns the reference of entry i of a list: "must_never[0]".
func ClauseRef(list string, i int) string { return list + "[" + strconv.Itoa(i) + "]" }

// ParseClauseRef splits "must_never[0]" into its list and index. The
// reference implementation's singular "amendment[i]" names amendments[i].
// "goal" and "principal" have index -1.
func ParseClauseRef(ref string) (list string, i int, ok bool) {
	if ref == "goal" || ref == "principal" {
		return ref, -1, true
	}
	name, rest, found := strings.Cut(ref, "[")
	if !found || !strings.HasSuffix(rest, "]") {
		return "", 0, false
	}
	n, err := strconv.Atoi(strings.TrimSuffix(rest, "]"))
	if err != nil || n < 0 || strconv.Itoa(n) != strings.TrimSuffix(rest, "]") {
		return "", 0, false
	}
	if name == "amendment" {
		name = ClauseAmendments
	}
	switch name {
	case ClauseMustHaves, ClauseMayAgreeTo, ClauseMustNever, ClauseEscalateWhen, ClauseKnownFacts, ClauseAmendments:
		return name, n, true
	}
	return "", 0, false
}

// Resolve returns the text a clause reference names in this card, and
// whether it names one. An amendment reads "Q: question A: answer".
func (c *IntentCard) Resolve(ref string) (string, bool) {
	list, i, ok := ParseClauseRef(ref)
	if !ok {
		return "", false
	}
	switch list {
	case "goal":
		return c.Goal, true
	case "principal":
		return c.Principal.Name, true
	case ClauseKnownFacts:
		if i < len(c.KnownFacts) {
			return c.KnownFacts[i].Text, true
		}
		return "", false
	case ClauseAmendments:
		if i < len(c.Amendments) {
			a := c.Amendments[i]
			return "Q: " + a.Question + " A: " + a.Answer, true
		}
		return "", false
	}
	cl := c.Clauses(list)
	if i < len(cl) {
		return cl[i].Text, true
	}
	return "", false
}

// Fact returns the known fact with key k and its index.
func (c *IntentCard) Fact(k string) (KnownFact, int, bool) {
	for i, f := range c.KnownFacts {
		if f.Key != "" && f.Key == k {
			return f, i, true
		}
	}
	return KnownFact{}, -1, false
}

// factValue decodes a known fact's value: a string, a json.Number or a bool.
func factValue(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	switch v.(type) {
	case string, json.Number, bool:
		return v, nil
	}
	return nil, fmt.Errorf("a fact's value is a string, number or boolean")
}

// KeyedClaim splits a claim text of the form "key = value" (key as a known
// fact's key is written; value a JSON scalar or bare text). ok is false for
// any other text.
func KeyedClaim(text string) (key, value string, ok bool) {
	k, v, found := strings.Cut(text, "=")
	if !found {
		return "", "", false
	}
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if k == "" || v == "" || len(k) > 64 || !(k[0] >= 'a' && k[0] <= 'z') {
		return "", "", false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return "", "", false
		}
	}
	return k, v, true
}

// SameFactValue reports whether a claimed value (as KeyedClaim returns it)
// equals a known fact's value: numbers compare by value ("200" = "2e2"),
// strings exactly (quoted or bare), booleans as true/false.
func SameFactValue(fact json.RawMessage, claimed string) bool {
	fv, err := factValue(fact)
	if err != nil {
		return false
	}
	switch f := fv.(type) {
	case string:
		var s string
		if json.Unmarshal([]byte(claimed), &s) == nil {
			return s == f
		}
		return claimed == f
	case bool:
		return claimed == strconv.FormatBool(f)
	case json.Number:
		a, err1 := Canonicalize([]byte(f.String()))
		b, err2 := Canonicalize([]byte(claimed))
		return err1 == nil && err2 == nil && bytes.Equal(a, b) && claimed[0] != '"'
	}
	return false
}
