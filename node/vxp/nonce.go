package vxp

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"time"
)

// NonceWindow is how long one server DPoP nonce is current; the previous
// window's nonce is accepted too, so a nonce lives between one and two
// windows.
const NonceWindow = 5 * time.Minute

// nonces makes the server's DPoP nonces (RFC 9449 section 8) without
// state: a nonce is the HMAC of its time window under a secret drawn at
// Start, so nothing is stored per client and a restart makes every nonce
// stale (the client is told use_dpop_nonce and retries).
type nonces struct {
	secret [32]byte
	window time.Duration
}

func newNonces(rnd io.Reader) (*nonces, error) {
	n := &nonces{window: NonceWindow}
	if _, err := io.ReadFull(rnd, n.secret[:]); err != nil {
		return nil, fmt.Errorf("vxp: nonce secret: %w", err)
	}
	return n, nil
}

// of returns the nonce of window w.
func (n *nonces) of(w int64) string {
	m := hmac.New(sha256.New, n.secret[:])
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(w))
	m.Write([]byte("parley vxp dpop nonce\x00"))
	m.Write(b[:])
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
}

func (n *nonces) windowOf(at time.Time) int64 { return at.UnixNano() / int64(n.window) }

// current returns the nonce a client should use at time at.
func (n *nonces) current(at time.Time) string { return n.of(n.windowOf(at)) }

// valid reports whether nonce is the current or the previous window's.
func (n *nonces) valid(nonce string, at time.Time) bool {
	w := n.windowOf(at)
	for _, c := range []string{n.of(w), n.of(w - 1)} {
		if subtle.ConstantTimeCompare([]byte(nonce), []byte(c)) == 1 {
			return true
		}
	}
	return false
}

// setDPoPNonce puts the current DPoP-Nonce on an answer: every answer of
// the token endpoint, the device authorization and the resource carries
// it (the resource's handlers call it first).
func (s *Server) setDPoPNonce(w http.ResponseWriter) {
	if s.auth == nil {
		return
	}
	w.Header().Set("DPoP-Nonce", s.auth.nonces.current(s.cfg.Now()))
}
