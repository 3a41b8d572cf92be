package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParseLink: any string either parses into a link that writes back to
// itself and parses again to the same link, or is refused; never a panic.
func FuzzParseLink(f *testing.F) {
	f.Add("parley://12D3KooWabc/rooms/0b0a6c1e-6f0e-4b52-9b1a-3c2d1e0f9a8b#seat=" + strings.Repeat("x", 43))
	f.Add("parley://0x1100000000000000000000000000000000000000/rooms/0b0a6c1e-6f0e-4b52-9b1a-3c2d1e0f9a8b")
	f.Add("https://example.org/room/x?seat=A&t=y")
	f.Add("parley://%zz/rooms/")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := parseLink(s)
		if err != nil {
			return
		}
		if !uuidRE.MatchString(l.Room) || (l.Secret != "" && !secretRE.MatchString(l.Secret)) || l.Node == "" {
			t.Fatalf("%q parsed to %+v", s, l)
		}
		again, err := parseLink(l.String())
		if err != nil || again != l {
			t.Fatalf("%q -> %q -> %+v, %v", s, l.String(), again, err)
		}
	})
}

// FuzzParseTerms: any JSON value either parses into terms with positive
// amounts below 2^255 or is refused with an error; never a panic.
func FuzzParseTerms(f *testing.F) {
	f.Add(`["title = Logo", "milestone = 0.5 ETH: drafts", "deadline = 2026-07-01"]`)
	f.Add(`{"milestones": [{"amount": "250 gwei", "description": "x"}], "token": "0x2222222222222222222222222222222222222222"}`)
	f.Add(`["milestone = 1e18"]`)
	f.Add(`{"title": ""}`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return
		}
		spec, err := parseTerms(json.RawMessage(s))
		if err != nil {
			return
		}
		if len(spec.Milestones) > maxMilestones {
			t.Fatalf("%d milestones", len(spec.Milestones))
		}
		for _, m := range spec.Milestones {
			if m.Amount == nil || m.Amount.Sign() <= 0 || m.Amount.Cmp(maxAmount) >= 0 {
				t.Fatalf("%s: amount %v", s, m.Amount)
			}
		}
	})
}
