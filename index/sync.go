package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/pdf"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Source is what a sync indexes: the vault's files (stat only) and a way
// to get the parsed note of one of them.
type Source struct {
	Files []vault.File
	// Note returns the note of a file, or nil when it cannot be indexed
	// (the warnings say why).
	Note noteFunc
	// Warnings met while listing the files.
	Warnings []vault.Warning
	// WalkedNotes and WalkedAttachments are every Markdown note and every
	// attachment the walk found, before any privacy rule (DiskSource):
	// what a warm start compares with its saved state.
	WalkedNotes, WalkedAttachments []vault.File
	// Keep, when set, spares the row of a file the source does not list
	// (a snapshot leaves out files it skipped, which still exist).
	Keep func(path string) bool
	// Scope, when set, limits the sync to these vault-relative paths
	// (files, or folders and everything under them): rows elsewhere are
	// neither read nor touched, so a live change costs what it changed.
	Scope []string
	// rows, when set, delivers the stored file rows read during the walk.
	rows func() (map[string]fileRow, error)
	// Privacy, when set, hides files and notes from the index and purges
	// what it hides (see Sync).
	Privacy Privacy
	// hidden, when set, names more files the privacy rules hide (the notes
	// a snapshot dropped for their frontmatter marker).
	hidden func(path string) bool
	// gen is the sync generation rows were read at (see syncGeneration).
	gen string
	// ocr, when set, says that an unchanged file must be read again for
	// its scanned pages (see needsOCR).
	ocr func(path string, r fileRow) bool
}

// DiskSource walks the vault and reads only the files a sync asks for:
// unchanged files cost one stat. PDFs are included when the index's
// settings say so; their text comes from the index when unchanged.
func (ix *Index) DiskSource(ctx context.Context, maxFileSize int64, pdfs vault.PDFReader) (Source, error) {
	return ix.DiskSourceWalked(ctx, maxFileSize, pdfs, func() ([]vault.File, []vault.File, []vault.Warning, error) {
		return vault.Walk(ctx, ix.settings.Vault)
	})
}

// DiskSourceWalked is [Index.DiskSource] with the vault's walk (as
// [vault.Walk] returns it) from walk, which a caller may have started
// before the index was opened.
func (ix *Index) DiskSourceWalked(ctx context.Context, maxFileSize int64, pdfs vault.PDFReader, walk func() (notes, atts []vault.File, warnings []vault.Warning, err error)) (Source, error) {
	type fetched struct {
		rows map[string]fileRow
		err  error
	}
	pre := make(chan fetched, 1)
	gen := ix.syncGeneration()
	go func() { // the stored state is read while the disk is walked
		rows, err := ix.fileRows(ctx)
		pre <- fetched{rows, err}
	}()
	notes, atts, warnings, err := walk()
	f := <-pre
	if err != nil {
		return Source{}, err
	}
	files := notes
	if ix.settings.PDFs {
		for _, a := range atts {
			if vault.IsPDF(a.Path) {
				files = append(files, a)
			}
		}
	}
	rows := func() (map[string]fileRow, error) { return f.rows, f.err }
	return Source{Files: files, Warnings: warnings, WalkedNotes: notes, WalkedAttachments: atts, rows: rows, gen: gen, ocr: diskOCR(pdfs), Note: func(ctx context.Context, f vault.File) (*vault.Note, []vault.Warning) {
		if vault.IsPDF(f.Path) {
			return pdfs.Read(ctx, f)
		}
		return vault.ReadNote(f, maxFileSize)
	}}, nil
}

// SnapshotSource indexes the notes of a loaded snapshot without reading
// any file again, so the index matches what the server holds in memory.
func SnapshotSource(s *vault.Snapshot) Source { return notesSource(s, s.Notes) }

