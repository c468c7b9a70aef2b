package main

import (
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/tools"
)

// TestPrintTableSignals: every signal that found a hit is named, so no
// hit prints an empty field.
func TestPrintTableSignals(t *testing.T) {
	rank := func(r int) *tools.SignalRank { return &tools.SignalRank{Rank: r} }
	tests := []struct {
		name string
		p    tools.PerSignal
		want string
	}{
		{"feedback only", tools.PerSignal{Feedback: rank(1)}, "(lines 5-5; feedback#1; 0d old"},
		{"lexical", tools.PerSignal{BM25: rank(2), TFIDF: rank(1)}, "(lines 5-5; bm25#2 tfidf#1; 0d old"},
		{"reranked", tools.PerSignal{Embeddings: rank(3), Rerank: rank(1)}, "(lines 5-5; emb#3 rerank#1; 0d old"},
		{"none recorded", tools.PerSignal{}, "(lines 5-5; -; 0d old"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			printTable(&b, tools.SearchOutput{Query: "q", Matches: []tools.SearchMatch{{Path: "a.md", LineStart: 5, LineEnd: 5, PerSignal: tt.p}}})
			if !strings.Contains(b.String(), tt.want) || strings.Contains(b.String(), "; ;") {
				t.Fatalf("got %q, want %q", b.String(), tt.want)
			}
		})
	}
}

// TestSearchPropertiesSnippet: a note that is only frontmatter shows its
// properties instead of an empty snippet.
func TestSearchPropertiesSnippet(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, stdout, stderr := runCLI(t, "search", "--vault", fixtureVault, "stub", "empty", "--limit", "1")
	if code != 0 || !strings.Contains(stdout, "Misc/Frontmatter Only.md") || !strings.Contains(stdout, "\n    status: empty; tags: stub\n") {
		t.Fatalf("code %d\nstdout %q\nstderr %q", code, stdout, stderr)
	}
}
