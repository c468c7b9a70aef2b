package tools

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/edit"
	"github.com/enquire-mcp/enquire-mcp/obsidian"
	"github.com/enquire-mcp/enquire-mcp/search"
)

// PatchNoteInput is the obsidian_patch_note request.
type PatchNoteInput struct {
	Path      string `json:"path,omitempty" jsonschema:"Vault-relative path of the note (.md optional)."`
	Title     string `json:"title,omitempty" jsonschema:"Note name, alias or title; must match exactly one note."`
	Heading   string `json:"heading,omitempty" jsonschema:"Target a heading's section by its path: \"## Plan > ### Risks\" or \"Plan > Risks\" (each step a heading's text, case-insensitive, #s optional; each under the one before). Must match exactly one heading."`
	Block     string `json:"block,omitempty" jsonschema:"Target a block by its id (^id or id): a list item, or the paragraph whose last line ends with it."`
	Key       string `json:"key,omitempty" jsonschema:"Target one top-level frontmatter key."`
	Operation string `json:"operation" jsonschema:"With heading or block: insert_before (under the heading line / before the block), insert_after (after the section's last line, subsections included / after the block) or replace (the section's content, keeping its heading / the block's text, keeping its ^id). With key: set or delete."`
	Content   string `json:"content,omitempty" jsonschema:"Markdown to insert or to replace with (heading and block targets); whole lines, a final newline is added."`
	Value     any    `json:"value,omitempty" jsonschema:"The key's new value (operation set): any JSON, at most 8192 bytes as JSON."`
	DryRun    bool   `json:"dry_run,omitempty" jsonschema:"Return the diff without writing."`
	IfMatch   string `json:"if_match,omitempty"`
}

// EditOutput is the result of a write tool that changes one note's text.
type EditOutput struct {
	Path         string `json:"path"`
	DryRun       bool   `json:"dry_run"`
	Diff         string `json:"diff" jsonschema:"Unified diff of the change (3 lines of context); empty when nothing changes."`
	Etag         string `json:"etag"`
	Replacements *int   `json:"replacements,omitempty" jsonschema:"Matches replaced (obsidian_replace_in_note)."`
	RefreshError string `json:"refresh_error,omitempty" jsonschema:"The write succeeded but the in-memory index could not be reloaded."`
}

// ReplaceInNoteInput is the obsidian_replace_in_note request.
type ReplaceInNoteInput struct {
	Path          string `json:"path,omitempty" jsonschema:"Vault-relative path of the note (.md optional)."`
	Title         string `json:"title,omitempty" jsonschema:"Note name, alias or title; must match exactly one note."`
	Find          string `json:"find" jsonschema:"Text to find: literal, or an RE2 regular expression with regex (Go syntax, linear time, at most 1000 bytes; ^ and $ match at line ends)."`
	Replace       string `json:"replace" jsonschema:"Replacement for every match; with regex, $1 and ${name} expand (write $$ for a literal $)."`
	Regex         bool   `json:"regex,omitempty"`
	CaseSensitive bool   `json:"case_sensitive,omitempty" jsonschema:"Match case exactly (default false)."`
	ExpectedCount *int   `json:"expected_count,omitempty" jsonschema:"Refuse, writing nothing, unless exactly this many matches are found."`
	DryRun        bool   `json:"dry_run,omitempty" jsonschema:"Return the count and the diff without writing."`
	IfMatch       string `json:"if_match,omitempty"`
}

// DeleteNoteInput is the obsidian_delete_note request.
type DeleteNoteInput struct {
	Path    string `json:"path,omitempty" jsonschema:"Vault-relative path of the note (.md optional)."`
	Title   string `json:"title,omitempty" jsonschema:"Note name, alias or title; must match exactly one note."`
	DryRun  bool   `json:"dry_run,omitempty" jsonschema:"Report what would happen (where the note goes, the links left dangling) without moving it."`
	IfMatch string `json:"if_match,omitempty"`
}

