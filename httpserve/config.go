// Package httpserve puts an MCP Streamable HTTP handler on the network
// safely: bearer-token auth, Host and Origin checks against DNS rebinding,
// a body cap, a per-token rate limit, a concurrency limit, a per-request
// deadline, a session cap, health endpoints, an access log and graceful
// shutdown. It knows nothing about vaults: it wraps any *mcp.Server.
package httpserve

import (
	"log/slog"
	"time"
)

// Defaults for the zero fields of Config.
const (
	DefaultMaxBodyBytes   = 1 << 20 // 1 MiB: tool arguments are small
	DefaultRatePerMinute  = 600
	DefaultMaxConcurrent  = 64
	DefaultQueueTimeout   = 2 * time.Second
	DefaultRequestTimeout = 30 * time.Second
	DefaultReadTimeout    = 30 * time.Second
	DefaultIdleTimeout    = 2 * time.Minute
	DefaultSessionIdle    = 30 * time.Minute
	DefaultMaxSessions    = 100
	// MCPPath is where the MCP endpoint is served.
	MCPPath = "/mcp"
)

// Config is the policy of the HTTP front of an MCP server.
type Config struct {
	// Token is the bearer token every MCP request must carry; empty
	// disables auth (allowed on loopback only, checked by the caller).
	Token string
	// AllowedHosts are the host names (no port) accepted in the Host
	// header; LoopbackHosts when empty.
	AllowedHosts []string
	// CORSOrigins are the browser origins ("https://app.example") that may
	// call the server, and get CORS headers. Loopback origins are accepted
	// without CORS headers; any other Origin is refused with 403.
	CORSOrigins []string
	// MaxBodyBytes caps a request body (413 beyond); 0 = DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// RatePerMinute is the per-token (per-client-IP without auth) request
	// rate; 0 disables the limit. Burst is the bucket size (0 = a tenth
	// of the rate, at least 1).
	RatePerMinute float64
	Burst         int
	// MaxConcurrent bounds the MCP requests being served at once; a
	// request waits up to QueueTimeout for a slot, then gets 503. Zero
	// fields take the defaults.
	MaxConcurrent int
	QueueTimeout  time.Duration
	// RequestTimeout bounds one POST (0 = DefaultRequestTimeout).
	RequestTimeout time.Duration
	// ReadTimeout bounds reading a request's headers and body, against
	// slow clients (0 = DefaultReadTimeout). Serving is bounded by
	// RequestTimeout instead.
	ReadTimeout time.Duration
	// IdleTimeout closes a keep-alive connection idle this long between
	// requests (0 = DefaultIdleTimeout).
	IdleTimeout time.Duration
	// Stateful enables sessions (Mcp-Session-Id, SSE on GET, DELETE).
	Stateful bool
	// SessionIdle closes a session idle this long (stateful only; 0 =
	// DefaultSessionIdle). MaxSessions caps live sessions: a new one over
	// the cap gets 503 with Retry-After (0 = DefaultMaxSessions).
	SessionIdle time.Duration
	MaxSessions int
	// LogQueries includes tool arguments (query text) in the access log.
	LogQueries bool
	// Logger receives the access log and errors; nil discards.
	Logger *slog.Logger
}

// LoopbackHosts are the Host names accepted by default.
var LoopbackHosts = []string{"localhost", "127.0.0.1", "::1"}

func (c Config) withDefaults() Config {
	if len(c.AllowedHosts) == 0 {
		c.AllowedHosts = LoopbackHosts
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.RatePerMinute < 0 {
		c.RatePerMinute = 0
	}
	if c.Burst <= 0 {
		c.Burst = max(1, int(c.RatePerMinute/10))
	}
	if c.MaxConcurrent <= 0 {
		c.MaxConcurrent = DefaultMaxConcurrent
	}
	if c.QueueTimeout <= 0 {
		c.QueueTimeout = DefaultQueueTimeout
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = DefaultReadTimeout
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.SessionIdle <= 0 {
		c.SessionIdle = DefaultSessionIdle
	}
	if c.MaxSessions <= 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}
