package tools

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/search"
)

// connectSimilar serves e over MCP.
func connectSimilar(t *testing.T, e *search.Engine) *mcp.ClientSession {
	t.Helper()
	return connectTo(t, New(e, Options{Version: "test"}))
}

func similarPaths(out SimilarOutput) []string {
	var ps []string
	for _, s := range out.Similar {
		ps = append(ps, s.Path)
	}
	return ps
}

func TestFindSimilarConcurrencyCluster(t *testing.T) {
	cluster := []string{"Software/Go Concurrency.md", "Software/Concurrency Patterns.md", "Projects/Crawler.md", "Projects/Log Pipeline.md"}
	for name, e := range map[string]*search.Engine{"tfidf": testEngine(t), "every signal": indexedEngine(t)} {
		t.Run(name, func(t *testing.T) {
			cs := connectSimilar(t, e)
			for _, p := range cluster {
				out := decode[SimilarOutput](t, call(t, cs, "obsidian_find_similar", map[string]any{"path": p, "limit": 4}))
				got := similarPaths(out)
				// The other three notes of the cluster are among the four
				// most similar.
				found := 0
				for _, q := range cluster {
					if q != p && slices.Contains(got, q) {
						found++
					}
				}
				if found < 2 || out.Path != p || len(got) != 4 {
					t.Errorf("%s: similar %v", p, got)
				}
			}
			out := decode[SimilarOutput](t, call(t, cs, "obsidian_find_similar", map[string]any{"title": "Go Concurrency", "limit": 4}))
			for _, q := range cluster[1:] {
				if !slices.Contains(similarPaths(out), q) {
					t.Errorf("Go Concurrency: %s not in the top 4 %v", q, similarPaths(out))
				}
			}
			if out.Similar[0].Path != "Software/Concurrency Patterns.md" {
				t.Errorf("Go Concurrency: top %s, want Concurrency Patterns", out.Similar[0].Path)
			}
		})
	}
}

func TestFindSimilarSignals(t *testing.T) {
	cs := connectSimilar(t, testEngine(t))
	out := decode[SimilarOutput](t, call(t, cs, "obsidian_find_similar", map[string]any{"path": "Software/Go Concurrency.md", "limit": 50}))
	if out.Title != "Go Concurrency" || slices.Contains(out.SignalsUsed, "embeddings") ||
		!reflect.DeepEqual(out.SignalsUsed, []string{"content", "shared_tags", "shared_links", "co_citation", "direct_link"}) {
		t.Fatalf("header %+v", out)
	}
	by := map[string]SimilarNote{}
	for _, s := range out.Similar {
		by[s.Path] = s
	}
	cp := by["Software/Concurrency Patterns.md"]
	// Tags: {programming, programming/go} and {programming, patterns}.
	// Linked from Home and Crawler, which both also link Go Concurrency.
	if !cp.Signals.DirectLink || cp.Signals.CoCitation != 2 || cp.Signals.SharedLinks != 0 || cp.Signals.SharedTags != 0.333333 ||
		!reflect.DeepEqual(cp.SharedTags, []string{"programming"}) || cp.Signals.Content <= 0 || cp.Signals.Embeddings != nil {
		t.Errorf("Concurrency Patterns: %+v", cp)
	}
	// Crawler and Concurrency Patterns both link Go Concurrency
	// (bibliographic coupling).
	crawler := decode[SimilarOutput](t, call(t, cs, "obsidian_find_similar", map[string]any{"path": "Projects/Crawler.md", "limit": 50}))
	for _, s := range crawler.Similar {
		switch s.Path {
		case "Software/Concurrency Patterns.md":
			if s.Signals.SharedLinks != 1 || !s.Signals.DirectLink {
				t.Errorf("Crawler ~ Concurrency Patterns: %+v", s.Signals)
			}
		case "Projects/Log Pipeline.md":
			if s.Signals.SharedTags != 1 || !reflect.DeepEqual(s.SharedTags, []string{"project"}) || s.Signals.DirectLink {
				t.Errorf("Crawler ~ Log Pipeline: %+v", s)
			}
		}
	}
	// Weighted mean: recompute one score from its signals.
	w := (0.40*cp.Signals.Content + 0.15*cp.Signals.SharedTags + 0.10*0 + 0.10*2/math.Sqrt(5*2) + 0.05) / 0.80
	if d := w - cp.Score; d > 1e-5 || d < -1e-5 {
		t.Errorf("score %v, recomputed %v", cp.Score, w)
	}
}