// DeleteNoteOutput is the obsidian_delete_note result.
type DeleteNoteOutput struct {
	Path          string   `json:"path"`
	TrashedTo     string   `json:"trashed_to" jsonschema:"Where the note is now (with dry_run: the trash it would go to): the vault's .trash folder, or the system trash when the vault's setting is Obsidian's default; it can be restored from there."`
	Trash         string   `json:"trash" jsonschema:"The vault's trash setting (.obsidian/app.json trashOption: system, local or none) and what was done with it."`
	DryRun        bool     `json:"dry_run"`
	DanglingLinks int      `json:"dangling_links" jsonschema:"Links in other notes that pointed to the note and now resolve to nothing."`
	LinkedFrom    []string `json:"linked_from" jsonschema:"The notes holding those links (at most 100, by path)."`
	RefreshError  string   `json:"refresh_error,omitempty" jsonschema:"The move succeeded but the in-memory index could not be reloaded."`
}

// changeNote is the shared path of the tools that rewrite one note's
// text: find it, read it, check if_match, change it, check the size cap,
// and (unless dry_run or nothing changed) replace it atomically if it is
// still what was read.
func (s *Server) changeNote(ctx context.Context, p, title, ifMatch string, dryRun bool, change func(raw []byte) ([]byte, error)) (EditOutput, error) {
	snap := s.engine().Snapshot()
	rel, err := writeTarget(snap, p, title)
	if err != nil {
		return EditOutput{}, err
	}
	raw, err := edit.Read(snap.Root, rel)
	if err != nil {
		return EditOutput{}, writeError(snap, rel, err)
	}
	if err := checkIfMatch(rel, raw, ifMatch); err != nil {
		return EditOutput{}, err
	}
	text, err := change(raw)
	if err != nil {
		return EditOutput{}, err
	}
	out := EditOutput{Path: rel, DryRun: dryRun, Diff: edit.DiffText(rel, raw, text), Etag: etagOf(raw)}
	if dryRun || out.Diff == "" {
		return out, nil
	}
	if err := s.checkGrowth(rel, len(text)); err != nil {
		return EditOutput{}, err
	}
	if err := edit.Replace(snap.Root, rel, raw, text); err != nil {
		return EditOutput{}, err
	}
	out.Etag = etagOf(text)
	out.RefreshError = s.afterWrite(ctx, rel)
	return out, nil
}

// Frontmatter operations of obsidian_patch_note.
const (
	opSet    = "set"
	opDelete = "delete"
)

func (s *Server) patchNote(ctx context.Context, in PatchNoteInput) (EditOutput, error) {
	targets := 0
	for _, t := range []string{in.Heading, in.Block, in.Key} {
		if strings.TrimSpace(t) != "" {
			targets++
		}
	}
	if targets != 1 {
		return EditOutput{}, errors.New("give exactly one target: heading, block or key")
	}
	op := strings.TrimSpace(in.Operation)
	var change func(raw []byte) ([]byte, error)
	switch {
	case strings.TrimSpace(in.Key) != "":
		var set map[string]any
		switch op {
		case opSet:
			if in.Value == nil {
				return EditOutput{}, errors.New("operation set needs a value (use delete to remove the key)")
			}
			set = map[string]any{in.Key: in.Value}
		case opDelete:
			set = map[string]any{in.Key: nil}
		default:
			return EditOutput{}, fmt.Errorf("with key, operation must be %s or %s, got %s", opSet, opDelete, quote(op))
		}
		change = func(raw []byte) ([]byte, error) {
			fe, err := edit.SetFrontmatter("note", raw, set)
			if err != nil {
				return nil, err
			}
			return fe.Text, nil
		}
	case strings.TrimSpace(in.Heading) != "":
		change = func(raw []byte) ([]byte, error) { return edit.PatchHeading(raw, in.Heading, op, in.Content) }
	default:
		change = func(raw []byte) ([]byte, error) { return edit.PatchBlock(raw, in.Block, op, in.Content) }
	}
	return s.changeNote(ctx, in.Path, in.Title, in.IfMatch, in.DryRun, change)
}

