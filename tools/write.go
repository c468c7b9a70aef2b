package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/edit"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// CreateNoteInput is the obsidian_create_note request.
type CreateNoteInput struct {
	Path        string         `json:"path" jsonschema:"Vault-relative path of the new note, e.g. Inbox/Idea.md (.md added when missing). Missing folders are created."`
	Content     string         `json:"content,omitempty" jsonschema:"Markdown text of the note (may be empty)."`
	Frontmatter map[string]any `json:"frontmatter,omitempty" jsonschema:"Properties written as a YAML frontmatter block before the content, keys in sorted order (JSON objects have no order). Leave out when content already starts with ---."`
	Overwrite   bool           `json:"overwrite,omitempty" jsonschema:"Replace an existing note (default false: an existing note is an error)."`
	IfMatch     string         `json:"if_match,omitempty" jsonschema:"With overwrite: the etag of the note being replaced (see etag); refused when it changed since."`
}

// CreateNoteOutput is the obsidian_create_note result.
type CreateNoteOutput struct {
	Path         string `json:"path" jsonschema:"Vault-relative path written."`
	Bytes        int    `json:"bytes" jsonschema:"Size of the file written."`
	Created      bool   `json:"created" jsonschema:"A new file was created."`
	Overwritten  bool   `json:"overwritten" jsonschema:"An existing file was replaced."`
	Etag         string `json:"etag"`
	RefreshError string `json:"refresh_error,omitempty" jsonschema:"The write succeeded but the in-memory index could not be reloaded; searches may not show it until the next start."`
}

// AppendInput is the obsidian_append_to_note request.
type AppendInput struct {
	Path      string  `json:"path,omitempty" jsonschema:"Vault-relative path of the note (.md optional)."`
	Title     string  `json:"title,omitempty" jsonschema:"Note name, alias or title; must match exactly one note."`
	Content   string  `json:"content" jsonschema:"Markdown text to append; a final newline is added when missing."`
	Separator *string `json:"separator,omitempty" jsonschema:"Goes between the existing text and the content, minus what the text already ends with (default two newlines: exactly one blank line). Not added to an empty note."`
	Heading   string  `json:"heading,omitempty" jsonschema:"Append at the end of this heading's section (heading text, leading #s optional, case-insensitive; must be unique in the note) instead of the end of the note."`
	IfMatch   string  `json:"if_match,omitempty"`
}

// AppendOutput is the obsidian_append_to_note result.
type AppendOutput struct {
	Path          string `json:"path"`
	AppendedBytes int    `json:"appended_bytes" jsonschema:"Bytes added, separator and final newline included."`
	Etag          string `json:"etag"`
	RefreshError  string `json:"refresh_error,omitempty" jsonschema:"The write succeeded but the in-memory index could not be reloaded."`
}

// SetFrontmatterInput is the obsidian_set_frontmatter request.
type SetFrontmatterInput struct {
	Path    string         `json:"path,omitempty" jsonschema:"Vault-relative path of the note (.md optional)."`
	Title   string         `json:"title,omitempty" jsonschema:"Note name, alias or title; must match exactly one note."`
	Set     map[string]any `json:"set" jsonschema:"Top-level keys to set; a null value deletes the key. Values are any JSON (at most 8192 bytes each as JSON)."`
	DryRun  bool           `json:"dry_run,omitempty" jsonschema:"Report the change and the diff without writing."`
	IfMatch string         `json:"if_match,omitempty"`
}

// SetFrontmatterOutput is the obsidian_set_frontmatter result.
type SetFrontmatterOutput struct {
	Path         string         `json:"path"`
	ChangedKeys  []string       `json:"changed_keys" jsonschema:"Keys added, changed or deleted (a key already equal to its new value is not changed), sorted."`
	Before       map[string]any `json:"before" jsonschema:"Frontmatter before the change."`
	After        map[string]any `json:"after" jsonschema:"Frontmatter after the change."`
	DryRun       bool           `json:"dry_run"`
	Diff         string         `json:"diff" jsonschema:"Unified-style preview of the changed frontmatter lines (empty when nothing changes)."`
	Etag         string         `json:"etag"`
	RefreshError string         `json:"refresh_error,omitempty" jsonschema:"The write succeeded but the in-memory index could not be reloaded."`
}