func TestFindSimilarEmbeddingsSignal(t *testing.T) {
	cs := connectSimilar(t, indexedEngine(t))
	out := decode[SimilarOutput](t, call(t, cs, "obsidian_find_similar", map[string]any{"title": "Plate Tectonics", "limit": 50}))
	if !slices.Contains(out.SignalsUsed, "embeddings") {
		t.Fatalf("signals_used %v", out.SignalsUsed)
	}
	for _, s := range out.Similar {
		if s.Signals.Embeddings == nil || *s.Signals.Embeddings < -1 || *s.Signals.Embeddings > 1.000001 {
			t.Errorf("%s: embeddings %v", s.Path, s.Signals.Embeddings)
		}
	}
	// The toy model maps Go notes onto one "concurrency" concept.
	gc := decode[SimilarOutput](t, call(t, cs, "obsidian_find_similar", map[string]any{"title": "Go Concurrency", "limit": 3}))
	if e := gc.Similar[0].Signals.Embeddings; e == nil || *e < 0.5 {
		t.Errorf("Go Concurrency ~ %s: embeddings %v", gc.Similar[0].Path, e)
	}
}

// TestFindSimilarEveryNote: never the note itself, scores in (0, 1] best
// first (ties by path), the same answer twice.
func TestFindSimilarEveryNote(t *testing.T) {
	for name, e := range map[string]*search.Engine{"tfidf": testEngine(t), "every signal": indexedEngine(t)} {
		t.Run(name, func(t *testing.T) {
			cs := connectSimilar(t, e)
			for i, n := range e.Snapshot().Notes {
				args := map[string]any{"path": n.Path, "limit": 50}
				out := decode[SimilarOutput](t, call(t, cs, "obsidian_find_similar", args))
				if i%4 == 0 {
					if again := decode[SimilarOutput](t, call(t, cs, "obsidian_find_similar", args)); !reflect.DeepEqual(out, again) {
						t.Errorf("%s: two calls differ", n.Path)
					}
				}
				if out.Path != n.Path || out.Similar == nil {
					t.Fatalf("%s: %+v", n.Path, out)
				}
				for i, s := range out.Similar {
					if s.Path == n.Path {
						t.Errorf("%s is similar to itself", n.Path)
					}
					if s.Score <= 0 || s.Score > 1 || s.SharedTags == nil {
						t.Errorf("%s ~ %s: %+v", n.Path, s.Path, s)
					}
					if i > 0 {
						prev := out.Similar[i-1]
						if prev.Score < s.Score || prev.Score == s.Score && prev.Path > s.Path {
							t.Errorf("%s: %s (%v) before %s (%v)", n.Path, prev.Path, prev.Score, s.Path, s.Score)
						}
					}
				}
			}
		})
	}
}

