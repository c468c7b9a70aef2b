package tools

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func getPrompt(t *testing.T, cs *mcp.ClientSession, name string, args map[string]string) (string, error) {
	t.Helper()
	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
		t.Fatalf("%s: messages %+v", name, res.Messages)
	}
	tc, ok := res.Messages[0].Content.(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content %T", name, res.Messages[0].Content)
	}
	return tc.Text, nil
}

func TestPromptsList(t *testing.T) {
	res, err := connect(t).ListPrompts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	required := map[string][]string{}
	for _, p := range res.Prompts {
		names = append(names, p.Name)
		if p.Description == "" {
			t.Errorf("%s has no description", p.Name)
		}
		for _, a := range p.Arguments {
			if a.Required {
				required[p.Name] = append(required[p.Name], a.Name)
			}
		}
	}
	for _, want := range []string{"summarize_recent_edits", "weekly_review", "review_tag", "find_orphans", "extract_todos"} {
		if !slices.Contains(names, want) {
			t.Errorf("prompt %s missing from %q", want, names)
		}
	}
	if !slices.Equal(required["review_tag"], []string{"tag"}) || len(required) != 1 {
		t.Errorf("required arguments %v", required)
	}
}

func TestPromptsRender(t *testing.T) {
	cs := connect(t)
	for _, tt := range []struct {
		name    string
		args    map[string]string
		want    []string
		wantErr string
	}{
		{name: "summarize_recent_edits", want: []string{"last 7 day(s)", `obsidian_get_recent_edits with {"since_minutes": 10080`}},
		{name: "summarize_recent_edits", args: map[string]string{"days": " 3 "}, want: []string{"last 3 day(s)", `"since_minutes": 4320`}},
		{name: "summarize_recent_edits", args: map[string]string{"days": "soon"}, wantErr: "days"},
		{name: "summarize_recent_edits", args: map[string]string{"days": "0"}, wantErr: "days"},
		{name: "weekly_review", want: []string{"the whole vault", "obsidian_get_recent_edits", `"title": "today"`}},
		{name: "weekly_review", args: map[string]string{"folder": "Projects"}, want: []string{`"folder": "Projects"`}},
		{name: "review_tag", args: map[string]string{"tag": "#cooking"}, want: []string{"#cooking", `obsidian_list_notes with {"tag": "cooking"`, "obsidian_list_tags"}},
		{name: "review_tag", wantErr: "tag"},
		{name: "review_tag", args: map[string]string{"tag": "  "}, wantErr: "tag"},
		{name: "find_orphans", want: []string{"obsidian_get_backlinks", "obsidian_stats"}},
		{name: "find_orphans", args: map[string]string{"folder": `Say "hi"`}, want: []string{`"folder": "Say \"hi\""`}},
		{name: "extract_todos", want: []string{`obsidian_search_text with {"query": "- [ ]"`}},
		{name: "extract_todos", args: map[string]string{"folder": "Projects"}, want: []string{`"limit": 200, "folder": "Projects"}`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := getPrompt(t, cs, tt.name, tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				if we := (*jsonrpc.Error)(nil); !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
					t.Errorf("err %#v, want JSON-RPC code %d (invalid params)", err, jsonrpc.CodeInvalidParams)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("prompt lacks %q:\n%s", w, got)
				}
			}
		})
	}
	if _, err := getPrompt(t, cs, "no_such_prompt", nil); err == nil {
		t.Error("an unknown prompt rendered")
	}
}

// TestPromptsNameRealTools checks that every tool a prompt tells the
// assistant to call is registered (on a server with every signal).
func TestPromptsNameRealTools(t *testing.T) {
	srv := New(indexedEngine(t), Options{})
	cs := connectTo(t, srv)
	toolName := regexp.MustCompile(`obsidian_[a-z_]+`)
	for _, p := range promptSpecs() {
		args := map[string]string{"tag": "x", "folder": "Projects"}
		got, err := getPrompt(t, cs, p.name, args)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range toolName.FindAllString(got, -1) {
			if !slices.Contains(srv.Registered(), name) {
				t.Errorf("prompt %s names %s, which is not a registered tool", p.name, name)
			}
		}
	}
}
