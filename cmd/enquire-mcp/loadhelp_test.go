package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/service"
	"github.com/enquire-mcp/enquire-mcp/service/servicetest"
	"github.com/enquire-mcp/enquire-mcp/watch"
)

// liveVault serves a vault loaded from flags with the watcher on, as
// serve does (with a short quiet period to keep the test quick).
type liveVault struct {
	*servicetest.Live
	l *service.Vault
}

func startLiveWith(t *testing.T, vf *vaultFlags, opts watch.Options) *liveVault {
	t.Helper()
	l, err := vf.load(context.Background(), slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		t.Fatal(err)
	}
	return &liveVault{Live: servicetest.Follow(t, l, opts), l: l}
}

// freshEngine starts a vault from scratch with its own new index.
func freshEngine(t *testing.T, root string) *service.Vault {
	t.Helper()
	return freshLoad(t, &vaultFlags{vault: root, indexFile: filepath.Join(t.TempDir(), "fresh.db"), maxFileSize: 1 << 20})
}

// freshLoad loads vf (a vault with its own new index) and closes it when
// the test ends.
func freshLoad(t *testing.T, vf *vaultFlags) *service.Vault {
	t.Helper()
	l := mustLoad(t, vf)
	t.Cleanup(func() { l.Close() })
	return l
}

// mustLoad loads vf as the commands do, with a silent log; the caller
// closes it (a close saves the engine state when a save is due).
func mustLoad(t *testing.T, vf *vaultFlags) *service.Vault {
	t.Helper()
	l, err := vf.load(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// testWriter logs through t (a live failure shows what the server said).
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
