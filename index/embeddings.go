package index

import (
	"context"
	"fmt"
	"time"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// EmbedStats summarise Vectors.Build.
type EmbedStats struct {
	Model string
	Dim   int
	// Replaced counts vectors of another model deleted first.
	Replaced int
	// Embedded chunks were computed now; Kept already had a vector (-1,
	// not counted, for a Source limited to a Scope).
	Embedded, Kept int
	// Stale chunks changed on disk after the last sync and were skipped.
	Stale    int
	Pruned   int
	Duration time.Duration
}

// DefaultEmbedBatch is how many chunks one embedding call and one
// transaction hold.
const DefaultEmbedBatch = 256

// Build computes the vectors of every chunk that has none,
// reading the notes from src (sync the index with the same source first).
// It is incremental (a chunk whose EmbedText did not change keeps its
// vector) and resumable (each batch is stored in its own transaction). A
// different model than the recorded one replaces every vector. alias is
// the name the user chose the model by; progress gets (done, total).
func (v *Vectors) Build(ctx context.Context, src Source, model embed.Embedder, alias string, batch int, progress func(done, total int)) (EmbedStats, error) {
	start := time.Now()
	st := EmbedStats{Model: model.ID(), Dim: model.Dim()}
	replaced, err := v.SetModel(ctx, model.ID(), alias, model.Dim())
	if err != nil {
		return st, err
	}
	st.Replaced = replaced
	refs, total, err := v.missingVectors(ctx, src.Scope)
	if err != nil {
		return st, err
	}
	if progress != nil {
		progress(0, len(refs)) // a resumed run has only the rest to do: say so before the first batch
	}
	b := &embedBatch{vectors: v, model: model, size: batch, stats: &st, total: len(refs), progress: progress}
	if b.size <= 0 {
		b.size = DefaultEmbedBatch
	}
	if err := v.embedRefs(ctx, src, refs, b); err != nil {
		return st, err
	}
	if total < 0 {
		st.Kept = -1
	} else {
		st.Kept = total - len(refs)
		if st.Pruned, err = v.Prune(ctx); err != nil {
			return st, err
		}
	}
	st.Duration = time.Since(start)
	return st, ctx.Err()
}

// missingVectors lists the chunks without a vector, and how many chunks
// the index holds (-1, not counted, for a scope).
func (v *Vectors) missingVectors(ctx context.Context, scope []string) ([]ChunkRef, int, error) {
	if scope != nil {
		// A live change: only its paths can lack vectors now; counting and
		// pruning would walk every row, and wait for the next full run.
		refs, err := v.missingUnder(ctx, scope)
		return refs, -1, err
	}
	refs, err := v.Missing(ctx)
	if err != nil {
		return nil, 0, err
	}
	total, err := v.ix.chunkCount(ctx)
	return refs, total, err
}

// embedRefs embeds the current text of every listed chunk, one note at a
// time (refs come grouped by path), skipping chunks that changed on disk
// since the last sync.
func (v *Vectors) embedRefs(ctx context.Context, src Source, refs []ChunkRef, b *embedBatch) error {
	files := make(map[string]vault.File, len(src.Files))
	for _, f := range src.Files {
		files[f.Path] = f
	}
	seen := map[string]bool{}
	for i := 0; i < len(refs); {
		j := i
		for j < len(refs) && refs[j].Path == refs[i].Path {
			j++
		}
		group := refs[i:j]
		i = j
		chunks, n := v.currentChunks(ctx, src, files, group[0].Path)
		for _, ref := range group {
			switch {
			case n == nil:
				b.stats.Stale++
			case seen[ref.Hash]:
				// the same passage twice: one vector serves both
			case ref.Chunk >= len(chunks) || ChunkHash(n, chunks[ref.Chunk]) != ref.Hash:
				b.stats.Stale++
			default:
				seen[ref.Hash] = true
				if err := b.add(ctx, EmbedText(n, chunks[ref.Chunk]), ref.Hash); err != nil {
					return err
				}
			}
		}
	}
	return b.flush(ctx)
}

// currentChunks reads a note as it is on disk now and splits it; the note
// is nil when it is gone, unreadable or hidden by the privacy rules.
func (v *Vectors) currentChunks(ctx context.Context, src Source, files map[string]vault.File, path string) ([]chunk.Chunk, *vault.Note) {
	f, ok := files[path]
	if !ok {
		return nil, nil
	}
	n, _ := safeNote(ctx, src.Note, f)
	if n == nil || (src.Privacy != nil && (src.Privacy.Excluded(n.Path) || src.Privacy.Private(n))) {
		return nil, nil
	}
	return chunk.Split(n, v.ix.settings.Chunk), n
}

// embedBatch gathers chunk texts and stores their vectors size at a time,
// each batch in its own transaction (Put), so that a stopped run
// keeps what it computed.
type embedBatch struct {
	vectors  *Vectors
	model    embed.Embedder
	size     int
	texts    []string
	hashes   []string
	stats    *EmbedStats
	total    int
	progress func(done, total int)
}

func (b *embedBatch) add(ctx context.Context, text, hash string) error {
	b.texts = append(b.texts, text)
	b.hashes = append(b.hashes, hash)
	if len(b.texts) < b.size {
		return nil
	}
	return b.flush(ctx)
}

func (b *embedBatch) flush(ctx context.Context) error {
	if len(b.texts) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err // stopped: a batch computed now could not be stored
	}
	vecs, err := b.model.Embed(ctx, b.texts, embed.Document)
	if err != nil {
		return fmt.Errorf("embed: %w", err)
	}
	if err := checkVectors(vecs, len(b.texts), b.model.Dim()); err != nil {
		return err
	}
	if err := b.vectors.Put(ctx, b.hashes, vecs); err != nil {
		return err
	}
	b.stats.Embedded += len(b.texts)
	if b.progress != nil {
		b.progress(b.stats.Embedded, b.total)
	}
	b.texts, b.hashes = b.texts[:0], b.hashes[:0]
	return nil
}

// checkVectors guards the store against a provider's bad answer.
func checkVectors(vecs [][]float32, n, dim int) error {
	if len(vecs) != n {
		return fmt.Errorf("embed: %d vectors for %d texts", len(vecs), n)
	}
	for _, v := range vecs {
		if len(v) != dim {
			return fmt.Errorf("embed: %w: got %d, want %d", embed.ErrDimension, len(v), dim)
		}
	}
	return nil
}

func (ix *Index) chunkCount(ctx context.Context) (int, error) {
	n, _, err := ix.counts(ctx)
	return n, err
}
