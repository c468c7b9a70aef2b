package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/statefile"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// The engine state (parsed notes, chunks, TF-IDF) is kept next to the
// index so that a start re-reads only the files changed since it was
// saved. It is a cache: any doubt about it (another build of this
// program, other options or privacy rules, damage) means a start from the
// files, never a wrong answer.

// stateSaveDelay is how long after the last live change the state is
// saved again (a burst of edits saves once).
const stateSaveDelay = 30 * time.Second

// coldSaveDelay is how long after a start from the files the state is
// saved: after the first searches, which should not wait for it.
const coldSaveDelay = 3 * time.Second

// stateKey identifies everything the state depends on besides the files.
// The executable's size and time stand for the code: a rebuilt binary
// may tokenize or score differently, so it starts from the files once.
func (l *Vault) stateKey() string {
	return StateKey(l.root, l.vaultOpts, l.searchOpts, l.cfg.OCR)
}

// StateKey is the key of the engine state of the vault at root loaded
// with vaultOpts, searched with searchOpts and with ocr: a saved state
// is used only by a start with the same key.
func StateKey(root string, vaultOpts vault.Options, searchOpts search.Options, ocr OCR) string {
	exe := "unknown"
	if p, err := os.Executable(); err == nil {
		if st, err := os.Stat(p); err == nil {
			exe = fmt.Sprintf("%s %d %d", p, st.Size(), st.ModTime().UnixNano())
		}
	}
	rules := ""
	if h, ok := vaultOpts.Filter.(interface{ Hash() string }); ok {
		rules = h.Hash()
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d\x00%t\x00%+v\x00%+v\x00%s\x00%d\x00%t %s %d",
		exe, root, vaultOpts.MaxFileSize, vaultOpts.PDFs, searchOpts.Chunk, searchOpts.Fields, rules, index.SchemaVersion,
		ocr.On, ocr.Langs, ocr.MaxPages))
	return hex.EncodeToString(sum[:])
}

// stateReadMappedMax is the largest state file whose engine reads it
// through its mapping, all of it resident (38 MB at 13,000 notes): a
// search then reads its postings and text as memory, where the pread of
// a larger file's engine (see search.RestoreStateFile) costs a system
// call per posting list and snippet, 7 % of serve-http's CPU at 13,000
// notes. Above it (the 107,000-note vault's state is several hundred
// MB) the file is read with pread and its pages evicted, to bound the
// resident memory.
const stateReadMappedMax = 64 << 20

// errNoState: no state file was saved (yet), the normal first start.
var errNoState = errors.New("no engine state")

// savedState is a saved engine state read and decoded, with the vault
// walked meanwhile: the part of resuming from it that needs no index, so
// it runs while the index opens (see Open).
type savedState struct {
	path  string // the state file
	saved *search.Engine
	walk  walkResult
	err   error // why there is no usable state
	// evict drops the state file's pages from memory (nil without one):
	// the start touches them all, searches few (the hits' text, the
	// query terms' postings), so the page cache holds the rest.
	evict func()
}

// restorer returns the reading of the state file at path, with the vault
// walked at the same time. It runs while Open goes on, so it takes what
// it needs of l now.
func (l *Vault) restorer(path string) func(context.Context) savedState {
	key, root, filter, an := l.stateKey(), l.root, l.vaultOpts.Filter, l.an
	mappedMax := stateReadMappedMax
	if l.cfg.StatePread {
		mappedMax = -1
	}
	bare := l.searchOpts
	bare.Index, bare.IndexErr, bare.Embedder, bare.EmbedderErr = nil, nil, nil, nil
	return func(ctx context.Context) savedState {
		r := savedState{path: path}
		file, err := statefile.Open(path) // mapped: the engine's strings point into it
		if err != nil {
			r.err = errNoState
			return r
		}
		walked := make(chan walkResult, 1)
		go func() { walked <- walkVault(ctx, root) }() // on the other core, meanwhile
		if len(file.Data) <= mappedMax {
			// Small: read through the mapping (no pread per posting list
			// or snippet), all of it resident from the checksum on.
			r.saved, r.err = search.RestoreState(ctx, file.Data, key, root, filter, an, bare)
		} else {
			r.saved, r.err = search.RestoreStateFile(ctx, file, key, root, filter, an, bare)
			file.Evict() // now, before the catch-up's memory peak; and once more after it
			r.evict = file.Evict
		}
		if r.walk = <-walked; r.err == nil {
			r.err = r.walk.err
		}
		return r
	}
}