// notesSource indexes the given notes of snapshot s.
func notesSource(s *vault.Snapshot, notes []*vault.Note) Source {
	files := make([]vault.File, len(notes))
	byPath := make(map[string]*vault.Note, len(notes))
	for i, n := range notes {
		files[i] = vault.File{Path: n.Path, Size: n.Size, ModTime: n.ModTime}
		byPath[n.Path] = n
	}
	keep := func(p string) bool { // skipped files (too large, unreadable PDFs) keep their rows
		if s.Hides(p) {
			return false // a private note's rows go
		}
		fsys, err := s.Files()
		if err != nil {
			return true // cannot tell: deleting the row would lose it
		}
		_, err = fsys.Lstat(p)
		return err == nil
	}
	src := Source{Files: files, Keep: keep, ocr: notesOCR(byPath), Note: func(_ context.Context, f vault.File) (*vault.Note, []vault.Warning) {
		return byPath[f.Path], nil
	}}
	if f, ok := s.Privacy.Filter.(Privacy); ok {
		src.Privacy, src.hidden = f, s.Hides // the snapshot's rules purge the index too
	}
	return src
}

// Stats summarise a sync.
type Stats struct {
	Added, Updated, Renamed, Deleted, Unchanged int
	// Purged counts the files whose rows were removed because the privacy
	// rules hide them (not included in Deleted).
	Purged int
	// PurgedFile says that the file was rewritten without free pages after
	// a purge or a change of the privacy rules.
	PurgedFile bool
	// Chunks is the number of chunks in the index after the sync (-1
	// for a sync limited to a Scope, which does not count them).
	Chunks int
	// PDFsWithoutText counts indexed PDFs that have no text layer.
	PDFsWithoutText int
	Warnings        []vault.Warning
	Duration        time.Duration
}

// fileRow is the stored state of one file.
type fileRow struct {
	kind    string
	size    int64
	mtime   int64
	hash    string
	warning string
	// blank counts a PDF's pages without a text layer, ocr names the
	// OCR settings their text was read with ("" for none).
	blank int
	ocr   string
}

// batchSize bounds how many files one transaction writes: a kill loses at
// most one batch, and the next sync redoes it. Each commit flushes an FTS5
// segment that later merges rewrite: at 1024 rather than 256 a cold build
// of 13,000 notes costs 6 % less CPU.
const batchSize = 1024

