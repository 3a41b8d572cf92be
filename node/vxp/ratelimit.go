package vxp

import (
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"

	pure "github.com/parleynet/parley/vxp"
)

// rateLimiterSize bounds the remote addresses tracked; when it is full,
// the addresses idle longest are forgotten (a forgotten address starts
// with a full bucket again).
const rateLimiterSize = 4096

// rateLimiter bounds the token and device endpoints' calls per remote IP
// address: perMinute calls a minute with a burst of as many. Behind a
// terminating proxy every call comes from the proxy's address, which then
// shares one bucket: the proxy should limit per client itself.
type rateLimiter struct {
	mu    sync.Mutex
	limit rate.Limit
	burst int
	max   int
	ips   map[string]*ipBucket
}

type ipBucket struct {
	l    *rate.Limiter
	seen time.Time
}

func newRateLimiter(perMinute, max int) *rateLimiter {
	return &rateLimiter{limit: rate.Limit(float64(perMinute) / 60), burst: perMinute, max: max, ips: map[string]*ipBucket{}}
}

// allow reports whether ip may make one more call at now.
func (rl *rateLimiter) allow(ip string, now time.Time) bool {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	b, ok := rl.ips[ip]
	if !ok {
		if len(rl.ips) >= rl.max {
			rl.forget(now)
		}
		b = &ipBucket{l: rate.NewLimiter(rl.limit, rl.burst)}
		rl.ips[ip] = b
	}
	b.seen = now
	return b.l.AllowN(now, 1)
}

// forget drops the buckets full again (idle for a minute or more), and
// then, if still full, the one idle longest. Called with mu held.
func (rl *rateLimiter) forget(now time.Time) {
	for ip, b := range rl.ips {
		if now.Sub(b.seen) >= time.Minute {
			delete(rl.ips, ip)
		}
	}
	for len(rl.ips) >= rl.max {
		var oldest string
		for ip, b := range rl.ips {
			if oldest == "" || b.seen.Before(rl.ips[oldest].seen) {
				oldest = ip
			}
		}
		delete(rl.ips, oldest)
	}
}

// remoteIP returns the IP address r came from.
func remoteIP(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}

// rateLimit returns rate_limited when r's address is over the limit.
func (s *Server) rateLimit(r *http.Request) error {
	if !s.auth.limits.allow(remoteIP(r), s.cfg.Now()) {
		return &pure.Error{Code: pure.CodeRateLimited, Msg: "too many calls from this address: try again later"}
	}
	return nil
}
