package rankers

import (
	"context"
	"fmt"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// BM25 is the persistent-index signal: BM25 (Request.BM25, by default k1
// BM25K1 and b BM25B) over the chunks FTS5 matches, with column weights
// for title, aliases, headings, tags and body. A note scores as its best
// chunk.
type BM25 struct {
	ix   *index.Index
	snap *vault.Snapshot
	// chunks reports how many chunks a note has in memory; with the file
	// hash it drops hits from an index row of another version of a note
	// (an `index` run racing the server), never misattributing them.
	chunks func(note int) int
}

// NewBM25 ranks the notes of snap with ix, which must have been synced
// with the same snapshot and chunk settings.
func NewBM25(ix *index.Index, snap *vault.Snapshot, chunks func(note int) int) *BM25 {
	return &BM25{ix: ix, snap: snap, chunks: chunks}
}

// Name implements Ranker.
func (b *BM25) Name() string { return SignalBM25 }

// Rank implements Ranker: the best chunks are read until Limit notes (or
// chunks) passed the filter. The first read asks for a few times Limit
// chunks (a note has several); when filters or repeated notes use them up,
// the read is repeated with a larger bound. Hits from another version of
// a note than the one in memory are left out and counted in a *Partial
// error returned with the candidates.
func (b *BM25) Rank(ctx context.Context, req Request) ([]Candidate, error) {
	for bound := 4*req.Limit + 50; ; bound *= 4 {
		out, rows, stale, err := b.rank(ctx, req, bound)
		if err != nil || len(out) >= req.Limit || rows < bound {
			if err == nil && len(stale) > 0 {
				err = &Partial{Msg: staleMessage(stale)}
			}
			return out, err
		}
	}
}

// staleMessage says which notes' index hits were dropped, and the fix.
func staleMessage(stale []string) string {
	shown := stale[:min(len(stale), 3)]
	more := ""
	if len(stale) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(stale)-len(shown))
	}
	return fmt.Sprintf("hits from %d note(s) skipped: the persistent index holds another version of %s%s than the server loaded (changed since the last sync); they are re-indexed at the next sync or `enquire-mcp index`",
		len(stale), strings.Join(shown, ", "), more)
}

func (b *BM25) rank(ctx context.Context, req Request, bound int) ([]Candidate, int, []string, error) {
	var out []Candidate
	var stale []string
	seen := map[int]bool{}
	staleSeen := map[string]bool{}
	rows := 0
	p := req.BM25
	if p == (index.BM25Params{}) {
		p = index.BM25Params{K1: BM25K1, B: BM25B}
	}
	err := b.ix.BM25().Search(ctx, req.Query, bound, p, func(h index.Hit) bool {
		rows++
		note, ok := b.snap.NoteIDExact(h.Path)
		if ok && req.Allow != nil && !req.Allow(note) {
			return true // filtered
		}
		if !ok || h.Chunk < 0 || h.Chunk >= b.chunks(note) || h.FileHash != b.snap.Notes[note].Hash {
			// From a different version of the note: never misattributed.
			if !staleSeen[h.Path] {
				staleSeen[h.Path] = true
				stale = append(stale, h.Path)
			}
			return true
		}
		if req.Block {
			out = append(out, Candidate{Note: note, Chunk: h.Chunk, Score: h.Score})
		} else if !seen[note] {
			seen[note] = true
			out = append(out, Candidate{Note: note, Chunk: NoChunk, Score: h.Score})
		}
		if len(out) == req.Limit {
			rows = bound // enough: as if the bound was reached
			return false
		}
		return true
	})
	return out, rows, stale, err
}