// Sync brings the index in line with src: new and changed files (size or
// modification time differ, confirmed by content hash) are reindexed,
// renamed ones detected by hash, deleted ones removed. Each file's update
// happens inside one transaction. progress, if set, gets (done, total)
// over the files that need work.
func (ix *Index) Sync(ctx context.Context, src Source, progress func(done, total int)) (Stats, error) {
	start := time.Now()
	st := Stats{Warnings: src.Warnings}
	if src.Privacy != nil { // a warning names its file
		st.Warnings = slices.DeleteFunc(slices.Clone(st.Warnings), func(w vault.Warning) bool { return src.Privacy.Excluded(w.Path) })
	}
	unlock, err := ix.lockSync(ctx, ix.lockWait)
	if err != nil {
		return st, err
	}
	defer unlock()
	fetch := src.rows
	if src.Scope != nil {
		fetch = func() (map[string]fileRow, error) { return ix.fileRowsUnder(ctx, src.Scope) }
	} else if fetch == nil || src.gen != ix.syncGeneration() { // another sync ran since: reread
		fetch = func() (map[string]fileRow, error) { return ix.fileRows(ctx) }
	}
	rows, err := fetch()
	if err != nil {
		return st, err
	}
	rulesChanged, err := ix.rulesChanged(ctx, src.Privacy)
	if err != nil {
		return st, err
	}
	reparse, err := ix.parseOutdated(ctx)
	if err != nil {
		return st, err
	}
	pristine := ix.pristine.Swap(false)
	var work []vault.File
	seen := make(map[string]bool, len(src.Files))
	for _, f := range src.Files {
		if seen[f.Path] {
			continue // listed twice (overlapping scopes): indexed once
		}
		if src.Privacy != nil && src.Privacy.Excluded(f.Path) {
			continue // never indexed; a stored row is purged below
		}
		seen[f.Path] = true
		// New rules may hide a note by its frontmatter: every note is read
		// again once to find out (a snapshot source already knows).
		recheck := (reparse || rulesChanged && src.hidden == nil) && vault.IsNote(f.Path)
		if r, ok := rows[f.Path]; ok && !recheck && r.size == f.Size && r.mtime == f.ModTime.UnixNano() && !src.needsOCR(f.Path, r) {
			st.Unchanged++
			continue
		}
		work = append(work, f)
	}
	gone := map[string][]string{} // hash → deleted paths, for rename detection
	var deleted []string
	for p := range rows {
		if !seen[p] && (src.Keep == nil || !src.Keep(p)) {
			deleted = append(deleted, p)
		}
	}
	slices.Sort(deleted)
	var purged []string
	for _, p := range deleted {
		if src.Privacy != nil && (src.Privacy.Excluded(p) || (src.hidden != nil && src.hidden(p))) {
			purged = append(purged, p) // not a rename source: its text must go
			continue
		}
		gone[rows[p].hash] = append(gone[rows[p].hash], p)
	}
	// Each batch is read, parsed and chunked on every core while the one
	// before it is written (SQLite writes on one).
	an := analysis.New()
	var next chan []prepared
	prepare := func(i int) chan []prepared {
		if i >= len(work) {
			return nil
		}
		out := make(chan []prepared, 1)
		go func() { out <- ix.prepareBatch(ctx, src, an, work[i:min(i+batchSize, len(work))]) }()
		return out
	}
	next = prepare(0)
	for i := 0; i < len(work); i += batchSize {
		items := <-next
		next = prepare(i + batchSize)
		if err := ctx.Err(); err != nil {
			if next != nil {
				<-next
			}
			return st, err
		}
		if err := ix.writeBatch(items, rows, gone, reparse, &st); err != nil {
			if next != nil {
				<-next
			}
			return st, err
		}
		if progress != nil {
			progress(min(i+batchSize, len(work)), len(work))
		}
	}
	var remaining []string // the deleted paths no rename consumed
	for _, paths := range gone {
		remaining = append(remaining, paths...)
	}
	slices.Sort(remaining)
	if err := ix.tx(func(c *sqlite3.Conn) error {
		w, err := newWriter(c, &ix.bm25)
		if err != nil {
			return err
		}
		defer w.close()
		for _, p := range append(remaining, purged...) {
			if err := w.delete(p); err != nil {
				return err
			}
		}
		return dropOrphanOCR(c)
	}); err != nil {
		return st, fmt.Errorf("index %s: delete: %w", ix.path, err)
	}
	st.Deleted = len(remaining)
	st.Purged += len(purged)
	if pristine && st.Updated == 0 && st.Renamed == 0 && st.Deleted == 0 && st.Purged == 0 {
		// Nothing was ever deleted from this new file, and nothing hidden
		// was written to it: there is nothing to scrub, only the rules
		// to record.
		rulesChanged = false
		if src.Privacy != nil {
			if err := ix.recordPrivacy(src.Privacy.Hash()); err != nil {
				return st, err
			}
		}
	}
	if err := ix.settlePrivacy(ctx, src.Privacy, rulesChanged, &st); err != nil {
		return st, err
	}
	if reparse && src.Scope == nil {
		if err := ix.recordParseVersion(); err != nil {
			return st, err
		}
	}
	if src.Scope != nil {
		st.Chunks = -1 // not counted: a count walks every row, and a live change must not
	} else if st.Chunks, st.PDFsWithoutText, err = ix.counts(ctx); err != nil {
		return st, err
	}
	st.Duration = time.Since(start)
	return st, ctx.Err()
}

// prepared is a file ready to write.
type prepared struct {
	file     vault.File
	note     *vault.Note
	warnings []vault.Warning
	private  bool // hidden by the privacy rules: never written
	// chunks are the note's chunks, rows their chunk and FTS5 rows.
	chunks []chunk.Chunk
	rows   []chunkRow
}

// chunkRow is what the index stores of one chunk besides its position.
type chunkRow struct {
	hash                                      string
	title, aliases, headings, tags, body, cjk string
}

