package search

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/statefile"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// stateMagic opens every state file; stateVersion changes with its layout
// or with what a parsed note holds (a saved state of another version is
// not read: the engine is built from the files).
const (
	stateMagic   = "enquire-mcp engine state\n"
	stateVersion = 10
)

// ErrStateMismatch says that a state was made for another key (another
// build, vault, options or privacy rules): it is not an error to report,
// only a reason to build from the files.
var ErrStateMismatch = errors.New("engine state made by another build or with other settings")

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// WriteState writes the engine's state to out for [RestoreState] and
// returns the number of bytes written: the notes and chunks, TF-IDF, the
// index's in-memory BM25 copy when it is current (see
// [index.BM25.EncodePostings]; empty otherwise), and the dense vectors when
// their vector stamp is known (see [rankers.Embeddings.EncodeState];
// empty otherwise). The sections are written as
// they were encoded, never copied into one buffer: at 107,000 notes the
// state is over 200 MB, and a running server writes it.
func (e *Engine) WriteState(ctx context.Context, key string, out io.Writer) (int64, error) {
	notes := &statefile.Writer{}
	if err := e.snap.EncodeState(notes); err != nil {
		return 0, fmt.Errorf("engine state: %w", err)
	}
	for _, cs := range e.chunks {
		chunk.EncodeState(notes, cs)
	}
	tf := e.tfidf
	if tf.DeadSlots() > tf.Notes()/2 {
		// Many edits since the index was built: save it compacted, so
		// that restarts do not carry the dead slots along forever.
		var err error
		if tf, err = rankers.NewTFIDF(ctx, e.an, e.snap.Notes, e.chunks, e.opts.Fields); err != nil {
			return 0, fmt.Errorf("engine state: %w", err)
		}
	}
	tfidf := &statefile.Writer{}
	tf.EncodeState(tfidf)
	postings := &statefile.Writer{}
	postingsStamp := ""
	if e.opts.Index != nil {
		var err error
		if postingsStamp, err = e.opts.Index.BM25().EncodePostingsStamped(ctx, postings); err != nil {
			postings.Buf, postingsStamp = postings.Buf[:0], "" // saved without it: the next start builds it
		}
	}
	vecs, vecStamp := e.encodeVectors(), ""
	if emb := e.dense(); emb != nil && len(vecs) > 0 {
		vecStamp = emb.Stamp()
	}
	fresh := ""
	if postingsStamp != "" {
		notes, atts := snapshotStats(e.snap)
		fresh = FreshStamp(notes, atts, postingsStamp, vecStamp)
	}
	return writeSections(out, key, fresh, [][]byte{notes.Buf, tfidf.Buf, postings.Buf, vecs})
}

// FreshStamp sums up what a state must agree with to be current without
// any catch-up: the stat of every Markdown note and attachment (as
// [vault.Snapshot.ChangedFiles] compares them), the index's FTS5
// contents and its vectors (see [index.Index.Stamps]).
func FreshStamp(notes, atts []vault.File, postings, vectors string) string {
	h := sha256.New()
	byPath := func(a, b vault.File) int { return strings.Compare(a.Path, b.Path) }
	var b []byte
	for _, list := range [][]vault.File{notes, atts} {
		if !slices.IsSortedFunc(list, byPath) { // a walk's lists are sorted already
			list = slices.Clone(list)
			slices.SortFunc(list, byPath)
		}
		for _, f := range list {
			b = append(b[:0], f.Path...)
			b = append(b, 0)
			b = strconv.AppendInt(b, f.Size, 10)
			b = append(b, 0)
			b = strconv.AppendInt(b, f.ModTime.UnixNano(), 10)
			b = append(b, '\n')
			h.Write(b)
		}
		h.Write([]byte{0})
	}
	h.Write([]byte(postings + "\x00" + vectors))
	return hex.EncodeToString(h.Sum(nil))
}

// snapshotStats are the Markdown notes and the attachments of s as a
// walk lists them.
func snapshotStats(s *vault.Snapshot) (notes, atts []vault.File) {
	for _, n := range s.Notes {
		if n.Kind == vault.KindMarkdown {
			notes = append(notes, vault.File{Path: n.Path, Size: n.Size, ModTime: n.ModTime})
		}
	}
	for _, a := range s.Attachments {
		atts = append(atts, vault.File{Path: a.Path, Size: a.Size, ModTime: a.ModTime})
	}
	return notes, atts
}

// StateFresh reports whether the state file at path was written with key
// and the fresh stamp fresh (see [FreshStamp]): then a start from it
// reads no file and syncs nothing. Only the file's header is read.
func StateFresh(path, key, fresh string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false, err
	}
	head = head[:n]
	if len(head) < len(stateMagic) || string(head[:len(stateMagic)]) != stateMagic {
		return false, nil
	}
	r := statefile.NewReader(head)
	r.Raw(len(stateMagic))
	v, k, got := r.Uint(), r.Text(), r.Text()
	return r.Err() == nil && v == stateVersion && k == key && got != "" && got == fresh, nil
}

