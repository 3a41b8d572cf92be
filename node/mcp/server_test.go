package mcp

import (
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleynet/parley/negotiation"
)

// testKey is the agent key of the test servers.
const testKey = "9c4f1e2d3b5a69788796a5b4c3d2e1f0"

const testPeer = "12D3KooWTestNodeXYZ"

var counterpartAddr = "0x2222222222222222222222222222222222222222"

// served is a Server over the fake rooms on a loopback test listener.
type served struct {
	f   *fakeRooms
	s   *Server
	url string
}

func serveFake(t *testing.T, opts Options) *served {
	t.Helper()
	f := newFakeRooms()
	if opts.Key == nil {
		opts.Key = []byte(testKey)
	}
	if opts.PeerID == "" {
		opts.PeerID = testPeer
	}
	opts.Address = f.self
	s, err := New(f, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		_ = s.Close()
		ts.Close()
	})
	return &served{f: f, s: s, url: ts.URL}
}

// bearer adds an Authorization header to every request.
type bearer struct {
	key  string
	base http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.base.RoundTrip(r)
}

// connect opens a client session with the Go SDK's client over
// Streamable HTTP; key "" sends no Authorization header.
func connect(t testing.TB, url, key string) *sdk.ClientSession {
	t.Helper()
	hc := &http.Client{Transport: http.DefaultTransport}
	if key != "" {
		hc.Transport = bearer{key: key, base: http.DefaultTransport}
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "parley-test-agent", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// seatHeader adds the seat link header to every request.
type seatHeader struct {
	link string
	base http.RoundTripper
}

func (h seatHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(HeaderSeat, h.link)
	return h.base.RoundTrip(r)
}

// connectSeat opens a client session as an agent that holds a seat link
// and not the agent key: the link in the Parley-Seat header.
func connectSeat(t testing.TB, url, link string) *sdk.ClientSession {
	t.Helper()
	hc := &http.Client{Transport: seatHeader{link: link, base: http.DefaultTransport}}
	c := sdk.NewClient(&sdk.Implementation{Name: "parley-test-agent", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// initialize sends an MCP initialize request with the given headers and
// returns the answer's status, session id and body.
func initialize(t testing.TB, url string, header map[string]string) (int, string, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
}

// wantNoSession wants a session opened with key ("" for none) refused
// with 401 and the sign-in sentence.
func wantNoSession(t testing.TB, url, key string) {
	t.Helper()
	h := map[string]string{}
	if key != "" {
		h["Authorization"] = "Bearer " + key
	}
	st, id, body := initialize(t, url, h)
	if st != http.StatusUnauthorized || id != "" || !strings.Contains(body, "Sign-in required") {
		t.Fatalf("a session without credentials: %d %q %s", st, id, body)
	}
}

// call calls a tool and returns its result (a tool error included).
func call(t testing.TB, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// text is a result's text content.
func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// ok calls a tool, wants success and decodes the answer into out.
func ok[T any](t testing.TB, cs *sdk.ClientSession, name string, args any) T {
	t.Helper()
	res := call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, text(res))
	}
	var out T
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil {
		t.Fatalf("%s: %v: %s", name, err, text(res))
	}
	return out
}

// refused calls a tool and wants a tool error containing want.
func refused(t testing.TB, cs *sdk.ClientSession, name string, args any, want string) string {
	t.Helper()
	res := call(t, cs, name, args)
	if !res.IsError {
		t.Fatalf("%s %v: succeeded (%s), want a tool error with %q", name, args, text(res), want)
	}
	if !strings.Contains(text(res), want) {
		t.Fatalf("%s %v: tool error %q, want it to contain %q", name, args, text(res), want)
	}
	return text(res)
}

func countCalls(f *fakeRooms, prefix string) int {
	n := 0
	for _, c := range f.callsOf() {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

// TestToolsListed: the eight PXP tools with their reference arguments,
// read-only ones annotated so, and no argument for a key.
func TestToolsListed(t *testing.T) {
	sv := serveFake(t, Options{})
	cs := connect(t, sv.url, testKey)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := make(map[string]*sdk.Tool)
	for _, tl := range res.Tools {
		tools[tl.Name] = tl
	}
	want := map[string]struct {
		readOnly bool
		required []string
		optional []string
	}{
		ToolCreateRoom:       {false, []string{"topic", "your_principal", "counterpart"}, []string{"counterpart_proxy", "passcode"}},
		ToolJoinRoom:         {false, []string{"link"}, []string{"agent_name"}},
		ToolSealIntentCard:   {false, []string{"link", "card"}, nil},
		ToolGetRoom:          {true, []string{"link"}, nil},
		ToolWaitForTurn:      {true, []string{"link"}, []string{"timeout_seconds"}},
		ToolSendEnvelope:     {false, []string{"link", "message", "status"}, []string{"claims", "reviews", "proposal", "escalation"}},
		ToolAnswerEscalation: {false, []string{"link", "answer"}, nil},
		ToolGetBrief:         {true, nil, []string{"room_id", "link"}},
	}
	if len(tools) != len(want) {
		t.Errorf("%d tools, want %d (a server without Acts)", len(tools), len(want))
	}
	for name, w := range want {
		tl := tools[name]
		if tl == nil {
			t.Errorf("tool %s missing", name)
			continue
		}
		if tl.Annotations == nil || tl.Annotations.ReadOnlyHint != w.readOnly {
			t.Errorf("%s: annotations %+v, want readOnlyHint %v", name, tl.Annotations, w.readOnly)
		}
		if !w.readOnly && (tl.Annotations.DestructiveHint == nil || *tl.Annotations.DestructiveHint) {
			t.Errorf("%s: destructiveHint %v, want false", name, tl.Annotations.DestructiveHint)
		}
		sc := tl.InputSchema.(map[string]any)
		props := sc["properties"].(map[string]any)
		var req []string
		for _, r := range asList(sc["required"]) {
			req = append(req, r.(string))
		}
		slices.Sort(req)
		wr := slices.Clone(w.required)
		slices.Sort(wr)
		if !slices.Equal(req, wr) {
			t.Errorf("%s: required %v, want %v", name, req, wr)
		}
		if len(props) != len(w.required)+len(w.optional) {
			t.Errorf("%s: properties %v, want %v and %v", name, keys(props), w.required, w.optional)
		}
		for _, p := range slices.Concat(w.required, w.optional) {
			if props[p] == nil {
				t.Errorf("%s: no property %s", name, p)
			}
		}
		for p := range props {
			if strings.Contains(p, "key") || strings.Contains(p, "auth") || strings.Contains(p, "token") {
				t.Errorf("%s: property %s: the agent key is never an argument", name, p)
			}
		}
		if sc["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties %v, want false", name, sc["additionalProperties"])
		}
	}
	wt := tools[ToolWaitForTurn].InputSchema.(map[string]any)["properties"].(map[string]any)["timeout_seconds"].(map[string]any)
	if wt["minimum"] != 1.0 || wt["maximum"] != 25.0 {
		t.Errorf("timeout_seconds: %v, want minimum 1 and maximum 25", wt)
	}
	st := tools[ToolSendEnvelope].InputSchema.(map[string]any)["properties"].(map[string]any)["status"].(map[string]any)
	if !slices.Equal(asList(st["enum"]), []any{"continue", "agree", "escalate"}) {
		t.Errorf("status enum %v", st["enum"])
	}
	if !strings.Contains(tools[ToolCreateRoom].Description, "Authorization: Bearer") {
		t.Errorf("create_room's description does not say how to sign in: %s", tools[ToolCreateRoom].Description)
	}
	if tools[ToolGetRoom].OutputSchema == nil {
		t.Error("get_room has no output schema")
	}
	if init := cs.InitializeResult(); init == nil || !strings.Contains(init.Instructions, "seal_intent_card") {
		t.Error("no instructions at initialize")
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func keys(m map[string]any) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	return k
}

func createArgs() map[string]any {
	return map[string]any{"topic": "Logo design", "your_principal": "Alice", "counterpart": counterpartAddr, "counterpart_proxy": "external"}
}

// TestSignIn: create_room without the key, with a wrong key, or with the
// key as an argument is refused with the one fixed sentence and creates
// no room; with the key as a bearer header it creates one.
func TestSignIn(t *testing.T) {
	sv := serveFake(t, Options{})
	for _, tc := range []struct {
		name, key string
		args      map[string]any
		want      string
	}{
		{"no key", "", createArgs(), NoCredentials},
		{"wrong key", "0000000000000000ffffffffffffffff", createArgs(), NoCredentials},
		{"key one byte short", testKey[:len(testKey)-1], createArgs(), NoCredentials},
		{"key as an argument", testKey, func() map[string]any { a := createArgs(); a["key"] = testKey; return a }(), "validating"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == NoCredentials {
				wantNoSession(t, sv.url, tc.key) // no session, so no tool either
			} else {
				refused(t, connect(t, sv.url, tc.key), ToolCreateRoom, tc.args, tc.want)
			}
			if n := countCalls(sv.f, "CreateRoom"); n != 0 {
				t.Fatalf("%d rooms created", n)
			}
		})
	}
	cs := connect(t, sv.url, testKey)
	out := ok[createRoomOut](t, cs, ToolCreateRoom, createArgs())
	if n := countCalls(sv.f, "CreateRoom"); n != 1 {
		t.Fatalf("%d rooms created, want 1", n)
	}
	if got := sv.f.callsOf()[0]; got != "CreateRoom Logo design Alice "+counterpartAddr+" parley-test-agent" {
		t.Errorf("backend got %q", got)
	}
	if !strings.HasPrefix(out.YourLink, "parley://"+testPeer+"/rooms/"+out.RoomID+"#seat=") {
		t.Errorf("your_link %q", out.YourLink)
	}
	if out.InviteLink != "parley://12D3KooWCounterpart/rooms/"+out.RoomID {
		t.Errorf("invite link %q", out.InviteLink)
	}
	if out.Role != "poster" || out.NextAction == "" {
		t.Errorf("answer %+v", out)
	}
	// The seat link works without the key; a session opened with it
	// alone gets the fixed sentence from a tool that needs the key.
	anon := connectSeat(t, sv.url, out.YourLink)
	room := ok[roomOut](t, anon, ToolGetRoom, map[string]any{"link": out.YourLink})
	if room.RoomID != out.RoomID || room.Status != "drafting" || room.You.Principal != "Alice" {
		t.Errorf("room %+v", room)
	}
	if msg := refused(t, anon, ToolCreateRoom, createArgs(), SignInRequired); msg != SignInRequired {
		t.Errorf("refusal %q, want exactly the fixed sentence", msg)
	}
	if n := countCalls(sv.f, "CreateRoom"); n != 1 {
		t.Fatalf("%d rooms created, want 1", n)
	}
}

// TestCreateRoomArguments: bad arguments are refused before the node is
// asked.
func TestCreateRoomArguments(t *testing.T) {
	sv := serveFake(t, Options{Passcode: "open sesame"})
	cs := connect(t, sv.url, testKey)
	with := func(k string, v any) map[string]any {
		a := createArgs()
		a["passcode"] = "open sesame"
		if v == nil {
			delete(a, k)
		} else {
			a[k] = v
		}
		return a
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"no topic", with("topic", nil), "validating"},
		{"blank topic", with("topic", "   "), "must not be blank"},
		{"counterpart not an address", with("counterpart", "Bob"), "validating"},
		{"counterpart bad hex", with("counterpart", "0xZZ22222222222222222222222222222222222222"), "not an EVM address"},
		{"counterpart bad checksum", with("counterpart", "0xAbCdEf0000000000000000000000000000000000"), "checksum"},
		{"topic too long", with("topic", strings.Repeat("x", maxTopic+1)), "validating"},
		{"wrong passcode", with("passcode", "nope"), "passcode"},
		{"no passcode", with("passcode", nil), "passcode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refused(t, cs, ToolCreateRoom, tc.args, tc.want)
		})
	}
	if n := countCalls(sv.f, "CreateRoom"); n != 0 {
		t.Fatalf("%d rooms created", n)
	}
	ok[createRoomOut](t, cs, ToolCreateRoom, with("counterpart", strings.ToLower(counterpartAddr)))
}

// newRoom creates a room and returns its seat link.
func newRoom(t *testing.T, sv *served) (string, createRoomOut) {
	t.Helper()
	out := ok[createRoomOut](t, connect(t, sv.url, testKey), ToolCreateRoom, createArgs())
	return out.YourLink, out
}

// TestSeatLink: the seat link is the credential; a link without the
// secret takes the seat only with the key and replaces the old link;
// links for another node or with a wrong secret open nothing.
func TestSeatLink(t *testing.T) {
	dir := t.TempDir()
	seatFile := filepath.Join(dir, "mcp", "seats.json")
	sv := serveFake(t, Options{SeatFile: seatFile})
	link, made := newRoom(t, sv)
	anon := connectSeat(t, sv.url, link)
	l, err := parseLink(link)
	if err != nil {
		t.Fatal(err)
	}
	other := seatLink{Node: l.Node, Room: l.Room, Secret: strings.Repeat("A", 43)}.String()
	elsewhere := seatLink{Node: "12D3KooWSomewhereElse", Room: l.Room, Secret: l.Secret}.String()
	bare := seatLink{Node: l.Node, Room: l.Room}.String()
	byAddr := seatLink{Node: strings.ToLower(sv.f.self.String()), Room: l.Room, Secret: l.Secret}.String()
	before := countCalls(sv.f, "")
	for _, tc := range []struct{ name, link, want string }{
		{"wrong secret", other, "does not open a seat"},
		{"another node", elsewhere, "point your MCP client at that node"},
		{"no secret", bare, "without its seat secret"},
		{"not a link", "https://example.org/room/x?seat=A&t=y", "not a seat link"},
		{"bad room id", "parley://" + testPeer + "/rooms/42#seat=" + l.Secret, "lowercase UUID"},
		{"short secret", "parley://" + testPeer + "/rooms/" + l.Room + "#seat=abc", "malformed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, tool := range []string{ToolGetRoom, ToolWaitForTurn, ToolSealIntentCard, ToolAnswerEscalation, ToolSendEnvelope} {
				args := map[string]any{"link": tc.link, "card": map[string]any{"principal": map[string]any{"name": "A"}, "goal": "g"}, "answer": "yes", "message": "hi", "status": "continue"}
				switch tool {
				case ToolGetRoom, ToolWaitForTurn:
					args = map[string]any{"link": tc.link}
				case ToolSealIntentCard:
					args = map[string]any{"link": tc.link, "card": args["card"]}
				case ToolAnswerEscalation:
					args = map[string]any{"link": tc.link, "answer": "yes"}
				case ToolSendEnvelope:
					args = map[string]any{"link": tc.link, "message": "hi", "status": "continue"}
				}
				refused(t, anon, tool, args, tc.want)
			}
		})
	}
	if n := countCalls(sv.f, ""); n != before {
		t.Fatalf("the node was asked %d times for refused links: %v", n-before, sv.f.callsOf()[before:])
	}
	// The node's EVM address names it as well as its peer id.
	ok[roomOut](t, anon, ToolGetRoom, map[string]any{"link": byAddr})

	// Taking the seat with the bare link needs the key ...
	refused(t, anon, ToolJoinRoom, map[string]any{"link": bare}, SignInRequired)
	// ... and issues a new link that replaces the old one.
	signed := connect(t, sv.url, testKey)
	joined := ok[roomOut](t, signed, ToolJoinRoom, map[string]any{"link": bare, "agent_name": "Claude Desktop"})
	if joined.YourLink == "" || joined.YourLink == link || joined.RoomID != made.RoomID {
		t.Fatalf("join with the key: %+v", joined)
	}
	refused(t, anon, ToolGetRoom, map[string]any{"link": link}, "does not open a seat")
	ok[roomOut](t, anon, ToolGetRoom, map[string]any{"link": joined.YourLink})
	// A negotiation the node has from elsewhere is taken the same way.
	const incoming = "00000000-0000-4000-8000-000000000077"
	sv.f.addRoom(incoming)
	in := ok[roomOut](t, signed, ToolJoinRoom, map[string]any{"link": seatLink{Node: testPeer, Room: incoming}.String()})
	if in.You.Role != "worker" || in.YourLink == "" {
		t.Fatalf("taking an incoming room: %+v", in)
	}
	ok[roomOut](t, anon, ToolGetRoom, map[string]any{"link": in.YourLink})
	// An unknown room cannot be taken.
	unknown := seatLink{Node: testPeer, Room: "00000000-0000-4000-8000-999999999999"}.String()
	refused(t, signed, ToolJoinRoom, map[string]any{"link": unknown}, "unknown_negotiation")

	// Seats survive a restart: a new server over the same file accepts
	// the link and remembers the agent.
	sv2 := serveFake(t, Options{SeatFile: seatFile})
	sv2.f.rooms = sv.f.rooms
	cs2 := connectSeat(t, sv2.url, joined.YourLink)
	ok[roomOut](t, cs2, ToolGetRoom, map[string]any{"link": joined.YourLink})
	refused(t, cs2, ToolGetRoom, map[string]any{"link": link}, "does not open a seat")
	ok[sendOut](t, cs2, ToolSendEnvelope, map[string]any{"link": joined.YourLink, "message": "hello", "status": "continue"})
	if got := sv2.f.agents; !slices.Equal(got, []string{"Claude Desktop"}) {
		t.Errorf("agents recorded %v, want the joined name", got)
	}
}

// TestSendEnvelopeArguments: what send_envelope refuses before the node
// sees it, and what the node gets: claim ids given, new1 resolved, the
// agent named.
func TestSendEnvelopeArguments(t *testing.T) {
	sv := serveFake(t, Options{})
	link, _ := newRoom(t, sv)
	cs := connectSeat(t, sv.url, link)
	base := func(kv ...any) map[string]any {
		a := map[string]any{"link": link, "message": "Here is my offer.", "status": "continue"}
		for i := 0; i < len(kv); i += 2 {
			a[kv[i].(string)] = kv[i+1]
		}
		return a
	}
	terms := []string{"title = Logo design", "milestone = 0.25 ETH: drafts", "milestone = 250000000000000000 wei: final files", "deadline = 2026-07-01"}
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"bad status", base("status", "maybe"), "validating"},
		{"escalate without a question", base("status", "escalate"), "needs escalation"},
		{"escalation with continue", base("escalation", map[string]any{"question": "q?"}), "goes with status"},
		{"agree with a proposal", base("status", "agree", "proposal", map[string]any{"terms": terms}), "carries no proposal"},
		{"claim without origin", base("claims", []any{map[string]any{"text": "x"}}), "validating"},
		{"claim with a bad origin", base("claims", []any{map[string]any{"text": "x", "origin": "rumour"}}), "validating"},
		{"review with a bad verdict", base("reviews", []any{map[string]any{"claim_id": "w1", "verdict": "maybe"}}), "validating"},
		{"free-text term", base("proposal", map[string]any{"terms": []any{"Delivery by Friday"}}), "a term line is"},
		{"unknown term key", base("proposal", map[string]any{"terms": []any{"price = 3"}}), "unknown key"},
		{"amount without unit name", base("proposal", map[string]any{"terms": []any{"milestone = 0.5 bananas"}}), "unknown unit"},
		{"fraction of a wei", base("proposal", map[string]any{"terms": []any{"milestone = 0.5 wei"}}), "whole number of wei"},
		{"bad deadline", base("proposal", map[string]any{"terms": []any{"deadline = next Friday"}}), "neither RFC 3339"},
		{"terms object with unknown member", base("proposal", map[string]any{"terms": map[string]any{"price": "3"}}), "validating"},
		{"depends_on past this envelope", base("claims", []any{map[string]any{"text": "x", "origin": "assumed"}}, "proposal", map[string]any{"terms": terms, "depends_on": []any{"new2"}}), "has 1 claims"},
		{"reserved claim id", base("claims", []any{map[string]any{"id": "new1", "text": "x", "origin": "assumed"}}), "reserved"},
		{"message too long", base("message", strings.Repeat("m", maxMessage+1)), "validating"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refused(t, cs, ToolSendEnvelope, tc.args, tc.want)
		})
	}
	if n := countCalls(sv.f, "Send"); n != 0 {
		t.Fatalf("%d envelopes reached the node", n)
	}
	// A node refusal arrives with its code.
	sv.f.sendErr = &negotiation.Error{Code: negotiation.CodeClaimUntagged, Msg: "claim p1 is stated without ref"}
	refused(t, cs, ToolSendEnvelope, base(), "claim_untagged")
	sv.f.sendErr = nil

	got := ok[sendOut](t, cs, ToolSendEnvelope, base(
		"claims", []any{
			map[string]any{"text": "Budget is 0.5 ETH", "origin": "stated", "ref": "known_facts[0]"},
			map[string]any{"id": "p1", "text": "The brand guide exists", "origin": "sourced", "ref": "brand.pdf"},
			map[string]any{"text": "They can start Monday", "origin": "assumed"},
		},
		"reviews", []any{map[string]any{"claim_id": "w1", "verdict": "challenge", "reason": "source?"}},
		"proposal", map[string]any{"terms": terms, "depends_on": []any{"new3", "w1"}},
	))
	if got.AcceptedEnvelope == nil || got.AcceptedEnvelope.Message != "Here is my offer." {
		t.Fatalf("accepted envelope %+v", got.AcceptedEnvelope)
	}
	m := sv.f.sent[len(sv.f.sent)-1]
	if ids := []string{m.Claims[0].ID, m.Claims[1].ID, m.Claims[2].ID}; !slices.Equal(ids, []string{"p2", "p1", "p3"}) {
		t.Errorf("claim ids %v, want p2 p1 p3 (the agent's own kept, the others numbered around it)", ids)
	}
	if m.Claims[0].Origin != negotiation.OriginStated || m.Claims[0].Ref != "known_facts[0]" {
		t.Errorf("claim %+v", m.Claims[0])
	}
	if m.Reviews[0] != (negotiation.Review{ClaimID: "w1", Verdict: negotiation.VerdictChallenge, Note: "source?"}) {
		t.Errorf("review %+v", m.Reviews[0])
	}
	p := m.Proposal
	if p == nil || !slices.Equal(p.DependsOn, []string{"p3", "w1"}) {
		t.Fatalf("proposal %+v", p)
	}
	if p.Terms.Title != "Logo design" || len(p.Terms.Milestones) != 2 ||
		p.Terms.Milestones[0].Amount.String() != "250000000000000000" || p.Terms.Milestones[0].Description != "drafts" ||
		p.Terms.Milestones[1].Amount.String() != "250000000000000000" ||
		!p.Terms.Deadline.Equal(time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("terms %+v", p.Terms)
	}
	if sv.f.agents[0] != "parley-test-agent" {
		t.Errorf("agent %q, want the client's name", sv.f.agents[0])
	}
	// The next envelope's claims do not reuse ids the room holds.
	ok[sendOut](t, cs, ToolSendEnvelope, base("claims", []any{map[string]any{"text": "more", "origin": "assumed"}},
		"proposal", map[string]any{"terms": map[string]any{"milestones": []any{map[string]any{"amount": "0.6 ETH", "description": "all"}}}}))
	m = sv.f.sent[len(sv.f.sent)-1]
	if m.Claims[0].ID != "p4" || m.Proposal.Terms.Milestones[0].Amount.String() != "600000000000000000" || m.Proposal.Terms.Title != "" {
		t.Errorf("second envelope %+v %+v", m.Claims, m.Proposal.Terms)
	}
}