// prepareBatch reads, parses and chunks a batch in parallel.
func (ix *Index) prepareBatch(ctx context.Context, src Source, an *analysis.Analyzer, batch []vault.File) []prepared {
	items := make([]prepared, len(batch))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, f := range batch {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			n, w := safeNote(ctx, src.Note, f)
			it := prepared{file: f, note: n, warnings: w, private: n != nil && src.Privacy != nil && src.Privacy.Private(n)}
			if n != nil && !it.private {
				it.chunks = chunk.Split(n, ix.settings.Chunk)
				it.rows = chunkRows(an, n, it.chunks)
			}
			items[i] = it
		}()
	}
	wg.Wait()
	return items
}

// chunkRows are the rows of a note's chunks.
func chunkRows(an *analysis.Analyzer, n *vault.Note, chunks []chunk.Chunk) []chunkRow {
	title := noNUL(withGrams(an, n.Title))
	aliases := noNUL(withGrams(an, strings.Join(n.Aliases, " ; ")))
	tags := noNUL(strings.Join(n.Tags, " "))
	rows := make([]chunkRow, len(chunks))
	for i, ch := range chunks {
		text := ch.Text(n)
		rows[i] = chunkRow{hash: ChunkHash(n, ch), title: title, aliases: aliases, headings: noNUL(withGrams(an, strings.Join(ch.Headings, " ; "))),
			tags: tags, body: noNUL(withoutCJK(text)), cjk: cjkGrams(an, text)}
	}
	return rows
}

