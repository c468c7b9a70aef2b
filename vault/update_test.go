package vault_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestUpdateEqualsLoad applies random changes to a vault copy and checks
// after each batch that the updated snapshot equals a fresh load: the same
// notes with the same content and the same resolution of every link.
func TestUpdateEqualsLoad(t *testing.T) {
	ctx := context.Background()
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6} {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			root := vaulttest.Copy(t, filepath.Join("..", "testdata", "vault"))
			snap, err := vault.Load(ctx, root, vault.Options{})
			if err != nil {
				t.Fatal(err)
			}
			m := vaulttest.NewMutator(t, root, seed)
			for batch := range 25 {
				var paths []string
				for range 1 + batch%4 {
					paths = append(paths, m.Step()...)
				}
				next, d, err := snap.Update(ctx, paths, vault.Options{})
				if err != nil {
					t.Fatal(err)
				}
				fresh, err := vault.Load(ctx, root, vault.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if diff := snapshotDiff(next, fresh); diff != "" {
					t.Fatalf("batch %d (paths %q): updated snapshot differs from a fresh load: %s", batch, paths, diff)
				}
				checkDelta(t, snap, next, d)
				snap = next
			}
		})
	}
}

// checkDelta checks that the delta's id map is right: a note said to be
// unchanged has the same content as its old note.
func checkDelta(t *testing.T, old, cur *vault.Snapshot, d *vault.Delta) {
	t.Helper()
	if len(d.Old) != len(cur.Notes) {
		t.Fatalf("delta maps %d notes, snapshot has %d", len(d.Old), len(cur.Notes))
	}
	for i, o := range d.Old {
		if o >= 0 && (old.Notes[o].Hash != cur.Notes[i].Hash || old.Notes[o].Path != cur.Notes[i].Path) {
			t.Fatalf("delta says %s is old note %d (%s), content differs", cur.Notes[i].Path, o, old.Notes[o].Path)
		}
	}
	removed := 0
	for _, o := range d.Old {
		if o >= 0 {
			removed++
		}
	}
	if got := len(old.Notes) - removed; got != len(d.Removed) {
		t.Fatalf("delta removed %d notes, %d old notes are not kept", len(d.Removed), got)
	}
}

// snapshotDiff describes the first difference between two snapshots.
func snapshotDiff(a, b *vault.Snapshot) string {
	if len(a.Notes) != len(b.Notes) {
		return fmt.Sprintf("%d notes vs %d: %v", len(a.Notes), len(b.Notes), symDiff(paths(a), paths(b)))
	}
	for i := range a.Notes {
		x, y := a.Notes[i], b.Notes[i]
		if x.Path != y.Path || x.Hash != y.Hash || x.Size != y.Size || !x.ModTime.Equal(y.ModTime) {
			return fmt.Sprintf("note %d: %s %s vs %s %s", i, x.Path, x.Hash, y.Path, y.Hash)
		}
		if len(x.Links) != len(y.Links) {
			return fmt.Sprintf("%s: %d links vs %d", x.Path, len(x.Links), len(y.Links))
		}
		for j := range x.Links {
			if x.Links[j] != y.Links[j] {
				return fmt.Sprintf("%s link %d: %+v vs %+v", x.Path, j, x.Links[j], y.Links[j])
			}
		}
	}
	if len(a.Attachments) != len(b.Attachments) {
		return fmt.Sprintf("%d attachments vs %d", len(a.Attachments), len(b.Attachments))
	}
	for i := range a.Attachments {
		if a.Attachments[i].Path != b.Attachments[i].Path {
			return fmt.Sprintf("attachment %d: %s vs %s", i, a.Attachments[i].Path, b.Attachments[i].Path)
		}
	}
	if !slices.Equal(warningPaths(a), warningPaths(b)) {
		return fmt.Sprintf("warnings %v vs %v", warningPaths(a), warningPaths(b))
	}
	return ""
}

func paths(s *vault.Snapshot) []string {
	var out []string
	for _, n := range s.Notes {
		out = append(out, n.Path)
	}
	return out
}

func warningPaths(s *vault.Snapshot) []string {
	var out []string
	for _, w := range s.Warnings {
		out = append(out, w.Path+": "+w.Message)
	}
	slices.Sort(out)
	return out
}

func symDiff(a, b []string) string {
	var out []string
	for _, p := range a {
		if !slices.Contains(b, p) {
			out = append(out, "-"+p)
		}
	}
	for _, p := range b {
		if !slices.Contains(a, p) {
			out = append(out, "+"+p)
		}
	}
	return strings.Join(out, " ")
}

