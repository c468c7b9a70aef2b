package search

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/embed/learned"
	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// learnedEngine indexes dir, learns the vault model from its chunks (as
// build-embeddings --embedding-model vault does) and serves it.
func learnedEngine(t *testing.T, dir string) *Engine {
	t.Helper()
	ctx := context.Background()
	snap, ix, src := syncedIndex(t, dir)
	texts, err := ix.Vectors().EmbedTexts(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	an := analysis.New()
	v, err := learned.Learn(ctx, texts, an, learned.Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := learned.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	m, err := learned.New(data, an)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Vectors().Build(ctx, src, m, learned.Alias, 0, nil); err != nil {
		t.Fatal(err)
	}
	e, err := New(ctx, snap, an, Options{Index: ix, Embedder: m, EmbedderAlias: learned.Alias})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestLearnedModelRetrieves is the golden retrieval test of the vault
// model on the fixture vault: the embeddings signal alone must rank the
// note a query describes first, also for Chinese and for queries that
// share no title word with the note.
func TestLearnedModelRetrieves(t *testing.T) {
	e := learnedEngine(t, filepath.Join("..", "testdata", "vault"))
	tests := []struct{ query, want string }{
		{"feeding the starter and building the levain", "Cooking/Sourdough Bread.md"},
		{"chlorophyll absorbs light in the chloroplast", "Science/Photosynthesis.md"},
		{"神经网络 反向传播", "Languages/中文笔记.md"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			res, err := e.Search(context.Background(), Request{Query: tc.query, Signals: []string{rankers.SignalEmbeddings}, Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.Path)
			}
			if len(got) == 0 || got[0] != tc.want {
				t.Fatalf("hits %v, want %s first", got, tc.want)
			}
		})
	}
}
