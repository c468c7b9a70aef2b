//go:build linux

package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/enquire-mcp/enquire-mcp/search"
)

// canary is the text of every file outside the vault: no reply may
// contain it.
const canary = "CANARY-OUTSIDE-THE-VAULT"

// raceDuration is how long TestConfinementUnderSwapRace races (a few
// seconds in CI; ENQUIRE_RACE_SECONDS sets it).
func raceDuration(t *testing.T) time.Duration {
	if s := os.Getenv("ENQUIRE_RACE_SECONDS"); s != "" {
		d, err := time.ParseDuration(s + "s")
		if err != nil {
			t.Fatalf("ENQUIRE_RACE_SECONDS=%q: %v", s, err)
		}
		return d
	}
	if testing.Short() {
		return time.Second
	}
	return 3 * time.Second
}

// TestConfinementUnderSwapRace is the reproduction of issue 10 item 1: a
// concurrent process swaps a folder of the vault with a symlink to a
// folder outside it (renameat2 RENAME_EXCHANGE in a tight loop) while
// create_note, append_to_note, set_frontmatter, rename_note, read_note,
// resources/read and search run on paths
// through that folder, and every write reloads the vault (a walk through
// the swapped folder). Nothing outside the vault may be created, changed,
// read or indexed.
func TestConfinementUnderSwapRace(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside := filepath.Join(base, "vault"), filepath.Join(base, "outside")
	for p, body := range map[string]string{
		"vault/Home.md":          "# Home\n\n[[note]]\n",
		"vault/Folder/note.md":   "# Inside note\n\ninside text\n",
		"vault/Folder/other.md":  "# Other\n",
		"outside/note.md":        canary + " note\n",
		"outside/other.md":       canary + " other\n",
		"outside/Sub/deeper.md":  canary + " deeper\n",
		"outside/new-0-0.md":     canary + " would be overwritten\n",
		"outside/other2.md":      canary + " rename target\n",
		"outside/.obsidian/x.md": canary + " hidden\n",
	} {
		p = filepath.Join(base, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A relative link: os.Root refuses absolute ones outright, a relative
	// one must be resolved and found to escape.
	if err := os.Symlink("../outside", filepath.Join(root, "Swap")); err != nil {
		t.Fatal(err)
	}
	before := outsideTree(t, outside)

	e, err := loadEngine(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	srv := New(e, Options{Version: "test", EnableWrite: true, Reload: func(ctx context.Context, _ []string) (*search.Engine, error) {
		return loadEngine(ctx, root)
	}})
	cs := connectTo(t, srv)

	stop := make(chan struct{})
	var swaps atomic.Int64
	swapErr := make(chan error, 1)
	go func() { swapErr <- swapLoop(filepath.Join(root, "Folder"), filepath.Join(root, "Swap"), stop, &swaps) }()

	var (
		wg                    sync.WaitGroup
		mu                    sync.Mutex
		leaks                 []string
		calls, okReads, okWri atomic.Int64
	)
	leak := func(what, got string) {
		if strings.Contains(got, canary) {
			mu.Lock()
			leaks = append(leaks, fmt.Sprintf("%s returned %.120q", what, got))
			mu.Unlock()
		}
	}
	deadline := time.Now().Add(raceDuration(t))
	ctx := context.Background()
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				var tool string
				var args map[string]any
				switch (w + i) % 9 {
				case 0:
					tool, args = "obsidian_create_note", map[string]any{"path": fmt.Sprintf("Folder/new-%d-%d.md", w, i), "content": "created\n"}
				case 1:
					tool, args = "obsidian_append_to_note", map[string]any{"path": "Folder/note.md", "content": "appended"}
				case 2:
					tool, args = "obsidian_create_note", map[string]any{"path": "Folder/other.md", "content": "replaced\n", "overwrite": true}
				case 3:
					tool, args = "obsidian_read_note", map[string]any{"path": "Folder/note.md"}
				case 6:
					tool, args = "obsidian_set_frontmatter", map[string]any{"path": "Folder/note.md", "set": map[string]any{"n": i}}
				case 7:
					tool, args = "obsidian_rename_note", map[string]any{"path": "Folder/other.md", "new_path": "Folder/other2.md"}
				case 8:
					tool, args = "obsidian_rename_note", map[string]any{"path": "Folder/other2.md", "new_path": "Folder/other.md"}
				case 5: // a walk that strayed outside would have indexed the canaries
					tool, args = "obsidian_search", map[string]any{"query": "canary outside the vault deeper hidden"}
				case 4:
					calls.Add(1)
					res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: NoteURI("Folder/note.md")})
					if err == nil {
						okReads.Add(1)
						for _, c := range res.Contents {
							leak("resources/read", c.Text)
						}
					}
					continue
				}
				calls.Add(1)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
				if err != nil {
					leak(tool, err.Error())
					continue
				}
				leak(tool, text(res))
				if !res.IsError {
					if tool == "obsidian_read_note" || tool == "obsidian_search" {
						okReads.Add(1)
					} else {
						okWri.Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	if err := <-swapErr; err != nil {
		t.Fatal(err)
	}
	t.Logf("%d calls (%d reads and %d writes succeeded) during %d swaps", calls.Load(), okReads.Load(), okWri.Load(), swaps.Load())
	for _, l := range leaks {
		t.Error(l)
	}
	if after := outsideTree(t, outside); !equalTrees(before, after) {
		t.Errorf("the folder outside the vault changed:\nbefore %v\nafter  %v", before, after)
	}
	// The race must have happened, and the tools must have worked through
	// it: a test in which every call failed would prove nothing.
	if swaps.Load() < 100 || okReads.Load() == 0 || okWri.Load() == 0 {
		t.Fatalf("race not exercised: %d swaps, %d reads and %d writes succeeded", swaps.Load(), okReads.Load(), okWri.Load())
	}
}

// swapLoop exchanges a and b (a folder and a symlink) until stop closes:
// atomically with renameat2(RENAME_EXCHANGE) where the file system has
// it, else with three renames. It leaves them as it found them.
func swapLoop(a, b string, stop <-chan struct{}, n *atomic.Int64) error {
	exchange := func() error { return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE) }
	if err := exchange(); errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) {
		tmp := a + ".swap"
		exchange = func() error {
			return errors.Join(os.Rename(a, tmp), os.Rename(b, a), os.Rename(tmp, b))
		}
	} else if err != nil {
		return fmt.Errorf("renameat2: %w", err)
	} else {
		n.Add(1)
	}
	for {
		select {
		case <-stop:
			if n.Load()%2 == 1 { // put the folder back under its name
				if err := exchange(); err != nil {
					return err
				}
			}
			return nil
		default:
		}
		if err := exchange(); err != nil {
			return err
		}
		n.Add(1)
	}
}

// outsideTree records every entry under dir: its type, size, mode,
// modification time and content.
func outsideTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%v %d %d", info.Mode(), info.Size(), info.ModTime().UnixNano())
		if info.Mode().IsRegular() {
			raw, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += " " + string(raw)
		}
		tree[strings.TrimPrefix(p, dir)] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