// writeBatch writes a prepared batch in one transaction.
func (ix *Index) writeBatch(items []prepared, rows map[string]fileRow, gone map[string][]string, reparse bool, st *Stats) error {
	err := ix.tx(func(c *sqlite3.Conn) error {
		w, err := newWriter(c, &ix.bm25)
		if err != nil {
			return err
		}
		defer w.close()
		// Deletions first, inserts after: an FTS5 delete flushes pending
		// inserts, so interleaving them would flush once per file.
		var writes []prepared
		for _, it := range items {
			old, existed := rows[it.file.Path]
			if it.private {
				// Hidden by its frontmatter: no row at all (not even its
				// path), so it is read again at every sync until it changes.
				if existed {
					st.Purged++
					if err := w.delete(it.file.Path); err != nil {
						return err
					}
				}
				continue
			}
			st.Warnings = append(st.Warnings, it.warnings...)
			if it.note != nil && existed && old.hash == it.note.Hash && it.note.Hash != "" && old.ocr == it.note.OCRKey && (!reparse || it.note.Kind != vault.KindMarkdown) {
				st.Unchanged++ // touched, same content: record the new stat only
				if err := bindExec(w.touch, it.file.Size, it.file.ModTime.UnixNano(), it.file.Path); err != nil {
					return err
				}
				continue
			}
			switch {
			case existed:
				st.Updated++
				if err := w.delete(it.file.Path); err != nil {
					return err
				}
			case it.note != nil && len(gone[it.note.Hash]) > 0:
				st.Renamed++
				old := gone[it.note.Hash]
				if err := w.delete(old[0]); err != nil {
					return err
				}
				gone[it.note.Hash] = old[1:]
			default:
				st.Added++
			}
			writes = append(writes, it)
		}
		for _, it := range writes {
			if err := ix.writeFile(w, it); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("index %s: write: %w", ix.path, err)
	}
	return nil
}

type noteFunc = func(context.Context, vault.File) (*vault.Note, []vault.Warning)

// safeNote gets a note, turning a panic into a warning.
func safeNote(ctx context.Context, noteOf noteFunc, f vault.File) (n *vault.Note, w []vault.Warning) {
	defer func() {
		if r := recover(); r != nil {
			n, w = nil, []vault.Warning{{Path: f.Path, Message: fmt.Sprintf("could not be read (%v); skipped", r)}}
		}
	}()
	return noteOf(ctx, f)
}

// writeFile inserts a file's rows (its old rows are already gone). A file
// that cannot be indexed keeps a row without chunks, so that it is not
// retried until it changes — unless the failure was not the file's fault
// (Warning.Retry): then it gets no row and the next sync tries again.
func (ix *Index) writeFile(w *writer, it prepared) error {
	if it.note == nil && slices.ContainsFunc(it.warnings, func(w vault.Warning) bool { return w.Retry }) {
		return nil
	}
	kind, hash, pdfJSON, ocrKey := kindOf(it.file.Path), "", "", ""
	chunks := it.chunks
	if it.note != nil {
		hash, ocrKey = it.note.Hash, it.note.OCRKey
		if err := w.insertChunks(it.note.Path, chunks, it.rows); err != nil {
			return err
		}
	}
	pages := pageTexts(it.note)
	if kind == vault.KindPDF {
		b, err := json.Marshal(pdfCache{Pages: pages, Skipped: it.note == nil, OCR: ocrPages(it.note), OCRKey: ocrKey})
		if err != nil {
			return err
		}
		pdfJSON = string(b)
	}
	var warning []string
	for _, wn := range it.warnings {
		warning = append(warning, wn.Message)
	}
	return bindExec(w.insFile, it.file.Path, kind, it.file.Size, it.file.ModTime.UnixNano(), hash, len(chunks), strings.Join(warning, "; "), pdfJSON,
		blankPages(it.note, pages), ocrKey)
}

func pageTexts(n *vault.Note) []pdf.Page {
	if n == nil {
		return nil
	}
	return n.PageTexts()
}

func kindOf(p string) string {
	if vault.IsPDF(p) {
		return vault.KindPDF
	}
	return vault.KindMarkdown
}

// writer holds the statements of one write transaction, and tells bm25
// which FTS5 rows it deletes and inserts (postingstrack.go).
type writer struct {
	c                                 *sqlite3.Conn
	bm25                              *BM25
	delFTS, delChunks, delFile, touch *sqlite3.Stmt
	insChunk, insFTS, insFile, ids    *sqlite3.Stmt
}

func newWriter(c *sqlite3.Conn, bm25 *BM25) (*writer, error) {
	w := &writer{c: c, bm25: bm25}
	for _, p := range []struct {
		dst **sqlite3.Stmt
		sql string
	}{
		{&w.delFTS, `DELETE FROM fts WHERE rowid IN (SELECT id FROM chunks WHERE path = ?)`},
		{&w.delChunks, `DELETE FROM chunks WHERE path = ?`},
		{&w.delFile, `DELETE FROM files WHERE path = ?`},
		{&w.touch, `UPDATE files SET size = ?, mtime = ? WHERE path = ?`},
		{&w.insChunk, `INSERT INTO chunks(path, idx, line_start, line_end, page, hash) VALUES (?, ?, ?, ?, ?, ?)`},
		{&w.insFTS, ftsInsert},
		{&w.insFile, `INSERT INTO files(path, kind, size, mtime, hash, chunks, warning, pdf, blank, ocr) VALUES (?, ?, ?, ?, ?, ?, ?, nullif(?, ''), ?, ?)`},
		{&w.ids, `SELECT id FROM chunks WHERE path = ?`},
	} {
		st, _, err := c.Prepare(p.sql)
		if err != nil {
			w.close()
			return nil, err
		}
		*p.dst = st
	}
	return w, nil
}

func (w *writer) close() {
	for _, st := range []*sqlite3.Stmt{w.delFTS, w.delChunks, w.delFile, w.touch, w.insChunk, w.insFTS, w.insFile, w.ids} {
		if st != nil {
			st.Close()
		}
	}
}

// delete removes every row of a file.
func (w *writer) delete(p string) error {
	w.bm25.deleting(w.c, w.ids, p)
	return errors.Join(bindExec(w.delFTS, p), bindExec(w.delChunks, p), bindExec(w.delFile, p))
}

// insertChunks writes the chunks of the note at path and their FTS5 rows.
func (w *writer) insertChunks(path string, chunks []chunk.Chunk, rows []chunkRow) error {
	for i, ch := range chunks {
		r := &rows[i]
		if err := bindExec(w.insChunk, path, ch.Index, ch.LineStart, ch.LineEnd, ch.Page, r.hash); err != nil {
			return err
		}
		id := w.c.LastInsertRowID()
		w.bm25.start(w.c) // before the transaction's first FTS5 change
		if err := bindExec(w.insFTS, id, r.title, r.aliases, r.headings, r.tags, r.body, r.cjk); err != nil {
			return err
		}
		w.bm25.inserted(id)
	}
	return nil
}

// noNUL replaces NUL bytes: FTS5 tokenizes a stored text up to its full
// length, but reads it back (integrity check, deletes) up to the first NUL,
// so a NUL would make the stored text and its index disagree.
func noNUL(s string) string { return strings.ReplaceAll(s, "\x00", " ") }

// EmbedText is what an embedding model sees of a chunk: the note title,
// the heading path and the text, one per line.
func EmbedText(n *vault.Note, c chunk.Chunk) string {
	return n.Title + "\n" + strings.Join(c.Headings, " / ") + "\n" + c.Text(n)
}

// ChunkHash identifies a chunk's embeddable content (its EmbedText):
// vectors are keyed by it, so they are recomputed only when it changes.
func ChunkHash(n *vault.Note, c chunk.Chunk) string {
	return vault.HashBytes([]byte(EmbedText(n, c)))
}

// cjkGrams returns the CJK unigrams and bigrams of texts, space-separated:
// unicode61 would index a run of Han characters as one long token.
func cjkGrams(an *analysis.Analyzer, texts ...string) string {
	var b strings.Builder
	for _, t := range texts {
		if !mayHoldCJK(t) {
			continue
		}
		an.Each(t, analysis.Index, func(term string, _, _ int) {
			if r := []rune(term); len(r) > 0 && analysis.IsCJK(r[0]) {
				b.WriteString(term)
				b.WriteByte(' ')
			}
		})
	}
	return b.String()
}

// withGrams appends the CJK grams of a title, alias or heading text to it,
// so that a CJK query term matches in that column with its weight (the
// cjk column holds the body's grams only).
func withGrams(an *analysis.Analyzer, s string) string {
	if g := cjkGrams(an, s); g != "" {
		return s + " " + g
	}
	return s
}

// withoutCJK blanks CJK runs out of a body: unicode61 would store each run
// as one long token no query can match (the cjk column holds their grams).
func withoutCJK(s string) string {
	if !mayHoldCJK(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if analysis.IsCJK(r) {
			return ' '
		}
		return r
	}, s)
}

// mayHoldCJK is a byte-level pre-check: every CJK rune (U+2E80 and up)
// encodes with a lead byte of 0xE2 or more.
func mayHoldCJK(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xE2 {
			return true
		}
	}
	return false
}

