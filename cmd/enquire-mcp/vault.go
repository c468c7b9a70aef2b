package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/models"
	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/pdf"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// vaultFlags are the flags of every command that loads a vault.
type vaultFlags struct {
	vault       string
	maxFileSize int64
	staleDays   int
	persistent  bool
	noIndex     bool
	indexFile   string
	pdfs        bool
	weights     weightsFlag
	embed       embedFlags
	rerank      rerankFlags
	// buildEmbeddings, when set, computes missing vectors with this model
	// right after the index sync (eval's temporary index).
	buildEmbeddings string
	privacy         privacyFlags
	// keepState saves the engine state next to the index for the next
	// start (the commands that serve and search).
	keepState bool
	ocr       ocrFlags
	// recency is --recency-weight, the engine's default recency weight.
	recency        unitFlag
	prefilterLimit int
	// tune is --bm25-b.
	tune tuneFlags
	// statePread makes every saved engine state read with pread, however
	// small (tests of that path; see stateReadMappedMax).
	statePread bool
	// boostStrength, when > 0, replaces rankers.BoostStrength (eval's
	// --boost-strength, for measuring it).
	boostStrength float64
	// synced is an index the caller opened and synced (the index
	// command): load takes it over instead of opening the file again.
	synced *index.Index
	// reuse gives load the notes that sync read (vault.Options.Reuse).
	reuse func(vault.File) (*vault.Note, []vault.Warning, bool)
	// content is how the kept content settings and the flags given
	// combine (settings.go).
	content contentState
}

// register adds the flags of the commands that search (serve, search).
func (v *vaultFlags) register(fs *flag.FlagSet) {
	v.registerIndex(fs)
	fs.IntVar(&v.staleDays, "stale-days", search.DefaultStaleDays, "age in days from which a hit is reported stale, and the half-life of --recency-weight")
	fs.Var(&v.recency, "recency-weight", "blend file freshness into every search's score, 0-1 (default 0: age does not rank); a request's recency_weight overrides it")
	fs.BoolVar(&v.persistent, "persistent-index", false, "sync the persistent index at start and add the BM25 signal (default: on when \"enquire-mcp index\" made one for this vault)")
	fs.BoolVar(&v.noIndex, "no-index", false, "ignore the persistent index even when one exists (TF-IDF only)")
	fs.Var(&v.weights, "rrf-weights", "RRF weights per signal, e.g. bm25=1,tfidf=1,embeddings=1 for plain equal weights (default: bm25=2,tfidf=1,embeddings=1,feedback=0.5, the built-in and vault models 0; see docs/benchmarks.md)")
	v.tune.register(fs)
	v.embed.register(fs, "")
	v.ocr.register(fs)
	v.rerank.register(fs)
	fs.IntVar(&v.prefilterLimit, "prefilter-limit", rankers.DefaultPrefilterLimit, "chunk count above which the embeddings signal scores only the notes the lexical signals found (their top 1000 each) instead of every vector; -1: never")
}

// registerIndex adds the flags of every command that reads a vault into
// the index (index, build-embeddings, and the searching ones).
func (v *vaultFlags) registerIndex(fs *flag.FlagSet) {
	fs.StringVar(&v.vault, "vault", envVault(), "path to the Obsidian vault (env ENQUIRE_VAULT)")
	fs.StringVar(&v.indexFile, "index-file", "", "index file (default: the user cache dir, one file per vault); implies --persistent-index")
	v.registerContent(fs)
}

// registerContent adds the flags that choose which files and what of
// them are read: also eval's, so that it judges what index would index.
func (v *vaultFlags) registerContent(fs *flag.FlagSet) {
	fs.Int64Var(&v.maxFileSize, "max-file-size", vault.DefaultMaxFileSize, "skip notes larger than this many bytes")
	fs.BoolVar(&v.pdfs, "include-pdfs", false, "index the text of PDF attachments (kind \"pdf\", with page numbers)")
	v.privacy.register(fs)
}

// checkContent validates the flags registerContent and ocrFlags add.
func (v *vaultFlags) checkContent() error {
	if err := atLeast("max-file-size", v.maxFileSize, 1); err != nil {
		return err
	}
	return v.ocr.check(v.pdfs)
}

func envVault() string { return os.Getenv("ENQUIRE_VAULT") }

