// Package service keeps one vault open for the commands that search it:
// it reads the vault, opens and syncs its persistent index, restores the
// engine from the state saved next to the index (or builds it from the
// files), applies the changes the watcher reports and the write tools
// make, heals a damaged index in the background, follows vectors another
// process writes, and saves the engine state for the next start.
//
// A command turns its flags into a [Config] and calls [Open]; the
// [Vault] then gives out the current engine ([Vault.Engine]) and takes
// change sets ([Vault.Apply], [Vault.Reload]) until [Vault.Close].
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/privacy"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Config is how a vault is opened: what is read of it, how it is
// searched, and whether the persistent index and the engine state are
// used. The command validates it (flag errors are the command's).
type Config struct {
	// Root is the vault's real root (vault.RealRoot).
	Root string
	// Logger hears what happens; nil discards it.
	Logger *slog.Logger
	// MaxFileSize skips larger notes (vault.Options.MaxFileSize).
	MaxFileSize int64
	// PDFs reads the text of PDF attachments.
	PDFs bool
	// PDF returns the PDF reader for a vault read, with cache as its
	// cache of extracted and OCR'd text (nil before the index opens);
	// warn hears of missing tools. Nil reads PDFs as vault.Options does.
	PDF func(cache *index.Index, warn func(string)) vault.PDFReader
	// OCR is what changes the text OCR gives a PDF (a part of the engine
	// state's key).
	OCR OCR
	// Reuse gives the read the notes an index run has just read
	// (vault.Options.Reuse).
	Reuse func(vault.File) (*vault.Note, []vault.Warning, bool)
	// Privacy is read with the vault's .enquire/ignore at Open and again
	// at every reload and change of the rules file.
	Privacy privacy.Config
	// Search are the engine's options; Open sets Index, IndexErr and the
	// Embedder fields.
	Search search.Options
	// Index is the persistent index; its zero value means none.
	Index IndexConfig
	// Models opens the embedding models the index's vectors were made
	// with; nil leaves the embeddings off.
	Models Models
	// EmbeddingModel is the model the user named: the index's vectors
	// must be of it ("" accepts any).
	EmbeddingModel string
	// BuildEmbeddings, when set, computes missing vectors with this model
	// right after the first index sync, and starts from the files.
	BuildEmbeddings string
	// KeepState saves the engine state next to the index for the next
	// start (the commands that serve and search).
	KeepState bool
	// StatePread reads every saved engine state with pread, however
	// small (tests of that path; see stateReadMappedMax).
	StatePread bool
}

// IndexConfig says which persistent index a vault uses.
type IndexConfig struct {
	// Path is the index file; "" with Err nil means no index.
	Path string
	// Err is why the index file could not be named: the index is then
	// off, with Err as BM25's error.
	Err error
	// Synced is an index the caller opened and synced (the index
	// command): Open takes it over instead of opening Path again.
	Synced *index.Index
	// Wait, if set, hears of waits for another process's sync.
	Wait func(lockFile string)
	// Keep writes the settings the index should keep into every index
	// opened or rebuilt (nil: none).
	Keep func(context.Context, *index.Index) error
}

// OCR is what of the OCR settings changes the text of a scanned page.
type OCR struct {
	On       bool   // scanned pages are read
	Langs    string // tesseract's languages, '+'-separated
	MaxPages int    // the most scanned pages read per PDF
}

// Models opens embedding models.
type Models interface {
	// Open opens the model alias names; ix is the open index (a model
	// learned from the vault lives next to it).
	Open(ctx context.Context, alias string, ix *index.Index) (embed.Embedder, error)
	// OpenOrLearn is Open, but learns the vault model afresh from src's
	// chunks first when alias names it.
	OpenOrLearn(ctx context.Context, alias string, ix *index.Index, src index.Source) (embed.Embedder, error)
}

// Status says how the vault was opened (the ready line shows it).
type Status struct {
	// Start says how the engine started: from the saved engine state,
	// with the number of files changed since, or from the files and why.
	Start string
	// Took is how long Open took.
	Took time.Duration
}