// RenameInput is the obsidian_rename_note request.
type RenameInput struct {
	Path      string `json:"path,omitempty" jsonschema:"Vault-relative path of the note to rename (.md optional)."`
	Title     string `json:"title,omitempty" jsonschema:"Note name, alias or title; must match exactly one note."`
	NewPath   string `json:"new_path" jsonschema:"New vault-relative path (.md added when missing); missing folders are created."`
	Overwrite bool   `json:"overwrite,omitempty" jsonschema:"Replace a note already at new_path (default false: that is an error)."`
	DryRun    bool   `json:"dry_run,omitempty" jsonschema:"Return the plan (every link rewrite) without touching any file."`
	IfMatch   string `json:"if_match,omitempty" jsonschema:"The etag of the note being renamed (see etag); refused when it changed since. Notes whose links are rewritten are checked against what the plan read."`
}

// RenameOutput is the obsidian_rename_note result.
type RenameOutput struct {
	From          string       `json:"from"`
	To            string       `json:"to"`
	DryRun        bool         `json:"dry_run"`
	Files         []RenameFile `json:"files" jsonschema:"Notes whose links are rewritten, by path after the rename."`
	TotalRewrites int          `json:"total_rewrites"`
	Warnings      []string     `json:"warnings" jsonschema:"Links that could not be rewritten, notes that could not be read, notes left as they are because their properties could not be rewritten safely."`
	RefreshError  string       `json:"refresh_error,omitempty" jsonschema:"The rename succeeded but the in-memory index could not be reloaded."`
}

// RenameFile is one note whose links a rename rewrites.
type RenameFile struct {
	Path     string         `json:"path"`
	Rewrites int            `json:"rewrites"`
	Changes  []RenameChange `json:"changes"`
}

// RenameChange is one rewritten link.
type RenameChange struct {
	Line   int    `json:"line" jsonschema:"1-based file line."`
	Before string `json:"before" jsonschema:"The link as written."`
	After  string `json:"after" jsonschema:"The link as rewritten."`
	Target string `json:"target" jsonschema:"Path the rewritten link points to: new_path, or, for a link to another note that the move would otherwise break or capture, that note's path."`
}

// writeTarget finds the existing note a write tool changes: by path
// (cleaned and refused like every write path; the snapshot's spelling
// when it knows the note) or by title (name, then alias, then frontmatter
// title, each of which must match exactly one note).
func writeTarget(snap *vault.Snapshot, p, title string) (string, error) {
	switch {
	case p != "" && title != "":
		return "", errors.New("give path or title, not both")
	case p != "":
		clean, err := edit.NotePath(p)
		if err != nil {
			return "", err
		}
		if n := snap.Note(clean); n != nil && n.Kind == vault.KindMarkdown {
			clean = n.Path
		}
		if hiddenPath(snap, clean) {
			return "", errNotFound(clean, snap.Suggest(clean, 5)) // as writeError answers a missing file
		}
		return clean, nil // may exist on disk though not loaded yet
	case title != "":
		rel, err := uniqueTitle(snap, title)
		if err == nil && hiddenPath(snap, rel) { // became private since the load
			return "", errNotFound(title, snap.Suggest(title, 5))
		}
		return rel, err
	}
	return "", errors.New("give path or title")
}