// writeSections writes a state file of the given sections to out: the
// header with key, each section with its length first, so that a restore
// decodes them at once on two cores (aligned, so that postings are read
// in place), then the checksum.
func writeSections(out io.Writer, key, fresh string, secs [][]byte) (int64, error) {
	sum := crc32.New(crcTable)
	sw := &countingWriter{w: io.MultiWriter(out, sum)}
	head := &statefile.Writer{Buf: []byte(stateMagic)}
	head.Uint(stateVersion)
	head.Text(key)
	head.Text(fresh)
	for _, sec := range secs {
		head.SectionHead(len(sec), int(sw.n))
		sw.Write(head.Buf)
		head.Buf = head.Buf[:0]
		sw.Write(sec)
	}
	sw.Write(binary.LittleEndian.AppendUint32(nil, sum.Sum32()))
	if sw.err != nil {
		return sw.n, fmt.Errorf("engine state: %w", sw.err)
	}
	return sw.n, nil
}

// countingWriter counts the bytes written and keeps the first error
// (writes after it do nothing).
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(b []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	k, err := c.w.Write(b)
	c.n += int64(k)
	c.err = err
	return k, err
}

// RestoreState rebuilds the engine [Engine.WriteState] saved, for the vault at
// root (its real path) with the privacy filter and options the state was
// made with (key vouches for them): a different key is ErrStateMismatch,
// damaged data an error wrapping statefile.ErrCorrupt. The engine serves the
// vault as it was when saved; the caller brings it up to date with
// [vault.Snapshot.ChangedFiles], [vault.Snapshot.Update] and
// [Engine.Update]. Its strings share data's memory: data must not be
// modified afterwards.
func RestoreState(ctx context.Context, data []byte, key, root string, filter vault.Filter, an *analysis.Analyzer, opts Options) (*Engine, error) {
	return restore(ctx, data, nil, key, root, filter, an, opts)
}

// restore is RestoreState of data, which is file's Data when file is not
// nil (see RestoreStateFile).
func restore(ctx context.Context, data []byte, file *statefile.File, key, root string, filter vault.Filter, an *analysis.Analyzer, opts Options) (*Engine, error) {
	opts = opts.withDefaults()
	if len(data) < len(stateMagic)+4 || string(data[:len(stateMagic)]) != stateMagic {
		return nil, fmt.Errorf("%w: not an engine state", statefile.ErrCorrupt)
	}
	body, sum := data[:len(data)-4], data[len(data)-4:]
	if checksum(body, file) != binary.LittleEndian.Uint32(sum) {
		return nil, fmt.Errorf("%w: checksum", statefile.ErrCorrupt)
	}
	r := statefile.NewReader(body) // from the start, so that its alignment is the file's
	r.Raw(len(stateMagic))
	if v, k := r.Uint(), r.Text(); r.Err() == nil && (v != stateVersion || k != key) {
		return nil, ErrStateMismatch
	}
	r.Text() // the fresh stamp (StateFresh)
	notesSec, tfidfSec, postingsSec, vecSec := r.Section(), r.Section(), r.Section(), r.Section()
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("engine state: %w", err)
	}
	var (
		tf       *rankers.TFIDF
		tfErr    error
		postings savedPostings
		vecs     savedVectors
		done     = make(chan struct{})
	)
	go func() {
		defer close(done)
		tr := statefile.NewReader(tfidfSec)
		if tf, tfErr = rankers.DecodeTFIDF(tr, an, opts.Fields); tfErr == nil {
			tfErr = tr.Done()
		}
		if tfErr == nil && file != nil {
			tf.UseStateFile(file)
		}
		postings = decodeSavedPostings(postingsSec, file)
		vecs = decodeSavedVectors(vecSec, file)
	}()
	snap, chunks, err := decodeNotes(notesSec, root, filter)
	<-done
	if err = errors.Join(err, tfErr); err != nil {
		return nil, fmt.Errorf("engine state: %w", err)
	}
	if len(snap.Notes) != tf.Notes() {
		return nil, fmt.Errorf("engine state: %w: %d notes but tf-idf of %d", statefile.ErrCorrupt, len(snap.Notes), tf.Notes())
	}
	for i, cs := range chunks {
		if tf.NoteChunks(i) != len(cs) {
			return nil, fmt.Errorf("engine state: %w: chunks of %s disagree", statefile.ErrCorrupt, snap.Notes[i].Path)
		}
	}
	e := assemble(ctx, snap, an, chunks, tf, opts, nil)
	e.savedPostings, e.savedVecs, e.state = postings, vecs, file
	return e, ctx.Err()
}

// checksum is the CRC of body, the start of file's Data when file is not
// nil: then read from the file, so that the mapping is not all touched
// (see RestoreStateFile).
func checksum(body []byte, file *statefile.File) uint32 {
	h := crc32.New(crcTable)
	if file.WritePrefix(h, len(body)) {
		return h.Sum32()
	}
	return crc32.Checksum(body, crcTable)
}

// decodeNotes reads the notes section: the snapshot and every note's
// chunks.
func decodeNotes(sec []byte, root string, filter vault.Filter) (*vault.Snapshot, [][]chunk.Chunk, error) {
	r := statefile.NewReader(sec)
	snap, err := vault.DecodeState(r, root, filter)
	if err != nil {
		return nil, nil, err
	}
	chunks := make([][]chunk.Chunk, len(snap.Notes))
	for i, n := range snap.Notes {
		chunks[i] = chunk.DecodeState(r, len(n.Body))
	}
	return snap, chunks, r.Done()
}
