package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/node"
	"github.com/parleynet/parley/node/api"
)

// Exit statuses of the client commands.
const (
	exitRefused     = 1 // the node refused the call (its code and message are printed)
	exitUsage       = 2 // bad arguments or flag values, or no way to find the node
	exitUnreachable = 3 // the node did not answer
)

// clientFlags are the flags of every command that talks to a node's API:
// how to find the node and how to print.
type clientFlags struct {
	api, keyFile, dataDir, config string
	json, quiet                   bool
	idemKey                       string
}

// register adds the connection and output flags to fs.
func (f *clientFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.api, "api", "", "the node's API, such as http://127.0.0.1:7464 (default $PARLEY_API, else api.listen of the data directory's "+ConfigFileName+")")
	fs.StringVar(&f.keyFile, "api-key-file", "", "file holding the API's bearer key (default $PARLEY_API_KEY_FILE, else <data-dir>/"+APIKeyFileName+")")
	fs.StringVar(&f.dataDir, "data-dir", "", "the node's data directory (default $PARLEY_DATA_DIR, else ~/.parley)")
	fs.StringVar(&f.config, "config", "", "the node's configuration file (default $PARLEY_CONFIG, else <data-dir>/"+ConfigFileName+")")
	fs.BoolVar(&f.json, "json", false, "print the API's JSON answer as it is (refusals too), and no progress lines")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "print no progress lines on stderr")
}

// registerAct adds the flags of a command that performs an act.
func (f *clientFlags) registerAct(fs *pflag.FlagSet) {
	fs.StringVar(&f.idemKey, "idempotency-key", "", "send the act with this Idempotency-Key (repeat an act that could not reach the node with the key it printed; the node performs it once)")
}

// endpoint resolves the node's API URL and bearer key: --api, then
// $PARLEY_API, then the api.listen of the node's configuration (located
// by --config or --data-dir as `parley node run` locates it); the key from
// --api-key-file, then $PARLEY_API_KEY_FILE, then <data-dir>/api.key.
func (f *clientFlags) endpoint(getenv func(string) string) (string, []byte, error) {
	url, keyFile := f.api, f.keyFile
	if url == "" {
		url = getenv("PARLEY_API")
	}
	if keyFile == "" {
		keyFile = getenv("PARLEY_API_KEY_FILE")
	}
	if url == "" || keyFile == "" {
		fs := pflag.NewFlagSet("client", pflag.ContinueOnError)
		fs.String("data-dir", "", "")
		fs.String("config", "", "")
		if f.dataDir != "" {
			_ = fs.Set("data-dir", f.dataDir)
		}
		if f.config != "" {
			_ = fs.Set("config", f.config)
		}
		s, err := loadSettings(fs, getenv)
		if err != nil {
			return "", nil, usageErr(fmt.Errorf("finding the node: %w", err))
		}
		if url == "" {
			where := s.File
			if where == "" {
				where = "the defaults"
			}
			if s.APIListen == "" {
				return "", nil, usageErr(fmt.Errorf("finding the node: its API is off (api.listen is empty in %s); give --api", where))
			}
			host, port, err := net.SplitHostPort(s.APIListen)
			if err != nil {
				return "", nil, usageErr(fmt.Errorf("finding the node: api.listen %q in %s is not host:port; give --api", s.APIListen, where))
			}
			if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
				host = "127.0.0.1"
			}
			url = "http://" + net.JoinHostPort(host, port)
		}
		if keyFile == "" {
			keyFile = filepath.Join(s.Node.DataDir, APIKeyFileName)
		}
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return "", nil, usageErr(fmt.Errorf("reading the API key: %w (give --api-key-file, or the node's --data-dir)", err))
	}
	return url, []byte(strings.TrimSpace(string(key))), nil
}