// TestEscalationAndBrief: a pause shows the question; answer_escalation
// relays the answer via mcp; get_brief answers once the room ended, by
// link or by room id with the key.
func TestEscalationAndBrief(t *testing.T) {
	sv := serveFake(t, Options{})
	link, made := newRoom(t, sv)
	cs := connectSeat(t, sv.url, link)
	refused(t, cs, ToolAnswerEscalation, map[string]any{"link": link, "answer": "Yes"}, "no question is waiting")
	out := ok[sendOut](t, cs, ToolSendEnvelope, map[string]any{
		"link": link, "message": "I need to ask Alice.", "status": "escalate",
		"escalation": map[string]any{"question": "May I pay 0.6 ETH?", "reason": "over the limit"},
	})
	if out.Room.Status != "paused" {
		t.Errorf("status %q", out.Room.Status)
	}
	if out.Room.PendingQuestion != "May I pay 0.6 ETH?" || !strings.Contains(out.Room.NextAction, "May I pay 0.6 ETH?") {
		t.Errorf("room %+v", out.Room)
	}
	r := ok[roomOut](t, cs, ToolAnswerEscalation, map[string]any{"link": link, "answer": "Yes, up to 0.6 ETH."})
	if len(r.Answers) != 1 || r.Answers[0].Via != "mcp" || r.PendingQuestion != "" {
		t.Errorf("after the answer: %+v", r)
	}
	if c := sv.f.callsOf(); c[len(c)-1] != "Answer "+made.RoomID+" Yes, up to 0.6 ETH. mcp" {
		t.Errorf("backend got %q", c[len(c)-1])
	}

	b := ok[briefOut](t, cs, ToolGetBrief, map[string]any{"link": link})
	if b.Brief != nil || b.Note == "" {
		t.Errorf("brief before the end: %+v", b)
	}
	sv.f.update(made.RoomID, func(v *RoomView) { v.Ended, v.State = true, negotiation.StateAgreed })
	b = ok[briefOut](t, cs, ToolGetBrief, map[string]any{"link": link})
	if b.Status != "agreed" || b.Markdown != "# Brief\n" || b.Brief.(map[string]any)["negotiationId"] != made.RoomID {
		t.Errorf("brief %+v", b)
	}
	refused(t, cs, ToolGetBrief, map[string]any{"room_id": made.RoomID}, SignInRequired)
	refused(t, cs, ToolGetBrief, map[string]any{}, "give link")
	refused(t, cs, ToolGetBrief, map[string]any{"room_id": made.RoomID, "link": link}, "not both")
	b = ok[briefOut](t, connect(t, sv.url, testKey), ToolGetBrief, map[string]any{"room_id": made.RoomID})
	if b.Status != "agreed" {
		t.Errorf("brief by room id: %+v", b)
	}
}

