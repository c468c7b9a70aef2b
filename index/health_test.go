package index

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// wordVault writes n notes of pseudo-random words (fixed seed) and
// returns the vault's real root and the words used.
func wordVault(t *testing.T, n int) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	words := make([]string, 400)
	for i := range words {
		words[i] = fmt.Sprintf("w%03dx", i)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntags: [t%d]\n---\n# Note %d\n\n", i%7, i)
		for j := range 300 {
			b.WriteString(words[r.IntN(len(words))])
			if j%15 == 14 {
				b.WriteString("\n\n")
			} else {
				b.WriteByte(' ')
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%04d.md", i)), []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	real, err := vault.RealRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real, words
}

// diskHealer rebuilds from the vault on disk, as serve configures it.
func diskHealer() Healer {
	return Healer{Source: func(ctx context.Context, fresh *Index) (Source, error) {
		return fresh.DiskSource(ctx, 0, vault.PDFReader{})
	}}
}

// hitKeys renders a search's result for comparison.
func hitKeys(ix *Index, q string) ([]string, error) {
	var out []string
	err := ix.BM25().Search(context.Background(), q, 20, fts5Params, func(h Hit) bool {
		out = append(out, fmt.Sprintf("%s#%d", h.Path, h.Chunk))
		return true
	})
	return out, err
}

// TestRandomBytesHealed writes random bytes into the middle of a closed
// index (several seeds), then opens it as serve does (with a healer),
// syncs and runs 150 queries. Whether the damage is caught by the check
// on open or by a query, the end state is the same: the file passes
// SQLite's full integrity check and FTS5's, and every query returns what
// a clean index returns. Errors are only allowed while a heal runs.
func TestRandomBytesHealed(t *testing.T) {
	root, words := wordVault(t, 300)
	ctx := context.Background()
	s := NewSettings(root, false, chunk.Options{})
	clean, err := Open(ctx, filepath.Join(t.TempDir(), "clean.db"), s, false)
	if err != nil {
		t.Fatal(err)
	}
	defer clean.Close()
	syncDisk(t, clean)
	queries := make([]string, 150)
	want := make([][]string, len(queries))
	for i := range queries {
		queries[i] = words[(i*7)%len(words)] + " " + words[(i*13+5)%len(words)]
		if want[i], err = hitKeys(clean, queries[i]); err != nil {
			t.Fatal(err)
		}
	}
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ix.db")
			ix, err := Open(ctx, path, s, false)
			if err != nil {
				t.Fatal(err)
			}
			syncDisk(t, ix)
			ix.Close()
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(seed, 99))
			junk := make([]byte, 4096)
			for i := range junk {
				junk[i] = byte(r.IntN(256))
			}
			off := info.Size()/4 + r.Int64N(info.Size()/2)
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteAt(junk, off)
			f.Close()

			ix, err = Open(ctx, path, s, false)
			if err != nil {
				t.Fatalf("open after damage: %v", err)
			}
			defer ix.Close()
			ix.Health().SetHealer(diskHealer())
			src, err := ix.DiskSource(ctx, 0, vault.PDFReader{})
			if err == nil {
				_, err = ix.Sync(ctx, src, nil)
			}
			failed := 0
			if err != nil {
				failed++
				if !IsCorrupt(err) {
					t.Fatalf("sync: %v", err)
				}
			}
			for _, q := range queries {
				if _, err := hitKeys(ix, q); err != nil {
					if !IsCorrupt(err) {
						t.Fatalf("query %q: %v", q, err)
					}
					failed++
				}
			}
			if err := ix.Health().WaitHealed(ctx); err != nil {
				t.Fatal(err)
			}
			t.Logf("offset %d: rebuilt on open %q; %d calls failed before the heal", off, ix.Rebuilt, failed)
			if failed > 0 && ix.Rebuilt == "" && ix.Health().Damaged() != nil {
				t.Fatalf("damage seen but not healed: %v", ix.Health().Damaged())
			}
			if err := ix.Check(ctx); err != nil {
				t.Fatalf("after heal: %v", err)
			}
			for i, q := range queries {
				got, err := hitKeys(ix, q)
				if err != nil || !slices.Equal(got, want[i]) {
					t.Fatalf("query %q after heal: %v %v, want %v", q, got, err, want[i])
				}
			}
		})
	}
}

// TestDamageWithoutHealerNamesFix: with no healer, a corrupt index fails
// fast with the manual fix in the message.
func TestDamageWithoutHealerNamesFix(t *testing.T) {
	ix := open(t, "../testdata/vault", filepath.Join(t.TempDir(), "v.db"), false)
	syncDisk(t, ix)
	err := ix.noteDamage(fmt.Errorf("step: %w", corruptErr(t)))
	if !IsCorrupt(err) || !strings.Contains(err.Error(), "index --rebuild") {
		t.Fatalf("err = %v", err)
	}
	_, err = hitKeys(ix, "photosynthesis")
	if !IsCorrupt(err) || !strings.Contains(err.Error(), "index --rebuild") {
		t.Fatalf("search on a damaged index: %v", err)
	}
}

// corruptErr returns a real SQLITE_CORRUPT error from SQLite.
func corruptErr(t *testing.T) error {
	t.Helper()
	ix := open(t, "../testdata/vault", filepath.Join(t.TempDir(), "c.db"), false)
	syncDisk(t, ix)
	garbleFTS(t, ix)
	_, err := hitKeys(ix, "photosynthesis chlorophyll light")
	if !IsCorrupt(err) {
		t.Fatalf("expected SQLITE_CORRUPT, got %v", err)
	}
	return err
}

