package index

import (
	"context"
	"fmt"
	"time"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// EmbedStats summarise BuildEmbeddings.
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

// BuildEmbeddings computes the vectors of every chunk that has none,
// reading the notes from src (sync the index with the same source first).
// It is incremental (a chunk whose EmbedText did not change keeps its
// vector) and resumable (each batch is stored in its own transaction). A
// different model than the recorded one replaces every vector. alias is
// the name the user chose the model by; progress gets (done, total).
func (ix *Index) BuildEmbeddings(ctx context.Context, src Source, model embed.Embedder, alias string, batch int, progress func(done, total int)) (EmbedStats, error) {
	start := time.Now()
	st := EmbedStats{Model: model.ID(), Dim: model.Dim()}
	if batch <= 0 {
		batch = DefaultEmbedBatch
	}
	replaced, err := ix.SetEmbeddingModel(ctx, model.ID(), alias, model.Dim())
	if err != nil {
		return st, err
	}
	st.Replaced = replaced
	var refs []ChunkRef
	total := -1
	if src.Scope != nil {
		// A live change: only its paths can lack vectors now; counting and
		// pruning would walk every row, and wait for the next full run.
		refs, err = ix.chunksWithoutVectorsUnder(ctx, src.Scope)
	} else if refs, err = ix.ChunksWithoutVectors(ctx); err == nil {
		total, err = ix.chunkCount(ctx)
	}
	if err != nil {
		return st, err
	}
	files := make(map[string]vault.File, len(src.Files))
	for _, f := range src.Files {
		files[f.Path] = f
	}
	var texts, hashes []string
	seen := map[string]bool{}
	flush := func() error {
		if len(texts) == 0 {
			return nil
		}
		vecs, err := model.Embed(ctx, texts, embed.Document)
		if err != nil {
			return fmt.Errorf("embed: %w", err)
		}
		if err := checkVectors(vecs, len(texts), model.Dim()); err != nil {
			return err
		}
		if err := ix.PutVectors(ctx, hashes, vecs); err != nil {
			return err
		}
		st.Embedded += len(texts)
		if progress != nil {
			progress(st.Embedded, len(refs))
		}
		texts, hashes = texts[:0], hashes[:0]
		return nil
	}
	for i := 0; i < len(refs); {
		j := i
		for j < len(refs) && refs[j].Path == refs[i].Path {
			j++
		}
		group := refs[i:j]
		i = j
		f, ok := files[group[0].Path]
		if !ok {
			st.Stale += len(group)
			continue
		}
		n, _ := safeNote(ctx, src.Note, f)
		if n == nil || (src.Privacy != nil && (src.Privacy.Excluded(n.Path) || src.Privacy.Private(n))) {
			st.Stale += len(group)
			continue
		}
		chunks := chunk.Split(n, ix.settings.Chunk)
		for _, ref := range group {
			if seen[ref.Hash] {
				continue // the same passage twice: one vector serves both
			}
			if ref.Chunk >= len(chunks) || ChunkHash(n, chunks[ref.Chunk]) != ref.Hash {
				st.Stale++
				continue
			}
			seen[ref.Hash] = true
			texts = append(texts, EmbedText(n, chunks[ref.Chunk]))
			hashes = append(hashes, ref.Hash)
			if len(texts) == batch {
				if err := flush(); err != nil {
					return st, err
				}
			}
		}
	}
	if err := flush(); err != nil {
		return st, err
	}
	if total < 0 {
		st.Kept = -1
	} else {
		st.Kept = total - len(refs)
		if st.Pruned, err = ix.PruneVectors(ctx); err != nil {
			return st, err
		}
	}
	st.Duration = time.Since(start)
	return st, ctx.Err()
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