// TestWaitForTurn: wait_for_turn returns when the room becomes the
// seat's turn, and says timed_out when it does not within the timeout.
func TestWaitForTurn(t *testing.T) {
	sv := serveFake(t, Options{})
	link, made := newRoom(t, sv)
	cs := connectSeat(t, sv.url, link)
	// Not sealed: actionable at once.
	r := ok[roomOut](t, cs, ToolWaitForTurn, map[string]any{"link": link})
	if *r.TimedOut || r.Status != "drafting" {
		t.Fatalf("unsealed room: %+v", r)
	}
	ok[roomOut](t, cs, ToolSealIntentCard, map[string]any{"link": link, "card": map[string]any{"principal": map[string]any{"name": "Alice"}, "goal": "a logo"}})
	sv.f.update(made.RoomID, func(v *RoomView) { v.YourTurn = false })

	sv.f.mu.Lock()
	sv.f.waiting = make(chan string, 1)
	waiting := sv.f.waiting
	sv.f.mu.Unlock()
	done := make(chan roomOut, 1)
	go func() {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: ToolWaitForTurn, Arguments: map[string]any{"link": link, "timeout_seconds": 25}})
		if err != nil || res.IsError {
			done <- roomOut{Topic: "failed"}
			return
		}
		var out roomOut
		_ = json.Unmarshal([]byte(text(res)), &out)
		done <- out
	}()
	<-waiting // the server is blocked in Wait
	sv.f.update(made.RoomID, func(v *RoomView) {
		v.YourTurn = true
		v.PendingReviews = []negotiation.Claim{{ID: "w1", Text: "I have done ten logos", Origin: negotiation.OriginAssumed}}
	})
	r = <-done
	if r.TimedOut == nil || *r.TimedOut || !r.YourTurn || len(r.ClaimsToReview) != 1 || r.ClaimsToReview[0].ID != "w1" {
		t.Fatalf("after the other side moved: %+v", r)
	}
	if !strings.Contains(r.NextAction, "Review every claim") {
		t.Errorf("next action %q", r.NextAction)
	}

	sv.f.update(made.RoomID, func(v *RoomView) { v.YourTurn = false })
	r = ok[roomOut](t, cs, ToolWaitForTurn, map[string]any{"link": link, "timeout_seconds": 1})
	if !*r.TimedOut || r.YourTurn {
		t.Fatalf("nothing happened: %+v", r)
	}
	refused(t, cs, ToolWaitForTurn, map[string]any{"link": link, "timeout_seconds": 26}, "validating")
	refused(t, cs, ToolWaitForTurn, map[string]any{"link": link, "timeout_seconds": 0.5}, "validating")
}

