package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/pdf"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// vaultFlags are the flags of every command that loads a vault.
type vaultFlags struct {
	vault       string
	maxFileSize int64
	staleDays   int
	persistent  bool
	indexFile   string
	pdfs        bool
	weights     weightsFlag
	embed       embedFlags
	// buildEmbeddings, when set, computes missing vectors with this model
	// right after the index sync (eval's temporary index).
	buildEmbeddings string
}

// register adds the flags of the commands that search (serve, search).
func (v *vaultFlags) register(fs *flag.FlagSet) {
	v.registerIndex(fs)
	fs.IntVar(&v.staleDays, "stale-days", search.DefaultStaleDays, "age in days from which a hit is reported stale")
	fs.BoolVar(&v.persistent, "persistent-index", false, "sync the persistent index at start and add the BM25 signal")
	fs.Var(&v.weights, "rrf-weights", "RRF weights per signal, e.g. bm25=2,tfidf=1 (default: equal weights)")
	v.embed.register(fs, "")
}

// registerIndex adds the flags of every command that reads a vault into
// the index (index, build-embeddings, and the searching ones).
func (v *vaultFlags) registerIndex(fs *flag.FlagSet) {
	fs.StringVar(&v.vault, "vault", envVault(), "path to the Obsidian vault (env ENQUIRE_VAULT)")
	fs.Int64Var(&v.maxFileSize, "max-file-size", vault.DefaultMaxFileSize, "skip notes larger than this many bytes")
	fs.StringVar(&v.indexFile, "index-file", "", "index file (default: the user cache dir, one file per vault); implies --persistent-index")
	fs.BoolVar(&v.pdfs, "include-pdfs", false, "index the text of PDF attachments (kind \"pdf\", with page numbers)")
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
		r.Extract = pdf.Isolated{Command: []string{exe, pdfCommand}}.Extract
	}
	if cache != nil {
		r.Cache = cache
	}
	return r
}

// indexPath is the index file of the vault at realRoot.
func (v *vaultFlags) indexPath(realRoot string) (string, error) {
	if v.indexFile != "" {
		return v.indexFile, nil
	}
	return index.DefaultPath(realRoot)
}

func (v *vaultFlags) realRoot() (string, error) {
	if v.vault == "" {
		return "", usageError("--vault is required (or set ENQUIRE_VAULT)")
	}
	return vault.RealRoot(v.vault)
}

// loaded is an opened vault: its engine and, with the persistent index,
// the index and what its sync did.
type loaded struct {
	eng   *search.Engine
	ix    *index.Index
	sync  index.Stats
	took  time.Duration
	ixErr error
}

func (l *loaded) Close() error {
	if l.ix != nil {
		return l.ix.Close()
	}
	return nil
}

// load reads the vault and builds the engine. With the persistent index,
// it opens the index first (PDF text comes from it), syncs it with the
// loaded notes, and adds BM25. An index that cannot be opened is logged
// and reported as the BM25 signal's error; the search still works.
func (v *vaultFlags) load(ctx context.Context, logger *slog.Logger) (*loaded, error) {
	root, err := v.realRoot()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	l := &loaded{}
	opts := vault.Options{MaxFileSize: v.maxFileSize, PDFs: v.pdfs, PDF: pdfReader(nil)}
	if v.persistent || v.indexFile != "" {
		l.ix, l.ixErr = v.openIndex(ctx, root, false, logger)
		if l.ix != nil {
			opts.PDF = pdfReader(l.ix)
		}
	}
	snap, err := vault.Load(ctx, root, opts)
	if err != nil {
		l.Close()
		return nil, err
	}
	for _, w := range snap.Warnings {
		logger.Warn("vault", "path", w.Path, "problem", w.Message)
	}
	if l.ix != nil {
		if l.sync, err = l.ix.Sync(ctx, index.SnapshotSource(snap), nil); err != nil {
			l.Close()
			return nil, err
		}
		logger.Info("index synced", "file", l.ix.Path(), "added", l.sync.Added, "updated", l.sync.Updated,
			"deleted", l.sync.Deleted, "unchanged", l.sync.Unchanged, "chunks", l.sync.Chunks, "ms", l.sync.Duration.Milliseconds())
		if v.buildEmbeddings != "" {
			if err := v.embedAll(ctx, l.ix, snap); err != nil {
				l.Close()
				return nil, err
			}
		}
	}
	opts2 := search.Options{StaleDays: v.staleDays, Index: l.ix, IndexErr: l.ixErr, Chunk: chunk.DefaultOptions, Weights: v.weights.m}
	if l.ix != nil {
		opts2.Embedder, opts2.EmbedderAlias, opts2.EmbedderErr = v.loadEmbedder(ctx, l.ix, logger)
	}
	l.eng, err = search.New(ctx, snap, analysis.New(), opts2)
	if err != nil {
		l.Close()
		return nil, err
	}
	l.took = time.Since(start)
	return l, nil
}

// embedAll computes the missing vectors of the loaded notes.
func (v *vaultFlags) embedAll(ctx context.Context, ix *index.Index, snap *vault.Snapshot) error {
	model, err := v.embed.open(ctx, v.buildEmbeddings)
	if err != nil {
		return err
	}
	_, err = ix.BuildEmbeddings(ctx, index.SnapshotSource(snap), model, v.buildEmbeddings, 0, nil)
	return err
}

// loadEmbedder opens the model the index's vectors were built with (or
// the one --embedding-model names, which must be the same); nothing when
// the index holds no vectors.
func (v *vaultFlags) loadEmbedder(ctx context.Context, ix *index.Index, logger *slog.Logger) (embed.Embedder, string, error) {
	id, alias, _, err := ix.EmbeddingModelAlias(ctx)
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
// returned.
func (v *vaultFlags) openIndex(ctx context.Context, root string, rebuild bool, logger *slog.Logger) (*index.Index, error) {
	path, err := v.indexPath(root)
	if err == nil {
		var ix *index.Index
		if ix, err = index.Open(ctx, path, index.NewSettings(root, v.pdfs, chunk.DefaultOptions), rebuild); err == nil {
			if ix.Rebuilt != "" {
				logger.Warn("index rebuilt", "file", path, "reason", ix.Rebuilt)
			}
			return ix, nil
		}
	}
	logger.Error("persistent index unavailable; BM25 is off", "err", err)
	return nil, fmt.Errorf("persistent index: %w", err)
}