// uniqueTitle resolves a title to exactly one markdown note.
func uniqueTitle(snap *vault.Snapshot, title string) (string, error) {
	t := norm.NFC.String(strings.TrimSpace(title))
	t = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(t, "[["), "]]"))
	if t == "" {
		return "", errors.New("title is empty")
	}
	if strings.Contains(t, "/") {
		if n := snap.Lookup(t); n != nil && n.Kind == vault.KindMarkdown {
			return n.Path, nil
		}
	}
	for _, match := range []func(*vault.Note) bool{
		func(n *vault.Note) bool { return strings.EqualFold(n.Name(), t) },
		func(n *vault.Note) bool {
			return slices.ContainsFunc(n.Aliases, func(a string) bool { return strings.EqualFold(a, t) })
		},
		func(n *vault.Note) bool { return strings.EqualFold(n.Title, t) },
	} {
		var hits []string
		for _, n := range snap.Notes {
			if n.Kind == vault.KindMarkdown && match(n) {
				hits = append(hits, n.Path)
			}
		}
		if len(hits) == 1 {
			return hits[0], nil
		}
		if len(hits) > 1 {
			return "", fmt.Errorf("title %s is ambiguous: it matches %s; give path", quote(title), strings.Join(hits, ", "))
		}
	}
	return "", errNotFound(title, snap.Suggest(title, 5))
}

// writeError turns a missing file into the tools' "note not found" answer
// (with suggestions); other errors pass through.
func writeError(snap *vault.Snapshot, rel string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errNotFound(rel, snap.Suggest(rel, 5))
	}
	return err
}

// afterWrite reloads the vault so reads and searches see the change at
// once; a failure is reported in the output, not as a failed write. The
// reload does not end with the request: the file is written, so a client
// that cancels (or times out) now must not leave the engine stale.
func (s *Server) afterWrite(ctx context.Context, paths ...string) string {
	if err := s.refresh(context.WithoutCancel(ctx), paths...); err != nil {
		s.logger.Warn("reload after write failed", "err", err)
		return err.Error()
	}
	return ""
}

func (s *Server) createNote(ctx context.Context, in CreateNoteInput) (CreateNoteOutput, error) {
	rel, err := edit.NotePath(in.Path)
	if err != nil {
		return CreateNoteOutput{}, err
	}
	snap := s.engine().Snapshot()
	if n := snap.Note(rel); n != nil && n.Kind == vault.KindMarkdown && n.Path != rel {
		if !in.Overwrite {
			return CreateNoteOutput{}, fmt.Errorf("%s already exists as %s (names differ only in case); set overwrite to replace it", rel, n.Path)
		}
		rel = n.Path
	}
	content := in.Content
	if len(in.Frontmatter) > 0 {
		if edit.HasFrontmatter(content) {
			return CreateNoteOutput{}, errors.New("content already starts with a frontmatter block: put the properties there or in frontmatter, not both")
		}
		eol := "\n"
		if strings.Contains(content, "\r\n") {
			eol = "\r\n"
		}
		block, err := edit.NewFrontmatter(in.Frontmatter, eol)
		if err != nil {
			return CreateNoteOutput{}, err
		}
		content = block + content
	}
	overwrite := in.Overwrite
	switch {
	case snap.RuleHides(rel):
		return CreateNoteOutput{}, errHiddenPath(rel)
	case privateTarget(snap, rel):
		// Never replaced, and answered as an existing visible note is
		// without overwrite: the create must fail, and "already exists"
		// tells no more than that some file is there.
		overwrite = false
	}
	if err := s.checkGrowth(rel, len(content)); err != nil {
		return CreateNoteOutput{}, err
	}
	var overwritten bool
	if strings.TrimSpace(in.IfMatch) != "" {
		// Replace exactly the version the caller read, or nothing.
		if !overwrite {
			return CreateNoteOutput{}, errors.New("if_match names the note to replace: set overwrite too")
		}
		raw, err := edit.Read(snap.Root, rel)
		if err != nil {
			return CreateNoteOutput{}, writeError(snap, rel, err)
		}
		if err := checkIfMatch(rel, raw, in.IfMatch); err != nil {
			return CreateNoteOutput{}, err
		}
		if err := edit.Replace(snap.Root, rel, raw, []byte(content)); err != nil {
			return CreateNoteOutput{}, err
		}
		overwritten = true
	} else if overwritten, err = edit.Create(snap.Root, rel, []byte(content), overwrite); err != nil {
		return CreateNoteOutput{}, err
	}
	out := CreateNoteOutput{Path: rel, Bytes: len(content), Created: !overwritten, Overwritten: overwritten, Etag: etagOf([]byte(content))}
	out.RefreshError = s.afterWrite(ctx, rel)
	return out, nil
}

