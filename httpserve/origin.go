package httpserve

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// hostOf is the host name of a Host header or URL host, without port or
// brackets, lower-cased.
func hostOf(hostport string) string {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	}
	return strings.ToLower(strings.Trim(h, "[]"))
}

// IsLoopback reports whether a host (with or without port) is a loopback
// name or address.
func IsLoopback(hostport string) bool {
	h := hostOf(hostport)
	if h == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.IsLoopback()
}

// guard refuses, before any JSON-RPC is read, a Host that is not on the
// allow list (DNS rebinding) and a browser Origin that is neither listed
// nor loopback; it answers CORS preflights for listed origins only.
type guard struct {
	hosts   []string
	origins []string
}

func newGuard(c Config) *guard {
	g := &guard{}
	for _, h := range c.AllowedHosts {
		g.hosts = append(g.hosts, hostOf(h))
	}
	for _, o := range c.CORSOrigins {
		g.origins = append(g.origins, strings.ToLower(strings.TrimRight(o, "/")))
	}
	return g
}

func (g *guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !slices.Contains(g.hosts, hostOf(r.Host)) {
			deny(w, r, http.StatusForbidden, "host not allowed")
			return
		}
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		cors := slices.Contains(g.origins, strings.ToLower(strings.TrimRight(origin, "/")))
		if !cors && !loopbackOrigin(origin) {
			deny(w, r, http.StatusForbidden, "origin not allowed")
			return
		}
		if cors {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, WWW-Authenticate, Retry-After")
			if r.Method == http.MethodOptions {
				h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID")
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackOrigin: a page served from this machine's loopback address
// (an MCP inspector, say). It still needs the token.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && IsLoopback(u.Host)
}
