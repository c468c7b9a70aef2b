// Package servicetest follows a service.Vault as serve does, with the
// watcher on, for tests of live changes.
package servicetest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/watch"
)

// Followed is what Follow needs of a service.Vault. It is an interface so
// that package service's own tests can use this package without an
// import cycle.
type Followed interface {
	Engine() *search.Engine
	OnSwap(func(*search.Engine))
	Root() string
	Follow(ctx context.Context, w *watch.Watcher) <-chan struct{}
	Close() error
}

// Live is a followed vault and the engine a server would hold.
type Live struct {
	mu     sync.Mutex
	served *search.Engine
}

// Follow runs a watcher on v with opts and keeps the engine v swaps in,
// as the server does (OnSwap). When the test ends it stops the watcher and
// closes v.
func Follow(t testing.TB, v Followed, opts watch.Options) *Live {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	lv := &Live{served: v.Engine()}
	v.OnSwap(func(e *search.Engine) {
		lv.mu.Lock()
		lv.served = e
		lv.mu.Unlock()
	})
	w := watch.New(v.Root(), opts)
	done := v.Follow(ctx, w)
	t.Cleanup(func() {
		cancel()
		<-done
		v.Close()
	})
	// The watcher is running once it reports its mode.
	for deadline := time.Now().Add(5 * time.Second); w.Mode() == watch.ModeOff; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the watcher did not start")
		}
	}
	return lv
}

// Engine returns the engine the server would hold now.
func (lv *Live) Engine() *search.Engine {
	lv.mu.Lock()
	defer lv.mu.Unlock()
	return lv.served
}

// Settle writes the sentinel note number n into root and waits until the
// served engine holds it: events arrive in order, so every change made
// before is applied then.
func (lv *Live) Settle(t testing.TB, root string, n int) {
	t.Helper()
	name := fmt.Sprintf("zz-sentinel-%d.md", n)
	if err := os.WriteFile(filepath.Join(root, name), []byte("sentinel\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		if _, ok := lv.Engine().Snapshot().NoteIDExact(name); ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("change %d never reached the engine", n)
		}
	}
}

// WriteFile writes b to abs, making its folder first.
func WriteFile(t testing.TB, abs string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// IndexFilesHolding lists the index files (the file and its WAL) whose
// bytes hold s: a privacy test's proof that hidden text left the index.
func IndexFilesHolding(t testing.TB, file, s string) []string {
	t.Helper()
	var holding []string
	for _, suffix := range []string{"", "-wal"} {
		raw, err := os.ReadFile(file + suffix)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte(s)) {
			holding = append(holding, file+suffix)
		}
	}
	return holding
}

// GarbleFTS overwrites FTS5's data blocks past the first ten with random
// bytes: damage that opening the index file does not notice.
func GarbleFTS(t testing.TB, ixFile string) {
	t.Helper()
	c, err := sqlite3.Open(ixFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(`UPDATE fts_data SET block = randomblob(length(block)) WHERE id > 10`); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

// Indexed is what IndexDiff needs of a service.Vault.
type Indexed interface {
	Index() *index.Index
}

// IndexDiff compares the file rows of two vaults' indexes: "" when they
// are equal, else the counts and a row found in one but not the other.
func IndexDiff(t testing.TB, a, b Indexed) string {
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
		return fmt.Sprintf("%d rows vs %d: %v vs %v", len(ra), len(rb), firstMissing(ra, rb), firstMissing(rb, ra))
	}
	return ""
}

// firstMissing is the first element of a that b lacks (nil when none).
func firstMissing[T comparable](a, b []T) any {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return x
		}
	}
	return nil
}