func (s *Server) appendToNote(ctx context.Context, in AppendInput) (AppendOutput, error) {
	if in.Content == "" {
		return AppendOutput{}, errors.New("content is empty: nothing to append")
	}
	snap := s.engine().Snapshot()
	rel, err := writeTarget(snap, in.Path, in.Title)
	if err != nil {
		return AppendOutput{}, err
	}
	raw, err := edit.Read(snap.Root, rel)
	if err != nil {
		return AppendOutput{}, writeError(snap, rel, err)
	}
	if err := checkIfMatch(rel, raw, in.IfMatch); err != nil {
		return AppendOutput{}, err
	}
	sep := edit.DefaultSeparator
	if in.Separator != nil {
		sep = *in.Separator
	}
	var text []byte
	var n int
	if strings.TrimSpace(in.Heading) != "" {
		if text, n, err = edit.AppendToSection(raw, in.Heading, in.Content, sep); err != nil {
			return AppendOutput{}, err
		}
	} else {
		text, n = edit.Append(raw, in.Content, sep)
	}
	if err := s.checkGrowth(rel, len(text)); err != nil {
		return AppendOutput{}, err
	}
	if err := edit.Replace(snap.Root, rel, raw, text); err != nil {
		return AppendOutput{}, err
	}
	return AppendOutput{Path: rel, AppendedBytes: n, Etag: etagOf(text), RefreshError: s.afterWrite(ctx, rel)}, nil
}

func (s *Server) setFrontmatter(ctx context.Context, in SetFrontmatterInput) (SetFrontmatterOutput, error) {
	snap := s.engine().Snapshot()
	rel, err := writeTarget(snap, in.Path, in.Title)
	if err != nil {
		return SetFrontmatterOutput{}, err
	}
	raw, err := edit.Read(snap.Root, rel)
	if err != nil {
		return SetFrontmatterOutput{}, writeError(snap, rel, err)
	}
	if err := checkIfMatch(rel, raw, in.IfMatch); err != nil {
		return SetFrontmatterOutput{}, err
	}
	fe, err := edit.SetFrontmatter(rel, raw, in.Set)
	if err != nil {
		return SetFrontmatterOutput{}, err
	}
	out := SetFrontmatterOutput{Path: rel, ChangedKeys: fe.Changed, Before: fe.Before, After: fe.After, DryRun: in.DryRun, Diff: fe.Diff, Etag: etagOf(raw)}
	if in.DryRun || len(fe.Changed) == 0 {
		return out, nil
	}
	out.Etag = etagOf(fe.Text)
	if err := edit.Replace(snap.Root, rel, raw, fe.Text); err != nil {
		return SetFrontmatterOutput{}, err
	}
	out.RefreshError = s.afterWrite(ctx, rel)
	return out, nil
}