func TestFindSimilarArguments(t *testing.T) {
	cs := connectSimilar(t, testEngine(t))
	tests := []struct {
		name    string
		args    map[string]any
		wantErr string
		check   func(t *testing.T, out SimilarOutput)
	}{
		{name: "alias", args: map[string]any{"title": "K8s"}, check: func(t *testing.T, out SimilarOutput) {
			if out.Path != "Software/Kubernetes.md" || len(out.Similar) == 0 {
				t.Fatalf("%+v", out)
			}
		}},
		{name: "path without .md", args: map[string]any{"path": "Software/Kubernetes"}, check: func(t *testing.T, out SimilarOutput) {
			if out.Path != "Software/Kubernetes.md" {
				t.Fatalf("%+v", out)
			}
		}},
		{name: "default limit", args: map[string]any{"title": "Home"}, check: func(t *testing.T, out SimilarOutput) {
			if len(out.Similar) != 10 {
				t.Fatalf("%d results", len(out.Similar))
			}
		}},
		{name: "limit", args: map[string]any{"title": "Home", "limit": 2}, check: func(t *testing.T, out SimilarOutput) {
			if len(out.Similar) != 2 {
				t.Fatalf("%d results", len(out.Similar))
			}
		}},
		{name: "folder", args: map[string]any{"title": "Go Concurrency", "folder": "Projects/"}, check: func(t *testing.T, out SimilarOutput) {
			if len(out.Similar) == 0 {
				t.Fatal("no results")
			}
			for _, s := range out.Similar {
				if !strings.HasPrefix(s.Path, "Projects/") {
					t.Errorf("%s outside the folder", s.Path)
				}
			}
		}},
		{name: "min_score", args: map[string]any{"title": "Go Concurrency", "limit": 50, "min_score": 0.15}, check: func(t *testing.T, out SimilarOutput) {
			if len(out.Similar) == 0 || len(out.Similar) == 50 {
				t.Fatalf("%d results", len(out.Similar))
			}
			for _, s := range out.Similar {
				if s.Score < 0.15 {
					t.Errorf("%s scores %v", s.Path, s.Score)
				}
			}
		}},
		{name: "nothing similar is not an error", args: map[string]any{"title": "Go Concurrency", "min_score": 1}, check: func(t *testing.T, out SimilarOutput) {
			if out.Similar == nil || len(out.Similar) != 0 {
				t.Fatalf("%#v", out.Similar)
			}
		}},
		{name: "unknown arguments are ignored", args: map[string]any{"title": "Home", "include_body": true}, check: func(t *testing.T, out SimilarOutput) {}},
		{name: "missing", args: map[string]any{"title": "Kubernets"}, wantErr: "did you mean: Software/Kubernetes.md"},
		{name: "escape", args: map[string]any{"path": "../../etc/passwd"}, wantErr: `note not found: "../../etc/passwd"`},
		{name: "hidden", args: map[string]any{"path": ".trash/Deleted.md"}, wantErr: "note not found"},
		{name: "neither", args: map[string]any{}, wantErr: "give path or title"},
		{name: "both", args: map[string]any{"path": "Home.md", "title": "Home"}, wantErr: "not both"},
		{name: "limit too big", args: map[string]any{"title": "Home", "limit": 51}, wantErr: "limit"},
		{name: "negative min_score", args: map[string]any{"title": "Home", "min_score": -0.5}, wantErr: "min_score"},
		{name: "folder escaping the vault", args: map[string]any{"title": "Home", "folder": "../x"}, wantErr: "folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, "obsidian_find_similar", tt.args)
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(text(res), tt.wantErr) {
					t.Fatalf("IsError=%v text=%q, want an error mentioning %q", res.IsError, text(res), tt.wantErr)
				}
				return
			}
			tt.check(t, decode[SimilarOutput](t, res))
		})
	}
}

// TestFindSimilarAfterSwap: a swapped engine gets its own derived data.
func TestFindSimilarAfterSwap(t *testing.T) {
	srv := New(testEngine(t), Options{})
	if !slices.Contains(srv.Registered(), "obsidian_find_similar") {
		srv.addSimilarTools()
	}
	cs := connectTo(t, srv)
	before := decode[SimilarOutput](t, call(t, cs, "obsidian_find_similar", map[string]any{"title": "Crawler"}))
	srv.Swap(indexedEngine(t))
	after := decode[SimilarOutput](t, call(t, cs, "obsidian_find_similar", map[string]any{"title": "Crawler"}))
	if slices.Contains(before.SignalsUsed, "embeddings") || !slices.Contains(after.SignalsUsed, "embeddings") {
		t.Fatalf("before %v, after %v", before.SignalsUsed, after.SignalsUsed)
	}
}

// TestFindSimilarConcurrent: first calls racing to build the per-engine
// data, and calls sharing scratch buffers, give the same answers.
func TestFindSimilarConcurrent(t *testing.T) {
	e := indexedEngine(t)
	srv := New(e, Options{})
	cache := &simCache{}
	want := map[string][]string{}
	for _, n := range e.Snapshot().Notes {
		out, err := srv.findSimilar(context.Background(), &simCache{}, SimilarInput{Path: n.Path})
		if err != nil {
			t.Fatal(err)
		}
		want[n.Path] = similarPaths(out)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i, n := range e.Snapshot().Notes {
				if (i+w)%2 == 0 {
					continue
				}
				out, err := srv.findSimilar(context.Background(), cache, SimilarInput{Path: n.Path})
				if err != nil {
					t.Error(err)
					return
				}
				if got := similarPaths(out); !slices.Equal(got, want[n.Path]) {
					t.Errorf("%s: %v, want %v", n.Path, got, want[n.Path])
				}
			}
		})
	}
	wg.Wait()
}
