package httpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Server is one MCP server behind the HTTP policy of a Config. Every
// request, on every connection, reaches the same *mcp.Server.
type Server struct {
	cfg      Config
	backend  atomic.Pointer[backend] // nil until Attach: still loading
	root     http.Handler
	limits   *limiters
	slots    slots
	verify   auth.TokenVerifier
	posts    atomic.Int64 // POSTs being served (shutdown waits for them)
	opening  atomic.Int64 // stateful sessions being created (session cap)
	draining atomic.Bool
	calls    calls // stateful sessions' calls being answered (rpc.go)
}

// backend is the MCP server and the SDK's HTTP handler over it.
type backend struct {
	mcp *mcp.Server
	sdk http.Handler
}

// New builds the HTTP front. Until Attach hands it the MCP server, /mcp
// and /ready answer 503 (loading) and /health answers, so the port can
// open before a large vault is loaded.
func New(cfg Config) *Server {
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, limits: newLimiters(cfg.RatePerMinute, cfg.Burst), slots: make(slots, cfg.MaxConcurrent)}
	var endpoint http.Handler = http.HandlerFunc(s.serveMCP)
	if cfg.Token != "" {
		s.verify = tokenVerifier(cfg.Token)
		endpoint = s.requireToken(endpoint)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", s.health)
	mux.HandleFunc("GET /ready", s.ready)
	mux.HandleFunc("/.well-known/oauth-protected-resource", s.resourceMetadata)
	mux.HandleFunc("/.well-known/oauth-protected-resource"+MCPPath, s.resourceMetadata)
	mux.Handle(MCPPath, endpoint)
	s.root = s.accessLog(newGuard(cfg).wrap(mux))
	return s
}

// Attach starts serving srv (once; later calls are ignored). It adds a
// receiving middleware to srv that bounds every MCP call by
// cfg.RequestTimeout, so one heavy call cannot hold a worker after its
// HTTP request gave up.
func (s *Server) Attach(srv *mcp.Server) {
	if s.backend.Load() != nil {
		return
	}
	srv.AddReceivingMiddleware(callDeadline(s.cfg.RequestTimeout))
	opts := &mcp.StreamableHTTPOptions{
		Stateless:                    !s.cfg.Stateful,
		Logger:                       s.cfg.Logger,
		MaxRequestBodyBytes:          s.cfg.MaxBodyBytes,
		PropagateRequestCancellation: true,
	}
	if s.cfg.Stateful {
		opts.SessionTimeout = s.cfg.SessionIdle
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts)
	s.backend.Store(&backend{mcp: srv, sdk: sdk})
}

// ServeHTTP serves /mcp, /health, /ready and the resource metadata.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.root.ServeHTTP(w, r) }

// Sessions counts the live MCP sessions (stateful mode).
func (s *Server) Sessions() int {
	b := s.backend.Load()
	if b == nil {
		return 0
	}
	n := 0
	for range b.mcp.Sessions() {
		n++
	}
	return n
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	logInfo(r).quiet = true
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	logInfo(r).quiet = true
	switch {
	case s.draining.Load():
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "shutting down"})
	case s.backend.Load() == nil:
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "loading"})
	default:
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	}
}

// resourceMetadata serves RFC 9728 metadata: a static bearer token,
// sent in the Authorization header, and no authorization server (the
// token comes from `enquire-mcp gen-token`, not from an OAuth flow).
func (s *Server) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Token == "" {
		http.NotFound(w, r)
		return
	}
	auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               baseURL(r) + MCPPath,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "enquire-mcp",
	}).ServeHTTP(w, r)
}

// baseURL is the scheme and (already validated) Host of r.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// requireToken is the SDK's bearer middleware with our constant-time
// verifier; the 401 carries WWW-Authenticate naming the metadata.
func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := logInfo(r)
		info.client = "?"
		if tok := bearer(r); tok != "" {
			info.client = clientID(tok)
		}
		mw := auth.RequireBearerToken(s.verify, &auth.RequireBearerTokenOptions{
			ResourceMetadataURL:    baseURL(r) + "/.well-known/oauth-protected-resource" + MCPPath,
			AllowMissingExpiration: true,
		})
		mw(next).ServeHTTP(&denyRecorder{ResponseWriter: w, info: info, reason: "bad or missing bearer token"}, r)
	})
}

