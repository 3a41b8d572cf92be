package negotiation

import (
	"bytes"
	"crypto/sha256"
	"encoding/base32"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleynet/parley/schemas"
)

// The fixtures in ../schemas/fixtures are generated here from the
// deterministic test parties: `go test ./negotiation -run TestFixturesUpToDate
// -update` rewrites them, and without -update the test fails when a
// regenerated fixture differs from the committed bytes.

const fixturesDir = "../schemas/fixtures"

// fixture is one generated file.
type fixture struct {
	name string
	data []byte
}

// fixtureWorld is the deterministic negotiation the fixtures come from.
type fixtureWorld struct {
	poster, worker, worker2, arbitrator, supervisor *party
	byAddr                                          map[Address]*party
	valid                                           []fixture
	env                                             map[string]*Envelope // valid fixtures by name
	settlement                                      Settlement           // what both acceptances sign
	domain                                          Domain
}

// at returns the scenario's i-th instant (with milliseconds, so the
// fractional digits are exercised).
func fixtureTime(i int) time.Time {
	return t0.Add(time.Duration(i)*17*time.Minute + time.Duration(i*37)*time.Millisecond)
}

func seedHash(label string) Hash { return sha256.Sum256([]byte("parley fixture " + label)) }

func seedNID(label string) string {
	h := seedHash(label)
	return NewNegotiationID([16]byte(h[:16]))
}

// seed128 returns a deterministic 128-bit nonce.
func seed128(label string) Uint256 {
	h := seedHash(label)
	return NewUint256(new(big.Int).SetBytes(h[:16]))
}

func milliEther(milli int64) Uint256 {
	return NewUint256(new(big.Int).Mul(big.NewInt(milli), big.NewInt(1e15)))
}

func ptrInt(v int) *int { return &v }

func ptrHash(h Hash) *Hash { return &h }

func ptrAddr(a Address) *Address { return &a }