// connFlags repeats the connection flags the command was given, for hints
// that name another command.
func (f *clientFlags) connFlags() string {
	var b strings.Builder
	for _, kv := range [][2]string{{"--api", f.api}, {"--api-key-file", f.keyFile}, {"--data-dir", f.dataDir}, {"--config", f.config}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, " %s %s", kv[0], kv[1])
		}
	}
	return b.String()
}

// session is one command's connection to a node.
type session struct {
	cmd *cobra.Command
	f   *clientFlags
	url string
	key []byte
	c   *api.Client

	mu  sync.Mutex
	raw []byte // the last JSON answer read
}

// connect resolves the node and builds the command's client (no I/O but
// reading the key).
func (f *clientFlags) connect(cmd *cobra.Command) (*session, error) {
	url, key, err := f.endpoint(os.Getenv)
	if err != nil {
		return nil, err
	}
	s := &session{cmd: cmd, f: f, url: url, key: key}
	s.c, err = api.NewClient(url, key, api.WithRetries(2, 100*time.Millisecond), api.WithAnswerHook(func(_ string, _ int, body []byte) {
		s.mu.Lock()
		s.raw = body
		s.mu.Unlock()
	}))
	if err != nil {
		return nil, usageErr(err)
	}
	return s, nil
}

// ctx returns the command's context, with the act's Idempotency-Key when
// --idempotency-key was given.
func (s *session) ctx() context.Context {
	ctx := s.cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if s.f.idemKey != "" {
		ctx = api.WithIdempotencyKey(ctx, s.f.idemKey)
	}
	return ctx
}

func (s *session) out() io.Writer { return s.cmd.OutOrStdout() }

// show prints the answer: its JSON as the node sent it with --json, else
// what human writes.
func (s *session) show(human func(w io.Writer)) error {
	if s.f.json {
		s.mu.Lock()
		raw := s.raw
		s.mu.Unlock()
		w := s.out()
		_, _ = w.Write(raw)
		if len(raw) == 0 || raw[len(raw)-1] != '\n' {
			_, _ = io.WriteString(w, "\n")
		}
		return nil
	}
	human(s.out())
	return nil
}

// fail maps a call's error to the command's exit status: a refusal is 1
// (with --json its JSON body is printed too), a node that does not answer
// 3, anything else 1.
func (s *session) fail(err error) error {
	var ae *api.Error
	var te *api.TransportError
	switch {
	case errors.As(err, &ae):
		s.mu.Lock()
		answered := len(s.raw) > 0
		s.mu.Unlock()
		if s.f.json && answered {
			_ = s.show(nil)
		}
		if ae.RetryAfter > 0 {
			return &exitError{code: exitRefused, err: fmt.Errorf("the node refused: %s: %s (try again in %s)", ae.Code, ae.Message, ae.RetryAfter)}
		}
		return &exitError{code: exitRefused, err: fmt.Errorf("the node refused: %s: %s", ae.Code, ae.Message)}
	case errors.As(err, &te):
		msg := fmt.Sprintf("cannot reach the node at %s (is `parley node run` running there?): %v", s.url, te.Err)
		if te.IdempotencyKey != "" {
			msg += fmt.Sprintf("; the act may have been performed: repeat it with --idempotency-key %s, the node then performs it at most once", te.IdempotencyKey)
		}
		return &exitError{code: exitUnreachable, err: errors.New(msg)}
	case errors.Is(err, context.Canceled):
		return &exitError{code: exitRefused, err: errors.New("interrupted before the node answered (an act waiting for its approval is abandoned with the request; one already under way may complete: see parley negotiation show)")}
	}
	return &exitError{code: exitRefused, err: err}
}

// act performs an act while following the node's events for negotiation
// nid ("" for an act that opens a negotiation: then only approval
// requests are followed), printing a progress line per event on stderr
// unless --json or --quiet. The lines of the events up to the act's own
// envelope are printed before act returns.
func (s *session) act(nid string, do func(ctx context.Context) (node.ActResult, error)) (node.ActResult, error) {
	stop := s.follow(nid)
	r, err := do(s.ctx())
	until := ""
	if err == nil && r.Envelope != nil {
		until = r.Envelope.Hash.String()
	}
	stop(until)
	if err != nil {
		return r, s.fail(err)
	}
	return r, nil
}

