package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// promptSpec is one prompt template: its arguments and how to render it
// from validated argument values.
type promptSpec struct {
	name, title, description string
	args                     []*mcp.PromptArgument
	render                   func(args map[string]string) (string, error)
}

// addPrompts registers the workflow prompts. Each renders one user
// message that tells the assistant which tools to call, with which
// arguments.
func (s *Server) addPrompts() {
	for _, p := range promptSpecs() {
		s.mcp.AddPrompt(&mcp.Prompt{Name: p.name, Title: p.title, Description: p.description, Arguments: p.args}, p.handler())
	}
}

func (p promptSpec) handler() mcp.PromptHandler {
	return func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		args := map[string]string{}
		if req.Params != nil {
			for k, v := range req.Params.Arguments {
				args[k] = strings.TrimSpace(v)
			}
		}
		for _, a := range p.args {
			if a.Required && args[a.Name] == "" {
				return nil, invalidParams(fmt.Sprintf("prompt %s: argument %q is required", p.name, a.Name))
			}
		}
		text, err := p.render(args)
		if err != nil { // every render error is about an argument's value
			return nil, invalidParams(fmt.Sprintf("prompt %s: %v", p.name, err))
		}
		return &mcp.GetPromptResult{
			Description: p.description,
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
		}, nil
	}
}

// invalidParams is a JSON-RPC -32602 error, what MCP asks for a prompt's
// missing or bad argument.
func invalidParams(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

func promptSpecs() []promptSpec {
	folderArg := &mcp.PromptArgument{Name: "folder", Description: "Vault-relative folder to limit the work to (default: the whole vault)."}
	return []promptSpec{
		{
			name: "summarize_recent_edits", title: "Summarize recent edits",
			description: "Summarize what changed in the vault over the last N days.",
			args:        []*mcp.PromptArgument{{Name: "days", Description: "How many days back (1-365, default 7)."}},
			render:      renderRecentEdits,
		},
		{
			name: "weekly_review", title: "Weekly review",
			description: "A weekly review: what was worked on, open loops and loose ends from the last 7 days.",
			args:        []*mcp.PromptArgument{folderArg},
			render:      renderWeeklyReview,
		},
		{
			name: "review_tag", title: "Review a tag",
			description: "Review every note under a tag: themes, gaps, duplicates and stale notes.",
			args:        []*mcp.PromptArgument{{Name: "tag", Description: "The tag, with or without # (nested tags included).", Required: true}},
			render:      renderReviewTag,
		},
		{
			name: "find_orphans", title: "Find orphan notes",
			description: "Find notes no other note links to and suggest where to link them from.",
			args:        []*mcp.PromptArgument{folderArg},
			render:      renderFindOrphans,
		},
		{
			name: "extract_todos", title: "Extract TODOs",
			description: "Collect open tasks (- [ ] checkboxes, TODO markers) into one prioritised list.",
			args:        []*mcp.PromptArgument{folderArg},
			render:      renderExtractTodos,
		},
	}
}

// folderClause renders an optional folder argument for tool calls.
func folderClause(args map[string]string) (jsonArg, scope string) {
	f := args["folder"]
	if f == "" {
		return "", "the whole vault"
	}
	return fmt.Sprintf(", \"folder\": %s", strconv.Quote(f)), "the folder " + strconv.Quote(f)
}

func renderRecentEdits(args map[string]string) (string, error) {
	days := 7
	if v := args["days"]; v != "" {
		d, err := strconv.Atoi(v)
		if err != nil || d < 1 || d > 365 {
			return "", fmt.Errorf("days must be a whole number from 1 to 365, got %q", v)
		}
		days = d
	}
	return fmt.Sprintf(`Summarize what changed in my Obsidian vault over the last %d day(s).

1. Call obsidian_get_recent_edits with {"since_minutes": %d, "limit": 200}. If "total" is larger than the notes returned, page through obsidian_list_notes with {"modified_since": "<the since value it returned>", "limit": 500} and its next_cursor.
2. For each note, call obsidian_read_note with {"path": "<path>", "format": "map"} to see its outline; read the full note only where the outline is not enough.
3. Group the notes by theme or project (folders and tags help) and write a short summary per group: what was added or decided, and open questions.
4. End with a list of the notes you summarized, as [[wikilinks]].`, days, days*24*60), nil
}

func renderWeeklyReview(args map[string]string) (string, error) {
	folder, scope := folderClause(args)
	return fmt.Sprintf(`Run a weekly review of %s in my Obsidian vault.

1. Call obsidian_get_recent_edits with {"since_minutes": 10080, "limit": 200%s} to see what I touched this week.
2. Read the important ones with obsidian_read_note ({"path": "<path>"}), and look for daily notes with obsidian_read_note {"title": "today"} and {"title": "yesterday"}.
3. Call obsidian_stats for the state of the vault (orphans, broken links) and obsidian_search_text with {"query": "- [ ]"%s} for open tasks.
4. Write the review: what got done, what is in progress, open loops and unchecked tasks, notes worth linking or cleaning up, and three priorities for next week. Cite notes as [[wikilinks]].`, scope, folder, folder), nil
}

func renderReviewTag(args map[string]string) (string, error) {
	tag := strings.TrimPrefix(args["tag"], "#")
	if tag == "" {
		return "", fmt.Errorf("tag is empty")
	}
	q := strconv.Quote(tag)
	return fmt.Sprintf(`Review the notes tagged #%s in my Obsidian vault.

1. Call obsidian_list_notes with {"tag": %s, "sort": "mtime", "limit": 500} (nested tags such as #%s/… are included); follow next_cursor if there are more.
2. Call obsidian_list_tags to see related and nested tags and how often they are used.
3. Read the notes with obsidian_read_note ({"path": "<path>", "format": "map"} first, the full note when needed), and use obsidian_get_backlinks {"path": "<path>"} to see how they connect.
4. Report: the main themes, notes that overlap or duplicate each other, stale notes (large age_days), missing links between related notes, and tag inconsistencies. Suggest concrete edits, citing notes as [[wikilinks]].`, tag, q, tag), nil
}

func renderFindOrphans(args map[string]string) (string, error) {
	folder, scope := folderClause(args)
	return fmt.Sprintf(`Find orphan notes in %s of my Obsidian vault: notes no other note links to.

1. Call obsidian_stats: "orphans" counts the notes with no link to or from another note in the whole vault.
2. Call obsidian_list_notes with {"sort": "path", "limit": 500%s} (follow next_cursor) and, for each note, obsidian_get_backlinks with {"path": "<path>", "limit": 1}; a note whose "total" is 0 is an orphan. Skip daily notes and templates.
3. For each orphan, call obsidian_search with {"query": "<its title>", "limit": 5} to find the notes it belongs with.
4. List the orphans with, for each, one or two notes that should link to it and the sentence where the [[wikilink]] would go.`, scope, folder), nil
}

func renderExtractTodos(args map[string]string) (string, error) {
	folder, scope := folderClause(args)
	return fmt.Sprintf(`Collect the open tasks in %s of my Obsidian vault.

1. Call obsidian_search_text with {"query": "- [ ]", "mode": "phrase", "limit": 200%s}, then again with {"query": "TODO", "limit": 200%s}.
2. For notes with several hits, read them with obsidian_read_note ({"path": "<path>"}) to get each task's context (the heading it sits under, dates, people).
3. Ignore checked tasks (- [x]). Group the open tasks by project or note, mark anything with a date that has passed as overdue, and order each group by priority.
4. Give every task as "- [ ] task — [[note]]" so I can find it again.`, scope, folder, folder), nil
}
