package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/service"
	"github.com/enquire-mcp/enquire-mcp/watch"
)

// liveVault serves a vault loaded from flags with the watcher on, as
// serve does (with a short quiet period to keep the test quick).
type liveVault struct {
	l      *service.Vault
	mu     sync.Mutex
	served *search.Engine // what the server would hold (OnSwap)
}

func startLiveWith(t *testing.T, vf *vaultFlags, opts watch.Options) *liveVault {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l, err := vf.load(ctx, slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		t.Fatal(err)
	}
	lv := &liveVault{l: l, served: l.Engine()}
	l.OnSwap(func(e *search.Engine) {
		lv.mu.Lock()
		lv.served = e
		lv.mu.Unlock()
	})
	w := watch.New(l.Root(), opts)
	done := l.Follow(ctx, w)
	t.Cleanup(func() {
		cancel()
		<-done
		l.Close()
	})
	// The watcher is running once it reports its mode.
	for deadline := time.Now().Add(5 * time.Second); w.Mode() == watch.ModeOff; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the watcher did not start")
		}
	}
	return lv
}

func (lv *liveVault) engine() *search.Engine {
	lv.mu.Lock()
	defer lv.mu.Unlock()
	return lv.served
}

// settle writes a sentinel note and waits until the served engine holds
// it: events arrive in order, so every change made before is applied.
func (lv *liveVault) settle(t *testing.T, root string, n int) {
	t.Helper()
	name := fmt.Sprintf("zz-sentinel-%d.md", n)
	if err := os.WriteFile(filepath.Join(root, name), []byte("sentinel\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		if _, ok := lv.engine().Snapshot().NoteIDExact(name); ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("change %d never reached the engine", n)
		}
	}
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

func indexDiff(t *testing.T, a, b *service.Vault) string {
	t.Helper()
	ra, err := a.Index().Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.Index().Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ra, rb) {
		return fmt.Sprintf("%d rows vs %d: %v vs %v", len(ra), len(rb), firstDiff(ra, rb), firstDiff(rb, ra))
	}
	return ""
}

func firstDiff[T comparable](a, b []T) any {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return x
		}
	}
	return nil
}

// testWriter logs through t (a live failure shows what the server said).
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