// followGrace bounds how long a finished act waits for its own envelope's
// event on the stream.
const followGrace = 2 * time.Second

// follow starts printing progress lines for nid's events; the returned
// function waits (bounded) until the event of envelope hash until was
// read ("" waits for nothing), then stops and waits. Progress is best
// effort: a node whose event stream cannot be read prints none.
func (s *session) follow(nid string) func(until string) {
	if s.f.json || s.f.quiet {
		return func(string) {}
	}
	fc, err := api.NewClient(s.url, s.key, api.WithRetries(0, time.Millisecond))
	if err != nil {
		return func(string) {}
	}
	ctx, cancel := context.WithCancel(s.ctx())
	ch, err := fc.Events(ctx, nid)
	if err != nil {
		cancel()
		return func(string) {}
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	tick := make(chan struct{}, 1)
	done := make(chan struct{})
	w := s.cmd.ErrOrStderr()
	go func() {
		defer close(done)
		for ev := range ch {
			if nid == "" && ev.Kind != node.EventApproval {
				continue
			}
			if line := s.progressLine(ctx, fc, ev); line != "" {
				fmt.Fprintln(w, line)
			}
			mu.Lock()
			seen[ev.Hash] = true
			mu.Unlock()
			select {
			case tick <- struct{}{}:
			default:
			}
		}
	}()
	return func(until string) {
		if until != "" && nid != "" {
			grace := time.NewTimer(followGrace)
		wait:
			for {
				mu.Lock()
				ok := seen[until]
				mu.Unlock()
				if ok {
					break
				}
				select {
				case <-tick:
				case <-done:
					break wait
				case <-grace.C:
					break wait
				}
			}
			grace.Stop()
		}
		cancel()
		<-done
	}
}

// progressLine describes one event for a person following an act ("" for
// an event not worth a line).
func (s *session) progressLine(ctx context.Context, fc *api.Client, ev node.Event) string {
	switch ev.Kind {
	case node.EventApproval:
		switch ev.Code {
		case "request-created":
			reqs, _ := fc.Approvals(ctx)
			for _, r := range reqs {
				if r.Request.IntentHash == ev.Hash {
					return fmt.Sprintf("waiting for approval %s (%s): %s; approve it with your passkey on the node's pages, or: parley approvals approve %s --software-key FILE%s",
						r.Request.RequestID, ev.Detail, r.Title, r.Request.RequestID, s.f.connFlags())
				}
			}
			return fmt.Sprintf("approval requested: %s", ev.Detail)
		case "consumed":
			return fmt.Sprintf("approved: %s", ev.Detail)
		case "denied":
			return fmt.Sprintf("denied: %s", ev.Detail)
		}
		return fmt.Sprintf("approval of %s: %s", ev.Detail, ev.Code)
	case node.EventEnvelope:
		line := fmt.Sprintf("%s %s %s (state %s)", ev.Direction, ev.Type, ev.Hash, ev.State)
		if ev.Code != "" && ev.Code != "ok" {
			line += ", refused: " + ev.Code
		}
		return line
	case node.EventState:
		return fmt.Sprintf("state %s -> %s (%s)", ev.From, ev.State, ev.State.A2A())
	case node.EventFact:
		if ev.Code == string(negotiation.CodeDuplicate) {
			return "" // the same chain event seen again (a receipt, then the watcher)
		}
		line := fmt.Sprintf("chain: %s in tx %s (state %s)", ev.Fact, ev.Hash, ev.State)
		if ev.Code != "" && ev.Code != "ok" {
			line += ", refused: " + ev.Code
		}
		return line
	case node.EventFile:
		return fmt.Sprintf("fetched %s (%s), checked against its CID", ev.Detail, ev.CID)
	case node.EventJoined:
		return fmt.Sprintf("joined from proof bundle %s (state %s)", ev.CID, ev.State)
	case node.EventTopic:
		return fmt.Sprintf("evidence topic %s: %s %s", ev.Detail, ev.Type, ev.Hash)
	case node.EventAnnouncement:
		return fmt.Sprintf("announcement %s %s", ev.Direction, ev.Hash)
	case node.EventRefused:
		return fmt.Sprintf("refused by %s: %s (envelope %s not delivered)", ev.Detail, ev.Code, ev.CID)
	case node.EventConsent:
		return fmt.Sprintf("consent: %s is %s", ev.Detail, ev.Code)
	case node.EventTimeout:
		if ev.Detail != "" {
			return fmt.Sprintf("timeout exit due: %s of milestone %s (parley timeout --help)", ev.Fact, ev.Detail)
		}
		return fmt.Sprintf("timeout exit due: %s (parley timeout --help)", ev.Fact)
	}
	return strings.TrimSpace(fmt.Sprintf("%s %s %s", ev.Kind, ev.Code, ev.Detail))
}

// exitError helpers.

func usageErr(err error) error { return &exitError{code: exitUsage, err: err} }

// flagErr names a flag and its bad value.
func flagErr(flag, value string, err error) error {
	return usageErr(fmt.Errorf("--%s %q: %w", flag, value, err))
}

// usageArgs makes a cobra argument check's failure a usage error.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageErr(fmt.Errorf("%w (see %s --help)", err, cmd.CommandPath()))
		}
		return nil
	}
}

