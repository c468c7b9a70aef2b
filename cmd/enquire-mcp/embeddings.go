package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/models"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/service"
)

// embedFlags choose and configure an embedding model.
type embedFlags struct {
	model   string
	baseURL string
	cache   string
	ortLib  string
	// vaultModel is the file of the vault-learned model, next to the
	// index once one is open.
	vaultModel string
	// batchJob is set by build-embeddings (see models.Options.BatchJob).
	batchJob bool
}

func (e *embedFlags) register(fs *flag.FlagSet, def string) {
	fs.StringVar(&e.model, "embedding-model", def, `embedding model: "builtin" (offline, a static table distilled from all-MiniLM-L6-v2, English), "vault" (word vectors learned from this vault), a model2vec or transformer (ort build) alias installed with install-model, a model folder, "ollama:MODEL" or "openai:MODEL"`)
	fs.StringVar(&e.baseURL, "embedding-url", "", "server of ollama:/openai: models (default: ENQUIRE_OLLAMA_URL / ENQUIRE_OPENAI_BASE_URL or the provider's default); the API key comes from ENQUIRE_OPENAI_API_KEY or OPENAI_API_KEY")
	fs.StringVar(&e.cache, "model-dir", "", "folder of installed models (default: the user cache dir)")
	fs.StringVar(&e.ortLib, "ort-lib", "", "ONNX Runtime shared library for transformer models (default: $ENQUIRE_ORT_LIB, else next to the binary)")
}

// check makes an --embedding-model that names no model a usage error
// before any work (a search would otherwise pass over it in silence when
// the index holds no vectors).
func (e *embedFlags) check() error {
	if err := models.Check(e.model); err != nil {
		return usageError("--embedding-model: %v", err)
	}
	return nil
}

// options are the models.Options of the flags.
func (e *embedFlags) options() models.Options {
	return models.Options{CacheDir: e.cache, BaseURL: e.baseURL, ORTLib: e.ortLib, VaultModel: e.vaultModel, BatchJob: e.batchJob}
}

func (e *embedFlags) open(ctx context.Context, alias string) (embed.Embedder, error) {
	return models.Open(ctx, alias, e.options())
}

func runBuildEmbeddings(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	stderr = &syncWriter{w: stderr} // messages and the progress lines meet there
	fs := newFlagSet("build-embeddings", "--vault PATH [--embedding-model ALIAS] [--include-pdfs] [--index-file F]", stderr)
	var vf vaultFlags
	vf.registerIndex(fs)
	ef := embedFlags{batchJob: true}
	ef.register(fs, models.DefaultAlias)
	batch := fs.Int("batch", index.DefaultEmbedBatch, "chunks per embedding call and per transaction")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := atLeast("batch", *batch, 1); err != nil {
		return err
	}
	vf.noteGiven(fs, contentKeep)
	if err := ef.check(); err != nil {
		return err
	}
	root, err := vf.realRoot()
	if err != nil {
		return err
	}
	if err := vf.resolveContent(ctx, root, func(line string) { fmt.Fprintln(stderr, line) }); err != nil {
		return err
	}
	if err := vf.checkContent(); err != nil {
		return err
	}
	rules, err := vf.privacy.rules(ctx, root)
	if err != nil {
		return err
	}
	ix, err := vf.openIndex(ctx, root, false, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		return err
	}
	defer ix.Close()
	src, err := ix.DiskSource(ctx, vf.maxFileSize, vf.reader(ix, func(msg string) { fmt.Fprintf(stderr, "warning: %s\n", msg) }))
	if err != nil {
		return err
	}
	src.Privacy = service.IndexPrivacy(rules)
	syncBar := newProgress(stderr, len(src.Files), "syncing the index", "files")
	sync, err := ix.Sync(ctx, src, syncBar.Set)
	syncBar.Done()
	if err != nil {
		return err
	}
	printPrivacy(stdout, rules, sync)
	if !vf.content.given["embedding-model"] {
		// The model the vectors were made with, else the default.
		if _, alias, _, err := ix.Vectors().ModelAlias(ctx); err == nil && alias != "" {
			ef.model = alias
		}
	}
	model, err := ef.openOrLearn(ctx, ef.model, ix, src)
	if err != nil {
		return err
	}
	if old, oldAlias, _, err := ix.Vectors().ModelAlias(ctx); err == nil && old != "" && old != model.ID() {
		fmt.Fprintf(stderr, "embedding model changed (%s %s → %s %s): rebuilding every vector\n", oldAlias, old, ef.model, model.ID())
	}
	bar := newProgress(stderr, sync.Chunks, "embedding", "chunks")
	st, err := ix.Vectors().Build(ctx, src, model, ef.model, *batch, bar.Set)
	bar.Done()
	if err != nil {
		return fmt.Errorf("build embeddings: %w (the vectors stored so far are kept; rerun to continue)", err)
	}
	rate := 0.0
	if s := st.Duration.Seconds(); s > 0 {
		rate = float64(st.Embedded) / s
	}
	fmt.Fprintf(stdout, "embeddings for %s in %s\n", root, ix.Path())
	fmt.Fprintf(stdout, "  model: %s (%s, %d dimensions)\n", ef.model, st.Model, st.Dim)
	fmt.Fprintln(stdout, rankingLine(ef.model, model))
	fmt.Fprintf(stdout, "  chunks: %d embedded, %d kept, %d skipped as changed since the sync; %d old vectors removed", st.Embedded, st.Kept, st.Stale, st.Pruned)
	if st.Replaced > 0 {
		fmt.Fprintf(stdout, ", %d vectors of the previous model replaced", st.Replaced)
	}
	fmt.Fprintf(stdout, "\n  took %s (%.0f chunks/s)\n", st.Duration.Round(1e6), rate)
	if t, ok := model.(interface {
		Truncated() int64
		MaxLength() int
	}); ok && t.Truncated() > 0 {
		fmt.Fprintf(stdout, "  truncated: %d chunks were longer than the model's %d tokens; only their start is embedded\n", t.Truncated(), t.MaxLength())
	}
	return nil
}