// resume brings a restored engine up to date with what changed on
// disk since it was saved: those files alone are read, the index synced
// and the engine updated. It returns the engine and how many paths
// changed, or nil and why there is no usable state (the caller then
// builds from the files).
func (l *Vault) resume(ctx context.Context, r savedState) (*search.Engine, int, string) {
	if r.err != nil {
		if !errors.Is(r.err, search.ErrStateMismatch) && !errors.Is(r.err, errNoState) {
			l.logger.Warn("engine state unusable; loading from the files", "err", r.err)
		}
		return nil, 0, r.err.Error()
	}
	old := r.saved.Snapshot()
	changed := old.ChangedFiles(r.walk.notes, r.walk.atts)
	snap, d, err := old.Update(ctx, changed, l.vaultOpts)
	if err != nil {
		return nil, 0, err.Error()
	}
	for _, w := range snap.Warnings {
		l.logger.Warn("vault", "path", w.Path, "problem", w.Message)
	}
	opts := l.searchOpts
	l.adoptPostings(ctx, r.saved)
	l.adoptVectors(ctx, r.saved) // before the sync: the saved vectors are checked against the index they came from
	if len(changed) > 0 || l.postingsWhy != "" {
		if err := l.syncIndex(ctx, snap, index.SnapshotSource(snap), "", false, &opts); err != nil {
			return nil, 0, err.Error()
		}
	} else {
		// No file changed since the state was saved, and the BM25 copy
		// saved with it matches the index (same instance id, same FTS5
		// contents): the index is the one the state was saved with, so a
		// sync would find nothing to do (at 107,000 notes it takes ~1 s
		// to find that out).
		l.logger.Info("index unchanged since the engine state was saved; not synced", "file", l.ix.Path())
	}
	eng, err := r.saved.Update(ctx, snap, d, opts)
	if err != nil {
		return nil, 0, err.Error()
	}
	return eng, len(changed), ""
}