// TestUpdateCases covers the changes one at a time, each with what the
// delta must say.
func TestUpdateCases(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		change  func(root string) []string
		added   int
		removed int
		relink  bool // some unchanged note's links resolve differently
	}{
		{"nothing changed", func(string) []string { return []string{"Home.md"} }, 0, 0, false},
		{"touch keeps the parsed note", func(root string) []string {
			return touch(t, root, "Home.md")
		}, 0, 0, false},
		{"edit", func(root string) []string {
			return write(t, root, "Home.md", "# Home\nnew text [[Sourdough Bread]]\n")
		}, 1, 1, false},
		{"create resolves a dangling link", func(root string) []string {
			return write(t, root, "Nonexistent Note.md", "# Now it exists\n")
		}, 1, 0, true},
		{"delete unresolves links", func(root string) []string {
			return remove(t, root, "Cooking/Sourdough Bread.md")
		}, 0, 1, true},
		{"hidden paths are ignored", func(root string) []string {
			return write(t, root, ".obsidian/x.md", "# hidden\n")
		}, 0, 0, false},
		{"a missing path is no change", func(string) []string { return []string{"no/such/file.md"} }, 0, 0, false},
		{"folder removed", func(root string) []string {
			if err := os.RemoveAll(filepath.Join(root, "Cooking")); err != nil {
				t.Fatal(err)
			}
			return []string{"Cooking"}
		}, 0, -1, true},
		{"folder moved", func(root string) []string {
			if err := os.Rename(filepath.Join(root, "Cooking"), filepath.Join(root, "Kitchen")); err != nil {
				t.Fatal(err)
			}
			return []string{"Cooking", "Kitchen"}
		}, -1, -1, true},
		{"invalid UTF-8", func(root string) []string {
			return write(t, root, "Home.md", "# Home\n\xff\xfe broken \xc3 bytes\n")
		}, 1, 1, false},
		{"a note over the size cap is skipped with a warning", func(root string) []string {
			return write(t, root, "Home.md", strings.Repeat("x", 6<<20))
		}, 0, 1, true},
		{"a file that came and went before the change was applied", func(root string) []string {
			p := write(t, root, "Blink.md", "# here\n")
			remove(t, root, "Blink.md")
			return p
		}, 0, 0, false},
		{"renamed to a non-note name", func(root string) []string {
			if err := os.Rename(filepath.Join(root, "Home.md"), filepath.Join(root, "Home.txt")); err != nil {
				t.Fatal(err)
			}
			return []string{"Home.md", "Home.txt"}
		}, 0, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := vaulttest.Copy(t, filepath.Join("..", "testdata", "vault"))
			snap, err := vault.Load(ctx, root, vault.Options{})
			if err != nil {
				t.Fatal(err)
			}
			next, d, err := snap.Update(ctx, tt.change(root), vault.Options{})
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := vault.Load(ctx, root, vault.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := snapshotDiff(next, fresh); diff != "" {
				t.Fatal(diff)
			}
			if tt.added >= 0 && len(d.Added) != tt.added {
				t.Errorf("added %d notes, want %d", len(d.Added), tt.added)
			}
			if tt.removed >= 0 && len(d.Removed) != tt.removed {
				t.Errorf("removed %d notes, want %d", len(d.Removed), tt.removed)
			}
			if tt.added < 0 && len(d.Added) == 0 || tt.removed < 0 && len(d.Removed) == 0 {
				t.Errorf("delta %+v: want notes added and removed", d)
			}
			if got := len(d.Relinked) > 0; got != tt.relink {
				t.Errorf("relinked %v, want some: %v", d.Relinked, tt.relink)
			}
			if tt.added == 0 && tt.removed == 0 && !tt.relink && d.Changed() {
				t.Errorf("delta %+v reports a change", d)
			}
		})
	}
}

// TestUpdateUnreadable: a note that cannot be read is dropped with a
// warning, as a load does, and comes back once it can be read.
func TestUpdateUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files whatever their permissions")
	}
	ctx := context.Background()
	root := vaulttest.Copy(t, filepath.Join("..", "testdata", "vault"))
	snap, err := vault.Load(ctx, root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "Home.md")
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	next, _, err := snap.Update(ctx, []string{"Home.md"}, vault.Options{})
	if err != nil || next.Note("Home.md") != nil || !slices.ContainsFunc(next.Warnings, func(w vault.Warning) bool { return w.Path == "Home.md" }) {
		t.Fatalf("unreadable note: %v, note %v, warnings %v", err, next.Note("Home.md"), next.Warnings)
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	back, _, err := next.Update(ctx, []string{"Home.md"}, vault.Options{})
	if err != nil || back.Note("Home.md") == nil {
		t.Fatalf("readable again: %v, %v", err, back.Note("Home.md"))
	}
}

func write(t *testing.T, root, p, text string) []string {
	t.Helper()
	abs := filepath.Join(root, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{p}
}

func remove(t *testing.T, root, p string) []string {
	t.Helper()
	if err := os.Remove(filepath.Join(root, filepath.FromSlash(p))); err != nil {
		t.Fatal(err)
	}
	return []string{p}
}

func touch(t *testing.T, root, p string) []string {
	t.Helper()
	abs := filepath.Join(root, filepath.FromSlash(p))
	info, err := os.Stat(abs)
	if err != nil {
		t.Fatal(err)
	}
	later := info.ModTime().Add(1e9)
	if err := os.Chtimes(abs, later, later); err != nil {
		t.Fatal(err)
	}
	return []string{p}
}