func (s *Server) replaceInNote(ctx context.Context, in ReplaceInNoteInput) (EditOutput, error) {
	var count int
	out, err := s.changeNote(ctx, in.Path, in.Title, in.IfMatch, in.DryRun, func(raw []byte) ([]byte, error) {
		text, n, err := edit.ReplaceText(raw, edit.TextReplace{Find: in.Find, With: in.Replace, Regex: in.Regex, CaseSensitive: in.CaseSensitive})
		if err != nil {
			return nil, err
		}
		if in.ExpectedCount != nil && n != *in.ExpectedCount {
			return nil, fmt.Errorf("found %d matches, not the expected %d; nothing was written", n, *in.ExpectedCount)
		}
		count = n
		return text, nil
	})
	if err != nil {
		return EditOutput{}, err
	}
	out.Replacements = &count
	return out, nil
}

// maxLinkedFrom bounds the notes a delete lists as linking to it.
const maxLinkedFrom = 100

func (s *Server) deleteNote(ctx context.Context, in DeleteNoteInput) (DeleteNoteOutput, error) {
	e := s.engine()
	snap := e.Snapshot()
	rel, err := writeTarget(snap, in.Path, in.Title)
	if err != nil {
		return DeleteNoteOutput{}, err
	}
	raw, err := edit.Read(snap.Root, rel)
	if err != nil {
		return DeleteNoteOutput{}, writeError(snap, rel, err)
	}
	if err := checkIfMatch(rel, raw, in.IfMatch); err != nil {
		return DeleteNoteOutput{}, err
	}
	option := e.Obsidian().Trash
	system := option == obsidian.TrashSystem && s.opts.SystemTrash != nil
	out := DeleteNoteOutput{Path: rel, DryRun: in.DryRun, Trash: trashNote(option, system), TrashedTo: path.Join(edit.TrashFolder, path.Base(rel)), LinkedFrom: []string{}}
	if system {
		out.TrashedTo = s.opts.SystemTrash.Dir
	}
	out.DanglingLinks, out.LinkedFrom = danglingLinks(e, rel)
	if in.DryRun {
		return out, nil
	}
	if system {
		out.TrashedTo, err = s.opts.SystemTrash.Trash(snap.Root, rel, raw, time.Now())
	} else {
		out.TrashedTo, err = edit.Trash(snap.Root, rel, raw)
	}
	if err != nil {
		return DeleteNoteOutput{}, err
	}
	out.RefreshError = s.afterWrite(ctx, rel)
	return out, nil
}

// trashNote says what the vault's trash setting asks for and what a
// delete does with it. A note is never deleted outright.
func trashNote(option string, system bool) string {
	switch {
	case option == obsidian.TrashLocal:
		return "local: moved to the vault's .trash folder, as Obsidian does"
	case option == obsidian.TrashNone:
		return "none: Obsidian would delete the file for good; enquire-mcp never deletes outright and moves it to the vault's .trash folder"
	case system:
		return "system: moved to the system trash, as Obsidian does (restore it from there)"
	}
	return "system: this server has no system trash to use, so the note goes to the vault's .trash folder"
}

// danglingLinks counts the links from other notes to rel, and lists those
// notes (visible ones only, at most maxLinkedFrom).
func danglingLinks(e *search.Engine, rel string) (int, []string) {
	snap := e.Snapshot()
	id, ok := snap.NoteID(rel)
	if !ok {
		return 0, []string{}
	}
	count, from, last := 0, []string{}, -1
	for _, edge := range e.Backlinks(id) {
		if edge.From == id || hiddenPath(snap, snap.Notes[edge.From].Path) {
			continue
		}
		count++
		if edge.From != last && len(from) < maxLinkedFrom {
			from = append(from, snap.Notes[edge.From].Path)
		}
		last = edge.From
	}
	return count, from
}