// Vault is an opened vault: its engine and, with the persistent index,
// the index and what its sync did. Its methods are safe for concurrent
// use.
type Vault struct {
	eng   *search.Engine
	ix    *index.Index
	sync  index.Stats
	took  time.Duration
	ixErr error

	root       string
	logger     *slog.Logger
	cfg        Config
	an         *analysis.Analyzer
	vaultOpts  vault.Options
	searchOpts search.Options
	// mu serialises the changes of eng (reloads, live updates); onSwap
	// hands each new engine to the server while mu is held, so the
	// server never holds an older engine than the last one made.
	mu         sync.Mutex
	onSwap     func(*search.Engine)
	lastChange atomic.Int64 // unix nanoseconds of the last applied change
	// healed says a background rebuild after damage swapped a new index
	// file in.
	healed atomic.Bool
	// rulesAt is the privacy rules file as the rules in use were read
	// (a rescan compares it: the file sits in a folder vault walks skip).
	rulesAt  fileStamp
	lastWarn string
	saver    stateSaver
	// started says how the engine started: from the saved engine state,
	// with the number of files changed since, or from the files and why.
	started      string
	resumed      bool
	changedSince int
	// postingsWhy says why the in-memory BM25 copy saved with the engine state
	// was not used ("" when it was).
	postingsWhy string
	// vecWhy says why the vectors saved with the engine state were not
	// used ("" when they were, or when the index has none).
	vecWhy string
	// early is the engine state decoded while the index opened.
	early chan savedState
	// vectors follows the index's vectors while Follow runs (vectorfollow.go).
	vectors vectorFollower
}

// Engine is the current engine.
func (l *Vault) Engine() *search.Engine {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.eng
}

// Index is the persistent index, nil without one.
func (l *Vault) Index() *index.Index { return l.ix }

// Root is the vault's real root.
func (l *Vault) Root() string { return l.root }

// Synced is what the last index sync did.
func (l *Vault) Synced() index.Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sync
}

// Status says how the vault was opened.
func (l *Vault) Status() Status { return Status{Start: l.started, Took: l.took} }

