package httpserve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// ShutdownTimeout is how long Serve waits for requests in flight after
// its context ends.
const ShutdownTimeout = 15 * time.Second

// TLS names a certificate and key in PEM files; zero serves plain HTTP.
type TLS struct{ CertFile, KeyFile string }

// Serve serves on ln until ctx ends, then shuts down gracefully: it stops
// accepting, lets the POSTs in flight finish (within ShutdownTimeout),
// then ends the sessions, which closes their SSE streams.
func (s *Server) Serve(ctx context.Context, ln net.Listener, tls TLS) error {
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: min(10*time.Second, s.cfg.ReadTimeout),
		ReadTimeout:       s.cfg.ReadTimeout,
		WriteTimeout:      s.cfg.RequestTimeout + 10*time.Second,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.cfg.Logger.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() {
		if tls.CertFile != "" {
			errc <- hs.ServeTLS(ln, tls.CertFile, tls.KeyFile)
		} else {
			errc <- hs.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		return fmt.Errorf("serve http on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	s.draining.Store(true)
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	go s.endSessionsWhenIdle(sctx)
	err := hs.Shutdown(sctx)
	if err != nil {
		hs.Close()
		return fmt.Errorf("shutdown: requests still running after %s: %w", ShutdownTimeout, err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve http: %w", err)
	}
	return nil
}

// endSessionsWhenIdle closes every MCP session once no POST is in
// flight: their SSE streams would otherwise keep Shutdown waiting.
func (s *Server) endSessionsWhenIdle(ctx context.Context) {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for s.posts.Load() > 0 {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
	b := s.backend.Load()
	if b == nil {
		return
	}
	for ss := range b.mcp.Sessions() {
		ss.Close()
	}
}
