package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/edit"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// TagNoteInput is the obsidian_tag_note request.
type TagNoteInput struct {
	Path    string   `json:"path,omitempty" jsonschema:"Vault-relative path of the note (.md optional)."`
	Title   string   `json:"title,omitempty" jsonschema:"Note name, alias or title; must match exactly one note."`
	Add     []string `json:"add,omitempty" jsonschema:"Tags to add to the frontmatter tags (with or without #; nested with /)."`
	Remove  []string `json:"remove,omitempty" jsonschema:"Tags to remove from the frontmatter tags (exact, case-insensitive: removing a leaves a/b)."`
	DryRun  bool     `json:"dry_run,omitempty" jsonschema:"Return the diff without writing."`
	IfMatch string   `json:"if_match,omitempty"`
}

// TagNoteOutput is the obsidian_tag_note result.
type TagNoteOutput struct {
	EditOutput
	Tags     []string `json:"tags" jsonschema:"The note's tags after the change: frontmatter and inline."`
	Warnings []string `json:"warnings" jsonschema:"Tags asked to be removed that stay inline in the text (#tag), which this tool does not edit."`
}

// RenameTagInput is the obsidian_rename_tag request.
type RenameTagInput struct {
	From   string `json:"from" jsonschema:"The tag to rename (with or without #). Tags nested under it are renamed too: from a, a/b becomes to/b."`
	To     string `json:"to" jsonschema:"The new tag."`
	Merge  bool   `json:"merge,omitempty" jsonschema:"Allow renaming onto a tag that already exists, merging the two (default false: that is an error)."`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"Return the plan without writing."`
}

// RenameTagOutput is the obsidian_rename_tag result.
type RenameTagOutput struct {
	From          string          `json:"from"`
	To            string          `json:"to"`
	DryRun        bool            `json:"dry_run"`
	Files         []TagRenameFile `json:"files" jsonschema:"Notes changed (or that would be), by path."`
	TotalRewrites int             `json:"total_rewrites" jsonschema:"Tags rewritten, inline and in frontmatter."`
	Warnings      []string        `json:"warnings" jsonschema:"Notes that could not be read or rewritten, and why; they are left as they are."`
	RefreshError  string          `json:"refresh_error,omitempty" jsonschema:"The writes succeeded but the in-memory index could not be reloaded."`
}

// TagRenameFile is one note a tag rename changes.
type TagRenameFile struct {
	Path     string `json:"path"`
	Rewrites int    `json:"rewrites"`
	Diff     string `json:"diff" jsonschema:"The change (cut at 2000 bytes)."`
}

// maxRenameDiff bounds the diff shown per note of a tag rename.
const maxRenameDiff = 2000

func cleanTags(in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	for _, t := range in {
		c, err := edit.CleanTag(t)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func (s *Server) tagNote(ctx context.Context, in TagNoteInput) (TagNoteOutput, error) {
	if len(in.Add) == 0 && len(in.Remove) == 0 {
		return TagNoteOutput{}, errors.New("give tags to add or remove")
	}
	add, err := cleanTags(in.Add)
	if err != nil {
		return TagNoteOutput{}, err
	}
	remove, err := cleanTags(in.Remove)
	if err != nil {
		return TagNoteOutput{}, err
	}
	var after []byte
	out, err := s.changeNote(ctx, in.Path, in.Title, in.IfMatch, in.DryRun, func(raw []byte) ([]byte, error) {
		text, err := edit.SetTags(raw, add, remove)
		after = text
		return text, err
	})
	if err != nil {
		return TagNoteOutput{}, err
	}
	n, _ := vault.Parse(out.Path, after)
	res := TagNoteOutput{EditOutput: out, Tags: nonNil(n.Tags), Warnings: []string{}}
	for _, r := range remove {
		if slices.ContainsFunc(n.InlineTags, func(t string) bool { return strings.EqualFold(t, r) }) {
			res.Warnings = append(res.Warnings, fmt.Sprintf("#%s is also written inline in the text: not removed there", r))
		}
	}
	return res, nil
}

func (s *Server) renameTag(ctx context.Context, in RenameTagInput) (RenameTagOutput, error) {
	from, err := edit.CleanTag(in.From)
	if err != nil {
		return RenameTagOutput{}, fmt.Errorf("from: %w", err)
	}
	to, err := edit.CleanTag(in.To)
	if err != nil {
		return RenameTagOutput{}, fmt.Errorf("to: %w", err)
	}
	if from == to {
		return RenameTagOutput{}, errors.New("from and to are the same tag")
	}
	under := func(tag, parent string) bool {
		return strings.EqualFold(tag, parent) || len(tag) > len(parent) && tag[len(parent)] == '/' && strings.EqualFold(tag[:len(parent)], parent)
	}
	snap := s.engine().Snapshot()
	var sources []string
	exists := 0
	for _, n := range snap.Notes {
		if n.Kind != vault.KindMarkdown || hiddenPath(snap, n.Path) {
			continue
		}
		if slices.ContainsFunc(n.Tags, func(t string) bool { return under(t, to) && !under(t, from) }) {
			exists++
		}
		if slices.ContainsFunc(n.Tags, func(t string) bool { return under(t, from) }) {
			sources = append(sources, n.Path)
		}
	}
	if len(sources) == 0 {
		return RenameTagOutput{}, fmt.Errorf("no note has the tag #%s", from)
	}
	if exists > 0 && !in.Merge && !strings.EqualFold(from, to) {
		return RenameTagOutput{}, fmt.Errorf("#%s already exists on %d notes: set merge to merge #%s into it; nothing was written", to, exists, from)
	}
	out := RenameTagOutput{From: from, To: to, DryRun: in.DryRun, Files: []TagRenameFile{}, Warnings: []string{}}
	type change struct {
		rel       string
		raw, text []byte
	}
	var changes []change
	for _, rel := range sources {
		raw, err := edit.Read(snap.Root, rel)
		if err != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s: %v", rel, err))
			continue
		}
		text, n, err := edit.RenameTags(raw, from, to)
		if err != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s: %v; left as it is", rel, err))
			continue
		}
		if n == 0 {
			continue
		}
		if err := s.checkGrowth(rel, len(text)); err != nil {
			out.Warnings = append(out.Warnings, err.Error())
			continue
		}
		changes = append(changes, change{rel, raw, text})
		out.Files = append(out.Files, TagRenameFile{Path: rel, Rewrites: n, Diff: clipText(edit.DiffText(rel, raw, text), maxRenameDiff)})
		out.TotalRewrites += n
	}
	if in.DryRun || len(changes) == 0 {
		return out, nil
	}
	var written []string
	for i, c := range changes {
		if err := edit.Replace(snap.Root, c.rel, c.raw, c.text); err != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s: %v; left as it is", c.rel, err))
			out.TotalRewrites -= out.Files[i].Rewrites
			out.Files[i].Rewrites = 0
			continue
		}
		written = append(written, c.rel)
	}
	out.Files = slices.DeleteFunc(out.Files, func(f TagRenameFile) bool { return f.Rewrites == 0 })
	out.RefreshError = s.afterWrite(ctx, written...)
	return out, nil
}

func tagNoteInputSchema() *jsonschema.Schema {
	s := inputSchema[TagNoteInput]()
	for _, k := range []string{"add", "remove"} {
		s.Properties[k].Types, s.Properties[k].Type = nil, "array"
	}
	s.Properties["dry_run"].Default = jsonRaw(`false`)
	return s
}

func renameTagInputSchema() *jsonschema.Schema {
	s := inputSchema[RenameTagInput]()
	s.Properties["from"].MinLength = ptr(1)
	s.Properties["to"].MinLength = ptr(1)
	s.Properties["merge"].Default = jsonRaw(`false`)
	s.Properties["dry_run"].Default = jsonRaw(`false`)
	return s
}

// addTagTools registers the tag write tools (with Options.EnableWrite).
func (s *Server) addTagTools() {
	mu := &s.writeMu
	addTool(s, &mcp.Tool{
		Name:         "obsidian_tag_note",
		Title:        "Add or remove a note's tags",
		Description:  "Add or remove tags in a note's frontmatter, keeping the property's style (a [a, b] list, a block list, or a \"a, b\" string); a note without tags gets a block list. Inline #tags in the text are not edited (a warning says when a removed tag stays inline). Returns the diff, the tags after and the new etag; dry_run previews; if_match refuses a stale write.",
		Annotations:  writes(true),
		InputSchema:  tagNoteInputSchema(),
		OutputSchema: outputSchema[TagNoteOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in TagNoteInput) (*mcp.CallToolResult, TagNoteOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		out, err := s.tagNote(ctx, in)
		return nil, out, err
	})
	addTool(s, &mcp.Tool{
		Name:         "obsidian_rename_tag",
		Title:        "Rename a tag across the vault",
		Description:  "Rename a tag in every note: inline #tags (never in code, links or URLs) and frontmatter tags, with the tags nested under it (#from/x becomes #to/x). Renaming onto a tag that exists is refused unless merge is true. Each note is rewritten atomically and only if unchanged since it was read; notes that could not be are listed in warnings and left as they are. dry_run returns the plan with each note's diff.",
		Annotations:  writes(false),
		InputSchema:  renameTagInputSchema(),
		OutputSchema: outputSchema[RenameTagOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in RenameTagInput) (*mcp.CallToolResult, RenameTagOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		out, err := s.renameTag(ctx, in)
		return nil, out, err
	})
}
