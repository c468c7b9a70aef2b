package tools

import (
	"context"
	"fmt"
	"math"

	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/similar"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Limits of obsidian_find_similar.
const (
	similarMaxLimit     = 50
	similarDefaultLimit = 10
)

// SimilarInput is the obsidian_find_similar request.
type SimilarInput struct {
	Path     string  `json:"path,omitempty" jsonschema:"Vault-relative path of the note, e.g. Projects/Plan.md (.md optional)."`
	Title    string  `json:"title,omitempty" jsonschema:"Note name, title or alias, resolved like a [[wikilink]]."`
	Limit    int     `json:"limit,omitempty" jsonschema:"Number of similar notes to return (1-50, default 10)."`
	MinScore float64 `json:"min_score,omitempty" jsonschema:"Only notes whose combined score is at least this (0-1, default 0: every note with some similarity)."`
	Folder   string  `json:"folder,omitempty" jsonschema:"Only notes under this vault-relative folder."`
}

// SimilarOutput is the obsidian_find_similar result.
type SimilarOutput struct {
	Path        string        `json:"path" jsonschema:"The note the others are compared with."`
	Title       string        `json:"title"`
	SignalsUsed []string      `json:"signals_used" jsonschema:"Signals that entered the score: content, embeddings (when loaded and the note has vectors), shared_tags, shared_links, co_citation, direct_link."`
	Similar     []SimilarNote `json:"similar" jsonschema:"Best first; never the note itself."`
}

// SimilarNote is one note like the given one.
type SimilarNote struct {
	Path       string         `json:"path"`
	Title      string         `json:"title"`
	Score      float64        `json:"score" jsonschema:"Weighted mean of the normalised signals, 0-1: content 0.40, embeddings 0.20 (when available), shared_tags 0.15, shared_links 0.10, co_citation 0.10, direct_link 0.05."`
	Signals    SimilarSignals `json:"signals"`
	SharedTags []string       `json:"shared_tags" jsonschema:"Tags both notes carry, lower case; a nested tag also counts as its parents (programming/go shares programming)."`
}

// SimilarSignals are the raw similarity signals between two notes.
type SimilarSignals struct {
	Content     float64  `json:"content" jsonschema:"Cosine of the two notes' TF-IDF vectors (title, aliases, headings, tags, properties, body), 0-1."`
	Embeddings  *float64 `json:"embeddings,omitempty" jsonschema:"Cosine of the notes' mean chunk embeddings; absent without embeddings."`
	SharedTags  float64  `json:"shared_tags" jsonschema:"Jaccard index of the two notes' tag sets (tags and their parents), 0-1."`
	SharedLinks int      `json:"shared_links" jsonschema:"Notes both link to (bibliographic coupling); scored as count / sqrt(product of the two out-degrees)."`
	CoCitation  int      `json:"co_citation" jsonschema:"Notes that link to both (co-citation); scored as count / sqrt(product of the two in-degrees)."`
	DirectLink  bool     `json:"direct_link" jsonschema:"One of the notes links to the other."`
}

// simCache keeps the similar-notes index of the current engine; a
// swapped engine gets a fresh one, built on first use.
type simCache struct{ perEngine[similar.Finder] }

func (c *simCache) get(e *search.Engine) *similar.Finder {
	return c.derive(e, similar.New)
}

// similarNote resolves the note to compare by path or title, without
// reading the disk: only indexed notes have vectors and links.
func similarNote(snap *vault.Snapshot, p, title string) (int, error) {
	return noteID(snap, p, title, func(ref string) error { return errNotFound(ref, snap.Suggest(ref, 5)) })
}

// findSimilar answers obsidian_find_similar.
func (s *Server) findSimilar(ctx context.Context, cache *simCache, in SimilarInput) (SimilarOutput, error) {
	limit := in.Limit
	if limit == 0 {
		limit = similarDefaultLimit
	}
	if limit < 1 || limit > similarMaxLimit {
		return SimilarOutput{}, fmt.Errorf("limit must be between 1 and %d, got %d", similarMaxLimit, in.Limit)
	}
	if in.MinScore < 0 || in.MinScore > 1 || math.IsNaN(in.MinScore) {
		return SimilarOutput{}, fmt.Errorf("min_score must be between 0 and 1, got %v", in.MinScore)
	}
	e := s.engine()
	snap := e.Snapshot()
	note, err := similarNote(snap, in.Path, in.Title)
	if err != nil {
		return SimilarOutput{}, err
	}
	allow, err := search.FolderFilter(snap, in.Folder)
	if err != nil {
		return SimilarOutput{}, err
	}
	found, used, err := cache.get(e).Similar(ctx, note, limit, in.MinScore, allow)
	if err != nil {
		return SimilarOutput{}, err
	}
	out := SimilarOutput{Path: snap.Notes[note].Path, Title: snap.Notes[note].Title, SignalsUsed: used, Similar: make([]SimilarNote, len(found))}
	for i, f := range found {
		nt := snap.Notes[f.ID]
		out.Similar[i] = SimilarNote{Path: nt.Path, Title: nt.Title, Score: f.Score, SharedTags: f.Tags, Signals: SimilarSignals{
			Content: f.Content, Embeddings: f.Embeddings, SharedTags: f.SharedTags,
			SharedLinks: f.SharedLinks, CoCitation: f.CoCitation, DirectLink: f.DirectLink,
		}}
	}
	return out, nil
}