// Arguments.

var hashRE = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)

// isHash reports whether s is an envelope hash (an announcement's).
func isHash(s string) bool { return hashRE.MatchString(s) }

// parseHashArg parses an announcement hash in any hex case.
func parseHashArg(what, s string) (negotiation.Hash, error) {
	if !isHash(s) {
		return negotiation.Hash{}, usageErr(fmt.Errorf("%s %q is not an announcement hash (0x and 64 hex digits)", what, s))
	}
	h, err := negotiation.ParseHash(strings.ToLower(s))
	if err != nil {
		return h, usageErr(fmt.Errorf("%s %q: %w", what, s, err))
	}
	return h, nil
}

// parseNegArg parses a negotiation id (a UUID v4, any case).
func parseNegArg(s string) (string, error) {
	id := strings.ToLower(s)
	if _, err := negotiation.ParseNegotiationID(id); err != nil {
		return "", usageErr(fmt.Errorf("negotiation %q is not a negotiation id (a UUID v4 such as 6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b)", s))
	}
	return id, nil
}

// negOrAnnouncement tells a negotiation id from an announcement hash.
func negOrAnnouncement(s string) (nid string, ann negotiation.Hash, isAnn bool, err error) {
	if isHash(s) {
		ann, err = parseHashArg("announcement", s)
		return "", ann, true, err
	}
	if nid, err = parseNegArg(s); err != nil {
		return "", ann, false, usageErr(fmt.Errorf("%q is neither a negotiation id (a UUID) nor an announcement hash (0x and 64 hex digits)", s))
	}
	return nid, ann, false, nil
}

// parseAddr parses an EVM address in any hex case.
func parseAddr(what, s string) (negotiation.Address, error) {
	if !strings.HasPrefix(s, "0x") || !common.IsHexAddress(s) {
		return negotiation.Address{}, usageErr(fmt.Errorf("%s %q is not a 0x-prefixed 20-byte address", what, s))
	}
	return negotiation.Address(common.HexToAddress(s)), nil
}

var amountRE = regexp.MustCompile(`^([0-9]+)(?:\.([0-9]+))?\s*([a-zA-Z]*)$`)