func (ix *Index) fileRows(ctx context.Context) (map[string]fileRow, error) {
	rows := map[string]fileRow{}
	err := ix.reader(ctx, func(c *sqlite3.Conn) error {
		st, _, err := c.Prepare(`SELECT ` + fileRowColumns + ` FROM files`)
		if err != nil {
			return err
		}
		defer st.Close()
		for st.Step() {
			rows[st.ColumnText(0)] = scanFileRow(st)
		}
		return st.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("index %s: read files: %w", ix.path, err)
	}
	return rows, nil
}

func (ix *Index) counts(ctx context.Context) (chunks, pdfsWithoutText int, err error) {
	err = ix.reader(ctx, func(c *sqlite3.Conn) error {
		st, _, err := c.Prepare(`SELECT (SELECT count(*) FROM chunks),
			(SELECT count(*) FROM files WHERE kind = 'pdf' AND warning LIKE '%no text layer%')`)
		if err != nil {
			return err
		}
		defer st.Close()
		st.Step()
		chunks, pdfsWithoutText = st.ColumnInt(0), st.ColumnInt(1)
		return st.Err()
	})
	return chunks, pdfsWithoutText, err
}

// bindExec binds args to a prepared statement, runs it and resets it.
func bindExec(st *sqlite3.Stmt, args ...any) error {
	if err := st.ClearBindings(); err != nil {
		return err
	}
	if err := bindAll(st, args...); err != nil {
		return err
	}
	return st.Exec()
}
