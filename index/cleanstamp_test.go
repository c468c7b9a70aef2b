package index

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/chunk"
)

// TestCleanCloseStamp: a clean close stamps the index file so the next
// open may skip the page walk, and every later change to the file's bytes
// (even with its modification time set back), a journal left to replay,
// or damage met while open voids the stamp, so the damage is still found
// and rebuilt.
func TestCleanCloseStamp(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("no status-change time to stamp on this system")
	}
	root, words := wordVault(t, 150)
	ctx := context.Background()
	settings := NewSettings(root, false, chunk.Options{})
	build := func(t *testing.T) string {
		path := filepath.Join(t.TempDir(), "ix.db")
		ix := open(t, root, path, false)
		syncDisk(t, ix)
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	overwrite := func(t *testing.T, path string, at func(size, page int64) int64) {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		page := int64(binary.BigEndian.Uint16(b[16:18]))
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		junk := []byte(strings.Repeat("\xde\xad\xbe\xef", int(page/4)))
		if _, err := f.WriteAt(junk, at(fi.Size(), page)); err != nil {
			t.Fatal(err)
		}
		f.Close()
		// A copy tool restoring times must not hide the change.
		if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("clean close is trusted", func(t *testing.T) {
		path := build(t)
		if !cleanSinceClose(path) {
			t.Fatal("a cleanly closed index is not stamped clean")
		}
		ix, err := Open(ctx, path, settings, false)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		if ix.Rebuilt != "" {
			t.Fatalf("Rebuilt = %q", ix.Rebuilt)
		}
		if hits, err := hitKeys(ix, words[0]); err != nil || len(hits) == 0 {
			t.Fatalf("query %q: %v %v", words[0], hits, err)
		}
	})
	damages := []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"middle page overwritten, times set back", func(t *testing.T, path string) {
			overwrite(t, path, func(size, page int64) int64 { return size / page / 2 * page })
		}},
		{"page 2 overwritten, times set back", func(t *testing.T, path string) {
			overwrite(t, path, func(_, page int64) int64 { return page })
		}},
		{"cut to half", func(t *testing.T, path string) {
			fi, _ := os.Stat(path)
			if err := os.Truncate(path, fi.Size()/2); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			path := build(t)
			d.damage(t, path)
			if cleanSinceClose(path) {
				t.Fatal("the damaged file still counts as cleanly closed")
			}
			ix, err := Open(ctx, path, settings, false)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			if !strings.HasPrefix(ix.Rebuilt, "damaged: ") {
				t.Fatalf("Rebuilt = %q, want the damage found", ix.Rebuilt)
			}
		})
	}
	t.Run("journal left to replay", func(t *testing.T) {
		path := build(t)
		if err := os.WriteFile(path+"-wal", []byte("frames of a killed writer"), 0o600); err != nil {
			t.Fatal(err)
		}
		if cleanSinceClose(path) {
			t.Fatal("a file with a journal to replay counts as cleanly closed")
		}
	})
	t.Run("stamp written in the file's last tick", func(t *testing.T) {
		path := build(t)
		s, _ := statStamp(path)
		if err := os.WriteFile(cleanPath(path), []byte(s.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		ct := time.Unix(0, s.ctime)
		if err := os.Chtimes(cleanPath(path), ct, ct); err != nil {
			t.Fatal(err)
		}
		if cleanSinceClose(path) {
			t.Fatal("a stamp no later than the file's change counts")
		}
	})
	t.Run("damage met while open", func(t *testing.T) {
		path := build(t)
		ix, err := Open(ctx, path, settings, false)
		if err != nil {
			t.Fatal(err)
		}
		ix.noteDamage(checkFailed("damage a query met"))
		ix.Close()
		if cleanSinceClose(path) {
			t.Fatal("an index closed with known damage is stamped clean")
		}
	})
}