// parseAmount parses an amount in wei: a whole number of wei, or a
// decimal with an eth or gwei suffix (0.5eth, 250gwei, 1000wei, 1000).
func parseAmount(s string) (*big.Int, error) {
	m := amountRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return nil, errors.New("not an amount such as 0.5eth, 250gwei or 1000 (wei)")
	}
	decimals := 0
	switch strings.ToLower(m[3]) {
	case "", "wei":
	case "gwei":
		decimals = 9
	case "eth", "ether":
		decimals = 18
	default:
		return nil, fmt.Errorf("unknown unit %q (eth, gwei or wei)", m[3])
	}
	frac := m[2]
	if len(frac) > decimals {
		return nil, fmt.Errorf("more than %d decimals: an amount is a whole number of wei", decimals)
	}
	v, ok := new(big.Int).SetString(m[1]+frac+strings.Repeat("0", decimals-len(frac)), 10)
	if !ok {
		return nil, errors.New("not a number")
	}
	if v.Sign() <= 0 {
		return nil, errors.New("an amount must be positive")
	}
	if v.BitLen() > 255 {
		return nil, errors.New("too large")
	}
	return v, nil
}

// parseMilestones parses --milestone AMOUNT:DESCRIPTION values.
func parseMilestones(vals []string) ([]node.MilestoneSpec, error) {
	out := make([]node.MilestoneSpec, 0, len(vals))
	for _, v := range vals {
		amt, desc, _ := strings.Cut(v, ":")
		a, err := parseAmount(amt)
		if err != nil {
			return nil, flagErr("milestone", v, fmt.Errorf("%w (want AMOUNT:DESCRIPTION)", err))
		}
		out = append(out, node.MilestoneSpec{Amount: a, Description: strings.TrimSpace(desc)})
	}
	return out, nil
}

var daysRE = regexp.MustCompile(`^([0-9]+)d$`)

// parseDeadline parses --deadline: a duration from now (72h, 3d, 90m) or
// an RFC 3339 time.
func parseDeadline(s string, now time.Time) (time.Time, error) {
	if m := daysRE.FindStringSubmatch(s); m != nil {
		d, _ := strconv.Atoi(m[1])
		return now.Add(time.Duration(d) * 24 * time.Hour).UTC().Truncate(time.Second), nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return time.Time{}, flagErr("deadline", s, errors.New("a duration from now must be positive"))
		}
		return now.Add(d).UTC().Truncate(time.Second), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, flagErr("deadline", s, errors.New("want a duration from now such as 72h or 3d, or an RFC 3339 time such as 2026-07-01T12:00:00Z"))
	}
	return t.UTC(), nil
}

// readFileArg reads a file a command sends (a delivery, evidence).
func readFileArg(flag, path string) ([]byte, error) {
	if path == "" {
		return nil, usageErr(fmt.Errorf("--%s is required", flag))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, flagErr(flag, path, err)
	}
	return b, nil
}

// Human output.

// fmtAmount formats an amount of token: "0.5 ETH (500000000000000000 wei)"
// for ETH, the amount in the token's units otherwise.
func fmtAmount(v *big.Int, token negotiation.Address) string {
	if v == nil {
		v = new(big.Int)
	}
	if token != (negotiation.Address{}) {
		return fmt.Sprintf("%s units of token %s", v, token)
	}
	return fmt.Sprintf("%s ETH (%s wei)", node.FormatETH(v), v)
}

// tokenLine says which ERC-20 token a task is in: its symbol and name,
// its address and its decimals, where the token has them.
func tokenLine(tv node.TokenView) string {
	s := tv.Address.String()
	switch {
	case tv.Symbol != "" && tv.Name != "":
		s = tv.Symbol + " (" + tv.Name + ") " + s
	case tv.Symbol != "":
		s = tv.Symbol + " " + s
	}
	if tv.Decimals != nil {
		return fmt.Sprintf("%s, %d decimals", s, *tv.Decimals)
	}
	return s + ", amounts in its smallest unit"
}

// fmtAmountString formats a decimal wei string.
func fmtAmountString(s string, token negotiation.Address) string {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return s
	}
	return fmtAmount(v, token)
}

func fmtUnix(sec uint64) string {
	return time.Unix(int64(sec), 0).UTC().Format(time.RFC3339)
}

