package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/search/enginetest"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
	"github.com/enquire-mcp/enquire-mcp/watch"
)

// TestLiveStartupRace races edits against serve's start-up: each trial
// starts the engine and the watcher as serve does (load, then newServer)
// while a goroutine deletes one note, creates another, rewrites a third
// and writes a privacy rule that hides a fourth, at a moment that moves
// from the middle of the load to the instant the server is ready. Within
// a bounded wait after the edits, the served engine must hold exactly the
// files on disk under the rules on disk and answer as a fresh start on
// them does, with a new index, a prebuilt one, and none.
func TestLiveStartupRace(t *testing.T) {
	t.Parallel()
	trials := 24
	if raceEnabled {
		trials = 9
	}
	modes := []string{"new index", "prebuilt index", "no index"}
	for i := range trials {
		mode := modes[i%len(modes)]
		// Even rounds edit the moment newServer returns (the server is
		// ready, the watcher not yet watching); odd ones during the load.
		atReady := i/len(modes)%2 == 0
		t.Run(fmt.Sprintf("%d/%s/ready=%v", i, mode, atReady), func(t *testing.T) {
			ctx := context.Background()
			root := vaulttest.Copy(t, filepath.Join("..", "..", "testdata", "vault"))
			write := func(name, text string) {
				t.Helper()
				if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("ghost.md", "# Ghost\n\nquokka marsupial ghost note\n")
			write("edited.md", "# Edited\n\nplain first version\n")
			write("hidden-later.md", "# Hidden later\n\nnarwhal tusk, hidden by a rule made at start-up\n")
			newFlags := func() *vaultFlags {
				vf := &vaultFlags{vault: root, maxFileSize: 1 << 20, keepState: true}
				if mode == "no index" {
					vf.noIndex = true
				} else {
					vf.indexFile = filepath.Join(t.TempDir(), "live.db")
				}
				return vf
			}
			vf := newFlags()
			if mode == "prebuilt index" {
				mustLoad(t, vf).Close() // the index and the engine state
			}
			edits := func() error {
				if err := os.Remove(filepath.Join(root, "ghost.md")); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(root, "newborn.md"), []byte("# Newborn\n\nwombat burrow newborn note\n"), 0o644); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(root, "edited.md"), []byte("# Edited\n\nsecond version mentions the platypus\n"), 0o644); err != nil {
					return err
				}
				if err := os.MkdirAll(filepath.Join(root, ".enquire"), 0o755); err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(root, filepath.FromSlash(watch.RulesFile)), []byte("hidden-later.md\n"), 0o644)
			}
			edited := make(chan error, 1)
			if !atReady {
				delay := time.Duration(i) * time.Millisecond
				go func() {
					time.Sleep(delay)
					edited <- edits()
				}()
			}
			ctx, cancel := context.WithCancel(ctx)
			logger := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
			l, err := vf.load(ctx, logger)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			_, done := (&serveFlags{watch: true}).newServer(ctx, l, vf.indexWhy, logger, "stdio")
			defer func() { cancel(); <-done }() // no change applied after the close
			if atReady {
				edited <- edits()
			}
			if err := <-edited; err != nil {
				t.Fatal(err)
			}
			served := l.Engine
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				snap := served().Snapshot()
				changed, err := snap.Changed(ctx)
				if err != nil {
					t.Fatal(err)
				}
				// A rescan lists hidden files too: the engine skips them.
				changed = slices.DeleteFunc(changed, func(p string) bool { return p == "hidden-later.md" })
				_, hidden := snap.NoteIDExact("hidden-later.md")
				hidden = !hidden
				if len(changed) == 0 && hidden {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("10 s after the edits the served engine still differs from the disk at %v (rule applied: %v)", changed, hidden)
				}
			}
			fresh := freshLoad(t, newFlags())
			queries := append([]string{"quokka marsupial", "wombat burrow", "platypus", "plain first version", "narwhal tusk"}, enginetest.Queries...)
			if d := enginetest.Diff(ctx, served(), fresh.Engine(), queries); d != "" {
				t.Fatalf("served engine differs from a fresh start: %s", d)
			}
		})
	}
}