func patchNoteInputSchema() *jsonschema.Schema {
	s := inputSchema[PatchNoteInput]()
	s.Properties["operation"].Enum = []any{edit.InsertBefore, edit.InsertAfter, edit.ReplaceContent, opSet, opDelete}
	v := s.Properties["value"]
	v.Types, v.Type = nil, ""
	for _, t := range []string{"string", "number", "boolean", "array", "object"} {
		v.AnyOf = append(v.AnyOf, &jsonschema.Schema{Type: t})
	}
	s.Properties["dry_run"].Default = jsonRaw(`false`)
	return s
}

func replaceInNoteInputSchema() *jsonschema.Schema {
	s := inputSchema[ReplaceInNoteInput]()
	s.Properties["find"].MinLength = ptr(1)
	s.Properties["find"].MaxLength = ptr(edit.MaxPatternBytes)
	s.Properties["expected_count"].Types, s.Properties["expected_count"].Type = nil, "integer"
	s.Properties["expected_count"].Minimum = ptr(0.0)
	s.Properties["dry_run"].Default = jsonRaw(`false`)
	return s
}

func deleteNoteInputSchema() *jsonschema.Schema {
	s := inputSchema[DeleteNoteInput]()
	s.Properties["dry_run"].Default = jsonRaw(`false`)
	return s
}

// addEditTools registers the write tools that patch, replace in and
// delete notes (with Options.EnableWrite), serialised with the others.
func (s *Server) addEditTools() {
	mu := &s.writeMu
	addTool(s, &mcp.Tool{
		Name:         "obsidian_patch_note",
		Title:        "Patch part of a note",
		Description:  "Change one part of a note, leaving the rest byte for byte: insert before or after, or replace, the content of a heading's section (addressed by its path, e.g. \"## Plan > ### Risks\") or of a block (^id); or set or delete one frontmatter key (other keys, comments and formatting kept). A heading path matching no heading or several is an error listing the note's headings. Returns the diff and the new etag; dry_run previews; if_match refuses a stale write. The write is atomic and the index is reloaded at once.",
		Annotations:  writes(false),
		InputSchema:  patchNoteInputSchema(),
		OutputSchema: outputSchema[EditOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in PatchNoteInput) (*mcp.CallToolResult, EditOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		out, err := s.patchNote(ctx, in)
		return nil, out, err
	})
	addTool(s, &mcp.Tool{
		Name:         "obsidian_replace_in_note",
		Title:        "Find and replace in a note",
		Description:  "Replace every match of literal text or an RE2 regular expression in one note (frontmatter included; a change that would break the frontmatter's YAML is refused). Returns the number of replacements, the diff and the new etag; expected_count refuses an unexpected number of matches; dry_run previews; if_match refuses a stale write. The write is atomic and the index is reloaded at once.",
		Annotations:  writes(false),
		InputSchema:  replaceInNoteInputSchema(),
		OutputSchema: outputSchema[EditOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ReplaceInNoteInput) (*mcp.CallToolResult, EditOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		out, err := s.replaceInNote(ctx, in)
		return nil, out, err
	})
	addTool(s, &mcp.Tool{
		Name:         "obsidian_delete_note",
		Title:        "Delete a note (to the trash)",
		Description:  "Move a note to the trash the vault's setting names (.obsidian/app.json trashOption: the system trash, Obsidian's default, or the vault's .trash folder; with \"delete permanently\" the .trash folder too: a note is never deleted outright) and report the links in other notes that it leaves dangling. dry_run reports without moving; if_match refuses a stale delete. The index is reloaded at once.",
		Annotations:  writes(true),
		InputSchema:  deleteNoteInputSchema(),
		OutputSchema: outputSchema[DeleteNoteOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in DeleteNoteInput) (*mcp.CallToolResult, DeleteNoteOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		out, err := s.deleteNote(ctx, in)
		return nil, out, err
	})
}