// termsHashOf returns SHA-256 of the canonical terms member of an offer
// envelope, taken from its bytes (never re-encoded).
func termsHashOf(t testing.TB, e *Envelope) Hash {
	t.Helper()
	var env struct {
		Payload struct {
			Terms json.RawMessage `json:"terms"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(e.Bytes(), &env); err != nil || len(env.Payload.Terms) == 0 {
		t.Fatalf("no terms in %s: %v", e.Type, err)
	}
	return sha256.Sum256(env.Payload.Terms)
}

func newFixtureWorld(t testing.TB) *fixtureWorld {
	t.Helper()
	w := &fixtureWorld{
		poster: newParty(t, "poster"), worker: newParty(t, "worker"), worker2: newParty(t, "worker2"),
		arbitrator: newParty(t, "arbitrator"), supervisor: newParty(t, "supervisor"),
		env: map[string]*Envelope{},
	}
	w.byAddr = map[Address]*party{}
	for _, p := range []*party{w.poster, w.worker, w.worker2, w.arbitrator, w.supervisor} {
		w.byAddr[p.addr] = p
	}
	add := func(name string, e *Envelope) *Envelope {
		w.valid = append(w.valid, fixture{name: name + ".json", data: e.Bytes()})
		w.env[name] = e
		return e
	}
	P, W := w.poster, w.worker
	to := func(ps ...*party) []Address {
		out := make([]Address, len(ps))
		for i, p := range ps {
			out[i] = p.addr
		}
		return out
	}
	posterCard, workerCard := seedHash("poster intent card"), seedHash("worker intent card")

	terms := Terms{
		Title:       "Translate the user guide into German",
		Description: "42 pages of Markdown; keep the headings and code blocks as they are.",
		Category:    "translation",
		ScopeHash:   ptrHash(seedHash("scope document")),
		ChainID:     NewUint256(testChainID),
		Registry:    testRegistry,
		Milestones: []Milestone{
			{Amount: milliEther(1000), Description: "Draft translation"},
			{Amount: milliEther(500), Description: "Reviewed final text"},
		},
		Deadline: uint64(t0.Add(14 * 24 * time.Hour).Unix()),
		Nonce:    seed128("proposal nonce"),
		Limits:   &Limits{MaxRevisions: ptrInt(5), ProposalTTLSeconds: ptrInt(3600), MaxAcceptAttempts: ptrInt(3)},
	}
	sourced := Claim{ID: "p1", Text: "The guide is 42 pages of Markdown.", Origin: OriginSourced, Ref: "https://docs.example.org/guide"}

	// A public announcement on the task board: no recipients.
	P.seq, P.prev = 0, ZeroHash
	add("01-TaskProposal-announcement", P.send(t, seedNID("announcement"), fixtureTime(0), nil, &TaskProposal{
		Terms: terms, PXP: PXP{IntentCardHash: &posterCard, Principal: "Dana", Claims: []Claim{sourced}, Status: StatusContinue},
	}))

	// The private negotiation.
	nid := seedNID("negotiation")
	P.seq, P.prev = 0, ZeroHash
	proposal := add("02-TaskProposal", P.send(t, nid, fixtureTime(1), to(W), &TaskProposal{
		Terms: terms, Supervisor: ptrAddr(w.supervisor.addr),
		PXP: PXP{IntentCardHash: &posterCard, Claims: []Claim{
			sourced,
			{ID: "p2", Text: "The translation must be finished within two weeks.", Origin: OriginStated, Ref: "card:must_haves/0"},
		}, Status: StatusContinue},
	}))

	counterTerms := terms
	counterTerms.Milestones = []Milestone{
		{Amount: milliEther(1200), Description: "Draft translation"},
		{Amount: milliEther(500), Description: "Reviewed final text"},
	}
	counterTerms.Deadline = uint64(t0.Add(21 * 24 * time.Hour).Unix())
	counter := add("03-TaskCounterOffer", W.send(t, nid, fixtureTime(2), to(P), &TaskCounterOffer{
		InReplyTo: proposal.Hash(), Terms: counterTerms, Reason: "Legal terms need a specialist review.",
		PXP: PXP{
			IntentCardHash: &workerCard,
			Claims:         []Claim{{ID: "w1", Text: "A specialist review takes five working days.", Origin: OriginAssumed}},
			Reviews:        []Review{{ClaimID: "p1", Verdict: VerdictAccept}, {ClaimID: "p2", Verdict: VerdictChallenge, Note: "Two weeks are not enough with a review."}},
			Status:         StatusContinue,
			DependsOn:      []string{"w1"},
		},
	}))

	add("04-CapabilityProof", W.send(t, nid, fixtureTime(3), to(P), &CapabilityProof{
		Capability: "translation:en-de", Kind: "portfolio", Ref: "https://portfolio.example.net/en-de",
		CID:         CID(CIDOf([]byte("portfolio: 120 manuals")).String()),
		Description: "Übersetzungen EN→DE seit 2019: 120 Handbücher, „Qualität“ geprüft.\tDetails: <https://portfolio.example.net/en-de>",
	}))

	nidBytes, err := ParseNegotiationID(nid)
	if err != nil {
		t.Fatal(err)
	}
	amounts := []*big.Int{counterTerms.Milestones[0].Amount.Big(), counterTerms.Milestones[1].Amount.Big()}
	w.settlement = Settlement{
		NegotiationID: nidBytes, Poster: [20]byte(P.addr), Worker: [20]byte(W.addr), Token: [20]byte(counterTerms.Token),
		Amount: new(big.Int).Add(amounts[0], amounts[1]), MilestoneAmounts: amounts, Deadline: counterTerms.Deadline,
		TermsHash: termsHashOf(t, counter), AcceptedOfferHash: counter.Hash(), Nonce: counterTerms.Nonce.Big(),
	}
	w.domain = Domain{ChainID: testChainID, VerifyingContract: [20]byte(testRegistry)}
	digest, err := w.settlement.Digest(w.domain)
	if err != nil {
		t.Fatal(err)
	}
	add("05-TaskAcceptance-poster", P.send(t, nid, fixtureTime(4), to(W), &TaskAcceptance{
		AcceptedOfferHash: counter.Hash(), InReplyTo: ptrHash(counter.Hash()), SettlementDigest: digest,
		Signature: P.signDigest(t, digest), PXP: PXP{Status: StatusAgree, DependsOn: []string{"w1"}},
	}))
	add("06-TaskAcceptance-worker", W.send(t, nid, fixtureTime(5), to(P), &TaskAcceptance{
		AcceptedOfferHash: counter.Hash(), SettlementDigest: digest, Signature: W.signDigest(t, digest),
		PXP: PXP{Status: StatusAgree},
	}))

	// Funded: the task id is the settlement digest.
	taskID := NewUint256(new(big.Int).SetBytes(digest[:]))
	sendTask := func(p *party, i int, rcpt []Address, pl Payload) *Envelope {
		t.Helper()
		h := Header{NegotiationID: nid, TaskID: &taskID, Sequence: p.seq + 1, PreviousHash: p.prev, Timestamp: fixtureTime(i), Sender: p.sender(), Recipients: rcpt}
		e, err := Build(h, pl, Ed25519Key(p.inbox), DecodeOptions{})
		if err != nil {
			t.Fatalf("%s: build %s: %v", p.name, pl.MessageType(), err)
		}
		p.seq, p.prev, p.last = e.Sequence, e.Hash(), fixtureTime(i)
		return e
	}
	deliverable := []byte("guide-de.md, first draft")
	delivery := add("07-DeliveryNotice", sendTask(W, 6, to(P), &DeliveryNotice{
		Milestone: 0, ProofCID: CID(CIDOf(deliverable).String()),
		Files: []FileRef{{Name: "guide-de.md", CID: CID(CIDOf(deliverable).String()), Size: uint64(len(deliverable)), MediaType: "text/markdown"}},
		Note:  "First draft of all chapters.",
	}))
	revision := add("08-RevisionRequest", sendTask(P, 7, to(W), &RevisionRequest{
		Milestone: 0, InReplyTo: ptrHash(delivery.Hash()), Reason: "Chapter 3 keeps English terms in the tables.",
	}))
	add("09-PaymentRequest", sendTask(W, 8, to(P), &PaymentRequest{
		Milestone: 0, Basis: BasisHourly, Amount: milliEther(300), Units: 6, Note: "Six hours of terminology work.",
	}))
	add("10-AcceptDelivery", sendTask(P, 9, to(W), &AcceptDelivery{
		Milestone: 0, DeliveryHash: delivery.Hash(), Note: "Accepted after the chapter 3 fix.",
	}))

	amended := counterTerms
	amended.Milestones = []Milestone{counterTerms.Milestones[0], {Amount: milliEther(700), Description: "Reviewed final text and glossary"}}
	amended.Deadline = uint64(t0.Add(28 * 24 * time.Hour).Unix())
	amendedJSON, err := json.Marshal(amended)
	if err != nil {
		t.Fatal(err)
	}
	amendedHash, err := HashCanonical(amendedJSON)
	if err != nil {
		t.Fatal(err)
	}
	amendment := Amendment{
		TaskID: digest, MilestoneAmounts: []*big.Int{amended.Milestones[0].Amount.Big(), amended.Milestones[1].Amount.Big()},
		Deadline: amended.Deadline, TermsHash: amendedHash, Nonce: seed128("amendment nonce").Big(),
	}
	amendmentDigest, err := amendment.Digest(w.domain)
	if err != nil {
		t.Fatal(err)
	}
	add("11-MilestoneDefinition", sendTask(P, 10, to(W), &MilestoneDefinition{
		Milestones: amended.Milestones, Deadline: amended.Deadline, TermsHash: amendedHash,
		Nonce: seed128("amendment nonce"), Signature: P.signDigest(t, amendmentDigest),
	}))

	evidence := []byte("review log, chapter 3")
	add("12-DisputeEvidence", sendTask(W, 11, to(P, w.arbitrator), &DisputeEvidence{
		DisputeID: U64(1), EvidenceCID: CID(CIDOf(evidence).String()),
		Files:       []FileRef{{Name: "review-log.txt", CID: CID(CIDOf(evidence).String()), Size: uint64(len(evidence))}},
		Description: "The requested changes were outside the agreed scope.", InReplyTo: ptrHash(revision.Hash()),
	}))
	add("13-ArbitratorProposal", sendTask(W, 12, to(P), &ArbitratorProposal{
		DisputeID: U64(1), Arbitrator: w.arbitrator.addr, Reason: "Both parties have used this arbitrator before.",
	}))

	handoff := []byte("handoff package: glossary, style guide, open items")
	replacement := Replacement{TaskID: digest, NewWorker: [20]byte(w.worker2.addr), HandoffHash: sha256.Sum256(handoff), Nonce: seed128("replacement nonce").Big()}
	replacementDigest, err := replacement.Digest(w.domain)
	if err != nil {
		t.Fatal(err)
	}
	add("14-ReplacementContext", sendTask(P, 13, to(W, w.worker2), &ReplacementContext{
		NewWorker: w.worker2.addr, HandoffHash: sha256.Sum256(handoff), HandoffCID: CID(CIDOf(handoff).String()),
		Nonce: seed128("replacement nonce"), Signature: P.signDigest(t, replacementDigest),
		Summary: "Milestone 0 is accepted; milestone 1 (review and glossary) is open.",
	}))

	cancel := Cancel{TaskID: digest, Nonce: seed128("cancel nonce").Big()}
	cancelDigest, err := cancel.Digest(w.domain)
	if err != nil {
		t.Fatal(err)
	}
	add("15-MutualCancel", sendTask(P, 14, to(W), &MutualCancel{
		Reason: "The guide is being rewritten; the translation is no longer needed.",
		Nonce:  seed128("cancel nonce"), Signature: P.signDigest(t, cancelDigest),
	}))

	add("16-SupervisorVeto", sendTask(w.supervisor, 15, to(P, W), &SupervisorVeto{
		Party: P.addr, Reason: "The budget was not approved.",
		PXP: PXP{Status: StatusEscalate, Escalation: &Escalation{Question: "Approve a budget of 1.9 ETH for the translation?", Reason: "Over the team's limit."}},
	}))
	return w
}

// readFixtures returns the .json files of dir, sorted by name.
func readFixtures(t testing.TB, dir string) []fixture {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []fixture
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fixture{name: e.Name(), data: b})
	}
	return out
}

// writeFixtures replaces the .json files of dir with fs.
func writeFixtures(t testing.TB, dir string, fs []fixture) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, old := range readFixtures(t, dir) {
		if err := os.Remove(filepath.Join(dir, old.name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range fs {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func compareFixtures(t *testing.T, dir string, want []fixture) {
	t.Helper()
	got := readFixtures(t, dir)
	names := func(fs []fixture) []string {
		var n []string
		for _, f := range fs {
			n = append(n, f.name)
		}
		return n
	}
	if !slices.Equal(names(got), names(want)) {
		t.Fatalf("%s holds %v, the generator makes %v (run with -update)", dir, names(got), names(want))
	}
	for i := range want {
		if !bytes.Equal(got[i].data, want[i].data) {
			t.Errorf("%s/%s differs from the regenerated bytes (run with -update)", dir, want[i].name)
		}
	}
}

// TestFixturesUpToDate regenerates every fixture from the deterministic
// parties and compares them byte for byte with the committed files.
func TestFixturesUpToDate(t *testing.T) {
	w := newFixtureWorld(t)
	invalid := w.invalidFixtures(t)
	if *update {
		writeFixtures(t, filepath.Join(fixturesDir, "valid"), w.valid)
		writeFixtures(t, filepath.Join(fixturesDir, "invalid"), invalid)
		return
	}
	compareFixtures(t, filepath.Join(fixturesDir, "valid"), w.valid)
	compareFixtures(t, filepath.Join(fixturesDir, "invalid"), invalid)
}

// TestFixturesValid decodes and verifies every valid fixture and checks that
// the fixtures cover all fourteen message types.
func TestFixturesValid(t *testing.T) {
	seen := map[MessageType]bool{}
	for _, f := range readFixtures(t, filepath.Join(fixturesDir, "valid")) {
		t.Run(f.name, func(t *testing.T) {
			e, err := Decode(f.data, DecodeOptions{})
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if err := e.Verify(); err != nil {
				t.Fatalf("verify: %v", err)
			}
			if !bytes.Equal(e.Bytes(), f.data) {
				t.Fatalf("a valid fixture is stored in its canonical (JCS) form")
			}
			seen[e.Type] = true
		})
	}
	for _, mt := range MessageTypes {
		if !seen[mt] {
			t.Errorf("no valid fixture of type %s", mt)
		}
	}
}

// schemaLevel is fixtures/schema-level-codes.json: which codes the JSON
// Schema alone produces, and the fixtures with such a code whose defect is
// beyond the schema. ajv-check.mjs reads the same file.
type schemaLevel struct {
	Description  string            `json:"description"`
	SchemaLevel  []string          `json:"schemaLevel"`
	BeyondSchema map[string]string `json:"beyondSchema"`
}

func readSchemaLevel(t testing.TB) schemaLevel {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixturesDir, "schema-level-codes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sl schemaLevel
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sl); err != nil {
		t.Fatalf("schema-level-codes.json: %v", err)
	}
	return sl
}

// TestFixturesInvalid checks that each invalid fixture is refused with the
// code its name carries (by Decode, or by Verify after a clean Decode), and
// that the Go schema validator alone rejects it, with that code, exactly
// when schema-level-codes.json says its defect is schema-level.
func TestFixturesInvalid(t *testing.T) {
	sl := readSchemaLevel(t)
	set, err := schemas.Compiled()
	if err != nil {
		t.Fatal(err)
	}
	fs := readFixtures(t, filepath.Join(fixturesDir, "invalid"))
	if len(fs) < 40 {
		t.Fatalf("%d invalid fixtures, want at least 40", len(fs))
	}
	covered := map[Code]bool{}
	for _, f := range fs {
		t.Run(f.name, func(t *testing.T) {
			code, _, ok := strings.Cut(f.name, "--")
			if !ok {
				t.Fatalf("not named <code>--<what>.json")
			}
			want := Code(code)
			covered[want] = true
			e, err := Decode(f.data, DecodeOptions{})
			if err == nil {
				err = e.Verify()
			}
			if got := CodeOf(err); got != want {
				t.Fatalf("got %q (%v), want %q", got, err, want)
			}

			var doc any
			dec := json.NewDecoder(bytes.NewReader(f.data))
			dec.UseNumber()
			if err := dec.Decode(&doc); err != nil {
				if want != CodeMalformedJSON {
					t.Fatalf("encoding/json cannot parse it (%v), yet its code is %s", err, want)
				}
				return
			}
			_, beyond := sl.BeyondSchema[f.name]
			schemaLevel := slices.Contains(sl.SchemaLevel, code) && !beyond
			err = set.Validate(schemas.Envelope, doc)
			switch {
			case schemaLevel && err == nil:
				t.Fatalf("the schema accepts it, but %s is a schema-level defect", want)
			case schemaLevel:
				var se *schemas.Error
				if !errors.As(err, &se) || se.Code != code {
					t.Fatalf("schema says %v, want code %s", err, want)
				}
			case !schemaLevel && err != nil && want != CodeMalformedJSON:
				t.Fatalf("the schema rejects it (%v), but its defect is beyond the schema", err)
			}
		})
	}
	for _, c := range decodeCodes {
		if !covered[c] {
			t.Errorf("no invalid fixture has code %s", c)
		}
	}
	for name := range sl.BeyondSchema {
		if !slices.ContainsFunc(fs, func(f fixture) bool { return f.name == name }) {
			t.Errorf("schema-level-codes.json names %s, which is not a fixture", name)
		}
	}
}

// decodeCodes are the codes Decode and Verify produce on their own (the
// others need a thread or a node).
var decodeCodes = []Code{
	CodeSchemaInvalid, CodeUnknownField, CodeDuplicateKey, CodeTooLarge, CodeMalformedJSON,
	CodeBadSchemaVersion, CodeUnknownType, CodeBadAddress, CodeBadHex, CodeBadUUID,
	CodeBadTimestamp, CodeBadInteger, CodeBadCID, CodeBadSignature, CodeBadEVMSignature,
	CodePreviousHashMismatch,
}

// deleteMember marks a member to delete in setPath.
type deleteMember struct{}

// setPath sets (or, with deleteMember{}, deletes) the member at the JSON pointer path
// of a generic document; array indexes are decimal.
func setPath(t testing.TB, doc any, path string, v any) {
	t.Helper()
	toks := strings.Split(strings.TrimPrefix(path, "/"), "/")
	cur := doc
	for i, tok := range toks {
		last := i == len(toks)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				if _, ok := v.(deleteMember); ok {
					delete(c, tok)
				} else {
					c[tok] = v
				}
				return
			}
			cur = c[tok]
		case []any:
			var n int
			if err := json.Unmarshal([]byte(tok), &n); err != nil || n < 0 || n >= len(c) {
				t.Fatalf("setPath %s: bad index %q", path, tok)
			}
			if last {
				c[n] = v
				return
			}
			cur = c[n]
		default:
			t.Fatalf("setPath %s: %q is not in an object or array", path, tok)
		}
	}
}

// getString returns the string at path.
func getString(t testing.TB, doc any, path string) string {
	t.Helper()
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			var n int
			if err := json.Unmarshal([]byte(tok), &n); err != nil || n < 0 || n >= len(c) {
				t.Fatalf("getString %s: bad index %q", path, tok)
			}
			cur = c[n]
		}
	}
	s, ok := cur.(string)
	if !ok {
		t.Fatalf("getString %s: %T is not a string", path, cur)
	}
	return s
}

// doc returns a valid fixture as a generic document (numbers kept exact).
func (w *fixtureWorld) doc(t testing.TB, base string) map[string]any {
	t.Helper()
	e, ok := w.env[base]
	if !ok {
		t.Fatalf("no valid fixture %s", base)
	}
	var d map[string]any
	dec := json.NewDecoder(bytes.NewReader(e.Bytes()))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		t.Fatal(err)
	}
	return d
}

func canonicalJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Canonicalize(b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// resigned applies mut to a valid fixture and signs the result again with
// the inbox key of by (the original sender when by is nil), so the mutation
// is the envelope's only defect.
func (w *fixtureWorld) resigned(t testing.TB, base string, by *party, mut func(d map[string]any)) []byte {
	t.Helper()
	d := w.doc(t, base)
	if by == nil {
		by = w.byAddr[w.env[base].Sender.EVMAddress]
	}
	mut(d)
	out, err := Sign(canonicalJSON(t, d), Ed25519Key(by.inbox))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// unsigned applies mut to a valid fixture and keeps its signature as it was.
func (w *fixtureWorld) unsigned(t testing.TB, base string, mut func(d map[string]any)) []byte {
	t.Helper()
	d := w.doc(t, base)
	mut(d)
	return canonicalJSON(t, d)
}

func setMember(t testing.TB, path string, v any) func(map[string]any) {
	return func(d map[string]any) { setPath(t, d, path, v) }
}

// editEVMSig rewrites the payload's EVM signature with f.
func editEVMSig(t testing.TB, f func(sig []byte)) func(map[string]any) {
	return func(d map[string]any) {
		sig, err := parseHex(getString(t, d, "/payload/signature"), 65)
		if err != nil {
			t.Fatal(err)
		}
		f(sig)
		setPath(t, d, "/payload/signature", HexBytes(sig))
	}
}

// secp256k1N is the order of the secp256k1 group.
var secp256k1N, _ = new(big.Int).SetString("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", 16)

// invalidFixtures returns the invalid fixtures, each a valid fixture with
// one defect, named <code>--<what>.json.
func (w *fixtureWorld) invalidFixtures(t testing.TB) []fixture {
	t.Helper()
	const prop, counter, accept, delivery = "02-TaskProposal", "03-TaskCounterOffer", "05-TaskAcceptance-poster", "07-DeliveryNotice"
	canon := w.env[prop].Bytes()
	ts := w.env[prop].Timestamp
	pow2 := func(n uint) string { return new(big.Int).Lsh(big.NewInt(1), n).String() }
	thirtyThree := func(d map[string]any) {
		ms := getAny(d, "payload", "terms", "milestones").([]any)
		var out []any
		for len(out) < 33 {
			out = append(out, ms[0])
		}
		setPath(t, d, "/payload/terms/milestones", out)
	}
	realCID, err := CID(getString(t, w.doc(t, delivery), "/payload/proofCid")).Parse()
	if err != nil {
		t.Fatal(err)
	}
	cidBytes := realCID.Bytes()
	truncatedCID := "b" + strings.ToLower(strings.TrimRight(base32NoPad(cidBytes[:len(cidBytes)-1]), "="))

	type gen struct {
		name string
		data []byte
	}
	gens := []gen{
		// schema_invalid: structure and value rules.
		{"schema_invalid--missing-sequence", w.resigned(t, prop, nil, setMember(t, "/sequence", deleteMember{}))},
		{"schema_invalid--sequence-zero", w.resigned(t, prop, nil, setMember(t, "/sequence", json.Number("0")))},
		{"schema_invalid--sequence-as-string", w.resigned(t, prop, nil, setMember(t, "/sequence", "1"))},
		{"schema_invalid--missing-signature", w.unsigned(t, prop, setMember(t, "/signature", deleteMember{}))},
		{"schema_invalid--proposal-without-terms", w.resigned(t, prop, nil, setMember(t, "/payload/terms", deleteMember{}))},
		{"schema_invalid--payload-of-another-type", w.resigned(t, prop, nil, setMember(t, "/type", "TaskCounterOffer"))},
		{"schema_invalid--no-milestones", w.resigned(t, prop, nil, setMember(t, "/payload/terms/milestones", []any{}))},
		{"schema_invalid--33-milestones", w.resigned(t, prop, nil, thirtyThree)},
		{"schema_invalid--max-revisions-33", w.resigned(t, prop, nil, setMember(t, "/payload/terms/limits/max_revisions", json.Number("33")))},
		{"schema_invalid--proposal-ttl-59-seconds", w.resigned(t, prop, nil, setMember(t, "/payload/terms/limits/proposal_ttl_seconds", json.Number("59")))},
		{"schema_invalid--max-accept-attempts-0", w.resigned(t, prop, nil, setMember(t, "/payload/terms/limits/max_accept_attempts", json.Number("0")))},
		{"schema_invalid--stated-claim-without-ref", w.resigned(t, prop, nil, setMember(t, "/payload/claims/1/ref", deleteMember{}))},
		{"schema_invalid--claim-origin-unknown", w.resigned(t, prop, nil, setMember(t, "/payload/claims/0/origin", "guessed"))},
		{"schema_invalid--review-verdict-unknown", w.resigned(t, counter, nil, setMember(t, "/payload/reviews/0/verdict", "maybe"))},
		{"schema_invalid--escalate-without-escalation", w.resigned(t, "16-SupervisorVeto", nil, setMember(t, "/payload/escalation", deleteMember{}))},
		{"schema_invalid--title-201-characters", w.resigned(t, prop, nil, setMember(t, "/payload/terms/title", strings.Repeat("T", 201)))},
		{"schema_invalid--recipient-twice", w.resigned(t, "12-DisputeEvidence", nil, setMember(t, "/recipients", []any{w.poster.addr.String(), w.poster.addr.String()}))},
		{"schema_invalid--payment-basis-unknown", w.resigned(t, "09-PaymentRequest", nil, setMember(t, "/payload/basis", "daily"))},
		{"schema_invalid--milestone-index-32", w.resigned(t, delivery, nil, setMember(t, "/payload/milestone", json.Number("32")))},

		// unknown_field: a member no schema names, at every level.
		{"unknown_field--top-level", w.resigned(t, prop, nil, setMember(t, "/priority", "high"))},
		{"unknown_field--in-sender", w.resigned(t, prop, nil, setMember(t, "/sender/name", "Poster"))},
		{"unknown_field--in-payload", w.resigned(t, prop, nil, setMember(t, "/payload/budget", "1500"))},
		{"unknown_field--in-terms", w.resigned(t, prop, nil, setMember(t, "/payload/terms/currency", "ETH"))},
		{"unknown_field--in-claim", w.resigned(t, prop, nil, setMember(t, "/payload/claims/0/confidence", json.Number("0.9")))},
		{"unknown_field--in-limits", w.resigned(t, prop, nil, setMember(t, "/payload/terms/limits/max_counter_offers", json.Number("2")))},
		{"unknown_field--in-file-ref", w.resigned(t, delivery, nil, setMember(t, "/payload/files/0/sha1", "da39a3ee5e6b4b0d3255bfef95601890afd80709"))},

		// duplicate_key: JSON.parse would keep the last value (the signed one).
		{"duplicate_key--title-in-terms", bytes.Replace(canon, []byte(`"terms":{`), []byte(`"terms":{"title":"Translate the guide into French",`), 1)},
		{"duplicate_key--type-at-top-level", append([]byte(`{"type":"TaskCounterOffer",`), canon[1:]...)},

		// too_large: a valid envelope padded with whitespace past 256 KiB.
		{"too_large--over-256-kib", append(append([]byte("{"), bytes.Repeat([]byte(" "), DefaultMaxEnvelopeBytes)...), canon[1:]...)},

		// malformed_json.
		{"malformed_json--truncated", canon[:len(canon)-40]},
		{"malformed_json--trailing-comma", append(bytes.Clone(canon[:len(canon)-1]), ",}"...)},
		{"malformed_json--single-quotes", bytes.Replace(canon, []byte(`"sequence":1`), []byte(`'sequence':1`), 1)},
		{"malformed_json--two-documents", append(bytes.Clone(canon), canon...)},

		{"bad_schema_version--v2", w.resigned(t, prop, nil, setMember(t, "/schemaVersion", "azzle-xmtp-v2"))},
		{"unknown_type--task-offer", w.resigned(t, prop, nil, setMember(t, "/type", "TaskOffer"))},

		// bad_address: the schema sees the form, only a receiver the checksum.
		{"bad_address--sender-not-checksummed", w.resigned(t, prop, nil, setMember(t, "/sender/evmAddress", strings.ToLower(w.poster.addr.String())))},
		{"bad_address--registry-wrong-checksum", w.resigned(t, prop, nil, setMember(t, "/payload/terms/registry", flipCase(testRegistry.String())))},
		{"bad_address--recipient-19-bytes", w.resigned(t, prop, nil, setMember(t, "/recipients/0", w.worker.addr.String()[:40]))},
		{"bad_address--supervisor-without-0x", w.resigned(t, prop, nil, setMember(t, "/payload/supervisor", w.supervisor.addr.String()[2:]))},

		{"bad_hex--previous-hash-uppercase", w.resigned(t, accept, nil, setMember(t, "/previousHash", "0x"+strings.ToUpper(w.env[accept].PreviousHash.String()[2:])))},
		{"bad_hex--public-key-31-bytes", w.resigned(t, prop, nil, setMember(t, "/sender/xmtpPublicKey", w.poster.sender().XMTPPublicKey.String()[:64]))},
		{"bad_hex--signature-without-0x", w.unsigned(t, prop, func(d map[string]any) { setPath(t, d, "/signature", getString(t, d, "/signature")[2:]) })},
		{"bad_hex--evm-signature-64-bytes", w.resigned(t, accept, nil, func(d map[string]any) {
			setPath(t, d, "/payload/signature", getString(t, d, "/payload/signature")[:130])
		})},

		{"bad_uuid--uppercase", w.resigned(t, prop, nil, setMember(t, "/negotiationId", strings.ToUpper(w.env[prop].NegotiationID)))},
		{"bad_uuid--version-1", w.resigned(t, prop, nil, setMember(t, "/negotiationId", "6ba7b810-9dad-11d1-80b4-00c04fd430c8"))},

		{"bad_timestamp--no-milliseconds", w.resigned(t, prop, nil, setMember(t, "/timestamp", ts.Format("2006-01-02T15:04:05Z")))},
		{"bad_timestamp--offset-instead-of-z", w.resigned(t, prop, nil, setMember(t, "/timestamp", ts.In(time.FixedZone("CEST", 2*3600)).Format("2006-01-02T15:04:05.000-07:00")))},
		{"bad_timestamp--six-fractional-digits", w.resigned(t, prop, nil, setMember(t, "/timestamp", ts.Format("2006-01-02T15:04:05.000000Z")))},
		{"bad_timestamp--month-13", w.resigned(t, prop, nil, setMember(t, "/timestamp", strings.Replace(FormatTime(ts), "-06-", "-13-", 1)))},

		{"bad_integer--leading-zero", w.resigned(t, prop, nil, setMember(t, "/payload/terms/milestones/0/amount", "0"+w.env[prop].Payload.(*TaskProposal).Terms.Milestones[0].Amount.String()))},
		{"bad_integer--negative", w.resigned(t, prop, nil, setMember(t, "/payload/terms/chainId", "-31337"))},
		{"bad_integer--2-to-the-256", w.resigned(t, prop, nil, setMember(t, "/payload/terms/milestones/0/amount", pow2(256)))},
		{"bad_integer--nonce-2-to-the-128", w.resigned(t, prop, nil, setMember(t, "/payload/terms/nonce", pow2(128)))},

		{"bad_cid--cidv0", w.resigned(t, delivery, nil, setMember(t, "/payload/proofCid", "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG"))},
		{"bad_cid--uppercase-base32", w.resigned(t, delivery, nil, setMember(t, "/payload/proofCid", "B"+strings.ToUpper(string(realCID.String()[1:]))))},
		{"bad_cid--truncated-digest", w.resigned(t, delivery, nil, setMember(t, "/payload/proofCid", truncatedCID))},

		// bad_file_name: a name the other party's screens would show as
		// something else, or a path.
		{"bad_file_name--path-with-dot-dot", w.resigned(t, delivery, nil, setMember(t, "/payload/files/0/name", "../../.ssh/authorized_keys"))},
		{"bad_file_name--only-dots", w.resigned(t, delivery, nil, setMember(t, "/payload/files/0/name", ".."))},
		{"bad_file_name--backslash", w.resigned(t, "12-DisputeEvidence", nil, setMember(t, "/payload/files/0/name", `..\evidence.txt`))},
		{"bad_file_name--nul", w.resigned(t, delivery, nil, setMember(t, "/payload/files/0/name", "report.pdf\x00.exe"))},
		{"bad_file_name--control-character", w.resigned(t, delivery, nil, setMember(t, "/payload/files/0/name", "report\x1b[8m.pdf"))},
		{"bad_file_name--bidi-override", w.resigned(t, delivery, nil, setMember(t, "/payload/files/0/name", "invoice\u202efdp.exe"))},
		{"bad_file_name--256-characters", w.resigned(t, delivery, nil, setMember(t, "/payload/files/0/name", strings.Repeat("n", 256)))},

		{"bad_signature--tampered-payload", w.unsigned(t, prop, setMember(t, "/payload/terms/title", "Translate the user guide into French"))},
		{"bad_signature--signed-by-another-key", w.resigned(t, prop, w.worker, func(map[string]any) {})},
		{"bad_signature--readdressed", w.unsigned(t, prop, setMember(t, "/recipients/0", w.worker2.addr.String()))},

		{"bad_evm_signature--v-0", w.resigned(t, accept, nil, editEVMSig(t, func(s []byte) { s[64] -= 27 }))},
		{"bad_evm_signature--v-1", w.resigned(t, accept, nil, editEVMSig(t, func(s []byte) { s[64] = 1 }))},
		{"bad_evm_signature--high-s", w.resigned(t, accept, nil, editEVMSig(t, func(s []byte) {
			// The malleable twin: s' = n - s with the other v recovers the
			// same signer, so only the low-s rule refuses it.
			hi := new(big.Int).Sub(secp256k1N, new(big.Int).SetBytes(s[32:64]))
			hi.FillBytes(s[32:64])
			s[64] = 27 + 28 - s[64]
		}))},

		{"previous_hash_mismatch--sequence-1-with-nonzero-previous-hash", w.resigned(t, prop, nil, setMember(t, "/previousHash", seedHash("not zero").String()))},
	}
	out := make([]fixture, len(gens))
	for i, g := range gens {
		out[i] = fixture{name: g.name + ".json", data: g.data}
	}
	slices.SortFunc(out, func(a, b fixture) int { return strings.Compare(a.name, b.name) })
	return out
}

// getAny returns the value at the member path keys.
func getAny(d map[string]any, keys ...string) any {
	var cur any = d
	for _, k := range keys {
		cur = cur.(map[string]any)[k]
	}
	return cur
}

// flipCase swaps the case of the first hex letter of an address, which
// breaks its EIP-55 checksum and nothing else.
func flipCase(a string) string {
	b := []byte(a)
	for i := 2; i < len(b); i++ {
		switch {
		case 'a' <= b[i] && b[i] <= 'f':
			b[i] -= 'a' - 'A'
			return string(b)
		case 'A' <= b[i] && b[i] <= 'F':
			b[i] += 'a' - 'A'
			return string(b)
		}
	}
	return a
}

// base32NoPad is RFC 4648 base32 without padding (multibase b, before
// lowering).
func base32NoPad(b []byte) string {
	return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b)
}
