package tools

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/enquire-mcp/enquire-mcp/contextpack"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

func checkPack(t *testing.T, out ContextPackOutput, budget int) {
	t.Helper()
	if out.EstimatedTokens > budget || out.BudgetTokens != budget {
		t.Fatalf("estimated %d tokens, budget %d (reported %d)", out.EstimatedTokens, budget, out.BudgetTokens)
	}
	if got := contextpack.Tokens(out.Bundle); got != out.EstimatedTokens {
		t.Fatalf("estimated_tokens %d, bundle estimates %d", out.EstimatedTokens, got)
	}
	if out.Included == nil || out.Skipped == nil || !strings.HasPrefix(out.Bundle, "# Context for: ") {
		t.Fatalf("output %+v", out)
	}
	if !utf8.ValidString(out.Bundle) {
		t.Fatal("bundle is not valid UTF-8")
	}
	sum := 0
	for _, it := range out.Included {
		sum += it.Tokens
		if it.Tokens <= 0 || it.Reason == "" || it.LineEnd < it.LineStart || (it.Page == 0 && it.LineStart == 0) {
			t.Errorf("included %+v", it)
		}
		if !strings.Contains(out.Bundle, "`"+it.Path+"`") {
			t.Errorf("%s is included but not named in the bundle", it.Path)
		}
	}
	if sum > budget { // parts are charged one by one, within the budget
		t.Errorf("included tokens add up to %d, over the budget of %d", sum, budget)
	}
	if len(out.Skipped) > 0 && !out.Truncated && !allNoText(out.Skipped) {
		t.Errorf("skipped %v but not truncated", out.Skipped)
	}
}

func allNoText(s []SkippedItem) bool {
	for _, x := range s {
		if x.Reason != "no text to quote" {
			return false
		}
	}
	return true
}

func TestContextPack(t *testing.T) {
	cs := connectSimilar(t, testEngine(t))
	out := decode[ContextPackOutput](t, call(t, cs, "obsidian_context_pack", map[string]any{"query": "goroutines worker pool"}))
	checkPack(t, out, 4000)
	if out.Query != "goroutines worker pool" || out.Truncated {
		t.Errorf("query %q, truncated %v", out.Query, out.Truncated)
	}
	hits := 0
	for _, it := range out.Included {
		if strings.HasPrefix(it.Reason, "hit #") {
			hits++
		}
	}
	if hits < 3 || !strings.HasPrefix(out.Included[0].Reason, "hit #1, score 0.0") {
		t.Errorf("%d hits; first %+v", hits, out.Included[0])
	}
	for _, want := range []string{
		"## Top notes\n\n### Concurrency Patterns\n`Software/Concurrency Patterns.md` · hit #1 · score 0.0",
		"### Go Concurrency\n`Software/Go Concurrency.md` · hit #",
		"A fixed number of workers pull jobs from a shared queue.", // the matching passage
		"## Backlinks\n\n",
		"- `Projects/Crawler.md` → [[Go Concurrency]] (L18): ",
	} {
		if !strings.Contains(out.Bundle, want) {
			t.Errorf("bundle lacks %q:\n%s", want, out.Bundle)
		}
	}
	var backlink *PackedItem
	for i, it := range out.Included {
		if it.Path == "Projects/Log Pipeline.md" && it.Reason == "backlink of Software/Go Concurrency.md" {
			backlink = &out.Included[i]
		}
	}
	if backlink == nil || backlink.LineStart != 9 || backlink.LineEnd != 9 {
		t.Errorf("backlink from Log Pipeline: %+v", backlink)
	}
}

