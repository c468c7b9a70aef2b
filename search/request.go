package search

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// Limits of a request, as documented in the obsidian_search contract.
const (
	MaxQueryRunes = 4096
	MaxLimit      = 100
	DefaultLimit  = 10
	MaxMinSignals = 3
)

// Granularity of the hits.
const (
	GranularityNote  = "note"
	GranularityBlock = "block"
)

// Request is one search.
type Request struct {
	Query string
	// Folder keeps hits under a vault-relative folder.
	Folder string
	// Limit is the number of hits (1..100, 0 means 10).
	Limit int
	// MinSignals drops hits found by fewer signals (1..3, 0 means 1).
	MinSignals int
	// EmbeddingModel is passed to the embeddings signal.
	EmbeddingModel string
	// Granularity is "note" (default) or "block".
	Granularity string
	// GraphBoost enables the wikilink boost.
	GraphBoost bool
	// Frontmatter filters notes: key → scalar or list of scalars.
	Frontmatter map[string]any
	// Tag keeps notes carrying the tag or one nested under it.
	Tag string
	// Signals restricts the signals used (nil: every available one).
	Signals []string
	// Weights override the engine's RRF weights signal by signal
	// (experiments and eval).
	Weights map[string]float64
	// NoSnippets skips snippet and age rendering (evaluation).
	NoSnippets bool
	// RecencyWeight and ImportanceWeight blend freshness and frontmatter
	// importance into the score (0..1 each, summing to at most 1; nil:
	// the engine's --recency-weight and 0). See recency.go.
	RecencyWeight, ImportanceWeight *float64
	// Types keeps "note" or "memory" hits (nil: both).
	Types []string
	// Rerank turns the engine's reranker on or off for this request (nil:
	// on when the engine has one).
	Rerank *bool
	// MinSimilarity (0..1) drops dense candidates below this cosine
	// before fusion.
	MinSimilarity float64
	// MaxPassages, when set (1..10, note granularity only), asks for up
	// to that many best passages per hit.
	MaxPassages *int
	// Cursor, when set, pages: "" asks for the first page, a NextCursor
	// of an earlier result for the page after it.
	Cursor *string
	// Expand adds Related: notes linked to or sharing rare tags with the
	// hits.
	Expand bool
	// IncludeExcluded searches the notes Obsidian keeps out of its own
	// search too: Settings → Files and links → Excluded files, and the
	// templates folder (see Engine.Obsidian). They are left out otherwise.
	IncludeExcluded bool
}

// ErrInvalid marks a request the caller must fix; the message says how.
var ErrInvalid = errors.New("invalid request")

// quoted quotes a rejected value for an error message in at most about
// 200 bytes: an error must not echo a huge argument back whole, and
// quoting can make binary bytes four times as long.
func quoted(v string) string {
	const max = 200
	q := strconv.Quote(v)
	if len(q) <= max {
		return q
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(q[cut]) {
		cut--
	}
	return q[:cut] + fmt.Sprintf("…\" (%d bytes)", len(v))
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Validate reports what Search would reject in r before any index is
// loaded (a command line checks its flags first); the error wraps
// ErrInvalid. Checks that need the engine (the blend weights against the
// server's defaults) still happen in Search.
func (r Request) Validate() error {
	_, err := r.normalize()
	return err
}

// normalize validates r and fills in defaults.
func (r *Request) normalize() (FrontmatterFilter, error) {
	r.Query = strings.TrimSpace(r.Query)
	if r.Query == "" {
		return nil, invalid("query is empty")
	}
	if !utf8.ValidString(r.Query) {
		return nil, invalid("query is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(r.Query); n > MaxQueryRunes {
		return nil, invalid("query is %d characters; the maximum is %d", n, MaxQueryRunes)
	}
	if r.Limit == 0 {
		r.Limit = DefaultLimit
	}
	if r.Limit < 1 || r.Limit > MaxLimit {
		return nil, invalid("limit must be between 1 and %d, got %d", MaxLimit, r.Limit)
	}
	if r.MinSignals == 0 {
		r.MinSignals = 1
	}
	if r.MinSignals < 1 || r.MinSignals > MaxMinSignals {
		return nil, invalid("min_signals must be between 1 and %d, got %d", MaxMinSignals, r.MinSignals)
	}
	switch r.Granularity {
	case "":
		r.Granularity = GranularityNote
	case GranularityNote, GranularityBlock:
	default:
		return nil, invalid("granularity must be %q or %q, got %s", GranularityNote, GranularityBlock, quoted(r.Granularity))
	}
	for _, s := range r.Signals {
		switch s {
		case rankers.SignalBM25, rankers.SignalTFIDF, rankers.SignalEmbeddings, rankers.SignalFeedback:
		default:
			return nil, invalid("unknown signal %s (known: bm25, tfidf, embeddings, feedback)", quoted(s))
		}
	}
	if err := r.normalizeTypes(); err != nil {
		return nil, err
	}
	if err := r.normalizeExtras(); err != nil {
		return nil, err
	}
	folder, err := NormalizeFolder(r.Folder)
	if err != nil {
		return nil, err
	}
	r.Folder = folder
	return ParseFrontmatterFilter(r.Frontmatter)
}
