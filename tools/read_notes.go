package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readNotesMax is the most notes one obsidian_read_notes call reads.
const readNotesMax = 50

// ReadNotesInput is the obsidian_read_notes request.
type ReadNotesInput struct {
	Paths    []string `json:"paths" jsonschema:"Vault-relative paths of the notes (.md optional), at most 50."`
	Format   string   `json:"format,omitempty" jsonschema:"full (default) or map, as obsidian_read_note."`
	MaxBytes int      `json:"max_bytes,omitempty" jsonschema:"Most body bytes in all (default and maximum: half the reply budget), shared evenly by the notes; a longer body is cut at a line break with truncated and next_offset (read the rest with obsidian_read_note)."`
}

// ReadNotesOutput is the obsidian_read_notes result.
type ReadNotesOutput struct {
	Notes   []ReadNoteOutput `json:"notes" jsonschema:"The notes found, in the order asked."`
	Missing []ReadNotesMiss  `json:"missing" jsonschema:"The paths that could not be read, and why."`
}

// ReadNotesMiss is one path obsidian_read_notes could not read.
type ReadNotesMiss struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// readNotes reads several notes from one engine (one consistent view),
// sharing the body budget between them.
func (s *Server) readNotes(_ context.Context, in ReadNotesInput) (ReadNotesOutput, error) {
	switch {
	case len(in.Paths) == 0:
		return ReadNotesOutput{}, errors.New("paths is empty: give at least one note")
	case len(in.Paths) > readNotesMax:
		return ReadNotesOutput{}, fmt.Errorf("%d paths: at most %d per call", len(in.Paths), readNotesMax)
	}
	format, err := checkFormat(in.Format)
	if err != nil {
		return ReadNotesOutput{}, err
	}
	total := s.replyBudget() / 2
	if in.MaxBytes > 0 {
		total = min(total, in.MaxBytes)
	}
	per := max(readMinMaxBytes, total/len(in.Paths))
	e := s.engine()
	snap := e.Snapshot()
	out := ReadNotesOutput{Notes: []ReadNoteOutput{}, Missing: []ReadNotesMiss{}}
	for _, p := range in.Paths {
		n, _, stale, err := openNoteStale(snap, p, "")
		if err != nil {
			out.Missing = append(out.Missing, ReadNotesMiss{Path: p, Error: err.Error()})
			continue
		}
		note, err := renderNote(e, n, format, "")
		if err == nil && format == formatFull {
			err = pageBody(&note, n.BodyLine, 0, per)
		}
		if err != nil {
			out.Missing = append(out.Missing, ReadNotesMiss{Path: p, Error: err.Error()})
			continue
		}
		note.Stale = stale
		out.Notes = append(out.Notes, note)
	}
	return out, nil
}

func readNotesInputSchema() *jsonschema.Schema {
	s := inputSchema[ReadNotesInput]()
	s.Properties["paths"].MinItems = ptr(1)
	s.Properties["paths"].MaxItems = ptr(readNotesMax)
	s.Properties["paths"].Types, s.Properties["paths"].Type = nil, "array"
	s.Properties["format"].Enum = []any{formatFull, formatMap}
	s.Properties["format"].Default = jsonRaw(`"full"`)
	return s
}

func (s *Server) addReadNotes() {
	addTool(s, &mcp.Tool{
		Name:         "obsidian_read_notes",
		Title:        "Read several notes",
		Description:  "Read up to 50 notes by vault-relative path in one call, each as obsidian_read_note returns it (frontmatter, tags, headings, links with their resolution, body, etag). The body budget is shared evenly; a longer body is cut at a line break with truncated and next_offset. Paths that cannot be read are listed in missing with the reason, and the others are still returned.",
		Annotations:  readOnly(),
		InputSchema:  readNotesInputSchema(),
		OutputSchema: outputSchema[ReadNotesOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ReadNotesInput) (*mcp.CallToolResult, ReadNotesOutput, error) {
		out, err := s.readNotes(ctx, in)
		return nil, out, err
	})
}