// serveMCP applies the limits, then hands the request to the SDK.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request) {
	info := logInfo(r)
	if info.client == "" {
		info.client = "ip:" + remoteIP(r)
	}
	if s.limits != nil {
		if ok, wait := s.limits.allow(info.client, time.Now()); !ok {
			w.Header().Set("Retry-After", retryAfter(wait))
			deny(w, r, http.StatusTooManyRequests, "rate limit exceeded")
			return
		}
	}
	b := s.backend.Load()
	if b == nil {
		w.Header().Set("Retry-After", "5")
		deny(w, r, http.StatusServiceUnavailable, "loading the vault")
		return
	}
	rc := http.NewResponseController(w)
	if r.Method != http.MethodPost {
		if r.Method == http.MethodGet {
			// A GET is the long-lived SSE stream of a session: no write
			// timeout, no deadline, no worker slot.
			_ = rc.SetWriteDeadline(time.Time{})
		}
		b.sdk.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, s.cfg.MaxBodyBytes+1))
	if err != nil {
		deny(w, r, http.StatusBadRequest, "reading the request body failed")
		return
	}

	if int64(len(body)) > s.cfg.MaxBodyBytes {
		deny(w, r, http.StatusRequestEntityTooLarge, "request body too large")
		return
	}
	info.peek(body, s.cfg.LogQueries)
	r.Body = io.NopCloser(bytes.NewReader(body))
	msg, isRPC := readRPC(body)
	if isRPC && s.early(w, r, msg) {
		return
	}
	if session := r.Header.Get("Mcp-Session-Id"); s.cfg.Stateful && session != "" && isRPC {
		switch {
		case msg.Method == "notifications/cancelled" && len(msg.ID) == 0:
			s.calls.cancel(session, msg.Params) // before the SDK cancels the handler and answers
		case msg.isCall():
			cw, done := s.calls.track(w, session, msg.ID)
			defer done()
			w = cw
		}
	}

	if s.cfg.Stateful && r.Header.Get("Mcp-Session-Id") == "" {
		s.opening.Add(1)
		defer s.opening.Add(-1)
		if s.Sessions()+int(s.opening.Load())-1 >= s.cfg.MaxSessions {
			w.Header().Set("Retry-After", retryAfter(min(s.cfg.SessionIdle, time.Minute)))
			deny(w, r, http.StatusServiceUnavailable, "too many sessions")
			return
		}
	}
	s.posts.Add(1)
	defer s.posts.Add(-1)
	if !s.slots.acquire(r.Context(), s.cfg.QueueTimeout) {
		w.Header().Set("Retry-After", "1")
		deny(w, r, http.StatusServiceUnavailable, "server busy")
		return
	}
	defer s.slots.release()
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	b.sdk.ServeHTTP(w, r.WithContext(ctx))
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		info.reason = "request deadline exceeded"
	}
}

// callDeadline bounds every MCP call's context.
func callDeadline(d time.Duration) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			return next(ctx, method, req)
		}
	}
}

// deny answers with an error status before the request reaches MCP.
func deny(w http.ResponseWriter, r *http.Request, status int, reason string) {
	logInfo(r).reason = reason
	http.Error(w, reason, status)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// denyRecorder notes the reason when the SDK's auth middleware refuses.
type denyRecorder struct {
	http.ResponseWriter
	info   *reqInfo
	reason string
}

func (d *denyRecorder) WriteHeader(code int) {
	if code == http.StatusUnauthorized || code == http.StatusForbidden {
		d.info.reason = d.reason
	}
	d.ResponseWriter.WriteHeader(code)
}

func (d *denyRecorder) Flush() {
	if f, ok := d.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (d *denyRecorder) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// trimQuery shortens logged arguments.
func trimQuery(s string) string {
	const limit = 200
	s = strings.TrimSpace(s)
	if len(s) > limit {
		return s[:limit] + "…"
	}
	return s
}