func (s *Server) renameNote(ctx context.Context, in RenameInput) (RenameOutput, error) {
	snap := s.engine().Snapshot()
	rel, err := writeTarget(snap, in.Path, in.Title)
	if err != nil {
		return RenameOutput{}, err
	}
	if snap.Note(rel) == nil {
		// Created on disk after the last load? Reload once and look again.
		// A missing note is answered now, before new_path is looked at,
		// as writeTarget answers a hidden one: the two must not differ.
		if _, err := edit.Read(snap.Root, rel); err != nil || s.refresh(ctx, rel) != nil {
			return RenameOutput{}, errNotFound(rel, snap.Suggest(rel, 5))
		}
		snap = s.engine().Snapshot()
	}
	if strings.TrimSpace(in.IfMatch) != "" {
		raw, err := edit.Read(snap.Root, rel)
		if err != nil {
			return RenameOutput{}, writeError(snap, rel, err)
		}
		if err := checkIfMatch(rel, raw, in.IfMatch); err != nil {
			return RenameOutput{}, err
		}
	}
	if strings.TrimSpace(in.NewPath) == "" {
		return RenameOutput{}, errors.New("new_path is required")
	}
	to, err := edit.NotePath(in.NewPath)
	if err != nil {
		return RenameOutput{}, err
	}
	overwrite := in.Overwrite
	switch {
	case snap.RuleHides(to):
		return RenameOutput{}, errHiddenPath(to)
	case privateTarget(snap, to):
		overwrite = false // never replaced: answered as an existing visible note is (see createNote)
	}
	plan, err := edit.PlanRename(snap, rel, to, overwrite)
	if err != nil {
		return RenameOutput{}, writeError(snap, rel, err)
	}
	// A note that turned private since the load keeps its links as written.
	plan.Files = slices.DeleteFunc(plan.Files, func(f edit.FileChange) bool { return f.Path != plan.From && hiddenPath(snap, f.Path) })
	out := renameOutput(plan, in.DryRun)
	if in.DryRun {
		return out, nil
	}
	applied, err := plan.Apply()
	if err != nil {
		return RenameOutput{}, fmt.Errorf("nothing was changed: %w", err)
	}
	changed := []string{plan.From, plan.To}
	for _, f := range plan.Files {
		changed = append(changed, f.Path)
	}
	refreshErr := s.afterWrite(ctx, changed...)
	if len(applied.Failed) > 0 {
		return RenameOutput{}, partialRename(plan, applied, refreshErr)
	}
	out.RefreshError = refreshErr
	return out, nil
}

func renameOutput(plan *edit.RenamePlan, dryRun bool) RenameOutput {
	out := RenameOutput{From: plan.From, To: plan.To, DryRun: dryRun, Files: []RenameFile{},
		TotalRewrites: plan.Total(), Warnings: nonNil(plan.Warnings)}
	for _, f := range plan.Files {
		rf := RenameFile{Path: f.Path, Rewrites: len(f.Changes), Changes: make([]RenameChange, len(f.Changes))}
		for i, c := range f.Changes {
			rf.Changes[i] = RenameChange{Line: c.Line, Before: c.Before, After: c.After, Target: c.Target}
		}
		out.Files = append(out.Files, rf)
	}
	return out
}

// partialRename says exactly what a rename did when some link rewrites
// failed after the note was moved.
func partialRename(plan *edit.RenamePlan, a *edit.Applied, refreshErr string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "rename partly done: %s was moved to %s", plan.From, plan.To)
	if len(a.Updated) > 0 {
		fmt.Fprintf(&b, "; links rewritten in %s", strings.Join(a.Updated, ", "))
	}
	failed := slices.Sorted(maps.Keys(a.Failed))
	b.WriteString("; NOT rewritten (fix these links by hand or rerun the rename's dry_run to see them):")
	for _, p := range failed {
		fmt.Fprintf(&b, " %s (%s);", p, a.Failed[p])
	}
	if refreshErr != "" {
		fmt.Fprintf(&b, " reload failed: %s", refreshErr)
	}
	return errors.New(strings.TrimSuffix(b.String(), ";"))
}

func appendInputSchema() *jsonschema.Schema {
	s := inputSchema[AppendInput]()
	p := s.Properties
	p["content"].MinLength = ptr(1)
	p["separator"].Types, p["separator"].Type = nil, "string"
	p["separator"].Default = jsonRaw(`"\n\n"`)
	return s
}

func createInputSchema() *jsonschema.Schema {
	s := inputSchema[CreateNoteInput]()
	s.Properties["path"].MinLength = ptr(1)
	s.Properties["overwrite"].Default = jsonRaw(`false`)
	return s
}