// TestSealCard: the card reaches the node as sent, with "pxp": "0" added
// when the reference's card shape lacks it, relayed via mcp.
func TestSealCard(t *testing.T) {
	sv := serveFake(t, Options{})
	link, made := newRoom(t, sv)
	cs := connectSeat(t, sv.url, link)
	refused(t, cs, ToolSealIntentCard, map[string]any{"link": link, "card": "not an object"}, "validating")
	refused(t, cs, ToolSealIntentCard, map[string]any{"link": link, "card": map[string]any{"goal": "x"}}, "validating")
	r := ok[roomOut](t, cs, ToolSealIntentCard, map[string]any{"link": link, "card": map[string]any{
		"principal": map[string]any{"name": "Alice", "role": "founder"}, "goal": "a logo", "must_never": []any{"pay more than 0.5 ETH"},
	}})
	if !r.You.CardSealed || r.You.CardHash == "" || r.Status != "negotiating" {
		t.Errorf("after sealing: %+v", r.You)
	}
	c := sv.f.callsOf()
	var sealed string
	for _, s := range c {
		if strings.HasPrefix(s, "SealCard "+made.RoomID) {
			sealed = s
		}
	}
	if !strings.Contains(sealed, `{"pxp":"0",`) || !strings.HasSuffix(sealed, " mcp") {
		t.Errorf("backend got %q", sealed)
	}
}

