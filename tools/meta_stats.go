package tools

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vaultstats"
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
	st     *vaultstats.Stats
	engine StatsOutput // the signals, index and embeddings
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
func (v *vaultStats) render(top int, now time.Time) StatsOutput {
	st := v.st
	out := StatsOutput{Notes: st.Notes, PDFs: st.PDFs, Attachments: st.Attachments, Bytes: st.Bytes, AttachmentBytes: st.AttachmentBytes,
		Words: st.Words, NotesWithFrontmatter: st.NotesWithFrontmatter, Orphans: st.Orphans, DeadEnds: st.DeadEnds,
		BrokenLinks: st.BrokenLinks, UnresolvedTargets: st.UnresolvedTargets, TotalTags: len(st.Tags), Warnings: st.Warnings,
		LoadedAt: st.LoadedAt.UTC().Format(time.RFC3339), Signals: slices.Clone(v.engine.Signals), SignalErrors: v.engine.SignalErrors,
		Index: v.engine.Index, Embeddings: v.engine.Embeddings}
	if len(st.ModTimes) > 0 {
		out.OldestMtime = st.ModTimes[0].UTC().Format(time.RFC3339)
		out.NewestMtime = st.ModTimes[len(st.ModTimes)-1].UTC().Format(time.RFC3339)
	}
	out.TopTags = make([]StatsTag, 0, min(top, len(st.Tags)))
	for _, t := range st.Tags[:min(top, len(st.Tags))] {
		out.TopTags = append(out.TopTags, StatsTag{Tag: t.Tag, Count: t.Count})
	}
	out.RecentlyModified7d = st.ModifiedSince(now.Add(-recentWindowDays * 24 * time.Hour))
	return out
}

// computeStats counts the engine's snapshot and notes its signals.
func computeStats(e *search.Engine, tags *vault.Tags) *vaultStats {
	v := &vaultStats{st: vaultstats.Compute(e.Snapshot(), e.Graph(), tags)}
	addEngineInfo(&v.engine, e)
	return v
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
