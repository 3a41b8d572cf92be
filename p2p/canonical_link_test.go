package p2p_test

import (
	"bufio"
	"encoding/binary"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"

	"github.com/parleynet/parley/identity"
	"github.com/parleynet/parley/negotiation"
	"github.com/parleynet/parley/p2p"
)

// TestHandshakeAcceptsOnlyCanonicalLinks: on /parley/identity/1 a peer's
// own, valid link is accepted only in its canonical bytes (JCS); the same
// link with white space before or after it, or pretty-printed, is refused
// with not_canonical (it was accepted, and its hash then was not the hash
// of what the peer sent).
func TestHandshakeAcceptsOnlyCanonicalLinks(t *testing.T) {
	b := newNode(t)
	kr, err := openKeyring(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	key, err := kr.Inbox().LibP2PKey()
	if err != nil {
		t.Fatal(err)
	}
	canon := kr.Link().Bytes()
	for _, tc := range []struct {
		name string
		link []byte
		want p2p.EventKind
	}{
		{"leading white space", append([]byte(" \n\t"), canon...), p2p.EventPeerRejected},
		{"trailing newline", append(append([]byte{}, canon...), '\n'), p2p.EventPeerRejected},
		{"white space inside", []byte(string(canon[:1]) + " " + string(canon[1:])), p2p.EventPeerRejected},
		{"canonical", canon, p2p.EventPeerVerified},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := libp2p.New(libp2p.Identity(key), libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"), libp2p.DisableRelay(), libp2p.DisableMetrics())
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			before := map[p2p.EventKind]int{p2p.EventPeerRejected: len(b.ev.of(p2p.EventPeerRejected)), p2p.EventPeerVerified: len(b.ev.of(p2p.EventPeerVerified))}
			if err := m.Connect(t.Context(), b.info()); err != nil {
				t.Fatal(err)
			}
			s, err := m.NewStream(t.Context(), b.host.ID(), p2p.ProtocolIdentity)
			if err != nil {
				t.Fatal(err)
			}
			msg := binary.AppendUvarint(nil, uint64(len(tc.link)))
			if _, err := s.Write(append(msg, tc.link...)); err != nil {
				t.Fatal(err)
			}
			_ = s.CloseWrite()
			_ = s.SetReadDeadline(time.Now().Add(30 * time.Second))
			_, _ = binary.ReadUvarint(bufio.NewReader(s))
			var got *p2p.Event
			eventually(t, "the verdict", func() bool {
				for kind, n := range before {
					for _, e := range b.ev.of(kind)[n:] {
						if e.Peer == m.ID() {
							got = &e
						}
					}
				}
				return got != nil
			})
			if got.Kind != tc.want || (tc.want == p2p.EventPeerRejected && got.Code != p2p.Code(identity.CodeNotCanonical)) {
				t.Fatalf("%s %s, want %s", got.Kind, got.Code, tc.want)
			}
			if _, ok := b.host.Link(negotiation.Address(kr.Link().EVMAddress)); ok != (tc.want == p2p.EventPeerVerified) {
				t.Fatalf("b holds the link: %v", ok)
			}
		})
	}
}