// table writes aligned columns.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer) table { return table{tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)} }

func (t table) row(cells ...any) {
	for i, c := range cells {
		if i > 0 {
			fmt.Fprint(t.tw, "\t")
		}
		fmt.Fprint(t.tw, c)
	}
	fmt.Fprint(t.tw, "\n")
}

func (t table) flush() { _ = t.tw.Flush() }

// termsTotal sums the terms' milestones.
func termsTotal(t negotiation.Terms) *big.Int {
	sum := new(big.Int)
	for _, m := range t.Milestones {
		sum.Add(sum, m.Amount.Big())
	}
	return sum
}

// printTerms writes the terms' lines.
func printTerms(t table, terms negotiation.Terms) { printTermsIn(t, terms, nil) }

// printTermsIn writes the terms' lines, with the amounts in the token tv
// (its symbol and decimals) when the node read it.
func printTermsIn(t table, terms negotiation.Terms, tv *node.TokenView) {
	amount := func(v *big.Int) string {
		if tv != nil {
			return tv.Format(v)
		}
		return fmtAmount(v, terms.Token)
	}
	t.row("title", terms.Title)
	if terms.Category != "" {
		t.row("category", terms.Category)
	}
	if terms.Description != "" {
		t.row("description", terms.Description)
	}
	if terms.ScopeHash != nil {
		t.row("scope hash", terms.ScopeHash.String())
	}
	for i, m := range terms.Milestones {
		t.row(fmt.Sprintf("milestone %d", i), amount(m.Amount.Big())+"  "+m.Description)
	}
	t.row("total", amount(termsTotal(terms)))
	t.row("deadline", fmtUnix(terms.Deadline))
}

// printAnnouncement writes an announcement.
func printAnnouncement(w io.Writer, a node.Announcement) {
	t := newTable(w)
	t.row("announcement", a.Hash)
	t.row("poster", a.Poster)
	if a.Own {
		t.row("own", "yes (this node posted it)")
	}
	t.row("posted", a.Timestamp.UTC().Format(time.RFC3339))
	printTerms(t, a.Terms)
	if sc := a.Scope; sc != nil {
		t.row("scope on chain", string(sc.State))
	}
	if a.ScopeTx != nil {
		t.row("scope tx", a.ScopeTx.Hash)
	}
	t.flush()
}

// printThread writes a negotiation.
func printThread(w io.Writer, v node.ThreadView, withLog bool) {
	t := newTable(w)
	threadRows(t, v)
	t.flush()
	if withLog && len(v.Log) > 0 {
		fmt.Fprintln(w, "log:")
		lt := newTable(w)
		for _, r := range v.Log {
			lt.row("  "+strconv.FormatUint(r.Seq, 10), r.Type, r.Sender, r.Hash, r.Code, r.State)
		}
		lt.flush()
	}
}

