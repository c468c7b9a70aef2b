package main

import (
	"context"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// idModel is an embedder that only has an ID (rankingLine reads nothing
// else), optionally English-only.
type idModel struct {
	id      string
	english bool
}

func (m idModel) ID() string { return m.id }
func (m idModel) Dim() int   { return 1 }
func (m idModel) Embed(context.Context, []string, embed.Kind) ([][]float32, error) {
	return nil, nil
}

type englishModel struct{ idModel }

func (englishModel) EnglishOnly() bool { return true }

func TestRankingLine(t *testing.T) {
	tests := []struct {
		name, alias string
		model       embed.Embedder
		want        []string
		not         []string
	}{
		{"vault model weighs 0", "vault", idModel{id: "vault:ppmi-svd-abc/64"},
			[]string{"model vault has weight 0", "do not change ranking"}, []string{"these vectors change ranking", "CJK"}},
		{"remote model weighs like TF-IDF", "ollama:nomic", idModel{id: "ollama:nomic/768"},
			[]string{"model ollama:nomic has weight 1 in fusion", "these vectors change ranking"}, []string{"do not", "CJK"}},
		{"English-only transformer", "all-MiniLM-L6-v2", englishModel{idModel{id: "transformer:all-MiniLM-L6-v2@abc/384"}},
			[]string{"weight 1 in fusion", "these vectors change ranking", "weight 0 on a query mostly in CJK script"}, []string{"do not"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rankingLine(tt.alias, tt.model)
			if strings.Count(got, "\n") != 0 || !strings.HasPrefix(got, "  ranking: ") {
				t.Errorf("not one indented line: %q", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(got, w) {
					t.Errorf("%q has %q", got, w)
				}
			}
		})
	}
}

// TestBuildEmbeddingsSaysWhetherVectorsRank: build-embeddings (and so
// setup) with the built-in model prints the line with the built-in
// model's weight.
func TestBuildEmbeddingsSaysWhetherVectorsRank(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, stdout, stderr := runCLI(t, "setup", "--vault", fixtureVault, "--client", "cursor")
	if code != 0 {
		t.Fatalf("setup: %d\n%s\n%s", code, stdout, stderr)
	}
	want := "  ranking: built-in model has weight 0 in fusion: these vectors do not change ranking"
	if w := float64(rankers.WeightBuiltinEmbeddings); w > 0 {
		want = "  ranking: built-in model has weight " + formatWeight(w) + " in fusion: these vectors change ranking (English queries"
	}
	if !strings.Contains(stdout, want) {
		t.Fatalf("setup output lacks %q:\n%s", want, stdout)
	}
}