// garbleFTS overwrites FTS5's segment blobs with random bytes through
// SQL: the file's b-trees stay sound (quick_check passes) while every
// full-text query meets corrupt data, as after damage inside a blob.
func garbleFTS(t *testing.T, ix *Index) {
	t.Helper()
	if err := ix.write.Exec(`UPDATE fts_data SET block = randomblob(length(block)) WHERE id > 10`); err != nil {
		t.Fatal(err)
	}
}

// TestQueryTimeDamageHealed: damage the open-time check cannot see is
// found by the first query that reads it, which fails with SQLITE_CORRUPT; the index is
// rebuilt in the background into a new file and swapped in, after which
// every query answers as on a clean index and the file passes the full
// integrity checks.
func TestQueryTimeDamageHealed(t *testing.T) {
	root, words := wordVault(t, 200)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ix.db")
	ix := open(t, root, path, false)
	syncDisk(t, ix)
	queries := words[:40]
	want := make([][]string, len(queries))
	for i, q := range queries {
		var err error
		if want[i], err = hitKeys(ix, q); err != nil || len(want[i]) == 0 {
			t.Fatalf("query %q: %v %v", q, want[i], err)
		}
	}
	garbleFTS(t, ix)
	ix.Close()
	ix = open(t, root, path, false)
	if ix.Rebuilt != "" {
		t.Fatalf("open-time check saw the blob damage (%s): this test needs damage only a query finds", ix.Rebuilt)
	}
	healed := make(chan struct{})
	h := diskHealer()
	h.Healed = func() { close(healed) }
	ix.Health().SetHealer(h)
	// Random blocks do not always fail the first query's reads, so the
	// first query that fails must be the one that reports the damage.
	var err error
	for _, q := range queries {
		if _, err = hitKeys(ix, q); err != nil {
			break
		}
	}
	if !IsCorrupt(err) || !strings.Contains(err.Error(), "rebuilt in the background") {
		t.Fatalf("first failing query on damaged index: %v", err)
	}
	select {
	case <-healed:
	case <-time.After(60 * time.Second):
		t.Fatal("no heal within 60 s")
	}
	if ix.Health().Damaged() != nil {
		t.Fatalf("still damaged: %v", ix.Health().Damaged())
	}
	if err := ix.Check(ctx); err != nil {
		t.Fatalf("after heal: %v", err)
	}
	for i, q := range queries {
		got, err := hitKeys(ix, q)
		if err != nil || !slices.Equal(got, want[i]) {
			t.Fatalf("query %q after heal: %v %v, want %v", q, got, err, want[i])
		}
	}
	if _, err := os.Stat(path + ".heal"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("temporary file left: %v", err)
	}
}

// TestQueriesDuringHeal: searches running while the heal swaps files
// either succeed or fail with the damage error, never anything else, and
// nothing races (run with -race).
func TestQueriesDuringHeal(t *testing.T) {
	root, words := wordVault(t, 150)
	path := filepath.Join(t.TempDir(), "ix.db")
	ix := open(t, root, path, false)
	syncDisk(t, ix)
	garbleFTS(t, ix)
	ix.Health().SetHealer(diskHealer())
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			deadline := time.Now().Add(20 * time.Second)
			for i := 0; time.Now().Before(deadline); i++ {
				_, err := hitKeys(ix, words[(g*31+i)%len(words)])
				if err == nil && ix.Health().Damaged() == nil {
					return
				}
				if err != nil && !IsCorrupt(err) {
					errs <- err
					return
				}
				time.Sleep(time.Millisecond)
			}
			errs <- errors.New("not healed within 20 s")
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestConcurrentSyncsWait runs four syncs of one index file at once from
// separate Index handles (as two `index` runs would): none fails (no
// UNIQUE-constraint error), the late ones report that they waited, and
// the index holds each note once.
func TestConcurrentSyncsWait(t *testing.T) {
	root, _ := wordVault(t, 120)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ix.db")
	s := NewSettings(root, false, chunk.Options{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var waits []string
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ix, err := Open(ctx, path, s, false)
			if err != nil {
				errs[i] = err
				return
			}
			defer ix.Close()
			ix.SetLockWait(func(f string) { mu.Lock(); waits = append(waits, f); mu.Unlock() })
			src, err := ix.DiskSource(ctx, 0, vault.PDFReader{})
			if err == nil {
				_, err = ix.Sync(ctx, src, nil)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	ix := open(t, root, path, false)
	rows, err := ix.fileRows(ctx)
	if err != nil || len(rows) != 120 {
		t.Fatalf("%d file rows (%v), want 120", len(rows), err)
	}
	if err := ix.Check(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d syncs waited for the lock", len(waits))
	for _, w := range waits {
		if w != path+".lock" {
			t.Fatalf("waited on %q", w)
		}
	}
}

// TestSyncLockHonoursContext: a sync that cannot get the lock gives up
// with its context and names the lock file.
func TestSyncLockHonoursContext(t *testing.T) {
	ix := open(t, "../testdata/vault", filepath.Join(t.TempDir(), "v.db"), false)
	unlock, err := ix.lockSync(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = ix.Sync(ctx, Source{}, nil)
	if err == nil || !strings.Contains(err.Error(), "another index run holds "+ix.Path()+".lock") {
		t.Fatalf("err = %v", err)
	}
}