// pdfCommand is the hidden subcommand that extracts one PDF in a child
// process (see pdf.Isolated).
const pdfCommand = "__extract-pdf"

// pdfReader extracts PDFs in child processes of this binary, so a hostile
// PDF cannot hang or abort the server; cache, if set, skips unchanged ones.
func pdfReader(cache vault.PDFCache) vault.PDFReader {
	r := vault.PDFReader{}
	if exe, err := os.Executable(); err == nil {
		r.Extract = pdf.Isolated{Command: []string{exe, pdfCommand}}.ExtractFile
	} else {
		// Never fall back to parsing untrusted PDFs in the server process:
		// each PDF is skipped with this warning instead.
		r.Extract = func(context.Context, *os.File, pdf.Options) (*pdf.Document, error) {
			return nil, fmt.Errorf("cannot isolate PDF extraction (locating this executable: %v); PDF skipped", err)
		}
	}
	if cache != nil {
		r.Cache = cache
	}
	return r
}

// reader is pdfReader with the index as the cache (ix may be nil) and
// the OCR of scanned pages when --ocr is on; warn hears of missing tools.
func (v *vaultFlags) reader(ix *index.Index, warn func(string)) vault.PDFReader {
	var cache vault.PDFCache
	if ix != nil {
		cache = ix
	}
	r := pdfReader(cache)
	r.OCR = v.ocr.reader(ix, warn)
	return r
}

// indexPath is the index file of the vault at realRoot.
func (v *vaultFlags) indexPath(realRoot string) (string, error) {
	if v.indexFile != "" {
		f, err := userPath(v.indexFile)
		if err != nil {
			return "", err
		}
		return f, insideVault(f, realRoot)
	}
	return index.DefaultPath(realRoot)
}

