package tools

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// StatsInput is the obsidian_stats request.
type StatsInput struct {
	TopTags int `json:"top_tags,omitempty" jsonschema:"Number of most used tags to list (1-50, default 10)."`
}

// StatsOutput describes the vault and the search engine over it.
type StatsOutput struct {
	Notes                int               `json:"notes" jsonschema:"Markdown notes. Every note count below is over markdown notes."`
	PDFs                 int               `json:"pdfs" jsonschema:"PDFs indexed as searchable documents (with --include-pdfs)."`
	Attachments          int               `json:"attachments" jsonschema:"Other files of the vault (images, PDFs, …)."`
	Bytes                int64             `json:"bytes" jsonschema:"Total size of the markdown notes."`
	AttachmentBytes      int64             `json:"attachment_bytes" jsonschema:"Total size of the attachments."`
	Words                int               `json:"words" jsonschema:"Approximate words in note bodies: whitespace-separated runs, plus one per CJK character."`
	NotesWithFrontmatter int               `json:"notes_with_frontmatter" jsonschema:"Notes with a valid, non-empty YAML frontmatter."`
	Orphans              int               `json:"orphans" jsonschema:"Notes with no resolved link to or from another note."`
	DeadEnds             int               `json:"dead_ends" jsonschema:"Notes that other notes link to but that link to no note."`
	BrokenLinks          int               `json:"broken_links" jsonschema:"Link occurrences that resolve to nothing."`
	UnresolvedTargets    int               `json:"unresolved_targets" jsonschema:"Distinct targets (case-insensitive) of those links."`
	TotalTags            int               `json:"total_tags" jsonschema:"Distinct tags, parents of nested tags included (as in obsidian_list_tags)."`
	TopTags              []StatsTag        `json:"top_tags" jsonschema:"Most used tags, by count as in obsidian_list_tags (nested tags included)."`
	RecentlyModified7d   int               `json:"recently_modified_7d" jsonschema:"Notes modified in the last 7 days (as of the snapshot)."`
	OldestMtime          string            `json:"oldest_mtime,omitempty" jsonschema:"Oldest note modification time, RFC 3339 UTC."`
	NewestMtime          string            `json:"newest_mtime,omitempty" jsonschema:"Newest note modification time, RFC 3339 UTC."`
	Warnings             int               `json:"warnings" jsonschema:"Problems met while loading (malformed YAML, unreadable or oversize files); the files were kept or skipped as reported in the server log."`
	Signals              []string          `json:"signals" jsonschema:"Search signals available: tfidf, bm25, embeddings."`
	SignalErrors         map[string]string `json:"signal_errors,omitempty" jsonschema:"Configured signals that cannot run, and why."`
	Index                StatsIndex        `json:"index"`
	Embeddings           *StatsEmbeddings  `json:"embeddings,omitempty" jsonschema:"The loaded vectors (absent without embeddings)."`
	LoadedAt             string            `json:"loaded_at" jsonschema:"When this snapshot of the vault was loaded, RFC 3339 UTC."`
	Live                 string            `json:"live" jsonschema:"How changes made outside the server are followed: watch (file events), poll (periodic scan) or off."`
	LastChange           string            `json:"last_change,omitempty" jsonschema:"When a change to the vault was last applied, RFC 3339 UTC."`
}

// StatsTag is a tag and its note count.
type StatsTag struct {
	Tag   string `json:"tag"`
	Count int    `json:"count"`
}

// StatsIndex describes the search index.
type StatsIndex struct {
	Persistent bool `json:"persistent" jsonschema:"A persistent SQLite FTS5 index feeds BM25."`
	Chunks     int  `json:"chunks" jsonschema:"Passages the notes are split into for search."`
}

// StatsEmbeddings describes the loaded vectors.
type StatsEmbeddings struct {
	Model   string `json:"model" jsonschema:"The model's alias."`
	ModelID string `json:"model_id"`
	Vectors int    `json:"vectors" jsonschema:"Chunk vectors loaded."`
}

// vaultStats is what obsidian_stats computes once per snapshot.
type vaultStats struct {
	out    StatsOutput // everything but top_tags and recently_modified_7d
	mtimes []time.Time // markdown notes, ascending
	tags   []vault.TagCount
}