// threadRows writes a negotiation's lines.
func threadRows(t table, v node.ThreadView) {
	t.row("negotiation", v.NegotiationID)
	t.row("state", fmt.Sprintf("%s (%s)", v.State, v.A2A))
	if v.Role != "" {
		t.row("role", v.Role)
	}
	for _, p := range []struct {
		name string
		a    *negotiation.Address
	}{{"poster", v.Poster}, {"worker", v.Worker}, {"arbitrator", v.Arbitrator}} {
		if p.a != nil {
			t.row(p.name, *p.a)
		}
	}
	if v.Announcement != nil {
		t.row("announcement", *v.Announcement)
	}
	if l := v.CounterpartyLink; l != nil {
		t.row("counterparty identity", fmt.Sprintf("%s on chain (IdentityLink, %s)", l.State, l.Address))
	}
	if c := v.Current; c != nil {
		t.row("offer", fmt.Sprintf("revision %d by %s (%s)", c.Revision, c.By, c.Hash))
		if tv := v.Token; tv != nil {
			t.row("token", tokenLine(*tv))
		}
		printTermsIn(t, c.Terms, v.Token)
	}
	if a := v.Agreement; a != nil {
		tok := negotiation.Address{}
		if v.Current != nil {
			tok = v.Current.Terms.Token
		}
		amount := fmtAmountString(a.Amount, tok)
		if x, ok := new(big.Int).SetString(a.Amount, 10); ok && v.Token != nil {
			amount = v.Token.Format(x)
		}
		t.row("agreement", fmt.Sprintf("%s, digest %s", amount, a.Digest))
	}
	if v.TaskID != "" {
		t.row("task", v.TaskID)
	}
	for _, r := range v.Refused {
		what := r.CID
		if r.Envelope != nil {
			what = r.Envelope.String()
		}
		t.row("refused", fmt.Sprintf("%s by %s: %s (not delivered)", r.Code, r.To, what))
	}
	if v.DisputeID != "" {
		t.row("dispute", v.DisputeID)
	}
	if v.Ruling != nil {
		share := "refused to rule"
		if bps, ok := negotiation.WorkerShare(*v.Ruling); ok {
			share = bps.String() + " basis points to the worker"
		}
		t.row("ruling", fmt.Sprintf("%d (%s)", *v.Ruling, share))
	}
	for _, d := range v.Deliveries {
		state := "not accepted"
		if d.Accepted {
			state = "accepted"
		}
		if !d.Fetched {
			state += ", files not fetched yet"
		}
		t.row(fmt.Sprintf("delivery %d", d.Milestone), fmt.Sprintf("proof %s, %s", d.ProofCID, state))
	}
	printPayments(t, v)
	if v.Pending > 0 {
		t.row("pending facts", v.Pending)
	}
	if len(v.Log) > 0 {
		last := v.Log[len(v.Log)-1]
		t.row("envelopes", fmt.Sprintf("%d, last %s %s (%s)", len(v.Log), last.Type, last.Hash, last.Code))
	}
}

// printAct writes what an act did: its envelope, its transaction, its
// details, then the negotiation.
func printAct(w io.Writer, r node.ActResult) {
	t := newTable(w)
	if e := r.Envelope; e != nil {
		t.row("sent", fmt.Sprintf("%s %s", e.Type, e.Hash))
	}
	if x := r.Tx; x != nil {
		t.row("tx", fmt.Sprintf("%s mined in block %d (gas %d)", x.Hash, x.Block, x.GasUsed))
	}
	keys := make([]string, 0, len(r.Detail))
	for k := range r.Detail {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		t.row(k, r.Detail[k])
	}
	if r.Thread.NegotiationID != "" {
		threadRows(t, r.Thread)
	}
	t.flush()
}

// commandGroups sorts the root's commands for `parley --help`: running a
// node, driving a running node through its API, and offline tools. A
// command not named here is listed under "Additional Commands".
var commandGroups = []struct {
	id, title string
	names     []string
}{
	{"node", "Run a node:", []string{"init", "node", "devnet", "devchain", "contracts", "demo", "bench"}},
	{"client", "Drive a running node (through its API; --api, or the node's --data-dir):", []string{
		"status", "peers", "events", "consent", "task", "negotiation", "offer", "fund", "deliver", "accept-delivery",
		"cancel", "amend", "replace", "dispute", "timeout", "approvals", "agents", "withdraw", "balance", "card", "escalations", "brief",
		"veto", "capability", "revision", "payment", "identity"}},
	{"tools", "Keys, envelopes, settlements, ledgers and bundles:", []string{"keys", "envelope", "settlement", "ledger", "bundle", "version"}},
}

// groupCommands puts root's commands in their help groups.
func groupCommands(root *cobra.Command) {
	group := map[string]string{}
	for _, g := range commandGroups {
		root.AddGroup(&cobra.Group{ID: g.id, Title: g.title})
		for _, n := range g.names {
			group[n] = g.id
		}
	}
	for _, c := range root.Commands() {
		c.GroupID = group[c.Name()]
	}
}
