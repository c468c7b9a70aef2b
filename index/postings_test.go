package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPostingsCopySearchEqualsFTS5 checks that at FTS5's k1 and b, searches return
// exactly what FTS5's bm25() returns (the reference query: same chunks,
// same order, bit-identical scores) for every limit and lookup batch, on
// the fixture, on a vault of exact ties, on a vault of CJK fields,
// diacritics, stop words, digits and repeated words, and on a generated
// vault; and that most queries were indeed answered from memory (the
// rest, phrases and split words, were scored from SQLite reads).
func TestPostingsCopySearchEqualsFTS5(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, ix func(root string) *Index) (string, *Index)
		extra []string
	}{
		{"fixture", func(_ *testing.T, ix func(string) *Index) (string, *Index) {
			return "../testdata/vault", ix("../testdata/vault")
		}, nil},
		{"ties", tieVault, nil},
		{"mixed", mixedVault, mixedQueries},
		{"generated", genVault, append(genQueries(), genPhrases...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, ix := tc.setup(t, func(root string) *Index { return open(t, root, filepath.Join(t.TempDir(), "ix.db"), false) })
			syncDisk(t, ix)
			if err := ix.BM25().BuildPostings(context.Background()); err != nil {
				t.Fatal(err)
			}
			queries := append(equivalenceQueries(t, root), tc.extra...)
			limits, batches := []int{1, 2, 3, 5, 7, 10, 50, 450, 100000}, []int{1, 2, 3, firstBatch}
			if tc.name == "generated" { // many queries: fewer cuts
				limits, batches = []int{1, 7, 450, 100000}, []int{1, firstBatch}
				if raceEnabled { // one goroutine: the smallest and largest cut suffice under -race
					limits = []int{1, 100000}
				}
			}
			compared, fromCopy := compareAt(t, ix, queries, limits, batches)
			if compared == 0 {
				t.Fatal("no query matched anything: the comparison proves nothing")
			}
			if fromCopy < len(queries)/2 {
				t.Fatalf("only %d of %d queries were answered from memory", fromCopy, len(queries))
			}
			t.Logf("%d queries, %d answered from memory, %d hits compared", len(queries), fromCopy, compared)
		})
	}
}

// compareWithReference runs every query at several limits and batch sizes
// (small ones cut through groups of tied scores) and fails on any
// difference from the reference query. It returns the hits compared and
// the queries answered from memory.
func compareWithReference(t *testing.T, ix *Index, queries []string) (compared, fromCopy int) {
	t.Helper()
	return compareAt(t, ix, queries, []int{1, 3, 7, 50, 100000}, []int{1, 3, firstBatch})
}

// compareAt is compareWithReference at the given limits and batch sizes
// (fewer for the many queries of the generated vault).
func compareAt(t *testing.T, ix *Index, queries []string, limits, batches []int) (compared, fromCopy int) {
	t.Helper()
	for _, q := range queries {
		want := referenceSearch(t, ix, q)
		before := ix.bm25.used.Load()
		for _, limit := range limits {
			for _, batch := range batches {
				var got []Hit
				if err := ix.bm25.search(context.Background(), q, limit, batch, fts5Params, func(h Hit) bool { got = append(got, h); return true }); err != nil {
					t.Fatalf("%q limit %d: %v", q, limit, err)
				}
				w := want[:min(limit, len(want))]
				if !slices.Equal(got, w) {
					t.Fatalf("%q limit %d batch %d:\n got %v\nwant %v", q, limit, batch, got, w)
				}
				compared += len(w)
			}
		}
		if ix.bm25.used.Load() > before {
			fromCopy++
		}
	}
	return compared, fromCopy
}

