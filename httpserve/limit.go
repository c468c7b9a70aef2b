package httpserve

import (
	"context"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiters is one token bucket per client key (token, or IP without auth).
type limiters struct {
	mu    sync.Mutex
	every rate.Limit
	burst int
	m     map[string]*rate.Limiter
}

// maxLimiters bounds the map; beyond it, idle (full) buckets are dropped.
const maxLimiters = 4096

func newLimiters(perMinute float64, burst int) *limiters {
	if perMinute <= 0 {
		return nil
	}
	return &limiters{every: rate.Limit(perMinute / 60), burst: burst, m: map[string]*rate.Limiter{}}
}

// allow takes one token for key, or returns how long until one is free.
func (l *limiters) allow(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	lim := l.m[key]
	if lim == nil {
		if len(l.m) >= maxLimiters {
			for k, v := range l.m {
				if v.TokensAt(now) >= float64(l.burst) {
					delete(l.m, k)
				}
			}
		}
		lim = rate.NewLimiter(l.every, l.burst)
		l.m[key] = lim
	}
	l.mu.Unlock()
	r := lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// retryAfter is a Retry-After value: whole seconds, at least 1.
func retryAfter(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
}

// slots bounds the requests served at once.
type slots chan struct{}

// acquire waits up to wait for a slot; false if none came free.
func (s slots) acquire(ctx context.Context, wait time.Duration) bool {
	select {
	case s <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case s <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

func (s slots) release() { <-s }

// remoteIP is the client address of r without port.
func remoteIP(r *http.Request) string {
	h, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return h
}