func setFrontmatterInputSchema() *jsonschema.Schema {
	s := inputSchema[SetFrontmatterInput]()
	s.Properties["set"].MinProperties = ptr(1)
	s.Properties["dry_run"].Default = jsonRaw(`false`)
	return s
}

func renameInputSchema() *jsonschema.Schema {
	s := inputSchema[RenameInput]()
	s.Properties["new_path"].MinLength = ptr(1)
	s.Properties["overwrite"].Default = jsonRaw(`false`)
	s.Properties["dry_run"].Default = jsonRaw(`false`)
	return s
}

// addWriteTools registers the tools that change the vault (only with
// Options.EnableWrite). Calls are serialised: each reads, changes and
// reloads before the next starts.
func (s *Server) addWriteTools() {
	mu := &s.writeMu
	addTool(s, &mcp.Tool{
		Name:         "obsidian_create_note",
		Title:        "Create a note",
		Description:  "Create a markdown note at a vault-relative path (.md added when missing; missing folders are created), optionally with frontmatter properties written as YAML (keys sorted). An existing note is an error unless overwrite is true. Paths outside the vault, in hidden folders or through symlinks are refused. The write is atomic and the index is reloaded at once.",
		Annotations:  writes(false),
		InputSchema:  createInputSchema(),
		OutputSchema: outputSchema[CreateNoteOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in CreateNoteInput) (*mcp.CallToolResult, CreateNoteOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		out, err := s.createNote(ctx, in)
		return nil, out, err
	})
	addTool(s, &mcp.Tool{
		Name:         "obsidian_append_to_note",
		Title:        "Append to a note",
		Description:  "Append markdown to an existing note (by path, or by a title that matches exactly one note): at the end of the note, or at the end of one heading's section. The separator (default one blank line) is not doubled when the note already ends with it; CRLF notes stay CRLF. The write is atomic and the index is reloaded at once.",
		Annotations:  writes(false),
		InputSchema:  appendInputSchema(),
		OutputSchema: outputSchema[AppendOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in AppendInput) (*mcp.CallToolResult, AppendOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		out, err := s.appendToNote(ctx, in)
		return nil, out, err
	})
	addTool(s, &mcp.Tool{
		Name:         "obsidian_set_frontmatter",
		Title:        "Set frontmatter properties",
		Description:  "Set or delete (null) top-level frontmatter properties of a note. Only the lines of the changed keys are rewritten; other keys, comments, formatting, the body and CRLF line endings are kept byte for byte; new keys go at the end of the block (sorted), and a block is created when the note has none. Malformed YAML is an error and is never rewritten. Returns the properties before and after and a diff; dry_run previews without writing.",
		Annotations:  writes(true),
		InputSchema:  setFrontmatterInputSchema(),
		OutputSchema: outputSchema[SetFrontmatterOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in SetFrontmatterInput) (*mcp.CallToolResult, SetFrontmatterOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		out, err := s.setFrontmatter(ctx, in)
		return nil, out, err
	})
	addTool(s, &mcp.Tool{
		Name:         "obsidian_rename_note",
		Title:        "Rename or move a note",
		Description:  "Move a note to new_path and rewrite every [[link]], ![[embed]] and [text](path.md) that pointed to it, keeping #heading, #^block, |alias and the writer's style: a bare name stays bare (the new name) unless another note has that name, then the shortest path only this note matches; path links get the new path, relative links the new relative path, .md kept as written. Links inside the moved note that would break are fixed, and links to a same-named note that the new name would capture are pinned to their note. Links in properties (frontmatter values) are rewritten in place, keeping their YAML form (a quoted string stays quoted, a list item a list item); a note whose properties cannot be rewritten safely is left as it is, with a warning. Code blocks and inline code are not touched. dry_run returns the plan without changing anything.",
		Annotations:  writes(false),
		InputSchema:  renameInputSchema(),
		OutputSchema: outputSchema[RenameOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in RenameInput) (*mcp.CallToolResult, RenameOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		out, err := s.renameNote(ctx, in)
		return nil, out, err
	})
}