// mixedQueries exercise the tokenizer: CJK grams, diacritics, case, stop
// words, digits, stems, words split or dropped by FTS5, odd input.
var mixedQueries = []string{
	"笔记", "中文笔记", "学习 方法", "日本語", "café", "CAFE", "cafe résumé naïve", "the", "the and of", "a",
	"running runs runner", "garden gardening gardens", "2024", "v2 x86", "œuvre", "straße", "İstanbul",
	"e\u0301te\u0301", "don't", "o'clock", "ﬁsh", "ＦＵＬＬ width", "emoji 🙂 note", "zzzz yyyy", "Δelta",
	`"starter flour"`, `"a b" c`, "rye rye rye", strings.Repeat("flour ", 80),
	`"rye rye"`, `"rye then wait"`, `"flour and water"`, `"学习 方法"`, "ba\u0305se", `"中文笔记"`, `"and the"`, `""`,
}

// mixedVault writes notes whose titles, aliases, headings and tags carry
// CJK text, diacritics, stop words and repeated words, of very different
// lengths, so that every column weight and length normalisation counts.
func mixedVault(t *testing.T, ix func(root string) *Index) (string, *Index) {
	t.Helper()
	root := t.TempDir()
	notes := map[string]string{
		"中文笔记.md":          "---\naliases: [学习方法]\ntags: [笔记]\n---\n# 学习 方法\n中文笔记的学习方法很多。\n",
		"日本語.md":           "# 日本語のノート\n日本語を勉強する。 café\n",
		"Café résumé.md":   "---\naliases: [Naïve cafe]\n---\n# Résumé\nThe café serves œuvre and straße food.\n",
		"Running.md":       "# Runs\nRunning runner runs. The runner is running in the garden.\n",
		"Gardens 2024.md":  "---\ntags: [garden, gardening]\n---\n# Gardening in 2024\nGardens need v2 x86 water. don't o'clock\n",
		"Long note.md":     "# Long\n" + strings.Repeat("Flour and water and rye make a starter. ", 60) + "\n",
		"Stub.md":          "rye\n",
		"Starter flour.md": "Starter flour: rye rye rye, then wait. ba\u0305se\n",
		"Delta.md":         "# Δelta İstanbul\nété ﬁsh ＦＵＬＬ width emoji 🙂 note\n",
	}
	for i := range 12 {
		notes[fmt.Sprintf("Filler %02d.md", i)] = fmt.Sprintf("# Filler %d\nthe of and a %s garden note %d\n", i, strings.Repeat("word ", i), i%3)
	}
	for name, body := range notes {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root, ix(root)
}

// TestPostingsCopyStaleUntilRebuilt checks that when the copy does not follow a
// write (as when another process wrote the index), searches are answered
// from SQLite reads (still exactly the reference) until the copy is
// rebuilt, and from memory again after that.
func TestPostingsCopyStaleUntilRebuilt(t *testing.T) {
	root, ix := mixedVault(t, func(root string) *Index { return open(t, root, filepath.Join(t.TempDir(), "ix.db"), false) })
	ix.bm25.mu.Lock()
	ix.bm25.next = time.Now().Add(time.Hour) // no background builds: this test builds
	ix.bm25.noDelta = true
	ix.bm25.mu.Unlock()
	syncDisk(t, ix)
	if err := ix.BM25().BuildPostings(context.Background()); err != nil {
		t.Fatal(err)
	}
	queries := []string{"rye", "garden", "starter flour", "中文笔记", "sourdough"}
	for _, step := range []struct {
		name     string
		change   func()
		fromCopy int
	}{
		{"built", func() {}, len(queries)},
		{"edited", func() {
			write(t, root, "Stub.md", "rye sourdough garden\n")
			os.Remove(filepath.Join(root, "Running.md"))
			write(t, root, "New.md", "# Sourdough\nstarter flour garden\n")
			syncDisk(t, ix)
		}, 0},
		{"rebuilt", func() {
			if err := ix.BM25().BuildPostings(context.Background()); err != nil {
				t.Fatal(err)
			}
		}, len(queries)},
	} {
		step.change()
		if _, fromCopy := compareWithReference(t, ix, queries); fromCopy != step.fromCopy {
			t.Fatalf("%s: %d queries answered from memory, want %d", step.name, fromCopy, step.fromCopy)
		}
	}
}

func write(t *testing.T, root, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestVarints decodes SQLite varints of every length.
func TestVarints(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want []uint64
		err  bool
	}{
		{[]byte{0x00}, []uint64{0}, false},
		{[]byte{0x7f, 0x01}, []uint64{127, 1}, false},
		{[]byte{0x81, 0x00}, []uint64{128}, false},
		{[]byte{0x82, 0x80, 0x01}, []uint64{1<<15 | 1}, false},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, []uint64{1<<64 - 1}, false},
		{[]byte{0x81}, nil, true},
		{nil, nil, false},
	} {
		got, err := varints(tc.in)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("varints(%x) = %v, %v; want %v, err %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// TestPostingsCopyConcurrent searches from several goroutines while the index is
// resynced (the copy following each write) and the copy built in the
// background, then closes the index with a build possibly running (run
// with -race). Every search must succeed, the followed copy must answer
// after the edits, and each search must equal the reference taken after
// the last sync.
func TestPostingsCopyConcurrent(t *testing.T) {
	root, ix := mixedVault(t, func(root string) *Index { return open(t, root, filepath.Join(t.TempDir(), "ix.db"), false) })
	syncDisk(t, ix)
	if err := ix.BM25().BuildPostings(context.Background()); err != nil {
		t.Fatal(err)
	}
	queries := []string{"rye", "garden note", "中文笔记", "flour water"}
	errs := make(chan error, 4)
	stop := make(chan struct{})
	for g := range 4 {
		go func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				if err := ix.BM25().Search(context.Background(), queries[(g+i)%len(queries)], 20, fts5Params, func(Hit) bool { return true }); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range 5 {
		write(t, root, fmt.Sprintf("Edit %d.md", i), fmt.Sprintf("rye garden note %d\n", i))
		syncDisk(t, ix)
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	ix.bm25.wg.Wait() // a build the first searches started
	if _, fromCopy := compareWithReference(t, ix, queries); fromCopy != len(queries) {
		t.Fatalf("%d of %d queries answered from memory after the edits: the copy did not follow them", fromCopy, len(queries))
	}
	if err := ix.BM25().BuildPostings(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, fromCopy := compareWithReference(t, ix, queries); fromCopy != len(queries) {
		t.Fatalf("%d of %d queries answered from memory after the rebuild", fromCopy, len(queries))
	}
	ix.bm25.mu.Lock()
	ix.bm25.next, ix.bm25.noQuiet = time.Time{}, true
	ix.bm25.mu.Unlock()
	write(t, root, "Last.md", "rye\n")
	syncDisk(t, ix)
	ix.BM25().Search(context.Background(), "rye", 5, fts5Params, func(Hit) bool { return true }) // starts a build
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestPostingsCopyWaitsForQuiet checks that a changed index is not copied at the
// first search that finds the copy stale, but once the index has stayed
// unchanged for copyQuiet.
func TestPostingsCopyWaitsForQuiet(t *testing.T) {
	root, ix := mixedVault(t, func(root string) *Index { return open(t, root, filepath.Join(t.TempDir(), "ix.db"), false) })
	ix.bm25.noDelta = true // writes make the copy stale, as another process's would
	syncDisk(t, ix)
	if err := ix.BM25().BuildPostings(context.Background()); err != nil {
		t.Fatal(err)
	}
	write(t, root, "Stub.md", "rye garden\n")
	syncDisk(t, ix)
	search := func() {
		t.Helper()
		if err := ix.BM25().Search(context.Background(), "rye", 5, fts5Params, func(Hit) bool { return true }); err != nil {
			t.Fatal(err)
		}
	}
	search()
	search()
	ix.bm25.wg.Wait()
	before := ix.bm25.used.Load()
	search()
	if ix.bm25.used.Load() != before {
		t.Fatal("the copy was rebuilt although the index just changed")
	}
	ix.bm25.mu.Lock()
	ix.bm25.since = ix.bm25.since.Add(-copyQuiet) // as if copyQuiet passed
	ix.bm25.mu.Unlock()
	search() // starts the build
	ix.bm25.wg.Wait()
	search()
	if ix.bm25.used.Load() != before+1 {
		t.Fatal("after the quiet period the copy was not rebuilt")
	}
}