// TestContextPackBudget: the bundle never exceeds the budget, whatever the
// budget, query, granularity and backlinks.
func TestContextPackBudget(t *testing.T) {
	cs := connectSimilar(t, indexedEngine(t))
	queries := []string{"goroutines worker pool", "bread", "Home", "机器学习 神经网络", strings.Repeat("concurrency patterns and pipelines ", 100)}
	for _, q := range queries {
		for _, budget := range []int{256, 257, 333, 700, 1500, 32000} {
			for _, gran := range []string{"note", "block"} {
				for _, back := range []bool{true, false} {
					name := fmt.Sprintf("%.20s/%d/%s/%v", q, budget, gran, back)
					out := decode[ContextPackOutput](t, call(t, cs, "obsidian_context_pack", map[string]any{
						"query": q, "budget_tokens": budget, "granularity": gran, "include_backlinks": back, "max_notes": 20}))
					t.Run(name, func(t *testing.T) { checkPack(t, out, budget) })
					if !back && (strings.Contains(out.Bundle, "## Backlinks") || strings.Contains(fmt.Sprint(out.Included), "backlink of")) {
						t.Errorf("%s: backlinks without include_backlinks", name)
					}
				}
			}
		}
	}
}

func TestContextPackTinyBudget(t *testing.T) {
	cs := connectSimilar(t, testEngine(t))
	out := decode[ContextPackOutput](t, call(t, cs, "obsidian_context_pack", map[string]any{"query": "goroutines worker pool", "budget_tokens": 256}))
	checkPack(t, out, 256)
	if !out.Truncated || len(out.Skipped) == 0 || len(out.Included) == 0 || out.Included[0].Reason[:6] != "hit #1" {
		t.Fatalf("tiny budget: %+v", out)
	}
	if out.EstimatedTokens < 200 {
		t.Errorf("only %d of 256 tokens used", out.EstimatedTokens)
	}
}

func TestContextPackBlocks(t *testing.T) {
	cs := connectSimilar(t, testEngine(t))
	out := decode[ContextPackOutput](t, call(t, cs, "obsidian_context_pack", map[string]any{"query": "fan-in pipelines channels", "granularity": "block", "max_notes": 3}))
	checkPack(t, out, 4000)
	notes := map[string]bool{}
	for _, it := range out.Included {
		if strings.HasPrefix(it.Reason, "hit #") {
			notes[it.Path] = true
		}
	}
	if len(notes) != 3 || !notes["Software/Concurrency Patterns.md"] {
		t.Fatalf("notes %v", notes)
	}
}

func TestContextPackPDF(t *testing.T) {
	cs := connectSimilar(t, pdfTestEngine(t))
	out := decode[ContextPackOutput](t, call(t, cs, "obsidian_context_pack", map[string]any{"query": "placeholder paper page two"}))
	checkPack(t, out, 4000)
	it := out.Included[0]
	if it.Path != "Attachments/paper.pdf" || it.Page == 0 || it.LineStart != 0 {
		t.Fatalf("first included %+v", it)
	}
	for _, want := range []string{"`Attachments/paper.pdf` · hit #1 · score ", " · page 1\n", "[page: 1] Placeholder paper, page one.", "[page: 2] Placeholder paper, page two.", "→ [[paper.pdf]]"} {
		if !strings.Contains(out.Bundle, want) {
			t.Errorf("bundle lacks %q:\n%s", want, out.Bundle)
		}
	}
	blocks := decode[ContextPackOutput](t, call(t, cs, "obsidian_context_pack", map[string]any{"query": "placeholder paper page two", "granularity": "block"}))
	checkPack(t, blocks, 4000)
	if !strings.Contains(blocks.Bundle, "[page: 2] Placeholder paper, page two.") {
		t.Errorf("block bundle:\n%s", blocks.Bundle)
	}
}

