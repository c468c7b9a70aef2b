package tools

import (
	"context"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/search"
)

// SearchExtras are the optional obsidian_search arguments for passages,
// paging, related notes and the dense threshold.
type SearchExtras struct {
	MaxPassages   *int    `json:"max_passages,omitempty" jsonschema:"With granularity note: return up to this many best passages per hit (1-10), each with a chunk_id for obsidian_get_chunk and line and byte offsets into the file. Absent: no passages."`
	Cursor        *string `json:"cursor,omitempty" jsonschema:"Paging: pass an empty string for the first page, then the next_cursor of the previous reply, with the same query and filters (limit may change). Absent: no next_cursor."`
	Expand        bool    `json:"expand,omitempty" jsonschema:"Add related: up to 10 notes linked to or from the top hits, or sharing a rare tag with them, that are not hits themselves (default false)."`
	MinSimilarity float64 `json:"min_similarity,omitempty" jsonschema:"Drop embedding candidates whose cosine similarity is below this before fusion (0-1, default 0: keep all)."`
}

// SearchPaging are the obsidian_search reply fields of paging and expand.
type SearchPaging struct {
	NextCursor string        `json:"next_cursor,omitempty" jsonschema:"Pass as cursor (same query and filters) for the next page; absent on the last page or when no cursor was given."`
	Related    []RelatedNote `json:"related,omitempty" jsonschema:"With expand: notes near the top hits that are not hits."`
}

// PassageOut is one passage of a hit, or a chunk of obsidian_get_chunk.
type PassageOut struct {
	ChunkID   string  `json:"chunk_id" jsonschema:"Stable id <path>#<index>@<hash of the text>; open with obsidian_get_chunk."`
	Text      string  `json:"text"`
	Score     float64 `json:"score" jsonschema:"Passage score within the note (RRF of its TF-IDF and embedding ranks); higher is better; 0 for context chunks."`
	LineStart int     `json:"line_start" jsonschema:"First file line (1-based); 0 for PDF."`
	LineEnd   int     `json:"line_end" jsonschema:"Last file line (inclusive); 0 for PDF."`
	CharStart int     `json:"char_start" jsonschema:"Byte offset of the passage in the file (UTF-8); for PDF, in the extracted text."`
	CharEnd   int     `json:"char_end" jsonschema:"Byte offset just past the passage; file[char_start:char_end] is the text (with the file's line endings)."`
	Page      int     `json:"page,omitempty" jsonschema:"PDF page (pdf only)."`
}

// RelatedNote is a note expand found.
type RelatedNote struct {
	Path  string `json:"path"`
	Title string `json:"title"`
	From  string `json:"from" jsonschema:"Path of the hit it is related to."`
	Via   string `json:"via" jsonschema:"links_to (the hit links to it), linked_from (it links to the hit) or shared_tag:#tag."`
}

func passagesOut(ps []search.Passage) []PassageOut {
	if ps == nil {
		return nil
	}
	out := make([]PassageOut, len(ps))
	for i, p := range ps {
		out[i] = PassageOut{ChunkID: p.ChunkID, Text: p.Text, Score: p.Score, LineStart: p.LineStart, LineEnd: p.LineEnd,
			CharStart: p.CharStart, CharEnd: p.CharEnd, Page: p.Page}
	}
	return out
}

func newSearchPaging(r *search.Result) SearchPaging {
	p := SearchPaging{NextCursor: r.NextCursor}
	if r.Related != nil {
		p.Related = make([]RelatedNote, 0, len(r.Related))
	}
	for _, rel := range r.Related {
		p.Related = append(p.Related, RelatedNote{Path: rel.Path, Title: rel.Title, From: rel.From, Via: rel.Via})
	}
	return p
}

func searchExtrasSchema(p map[string]*jsonschema.Schema) {
	p["max_passages"].Types, p["max_passages"].Type = nil, "integer"
	setRange(p["max_passages"], 1, search.MaxPassagesLimit, 1)
	p["max_passages"].Default = nil // absent means no passages
	p["cursor"].Types, p["cursor"].Type = nil, "string"
	p["expand"].Default = jsonRaw(`false`)
	p["min_similarity"].Minimum, p["min_similarity"].Maximum = ptr(0.0), ptr(1.0)
	p["min_similarity"].Default = jsonRaw(`0`)
}

func searchPagingSchema(s *jsonschema.Schema) {
	s.Properties["related"].Items.Properties["via"].Pattern = `^(links_to|linked_from|shared_tag:#.+)$`
}

// GetChunkInput is the obsidian_get_chunk request.
type GetChunkInput struct {
	ChunkID string `json:"chunk_id" jsonschema:"A chunk_id from an obsidian_search passage: <path>#<index>@<hash>."`
	Context int    `json:"context,omitempty" jsonschema:"Neighbouring chunks to include on each side (0-10, default 0)."`
}

// GetChunkOutput is the obsidian_get_chunk result.
type GetChunkOutput struct {
	PassageOut
	Path        string       `json:"path" jsonschema:"Vault-relative path of the note."`
	Title       string       `json:"title"`
	Index       int          `json:"index" jsonschema:"0-based position of the chunk in the note."`
	ChunkCount  int          `json:"chunk_count" jsonschema:"Chunks in the note."`
	HeadingPath []string     `json:"heading_path" jsonschema:"Headings over the chunk's first line, outermost first."`
	Before      []PassageOut `json:"before" jsonschema:"Up to context preceding chunks, in file order."`
	After       []PassageOut `json:"after" jsonschema:"Up to context following chunks, in file order."`
}

func (s *Server) addGetChunk() {
	in := inputSchema[GetChunkInput]()
	in.Properties["chunk_id"].MinLength = ptr(1)
	setRange(in.Properties["context"], 0, search.MaxChunkContext, 0)
	addTool(s, &mcp.Tool{
		Name:         "obsidian_get_chunk",
		Title:        "Open a search passage",
		Description:  "Returns the passage a chunk_id (from obsidian_search with max_passages) names, with its heading path, line and byte offsets into the file, and up to context neighbouring chunks on each side. An id whose note was edited so that the passage is gone is reported stale.",
		Annotations:  readOnly(),
		InputSchema:  in,
		OutputSchema: outputSchema[GetChunkOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in GetChunkInput) (*mcp.CallToolResult, GetChunkOutput, error) {
		v, err := s.engine().GetChunk(ctx, in.ChunkID, in.Context)
		if err != nil {
			if errors.Is(err, search.ErrInvalid) {
				return nil, GetChunkOutput{}, err
			}
			return nil, GetChunkOutput{}, s.internal("obsidian_get_chunk", err)
		}
		out := GetChunkOutput{PassageOut: passagesOut([]search.Passage{v.Passage})[0], Path: v.Path, Title: v.Title,
			Index: v.Index, ChunkCount: v.Chunks, HeadingPath: v.Headings,
			Before: passagesOut(v.Before), After: passagesOut(v.After)}
		if out.HeadingPath == nil {
			out.HeadingPath = []string{}
		}
		if out.Before == nil {
			out.Before = []PassageOut{}
		}
		if out.After == nil {
			out.After = []PassageOut{}
		}
		return nil, out, nil
	})
}
