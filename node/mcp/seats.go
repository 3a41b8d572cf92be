package mcp

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/parleynet/parley/strictjson"
)

// LinkScheme is the scheme of seat links:
// parley://<node>/rooms/<negotiation id>#seat=<secret>, where <node> is
// the hosting node's libp2p peer id (or its EVM address) and the fragment
// holds the seat's secret. A link without the fragment names the room
// only; taking its seat needs the principal's agent key.
const LinkScheme = "parley"

// secretBytes is the length of a seat secret before encoding (256 bits).
const secretBytes = 32

var (
	uuidRE   = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	secretRE = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)
)

// seatLink is a parsed seat link.
type seatLink struct {
	Node   string // the host part: a peer id or an EVM address
	Room   string // the negotiation id
	Secret string // "" for a link that names the room only
}

// String returns the link in its one written form.
func (l seatLink) String() string {
	s := LinkScheme + "://" + l.Node + "/rooms/" + l.Room
	if l.Secret != "" {
		s += "#seat=" + l.Secret
	}
	return s
}

// parseLink parses a seat link, with a message for the agent when it is
// not one.
func parseLink(raw string) (seatLink, error) {
	const form = "a seat link looks like parley://<node>/rooms/<negotiation id>#seat=<secret>"
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != LinkScheme || u.Host == "" || u.User != nil || u.RawQuery != "" {
		return seatLink{}, fmt.Errorf("that is not a seat link: %s", form)
	}
	room, ok := strings.CutPrefix(u.Path, "/rooms/")
	if !ok || !uuidRE.MatchString(room) {
		return seatLink{}, fmt.Errorf("that is not a seat link (the negotiation id is a lowercase UUID): %s", form)
	}
	l := seatLink{Node: u.Host, Room: room}
	if u.Fragment != "" {
		secret, ok := strings.CutPrefix(u.Fragment, "seat=")
		if !ok || !secretRE.MatchString(secret) {
			return seatLink{}, fmt.Errorf("the link's seat secret is malformed: %s", form)
		}
		l.Secret = secret
	}
	return l, nil
}

// seat is one seat's record: the SHA-256 of its secret (the secret itself
// is never stored) and the agent that last joined it.
type seat struct {
	Room   string    `json:"room"`
	Hash   string    `json:"secretSha256"`
	Agent  string    `json:"agent,omitempty"`
	Issued time.Time `json:"issued"`
}

// seatFile is the store's file format.
type seatFile struct {
	Version int    `json:"version"`
	Seats   []seat `json:"seats"`
}

// seats keeps the seat of each room this node hosts: one per room (a node
// hosts its own side only). With a path it keeps them in a file (mode
// 0600, replaced atomically and synced on every change), so seat links
// survive a restart; without one, in memory. The file is read on first
// use.
type seats struct {
	path string
	now  func() time.Time

	mu     sync.Mutex
	loaded bool
	m      map[string]seat
}

func newSeats(path string, now func() time.Time) *seats {
	return &seats{path: path, now: now}
}

// load reads the file on first use; the caller holds mu.
func (s *seats) load() error {
	if s.loaded {
		return nil
	}
	m := make(map[string]seat)
	if s.path != "" {
		b, err := os.ReadFile(s.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return fmt.Errorf("mcp: seats: %w", err)
		default:
			var f seatFile
			if err := strictjson.Unmarshal(b, &f); err != nil {
				return fmt.Errorf("mcp: seats: %s: %w", s.path, err)
			}
			if f.Version != 1 {
				return fmt.Errorf("mcp: seats: %s: version %d, want 1", s.path, f.Version)
			}
			for _, st := range f.Seats {
				m[st.Room] = st
			}
		}
	}
	s.m, s.loaded = m, true
	return nil
}

// save writes every seat to the file (nothing without a path); the
// caller holds mu.
func (s *seats) save() error {
	if s.path == "" {
		return nil
	}
	f := seatFile{Version: 1, Seats: make([]seat, 0, len(s.m))}
	for _, st := range s.m {
		f.Seats = append(f.Seats, st)
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("mcp: seats: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".seats-*")
	if err != nil {
		return fmt.Errorf("mcp: seats: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("mcp: seats: %w", err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("mcp: seats: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("mcp: seats: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("mcp: seats: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("mcp: seats: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// issue gives room's seat a new secret, replacing any earlier one (whose
// links stop working), records agent in it, and returns the secret.
func (s *seats) issue(room, agent string) (string, error) {
	var b [secretBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	secret := base64.RawURLEncoding.EncodeToString(b[:])
	h := sha256.Sum256([]byte(secret))
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(); err != nil {
		return "", err
	}
	old, had := s.m[room]
	s.m[room] = seat{Room: room, Hash: hex.EncodeToString(h[:]), Agent: agent, Issued: s.now().UTC()}
	if err := s.save(); err != nil {
		if had {
			s.m[room] = old
		} else {
			delete(s.m, room)
		}
		return "", err
	}
	return secret, nil
}

// check reports whether secret is room's seat secret, comparing digests in
// constant time, and returns the seat.
func (s *seats) check(room, secret string) (seat, bool, error) {
	h := sha256.Sum256([]byte(secret))
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(); err != nil {
		return seat{}, false, err
	}
	st, ok := s.m[room]
	if !ok {
		return seat{}, false, nil
	}
	want, err := hex.DecodeString(st.Hash)
	if err != nil || subtle.ConstantTimeCompare(h[:], want) != 1 {
		return seat{}, false, nil
	}
	return st, true, nil
}

// setAgent records the agent sitting in room's seat.
func (s *seats) setAgent(room, agent string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(); err != nil {
		return err
	}
	st, ok := s.m[room]
	if !ok || st.Agent == agent {
		return nil
	}
	old := st
	st.Agent = agent
	s.m[room] = st
	if err := s.save(); err != nil {
		s.m[room] = old
		return err
	}
	return nil
}

// sameNode reports whether a link's host names this node: its peer id
// exactly, or its EVM address in any letter case.
func sameNode(host, peerID string, addr common.Address) bool {
	if host == peerID {
		return true
	}
	return common.IsHexAddress(host) && strings.HasPrefix(host, "0x") && common.HexToAddress(host) == addr
}