func TestContextPackArguments(t *testing.T) {
	cs := connectSimilar(t, testEngine(t))
	tests := []struct {
		name    string
		args    map[string]any
		wantErr string
		check   func(t *testing.T, out ContextPackOutput)
	}{
		{name: "no matches", args: map[string]any{"query": "xylophonezzz"}, check: func(t *testing.T, out ContextPackOutput) {
			checkPack(t, out, 4000)
			if len(out.Included) != 0 || !strings.Contains(out.Bundle, "No notes matched") || out.Truncated {
				t.Fatalf("%+v", out)
			}
		}},
		{name: "max_notes", args: map[string]any{"query": "goroutines", "max_notes": 1, "include_backlinks": false}, check: func(t *testing.T, out ContextPackOutput) {
			checkPack(t, out, 4000)
			if len(out.Included) != 1 {
				t.Fatalf("%+v", out.Included)
			}
		}},
		{name: "folder", args: map[string]any{"query": "goroutines", "folder": "Projects", "include_backlinks": false}, check: func(t *testing.T, out ContextPackOutput) {
			checkPack(t, out, 4000)
			for _, it := range out.Included {
				if !strings.HasPrefix(it.Path, "Projects/") {
					t.Errorf("%s outside the folder", it.Path)
				}
			}
		}},
		{name: "empty note is skipped", args: map[string]any{"query": "frontmatter only stub", "include_backlinks": false}, check: func(t *testing.T, out ContextPackOutput) {
			checkPack(t, out, 4000)
			for _, it := range out.Included {
				if it.Path == "Misc/Frontmatter Only.md" {
					t.Errorf("empty note included: %+v", it)
				}
			}
		}},
		{name: "missing query", args: map[string]any{}, wantErr: "query"},
		{name: "blank query", args: map[string]any{"query": "  "}, wantErr: "query is empty"},
		{name: "budget too small", args: map[string]any{"query": "x", "budget_tokens": 100}, wantErr: "budget_tokens"},
		{name: "budget too big", args: map[string]any{"query": "x", "budget_tokens": 40000}, wantErr: "budget_tokens"},
		{name: "max_notes too big", args: map[string]any{"query": "x", "max_notes": 51}, wantErr: "max_notes"},
		{name: "bad granularity", args: map[string]any{"query": "x", "granularity": "page"}, wantErr: "granularity"},
		{name: "folder escaping the vault", args: map[string]any{"query": "x", "folder": "../.."}, wantErr: "folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, "obsidian_context_pack", tt.args)
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(text(res), tt.wantErr) {
					t.Fatalf("IsError=%v text=%q, want an error mentioning %q", res.IsError, text(res), tt.wantErr)
				}
				return
			}
			tt.check(t, decode[ContextPackOutput](t, res))
		})
	}
}

// TestContextPackLongLinesAndFences: a passage cut inside an over-long
// line or a code fence still fits and keeps the markdown balanced.
func TestContextPackLongLinesAndFences(t *testing.T) {
	long := strings.Repeat("zebra crossing lights ", 3000)
	fence := "# Fenced\n\nzebra setup:\n\n```go\n" + strings.Repeat("fmt.Println(\"zebra\") // a long line of code\n", 400) + "```\n\nAfter the fence.\n"
	cjk := "# 中文\n\n" + strings.Repeat("斑马线", 3000) + "\n"
	dir := vaulttest.Write(t, map[string]string{"long.md": "# Long\n\n" + long + "\n", "fence.md": fence, "cjk.md": cjk})
	e := engineAt(t, dir, time.Time{}, vault.Options{})
	cs := connectSimilar(t, e)
	for _, q := range []string{"zebra", "斑马线", "zebra setup"} {
		for _, budget := range []int{256, 1000, 4000} {
			for _, gran := range []string{"note", "block"} {
				out := decode[ContextPackOutput](t, call(t, cs, "obsidian_context_pack", map[string]any{"query": q, "budget_tokens": budget, "granularity": gran}))
				checkPack(t, out, budget)
				if len(out.Included) == 0 || !out.Truncated {
					t.Errorf("%s/%d/%s: included %+v, truncated %v", q, budget, gran, out.Included, out.Truncated)
				}
				if n := strings.Count(out.Bundle, "```"); n%2 != 0 {
					t.Errorf("%s/%d/%s: %d fence markers:\n%s", q, budget, gran, n, out.Bundle)
				}
			}
		}
	}
}
