package remote

import (
	"context"
	"slices"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

func TestKnownPrefixes(t *testing.T) {
	nomic := Prefixes{"search_query: ", "search_document: "}
	e5 := Prefixes{"query: ", "passage: "}
	hint := Prefixes{Query: "Represent this sentence for searching relevant passages: "}
	tests := []struct {
		model  string
		want   Prefixes
		wantOK bool
	}{
		{"nomic-embed-text", nomic, true},
		{"nomic-embed-text:v1.5", nomic, true},
		{"nomic-ai/nomic-embed-text-v1.5", nomic, true},
		{"text-embedding-nomic-embed-text-v1.5", nomic, true}, // LM Studio
		{"nomic-embed-text-v2-moe", nomic, true},
		{"intfloat/e5-large-v2", e5, true},
		{"e5-small-v2", e5, true},
		{"intfloat/multilingual-e5-large", e5, true},
		{"jeffh/intfloat-multilingual-e5-large:f16", e5, true},
		{"intfloat/multilingual-e5-large-instruct", Prefixes{}, false},
		{"intfloat/e5-mistral-7b-instruct", Prefixes{}, false},
		{"mxbai-embed-large", hint, true},
		{"mixedbread-ai/mxbai-embed-large-v1", hint, true},
		{"MXBAI-EMBED-LARGE:335m", hint, true},
		{"bge-large", hint, true}, // Ollama's bge-large is bge-large-en-v1.5
		{"BAAI/bge-small-en-v1.5", hint, true},
		{"bge-base-en", hint, true},
		{"bge-m3", Prefixes{}, false},
		{"BAAI/bge-large-zh-v1.5", Prefixes{}, false},
		{"BAAI/bge-reranker-large", Prefixes{}, false},
		{"text-embedding-3-small", Prefixes{}, false},
		{"all-minilm", Prefixes{}, false},
		{"", Prefixes{}, false},
	}
	for _, tt := range tests {
		got, ok := KnownPrefixes(tt.model)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("KnownPrefixes(%q) = %+v, %t; want %+v, %t", tt.model, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestPrefixesByKind(t *testing.T) {
	tests := []struct {
		name         string
		model        string
		query, doc   string
		noAuto       bool
		wantQ, wantD string
	}{
		{name: "nomic", model: "nomic-embed-text", wantQ: "search_query: x", wantD: "search_document: x"},
		{name: "e5", model: "intfloat/e5-base-v2", wantQ: "query: x", wantD: "passage: x"},
		{name: "mxbai", model: "mxbai-embed-large", wantQ: "Represent this sentence for searching relevant passages: x", wantD: "x"},
		{name: "unknown", model: "all-minilm", wantQ: "x", wantD: "x"},
		{name: "explicit query prefix wins", model: "nomic-embed-text", query: "Q: ", wantQ: "Q: x", wantD: "search_document: x"},
		{name: "explicit on unknown", model: "all-minilm", query: "Q: ", doc: "D: ", wantQ: "Q: x", wantD: "D: x"},
		{name: "auto disabled", model: "nomic-embed-text", noAuto: true, wantQ: "x", wantD: "x"},
	}
	for _, p := range allProviders() {
		for _, tt := range tests {
			t.Run(string(p)+"/"+tt.name, func(t *testing.T) {
				srv := newServer(t, okHandler(p, 3))
				cfg, _ := testConfig(srv, tt.model)
				cfg.QueryPrefix, cfg.DocumentPrefix, cfg.NoAutoPrefix = tt.query, tt.doc, tt.noAuto
				e := newProvider(t, p, cfg)
				for _, k := range []embed.Kind{embed.Query, embed.Document} {
					if _, err := e.Embed(context.Background(), []string{"x"}, k); err != nil {
						t.Fatal(err)
					}
				}
				reqs := srv.requests()
				if got := [][]string{reqs[0].Inputs, reqs[1].Inputs}; !slices.Equal(got[0], []string{tt.wantQ}) || !slices.Equal(got[1], []string{tt.wantD}) {
					t.Errorf("sent %q for query and %q for document; want %q, %q", got[0], got[1], tt.wantQ, tt.wantD)
				}
			})
		}
	}
}