func TestParseLink(t *testing.T) {
	l, err := parseLink("parley://12D3KooWabc/rooms/0b0a6c1e-6f0e-4b52-9b1a-3c2d1e0f9a8b#seat=" + strings.Repeat("x", 43))
	if err != nil || l.Node != "12D3KooWabc" || l.Room != "0b0a6c1e-6f0e-4b52-9b1a-3c2d1e0f9a8b" || len(l.Secret) != 43 {
		t.Fatalf("%+v %v", l, err)
	}
	if l.String() != "parley://12D3KooWabc/rooms/0b0a6c1e-6f0e-4b52-9b1a-3c2d1e0f9a8b#seat="+strings.Repeat("x", 43) {
		t.Errorf("round trip %s", l)
	}
	for _, bad := range []string{
		"", "parley://", "http://12D3KooWabc/rooms/0b0a6c1e-6f0e-4b52-9b1a-3c2d1e0f9a8b",
		"parley://12D3KooWabc/rooms/0B0A6C1E-6F0E-4B52-9B1A-3C2D1E0F9A8B",
		"parley://12D3KooWabc/room/0b0a6c1e-6f0e-4b52-9b1a-3c2d1e0f9a8b",
		"parley://12D3KooWabc/rooms/0b0a6c1e-6f0e-4b52-9b1a-3c2d1e0f9a8b?seat=x",
		"parley://12D3KooWabc/rooms/0b0a6c1e-6f0e-4b52-9b1a-3c2d1e0f9a8b#token=" + strings.Repeat("x", 43),
		"parley://u:p@12D3KooWabc/rooms/0b0a6c1e-6f0e-4b52-9b1a-3c2d1e0f9a8b",
	} {
		if _, err := parseLink(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestParseAmount(t *testing.T) {
	for in, want := range map[string]string{
		"0.5 ETH": "500000000000000000", "1 eth": "1000000000000000000", "250 gwei": "250000000000",
		"42 wei": "42", "42": "42", "0.000000000000000001 ether": "1", "1.5ETH": "1500000000000000000",
	} {
		got, err := parseAmount(in)
		if err != nil || got.String() != want {
			t.Errorf("%q: %v %v, want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "0 ETH", "-1 ETH", "1e18", "0.1 wei", "1 btc", "1,5 ETH", "0.0000000000000000001 ETH"} {
		if a, err := parseAmount(bad); err == nil {
			t.Errorf("%q parsed as %v", bad, a)
		}
	}
	if s := formatAmount(mustAmount(t, "0.55 ETH"), negotiation.Address{}); s != "0.55 ETH" {
		t.Errorf("format %q", s)
	}
}

func mustAmount(t *testing.T, s string) *big.Int {
	a, err := parseAmount(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestJSONResponses: the transport answers a POST with application/json,
// not an event stream, and says which session it opened.
func TestJSONResponses(t *testing.T) {
	sv := serveFake(t, Options{})
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, sv.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msg struct {
		Result struct {
			ServerInfo struct{ Name string } `json:"serverInfo"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") ||
		resp.Header.Get("Mcp-Session-Id") == "" || msg.Result.ServerInfo.Name != "parley" {
		t.Fatalf("initialize: %d %v %+v", resp.StatusCode, resp.Header, msg)
	}
}