// dropStaleState removes the engine state a start from the files could
// not use, when the privacy rules hide something now: made with other
// rules, it may hold the text of notes hidden since, which must not wait
// for the next save (nor outlive a process killed before it).
func (l *Vault) dropStaleState() {
	if p := l.eng.Snapshot().Privacy; p.HiddenNotes+p.HiddenFiles == 0 {
		return
	}
	path := index.StatePath(l.ix.Path())
	if err := os.Remove(path); err == nil {
		l.logger.Info("engine state removed: made with other settings or rules, it may hold hidden notes", "file", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		l.logger.Warn("engine state made with other settings or rules not removed", "file", path, "err", err)
	}
}

// adoptPostings gives the index the in-memory BM25 copy saved with the state,
// which it uses only when the copy was built from it as it is now (a sync
// that changes the index makes it stale: searches then build it again).
// l.postingsWhy says why not otherwise; a later save then carries a current
// copy (see saveState).
func (l *Vault) adoptPostings(ctx context.Context, saved *search.Engine) {
	if opts := l.searchOpts; opts.Index == nil || opts.IndexErr != nil {
		l.postingsWhy = "no index"
		return
	}
	why, err := saved.AdoptSavedPostings(ctx, l.ix)
	if err != nil {
		why = err.Error()
	}
	l.postingsWhy = why
	if why != "" {
		l.logger.Debug("in-memory BM25 copy not taken from the engine state; built again", "why", why)
	}
}

// adoptVectors lets the restored engine start its dense signal from the
// vectors saved with the state when the index's vectors are unchanged
// since (see [search.Engine.AdoptSavedVectors]); l.vecWhy says why not
// otherwise, and a later save then carries them (see saveState).
func (l *Vault) adoptVectors(ctx context.Context, saved *search.Engine) {
	opts := l.searchOpts
	if opts.Index == nil || opts.IndexErr != nil {
		return
	}
	if stored, _, err := l.ix.Vectors().Model(ctx); err != nil || stored == "" {
		return // no vectors to read either way
	}
	l.vecWhy = saved.AdoptSavedVectors(ctx, l.ix, opts.Embedder, opts.EmbedderAlias)
	if l.vecWhy != "" {
		l.logger.Debug("vectors not taken from the engine state; read from the index", "why", l.vecWhy)
	}
}

// PrepareState brings the engine state up to date after an index run,
// so that the next start resumes from it: cheaply from the state saved
// before when there was one, else from the engine Open built from the
// files. It says which it did. When Open met damage, it waits for the
// background rebuild instead and reports rebuilt: the caller opens the
// vault again to make the state on the rebuilt index, so that an index
// run never exits with damage it has seen left in place.
func (l *Vault) PrepareState(ctx context.Context) (how string, rebuilt bool, err error) {
	if l.ix != nil && (l.ix.Health().Damaged() != nil || l.healed.Load()) {
		if err := l.ix.Health().WaitHealed(ctx); err != nil {
			return "", false, err
		}
		if err := l.ix.Health().Damaged(); err != nil {
			return "", false, fmt.Errorf("rebuilding the damaged index: %w", err)
		}
		return "", true, nil
	}
	if l.ix == nil {
		return "none (no index)", false, nil
	}
	if l.resumed && l.changedSince == 0 && l.postingsWhy == "" && l.vecWhy == "" {
		return "up to date", false, nil
	}
	if err := l.saveState(l.eng, l.stateKey(), index.StatePath(l.ix.Path())); err != nil {
		return "", false, err
	}
	if l.resumed {
		return fmt.Sprintf("updated (%d files changed since it was saved)", l.changedSince), false, nil
	}
	return "saved (built from the files)", false, nil
}

type walkResult struct {
	notes, atts []vault.File
	err         error
}

func walkVault(ctx context.Context, root string) walkResult {
	fsys, err := vault.OpenFS(root)
	if err != nil {
		return walkResult{err: err}
	}
	defer fsys.Close()
	notes, atts, _, err := fsys.Walk(ctx)
	return walkResult{notes, atts, err}
}

// stateSaver writes the engine state in the background: soon after a
// start from the files, some time after live changes, and at the end.
type stateSaver struct {
	mu      sync.Mutex // guards timer
	timer   *time.Timer
	writing sync.Mutex // one write at a time
	pending sync.WaitGroup
}

// saveState writes eng's state atomically (a temporary file renamed over
// the old one) in the index's folder, which only the user may read.
func (l *Vault) saveState(eng *search.Engine, key, path string) error {
	l.saver.writing.Lock()
	defer l.saver.writing.Unlock()
	l.tidyStateTemps(path)
	// Collect and give the free memory back first: the save allocates
	// about twice the file's size in a few large buffers, which the small
	// free spans a start from the files leaves behind cannot hold, so they
	// came on top of them (at 107,000 notes, docs/benchmarks.md). A save
	// is rare, so its one collection is cheap.
	if l.ix != nil {
		// The state carries the in-memory BM25 copy, so that the next
		// start need not build it (6.7 s of CPU at 107,000 notes); its
		// build's garbage is returned below too.
		if err := l.ix.BM25().EnsurePostings(context.Background()); err != nil {
			l.logger.Warn("in-memory BM25 copy not built; the state is saved without it", "err", err)
		}
	}
	debug.FreeOSMemory()
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("engine state: %w", err)
	}
	size, err := eng.WriteState(context.Background(), key, tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("engine state %s: %w", path, err)
	}
	l.logger.Debug("engine state saved", "file", path, "bytes", size)
	return nil
}

// saveSoon plans a save of the engine serving then, after delay,
// replacing a save already planned. Only commands that keep serving
// save, and only with an index.
func (l *Vault) saveSoon(delay time.Duration) {
	if l.ix == nil || !l.cfg.KeepState {
		return
	}
	s := &l.saver
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil && s.timer.Stop() {
		s.pending.Done()
	}
	s.pending.Add(1)
	s.timer = time.AfterFunc(delay, func() {
		defer s.pending.Done()
		l.saveCurrent()
	})
}

func (l *Vault) saveCurrent() {
	l.mu.Lock() // reloads change the engine, the rules and the index
	eng, key, path := l.eng, l.stateKey(), index.StatePath(l.ix.Path())
	l.mu.Unlock()
	if err := l.saveState(eng, key, path); err != nil {
		l.logger.Warn("saving the engine state failed; the next start reads every file", "err", err)
	}
}

// flushState saves now what a planned save would have saved, and waits
// for a save in progress: at Close.
func (l *Vault) flushState() {
	s := &l.saver
	s.mu.Lock()
	if s.timer != nil && s.timer.Stop() {
		s.pending.Done()
		s.timer = nil
		s.mu.Unlock()
		l.saveCurrent()
	} else {
		s.mu.Unlock()
	}
	s.pending.Wait()
}