func (s *Server) addStats(c *metaCache) {
	in := inputSchema[StatsInput]()
	setRange(in.Properties["top_tags"], 1, maxTopTags, defaultTopTags)
	addTool(s, &mcp.Tool{
		Name:  "obsidian_stats",
		Title: "Vault statistics",
		Description: "Overview of the vault: notes, PDFs, attachments, size, words, frontmatter, orphans and dead ends, broken links, tags (with the most used), " +
			"modification times, load warnings, and the search signals, index and embeddings in use.",
		Annotations:  readOnly(),
		InputSchema:  in,
		OutputSchema: outputSchema[StatsOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in StatsInput) (*mcp.CallToolResult, StatsOutput, error) {
		top := cmp.Or(in.TopTags, defaultTopTags)
		if top < 1 || top > maxTopTags {
			return nil, StatsOutput{}, fmt.Errorf("top_tags must be between 1 and %d, got %d", maxTopTags, top)
		}
		out := c.get(s.engine()).vaultStats().render(top, time.Now())
		out.Live, out.LastChange = s.live()
		return nil, out, nil
	})
}

// render adds the parts that depend on the call: top tags and recency.
func (st *vaultStats) render(top int, now time.Time) StatsOutput {
	out := st.out
	out.Signals = slices.Clone(st.out.Signals)
	out.TopTags = make([]StatsTag, 0, min(top, len(st.tags)))
	for _, t := range st.tags[:min(top, len(st.tags))] {
		out.TopTags = append(out.TopTags, StatsTag{Tag: t.Tag, Count: t.Count})
	}
	since := now.Add(-recentWindowDays * 24 * time.Hour)
	first, _ := slices.BinarySearchFunc(st.mtimes, since, func(a, b time.Time) int { return a.Compare(b) })
	out.RecentlyModified7d = len(st.mtimes) - first
	return out
}

// computeStats walks the snapshot once.
func computeStats(e *search.Engine, tags *vault.TagIndex) *vaultStats {
	snap := e.Snapshot()
	st := &vaultStats{}
	o := &st.out
	for i, n := range snap.Notes {
		if n.Kind == vault.KindPDF {
			o.PDFs++
			continue
		}
		o.Notes++
		o.Bytes += n.Size
		o.Words += countWords(n.Body)
		if len(n.Frontmatter) > 0 {
			o.NotesWithFrontmatter++
		}
		out, in := len(e.Outbound(i)) > 0, len(e.Backlinks(i)) > 0
		o.Orphans += b2i(!out && !in)
		o.DeadEnds += b2i(!out && in)
		st.mtimes = append(st.mtimes, n.ModTime)
	}
	slices.SortFunc(st.mtimes, func(a, b time.Time) int { return a.Compare(b) })
	if len(st.mtimes) > 0 {
		o.OldestMtime = st.mtimes[0].UTC().Format(time.RFC3339)
		o.NewestMtime = st.mtimes[len(st.mtimes)-1].UTC().Format(time.RFC3339)
	}
	o.Attachments = len(snap.Attachments)
	for _, a := range snap.Attachments {
		o.AttachmentBytes += a.Size
	}
	o.BrokenLinks, o.UnresolvedTargets = unresolvedCounts(e)
	st.tags = slices.Clone(tags.Counts(nil))
	slices.SortStableFunc(st.tags, func(a, b vault.TagCount) int { return b.Count - a.Count })
	o.TotalTags = len(st.tags)
	o.Warnings = len(snap.Warnings)
	o.LoadedAt = snap.LoadedAt.UTC().Format(time.RFC3339)
	addEngineInfo(o, e)
	return st
}

func addEngineInfo(o *StatsOutput, e *search.Engine) {
	info := e.Info()
	o.Signals = nonNil(e.Signals())
	o.SignalErrors = info.SignalErrors
	o.Index = StatsIndex{Persistent: info.PersistentIndex, Chunks: info.Chunks}
	if info.EmbeddingModel != "" {
		o.Embeddings = &StatsEmbeddings{Model: info.EmbeddingAlias, ModelID: info.EmbeddingModel, Vectors: info.Vectors}
	}
}

// unresolvedCounts returns the unresolved link occurrences and their
// distinct targets (case-insensitive).
func unresolvedCounts(e *search.Engine) (links, targets int) {
	g := e.Graph()
	seen := map[string]bool{}
	for _, u := range g.Unresolved() {
		seen[strings.ToLower(norm.NFC.String(g.UnresolvedTarget(u)))] = true
	}
	return len(g.Unresolved()), len(seen)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// countWords approximates the words of a text: runs of non-space
// characters, and every Han, Hiragana or Katakana character on its own
// (those scripts do not separate words with spaces).
func countWords(s string) int {
	n, inWord := 0, false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			space := c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'
			n += b2i(!space && !inWord)
			inWord = !space
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case analysis.IsCJK(r) && !unicode.Is(unicode.Hangul, r): // Korean puts spaces between words
			n++
			inWord = false
		case unicode.IsSpace(r):
			inWord = false
		default:
			n += b2i(!inWord)
			inWord = true
		}
	}
	return n
}