// LastChange is when the last change was applied (zero: none yet).
func (l *Vault) LastChange() time.Time {
	if ns := l.lastChange.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// OnSwap sets the function that hears of every new engine, called with
// the change serialised (set it before the first change).
func (l *Vault) OnSwap(f func(*search.Engine)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.onSwap = f
}

// Close saves the engine state if a save is due and closes the index.
func (l *Vault) Close() error {
	l.flushState()
	if l.ix != nil {
		return l.ix.Close()
	}
	return nil
}

// CloseOrWarn is Close for a server's shutdown: an index that does not
// close cleanly is logged (the process still exits normally; SQLite
// recovers the WAL at the next open).
func (l *Vault) CloseOrWarn() {
	if err := l.Close(); err != nil {
		l.logger.Warn("the index was not closed cleanly", "err", err)
	}
}

// Open reads the vault and builds the engine. With the persistent index,
// it opens the index first (PDF text comes from it), syncs it with the
// loaded notes, and adds BM25 and, when the index holds vectors, the
// embeddings. An index or a model that cannot be opened is logged and
// reported as that signal's error; the search still works.
func Open(ctx context.Context, cfg Config) (*Vault, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	root := cfg.Root
	rulesAt := statRules(root) // before the read: a change after it is seen
	rules, err := privacy.Load(ctx, root, cfg.Privacy, privacy.CaseInsensitive(root))
	if err != nil {
		return nil, err
	}
	start := time.Now()
	l := &Vault{root: root, logger: logger, cfg: cfg, an: analysis.New(), rulesAt: rulesAt}
	warn := func(msg string) { logger.Warn(msg) }
	l.vaultOpts = vault.Options{MaxFileSize: cfg.MaxFileSize, PDFs: cfg.PDFs, PDF: l.reader(nil, warn), Filter: VaultFilter(rules), Reuse: cfg.Reuse}
	l.searchOpts = cfg.Search
	l.searchOpts.Index, l.searchOpts.IndexErr = nil, nil
	l.searchOpts.Embedder, l.searchOpts.EmbedderAlias, l.searchOpts.EmbedderErr = nil, "", nil
	ic := cfg.Index
	if (ic.Path != "" || ic.Synced != nil) && cfg.BuildEmbeddings == "" {
		p := ic.Path
		if ic.Synced != nil {
			p = ic.Synced.Path()
		}
		// Decode the saved engine state while the index opens.
		l.early = make(chan savedState, 1)
		restore := l.restorer(index.StatePath(p))
		go func() { l.early <- restore(ctx) }()
	}
	switch {
	case ic.Synced != nil:
		l.ix = ic.Synced
	case ic.Path != "" || ic.Err != nil:
		l.ix, l.ixErr = l.openIndex(ctx)
	}
	if l.ix != nil {
		l.heal()
	}
	l.searchOpts.Index, l.searchOpts.IndexErr = l.ix, l.ixErr
	if l.ix != nil {
		l.vaultOpts.PDF = l.reader(l.ix, warn)
		l.searchOpts.Embedder, l.searchOpts.EmbedderAlias, l.searchOpts.EmbedderErr = l.loadEmbedder(ctx)
	}
	if err := l.start(ctx); err != nil {
		l.Close()
		return nil, err
	}
	l.took = time.Since(start)
	logPrivacy(logger, rules, l.eng.Snapshot())
	return l, nil
}

// reader is Config.PDF with cache (may be nil).
func (l *Vault) reader(cache *index.Index, warn func(string)) vault.PDFReader {
	if l.cfg.PDF == nil {
		return vault.PDFReader{}
	}
	return l.cfg.PDF(cache, warn)
}

// openIndex opens the vault's index; a failure is logged and returned.
func (l *Vault) openIndex(ctx context.Context) (*index.Index, error) {
	return OpenIndex(ctx, l.cfg.Index, l.root, l.cfg.PDFs, false, l.logger)
}

// OpenIndex opens the index ic names for the vault at root (with PDFs or
// not), rebuilt when rebuild is set, and gives it ic.Keep's settings. A
// failure is logged and returned.
func OpenIndex(ctx context.Context, ic IndexConfig, root string, pdfs, rebuild bool, logger *slog.Logger) (*index.Index, error) {
	err := ic.Err
	if err == nil {
		var ix *index.Index
		if ix, err = index.OpenWait(ctx, ic.Path, index.NewSettings(root, pdfs, chunk.DefaultOptions), rebuild, ic.Wait); err == nil {
			if ix.Rebuilt != "" {
				logger.Warn("rebuilding the index", "file", ic.Path, "reason", ix.Rebuilt)
			}
			if ic.Keep == nil {
				return ix, nil
			}
			if err = ic.Keep(ctx, ix); err == nil {
				return ix, nil
			}
			err = errors.Join(err, ix.Close())
		}
	}
	logger.Error("persistent index unavailable; BM25 is off", "err", err)
	return nil, fmt.Errorf("persistent index: %w", err)
}

// keep is IndexConfig.Keep.
func (l *Vault) keep(ctx context.Context, ix *index.Index) error {
	if l.cfg.Index.Keep == nil {
		return nil
	}
	return l.cfg.Index.Keep(ctx, ix)
}

// start makes the first engine: from the saved engine state when there is
// a usable one (only changed files are read), else from the files.
func (l *Vault) start(ctx context.Context) error {
	if l.ix != nil && l.cfg.BuildEmbeddings == "" {
		path := index.StatePath(l.ix.Path())
		l.tidyStateTemps(path)
		var r savedState
		if l.early != nil {
			r = <-l.early
		}
		if r.path != path {
			r = l.restorer(path)(ctx)
		}
		eng, changed, why := l.resume(ctx, r)
		if r.evict != nil {
			r.evict()
		}
		if eng != nil {
			l.eng, l.resumed, l.changedSince = eng, true, changed
			l.started = fmt.Sprintf("engine state, %d files changed since", changed)
			if changed > 0 || l.postingsWhy != "" || l.vecWhy != "" {
				l.saveSoon(stateSaveDelay) // the state, with a current BM25 copy and vectors
			}
			return nil
		}
		l.started = "files (" + why + ")"
	} else {
		l.started = "files"
	}
	var err error
	if l.eng, err = l.build(ctx, l.cfg.BuildEmbeddings, false); err != nil {
		return err
	}
	if l.ix != nil && l.cfg.BuildEmbeddings == "" {
		l.dropStaleState()
	}
	l.saveSoon(coldSaveDelay)
	return nil
}

// build loads the vault, syncs the index with it, computes the vectors of
// changed chunks (with embedAlias, or with the loaded model — at start
// only when it runs locally: a remote model waits for build-embeddings),
// and makes an engine.
func (l *Vault) build(ctx context.Context, embedAlias string, reload bool) (*search.Engine, error) {
	if reload {
		at := statRules(l.root)
		if err := l.rereadRules(ctx); err != nil {
			return nil, err
		}
		l.rulesAt = at
	}
	snap, err := vault.Load(ctx, l.root, l.vaultOpts)
	if err != nil {
		return nil, err
	}
	for _, w := range snap.Warnings {
		l.logger.Warn("vault", "path", w.Path, "problem", w.Message)
	}
	opts := l.searchOpts
	if l.ix != nil {
		if err := l.syncIndex(ctx, snap, index.SnapshotSource(snap), embedAlias, reload, &opts); err != nil {
			return nil, err
		}
	}
	if l.eng != nil { // a reload: the engine's generation goes on
		return l.eng.Update(ctx, snap, nil, opts)
	}
	return search.New(ctx, snap, l.an, opts)
}

// syncIndex brings the index up to date with snap. A failed sync (disk
// full, index locked by another process) turns BM25 and the embeddings off
// for this engine, with the error in their place; TF-IDF still serves.
// Only vectors the user asked for by name (embedAlias at start) are fatal.
func (l *Vault) syncIndex(ctx context.Context, snap *vault.Snapshot, src index.Source, embedAlias string, reload bool, opts *search.Options) error {
	var err error
	if l.sync, err = l.ix.Sync(ctx, src, nil); err != nil {
		if ctx.Err() != nil {
			return err
		}
		err = fmt.Errorf("index sync: %w", err)
		if index.IsCorrupt(err) {
			// The index rebuilds itself in the background (see heal) and
			// serves again once swapped in; until then it fails fast.
			l.logger.Error("persistent index damaged; BM25 is off until it is rebuilt", "err", err)
			return nil
		}
		l.logger.Error("persistent index unavailable; BM25 and embeddings are off", "err", err)
		opts.Index, opts.IndexErr = nil, err
		opts.Embedder, opts.EmbedderErr = nil, err
		return nil
	}
	level := slog.LevelInfo
	if src.Scope != nil {
		level = slog.LevelDebug // a live change: one line per keystroke burst would drown the log
	}
	l.logger.Log(ctx, level, "index synced", "file", l.ix.Path(), "added", l.sync.Added, "updated", l.sync.Updated,
		"deleted", l.sync.Deleted, "unchanged", l.sync.Unchanged, "chunks", l.sync.Chunks, "ms", l.sync.Duration.Milliseconds())
	logPurge(l.logger, l.sync)
	model, err := l.embed(ctx, src, embedAlias, reload)
	if err != nil {
		if embedAlias != "" && !reload {
			return err
		}
		// Vectors of changed chunks are missing: embeddings still rank
		// everything else, and the next reload or build-embeddings retries.
		l.logger.Warn("embedding changed chunks failed", "err", err)
		return nil
	}
	if embedAlias != "" && model != nil {
		// The vectors were just built with this model (eval's fresh
		// index): the model opened before the sync found none and left the
		// signal off, so serve it from now on.
		l.searchOpts.Embedder, l.searchOpts.EmbedderAlias, l.searchOpts.EmbedderErr = model, embedAlias, nil
		opts.Embedder, opts.EmbedderAlias, opts.EmbedderErr = model, embedAlias, nil
	}
	return nil
}

// embed computes missing vectors: with the named model, or with the model
// already serving (so edits keep the embeddings complete). It returns the
// model it used, nil when it embedded nothing.
func (l *Vault) embed(ctx context.Context, src index.Source, alias string, reload bool) (embed.Embedder, error) {
	model := l.searchOpts.Embedder
	if alias != "" {
		if l.cfg.Models == nil {
			return nil, fmt.Errorf("embedding model %s: no models to open it with", alias)
		}
		var err error
		if model, err = l.cfg.Models.OpenOrLearn(ctx, alias, l.ix, src); err != nil {
			return nil, err
		}
	} else if model != nil {
		alias = l.searchOpts.EmbedderAlias
		if !reload && RemoteModel(alias) {
			return nil, nil
		}
	}
	if model == nil {
		return nil, nil
	}
	if _, err := l.ix.Vectors().Build(ctx, src, model, alias, 0, nil); err != nil {
		return nil, err
	}
	return model, nil
}

// RemoteModel reports whether the model alias names runs on another
// machine (query and note text leave this one).
func RemoteModel(alias string) bool {
	return strings.HasPrefix(alias, "ollama:") || strings.HasPrefix(alias, "openai:")
}

// loadEmbedder opens the model the index's vectors were built with (or
// the one Config.EmbeddingModel names, which must be the same); nothing
// when the index holds no vectors.
func (l *Vault) loadEmbedder(ctx context.Context) (embed.Embedder, string, error) {
	id, alias, _, err := l.ix.Vectors().ModelAlias(ctx)
	if err != nil || id == "" {
		return nil, "", err
	}
	if want := l.cfg.EmbeddingModel; want != "" && want != alias {
		err := fmt.Errorf("--embedding-model %s, but the index holds vectors of %s; run build-embeddings --embedding-model %s", want, alias, want)
		l.logger.Error("embeddings unavailable", "err", err)
		return nil, alias, err
	}
	if l.cfg.Models == nil {
		return nil, alias, fmt.Errorf("embedding model %s: no models to open it with", alias)
	}
	model, err := l.cfg.Models.Open(ctx, alias, l.ix)
	if err != nil {
		l.logger.Error("embeddings unavailable", "err", err)
		return nil, alias, err
	}
	return model, alias, nil
}
