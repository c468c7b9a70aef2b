package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/models"
	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/pdf"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/service"
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
	// small (tests of that path; see service.Config.StatePread).
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
	// indexWhy says why load used the index or not (the ready line
	// shows it).
	indexWhy string
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

// load opens the vault as the flags say (see service.Open): it resolves
// the kept content settings, checks the flags, and decides whether the
// persistent index is used.
func (v *vaultFlags) load(ctx context.Context, logger *slog.Logger) (*service.Vault, error) {
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
	pcfg, err := v.privacy.config()
	if err != nil {
		return nil, err
	}
	cfg := service.Config{Root: root, Logger: logger, MaxFileSize: v.maxFileSize, PDFs: v.pdfs, PDF: v.reader,
		OCR: v.ocr.key(), Reuse: v.reuse, Privacy: pcfg, Models: embedModels{&v.embed}, EmbeddingModel: v.embed.model,
		BuildEmbeddings: v.buildEmbeddings, KeepState: v.keepState, StatePread: v.statePread}
	cfg.Search = search.Options{StaleDays: v.staleDays, Chunk: chunk.DefaultOptions, Weights: v.weights.m,
		RecencyWeight: v.recency.v, RerankTopN: v.rerank.topN, PrefilterLimit: v.prefilterLimit, BM25: v.tune.bm25()}
	if v.boostStrength > 0 {
		cfg.Search.Boost = graph.BoostOptions{Depth: rankers.BoostDepth, Strength: v.boostStrength}
	}
	if cfg.Search.Reranker, err = v.rerank.open(ctx, v.embed.options()); err != nil {
		return nil, err
	}
	choice, err := v.chooseIndex(ctx, root, logger)
	if err != nil {
		return nil, err
	}
	v.indexWhy = choice.why
	if choice.use {
		cfg.Index = service.IndexConfig{Synced: v.synced, Keep: v.keepContent,
			Wait: func(lock string) { logger.Warn("waiting: another index run holds " + lock) }}
		v.synced = nil // a second load opens the file again
		if cfg.Index.Synced == nil {
			cfg.Index.Path, cfg.Index.Err = v.indexPath(root)
		}
	}
	return service.Open(ctx, cfg)
}

// embedModels opens the models of the embedding flags for service.Open.
type embedModels struct{ e *embedFlags }

// Open implements service.Models.
func (m embedModels) Open(ctx context.Context, alias string, ix *index.Index) (embed.Embedder, error) {
	m.e.vaultModel = index.VaultModelPath(ix.Path())
	return m.e.open(ctx, alias)
}

// OpenOrLearn implements service.Models.
func (m embedModels) OpenOrLearn(ctx context.Context, alias string, ix *index.Index, src index.Source) (embed.Embedder, error) {
	return m.e.openOrLearn(ctx, alias, ix, src)
}

// openIndex opens the vault's index for the commands that write it;
// failures are logged and returned. wait, if set, hears of waits for
// another process's sync.
func (v *vaultFlags) openIndex(ctx context.Context, root string, rebuild bool, logger *slog.Logger, wait func(lockFile string)) (*index.Index, error) {
	path, err := v.indexPath(root)
	return service.OpenIndex(ctx, service.IndexConfig{Path: path, Err: err, Wait: wait, Keep: v.keepContent}, root, v.pdfs, rebuild, logger)
}
