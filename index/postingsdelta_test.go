package index

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/statefile"
)

// TestPostingsCopyFollowsEdits applies a sequence of edits, adds, deletes and
// renames, one sync each, to a copy built once, and after every step
// checks that the copy followed the write (every single-token query was
// answered from memory), that searches equal FTS5's bm25() (hits, order,
// bit-identical scores, at several limits and batches) and, at b = 0.3,
// the SQLite path; and that the copy holds exactly what a copy built
// afresh holds (rows, sizes, files, every term's rows and counts, the
// totals). At the end the followed copy, flattened and saved, is read
// back and adopted with the same results.
func TestPostingsCopyFollowsEdits(t *testing.T) {
	root, ix := mixedVault(t, func(root string) *Index { return open(t, root, filepath.Join(t.TempDir(), "ix.db"), false) })
	ix.bm25.mu.Lock()
	ix.bm25.next = time.Now().Add(time.Hour) // no background builds: only the writes change the copy
	ix.bm25.mu.Unlock()
	syncDisk(t, ix)
	if err := ix.BM25().BuildPostings(context.Background()); err != nil {
		t.Fatal(err)
	}
	queries := []string{"rye", "garden", "starter flour", "中文笔记", "sourdough", "café", "the", "zebra quartz", "edit", "学习"}
	lastPath := func() string { // the note holding the highest row id
		var p string
		err := ix.reader(context.Background(), func(c *sqlite3.Conn) error {
			st, _, err := c.Prepare(`SELECT path FROM chunks ORDER BY id DESC LIMIT 1`)
			if err != nil {
				return err
			}
			defer st.Close()
			if st.Step() {
				p = st.ColumnText(0)
			}
			return st.Err()
		})
		if err != nil || p == "" {
			t.Fatalf("last row: %q %v", p, err)
		}
		return p
	}
	remove := func(name string) {
		if err := os.Remove(filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	rename := func(from, to string) {
		if err := os.Rename(filepath.Join(root, from), filepath.Join(root, to)); err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range []struct {
		name   string
		change func()
	}{
		{"edit a body", func() { write(t, root, "Stub.md", "rye sourdough garden zebra\n") }},
		{"add a note", func() {
			write(t, root, "New.md", "---\naliases: [Quartz]\ntags: [edit]\n---\n# Sourdough\nstarter flour garden 中文笔记\n")
		}},
		{"edit the added note", func() { write(t, root, "New.md", "# Sourdough again\nstarter starter rye\n") }},
		{"edit it again", func() { write(t, root, "New.md", "# Sourdough\n"+strings.Repeat("flour rye ", 40)+"\n") }},
		{"delete a base note", func() { remove("Running.md") }},
		{"rename a base note", func() { rename("Delta.md", "Delta moved.md") }},
		{"rename and edit an added note", func() {
			rename("New.md", "Newer.md")
			write(t, root, "Newer.md", "# Newer\nzebra quartz\n")
		}},
		{"delete an added note", func() { remove("Newer.md") }},
		{"delete the last row's note, then add (row ids reused)", func() { remove(lastPath()) }},
		{"add after the delete", func() { write(t, root, "Reused.md", "# Reused\nrye garden edit edit\n\n# Second\nthe café\n") }},
		{"several files at once", func() {
			write(t, root, "Stub.md", "rye\n")
			write(t, root, "Batch 1.md", "# 学习\n中文 学习方法 garden\n")
			write(t, root, "Batch 2.md", "garden garden garden\n")
			remove("Gardens 2024.md")
		}},
		{"empty a note", func() { write(t, root, "Batch 2.md", "") }},
	} {
		step.change()
		syncDisk(t, ix)
		if _, fromCopy := compareAt(t, ix, queries, []int{1, 100000}, []int{firstBatch}); fromCopy != len(queries) {
			t.Fatalf("%s: %d of %d queries from memory: the copy did not follow", step.name, fromCopy, len(queries))
		}
		followed, _ := runAll(t, ix, queries, lowB)
		ix.bm25.off = true
		viaSQL, _ := runAll(t, ix, queries, lowB)
		ix.bm25.off = false
		sameResults(t, step.name+": followed copy / SQLite at b=0.3", queries, followed, viaSQL)
		m := ix.bm25.idx.Load()
		fresh := freshCopy(t, ix)
		if got, want := dumpCopy(m), dumpCopy(fresh); !maps.Equal(got, want) {
			t.Fatalf("%s: the followed copy differs from a fresh build:\n%v", step.name, diffDump(got, want))
		}
	}
	if ix.bm25.idx.Load().ov == nil {
		t.Fatal("no overlay after the edits: nothing was followed")
	}
	want, _ := runAll(t, ix, queries, lowB)
	var w statefile.Writer
	if ok, err := ix.BM25().EncodePostings(context.Background(), &w); err != nil || !ok {
		t.Fatalf("encode: %v %v", ok, err)
	}
	saved, err := DecodePostings(w.Buf)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := dumpCopy(saved.m), dumpCopy(ix.bm25.idx.Load()); !maps.Equal(got, want) {
		t.Fatalf("the flattened copy differs:\n%v", diffDump(got, want))
	}
	ix.bm25.idx.Store(nil)
	if why, err := ix.BM25().AdoptPostings(context.Background(), saved); why != "" || err != nil {
		t.Fatalf("adopt: %q %v", why, err)
	}
	got, fromCopy := runAll(t, ix, queries, lowB)
	if fromCopy != len(queries) {
		t.Fatalf("%d of %d queries from the saved copy", fromCopy, len(queries))
	}
	sameResults(t, "saved / followed", queries, got, want)
}

// freshCopy builds a copy of the index as it is now, without installing it.
func freshCopy(t *testing.T, ix *Index) *postingsCopy {
	t.Helper()
	var m *postingsCopy
	err := ix.reader(context.Background(), func(c *sqlite3.Conn) error {
		tx := c.Begin()
		defer tx.Rollback()
		var err error
		m, err = buildPostingsCopy(c)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// dumpCopy lists what a copy holds, independent of its layout: each row by
// FTS5 row id (size, file, chunk), each term's rows with their weighted
// counts, and the totals. A removed row is not listed.
func dumpCopy(m *postingsCopy) map[string]string {
	out := map[string]string{"totals": fmt.Sprint(m.nRow, m.nToken, m.stamp != "")}
	idOf := func(d uint32) int64 {
		if nb := uint32(len(m.ids)); d >= nb {
			return m.ov.add.ids[d-nb]
		}
		return m.ids[d]
	}
	for d := range m.rowCount() {
		if d < len(m.ids) && m.ov.isDead(uint32(d)) {
			continue
		}
		r, f := m.rowAt(int64(d))
		size := func() uint32 {
			if d < len(m.ids) {
				return m.size[d]
			}
			return m.ov.add.size[d-len(m.ids)]
		}()
		out[fmt.Sprint("row ", idOf(uint32(d)))] = fmt.Sprint(size, f.path, f.hash, r.idx, r.page, r.lineStart, r.lineEnd)
	}
	terms := map[string][]string{}
	for t, id := range m.terms {
		for j := m.offs[id]; j < m.offs[id+1]; j++ {
			if d := m.docs[j]; !m.ov.isDead(d) {
				terms[t] = append(terms[t], fmt.Sprint(idOf(d), ":", m.freq[j]))
			}
		}
	}
	if m.ov != nil {
		for t, p := range m.ov.add.terms {
			for j, i := range p.rows {
				terms[t] = append(terms[t], fmt.Sprint(idOf(i+uint32(len(m.ids))), ":", p.freq[j]))
			}
		}
	}
	for t, rows := range terms {
		slices.Sort(rows)
		out["term "+t] = strings.Join(rows, " ")
	}
	return out
}

// diffDump lists the first keys whose values differ between two dumps.
func diffDump(got, want map[string]string) string {
	var out []string
	keys := slices.Sorted(maps.Keys(got))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		if got[k] != want[k] && len(out) < 10 {
			out = append(out, fmt.Sprintf("%s: got %q, want %q", k, got[k], want[k]))
		}
	}
	return strings.Join(out, "\n")
}

// TestPostingsCopyOverlayBound checks that writes past the overlay's bound make
// the copy stale (searches then read SQLite, with the same results as
// FTS5's bm25()), and that a rebuild brings the copy back.
func TestPostingsCopyOverlayBound(t *testing.T) {
	root, ix := mixedVault(t, func(root string) *Index { return open(t, root, filepath.Join(t.TempDir(), "ix.db"), false) })
	ix.bm25.mu.Lock()
	ix.bm25.next = time.Now().Add(time.Hour) // no background builds
	ix.bm25.overlayMin = 3
	ix.bm25.mu.Unlock()
	syncDisk(t, ix)
	if err := ix.BM25().BuildPostings(context.Background()); err != nil {
		t.Fatal(err)
	}
	queries := []string{"rye", "garden", "zebra"}
	for _, step := range []struct {
		name     string
		notes    []string
		fromCopy int
	}{
		{"within the bound", []string{"Zebra 1.md"}, len(queries)},
		{"still within", []string{"Zebra 2.md", "Zebra 3.md"}, len(queries)},
		{"past it", []string{"Zebra 4.md"}, 0},
		{"after, stale", []string{"Zebra 5.md"}, 0},
	} {
		for _, n := range step.notes {
			write(t, root, n, "zebra rye garden\n")
		}
		syncDisk(t, ix)
		if _, fromCopy := compareAt(t, ix, queries, []int{100000}, []int{firstBatch}); fromCopy != step.fromCopy {
			t.Fatalf("%s: %d of %d queries from memory, want %d", step.name, fromCopy, len(queries), step.fromCopy)
		}
	}
	if err := ix.BM25().BuildPostings(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, fromCopy := compareAt(t, ix, queries, []int{100000}, []int{firstBatch}); fromCopy != len(queries) {
		t.Fatalf("%d of %d queries from memory after the rebuild", fromCopy, len(queries))
	}
}