// insideVault refuses an index file inside the vault: the server never
// writes there unless a write tool is enabled, and a vault synced to
// other devices would carry the index along.
func insideVault(file, realRoot string) error {
	abs, err := filepath.Abs(file)
	if err != nil {
		return fmt.Errorf("--index-file %s: %w", file, err)
	}
	dir := filepath.Dir(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if rel, err := filepath.Rel(realRoot, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return usageError("--index-file %s is inside the vault %s; put it outside (the default is the user cache dir)", file, realRoot)
	}
	return nil
}

func (v *vaultFlags) realRoot() (string, error) {
	if v.vault == "" {
		return "", usageError("--vault is required (or set ENQUIRE_VAULT)")
	}
	p, err := userPath(v.vault)
	if err != nil {
		return "", err
	}
	return vault.RealRoot(p)
}

// loaded is an opened vault: its engine and, with the persistent index,
// the index and what its sync did.
type loaded struct {
	eng   *search.Engine
	ix    *index.Index
	sync  index.Stats
	took  time.Duration
	ixErr error
	// ixWhy says why the index is on or off (the ready line shows it).
	ixWhy string

	root       string
	logger     *slog.Logger
	flags      *vaultFlags
	an         *analysis.Analyzer
	vaultOpts  vault.Options
	searchOpts search.Options
	// mu serialises the changes of eng (reloads, live updates); onSwap
	// hands each new engine to the server while mu is held, so the
	// server never holds an older engine than the last one made.
	mu         sync.Mutex
	onSwap     func(*search.Engine)
	lastChange atomic.Int64 // unix nanoseconds of the last applied change
	// watchDone is closed once the watcher newServer started has returned
	// (after its ctx ended): no change is applied after that.
	watchDone chan struct{}
	// healed says a background rebuild after damage swapped a new index
	// file in.
	healed atomic.Bool
	// rulesAt is the privacy rules file as the rules in use were read
	// (a rescan compares it: the file sits in a folder vault walks skip).
	rulesAt  fileStamp
	lastWarn string
	saver    stateSaver
	// warm says how the engine started: from the saved engine state, with
	// the number of files changed since, or from the files and why.
	warm         string
	fromState    bool
	changedSince int
	// memWhy says why the in-memory BM25 copy saved with the engine state
	// was not used ("" when it was).
	memWhy string
	// vecWhy says why the vectors saved with the engine state were not
	// used ("" when they were, or when the index has none).
	vecWhy string
	// early is the engine state decoded while the index opened.
	early chan restored
	// vectors follows the index's vectors for serve (vectorfollow.go).
	vectors vectorFollower
}

// Close saves the engine state if a save is due and closes the index.
func (l *loaded) Close() error {
	l.flushState()
	if l.ix != nil {
		return l.ix.Close()
	}
	return nil
}

// closeOrWarn is Close for a server's shutdown: an index that does not
// close cleanly is logged (the process still exits normally; SQLite
// recovers the WAL at the next open).
func (l *loaded) closeOrWarn() {
	if err := l.Close(); err != nil {
		l.logger.Warn("the index was not closed cleanly", "err", err)
	}
}

// load reads the vault and builds the engine. With the persistent index,
// it opens the index first (PDF text comes from it), syncs it with the
// loaded notes, and adds BM25 and, when the index holds vectors, the
// embeddings. An index or a model that cannot be opened is logged and
// reported as that signal's error; the search still works.
func (v *vaultFlags) load(ctx context.Context, logger *slog.Logger) (*loaded, error) {
	root, err := v.realRoot()
	if err != nil {
		return nil, err
	}
	if err := v.resolveContent(ctx, root, func(line string) { logger.Warn(line) }); err != nil {
		return nil, err
	}
	if err := v.checkContent(); err != nil {
		return nil, err
	}
	// Commands without these flags leave them 0: the engine's defaults.
	if err := atLeast("stale-days", v.staleDays, 0); err != nil {
		return nil, err
	}
	if err := atLeast("prefilter-limit", v.prefilterLimit, -1); err != nil {
		return nil, err
	}
	if err := v.embed.check(); err != nil {
		return nil, err
	}
	if err := models.Check(v.buildEmbeddings); err != nil {
		return nil, usageError("--embedding-model: %v", err)
	}
	rulesAt := statRules(root) // before the read: a change after it is seen
	rules, err := v.privacy.rules(ctx, root)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	l := &loaded{root: root, logger: logger, flags: v, an: analysis.New(), rulesAt: rulesAt}
	warn := func(msg string) { logger.Warn(msg) }
	l.vaultOpts = vault.Options{MaxFileSize: v.maxFileSize, PDFs: v.pdfs, PDF: v.reader(nil, warn), Filter: vaultFilter(rules), Reuse: v.reuse}
	l.searchOpts = search.Options{StaleDays: v.staleDays, Chunk: chunk.DefaultOptions, Weights: v.weights.m,
		RecencyWeight: v.recency.v, RerankTopN: v.rerank.topN, PrefilterLimit: v.prefilterLimit, BM25: v.tune.bm25()}
	if v.boostStrength > 0 {
		l.searchOpts.Boost = graph.BoostOptions{Depth: rankers.BoostDepth, Strength: v.boostStrength}
	}
	if l.searchOpts.Reranker, err = v.rerank.open(ctx, v.embed.options()); err != nil {
		return nil, err
	}
	if !v.noIndex && v.buildEmbeddings == "" {
		if p, err := v.indexPath(root); err == nil {
			// Decode the saved engine state while the index opens.
			l.early = make(chan restored, 1)
			restore := l.restorer(index.StatePath(p))
			go func() { l.early <- restore(ctx) }()
		}
	}
	choice, err := v.chooseIndex(ctx, root, logger)
	if err != nil {
		return nil, err
	}
	l.ixWhy = choice.why
	if choice.use {
		if v.synced != nil {
			l.ix, v.synced = v.synced, nil
		} else {
			l.ix, l.ixErr = v.openIndex(ctx, root, false, logger, func(lock string) { logger.Warn("waiting: another index run holds " + lock) })
		}
		if l.ix != nil {
			l.heal()
		}
		l.searchOpts.Index, l.searchOpts.IndexErr = l.ix, l.ixErr
		if l.ix != nil {
			l.vaultOpts.PDF = v.reader(l.ix, warn)
		}
	}
	if l.ix != nil {
		v.embed.vaultModel = index.VaultModelPath(l.ix.Path())
		l.searchOpts.Embedder, l.searchOpts.EmbedderAlias, l.searchOpts.EmbedderErr = v.loadEmbedder(ctx, l.ix, logger)
	}
	if err := l.start(ctx); err != nil {
		l.Close()
		return nil, err
	}
	l.took = time.Since(start)
	logPrivacy(logger, rules, l.eng.Snapshot())
	return l, nil
}

// start makes the first engine: from the saved engine state when there is
// a usable one (only changed files are read), else from the files.
func (l *loaded) start(ctx context.Context) error {
	if l.ix != nil && l.flags.buildEmbeddings == "" {
		path := index.StatePath(l.ix.Path())
		l.tidyStateTemps(path)
		var r restored
		if l.early != nil {
			r = <-l.early
		}
		if r.path != path {
			r = l.restorer(path)(ctx)
		}
		eng, changed, why := l.warmStart(ctx, r)
		if r.evict != nil {
			r.evict()
		}
		if eng != nil {
			l.eng, l.fromState, l.changedSince = eng, true, changed
			l.warm = fmt.Sprintf("engine state, %d files changed since", changed)
			if changed > 0 || l.memWhy != "" || l.vecWhy != "" {
				l.saveSoon(stateSaveDelay) // the state, with a current BM25 copy and vectors
			}
			return nil
		}
		l.warm = "files (" + why + ")"
	} else {
		l.warm = "files"
	}
	var err error
	if l.eng, err = l.build(ctx, l.flags.buildEmbeddings, false); err != nil {
		return err
	}
	if l.ix != nil && l.flags.buildEmbeddings == "" {
		l.dropStaleState()
	}
	l.saveSoon(coldSaveDelay)
	return nil
}

// build loads the vault, syncs the index with it, computes the vectors of
// changed chunks (with embedAlias, or with the loaded model — at start
// only when it runs locally: a remote model waits for build-embeddings),
// and makes an engine.
func (l *loaded) build(ctx context.Context, embedAlias string, reload bool) (*search.Engine, error) {
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
func (l *loaded) syncIndex(ctx context.Context, snap *vault.Snapshot, src index.Source, embedAlias string, reload bool, opts *search.Options) error {
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
func (l *loaded) embed(ctx context.Context, src index.Source, alias string, reload bool) (embed.Embedder, error) {
	model := l.searchOpts.Embedder
	if alias != "" {
		var err error
		if model, err = l.flags.embed.openOrLearn(ctx, alias, l.ix, src); err != nil {
			return nil, err
		}
	} else if model != nil {
		alias = l.searchOpts.EmbedderAlias
		if !reload && remoteModel(alias) {
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

func remoteModel(alias string) bool {
	return strings.HasPrefix(alias, "ollama:") || strings.HasPrefix(alias, "openai:")
}

// loadEmbedder opens the model the index's vectors were built with (or
// the one --embedding-model names, which must be the same); nothing when
// the index holds no vectors.
func (v *vaultFlags) loadEmbedder(ctx context.Context, ix *index.Index, logger *slog.Logger) (embed.Embedder, string, error) {
	id, alias, _, err := ix.Vectors().ModelAlias(ctx)
	if err != nil || id == "" {
		return nil, "", err
	}
	if v.embed.model != "" && v.embed.model != alias {
		err := fmt.Errorf("--embedding-model %s, but the index holds vectors of %s; run build-embeddings --embedding-model %s", v.embed.model, alias, v.embed.model)
		logger.Error("embeddings unavailable", "err", err)
		return nil, alias, err
	}
	model, err := v.embed.open(ctx, alias)
	if err != nil {
		logger.Error("embeddings unavailable", "err", err)
		return nil, alias, err
	}
	return model, alias, nil
}

// openIndex opens the vault's index; failures are logged for load and
// returned. wait, if set, hears of waits for another process's sync.
func (v *vaultFlags) openIndex(ctx context.Context, root string, rebuild bool, logger *slog.Logger, wait func(lockFile string)) (*index.Index, error) {
	path, err := v.indexPath(root)
	if err == nil {
		var ix *index.Index
		if ix, err = index.OpenWait(ctx, path, index.NewSettings(root, v.pdfs, chunk.DefaultOptions), rebuild, wait); err == nil {
			if ix.Rebuilt != "" {
				logger.Warn("rebuilding the index", "file", path, "reason", ix.Rebuilt)
			}
			if err = v.keepContent(ctx, ix); err == nil {
				return ix, nil
			}
			err = errors.Join(err, ix.Close())
		}
	}
	logger.Error("persistent index unavailable; BM25 is off", "err", err)
	return nil, fmt.Errorf("persistent index: %w", err)
}
