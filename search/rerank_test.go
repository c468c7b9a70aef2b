package search

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// lengthReranker scores a passage by its length and remembers what it
// was given.
type lengthReranker struct {
	mu       sync.Mutex
	passages []string
	err      error
}

func (r *lengthReranker) Name() string { return "length" }

func (r *lengthReranker) Score(_ context.Context, _ string, passages []string) ([]float32, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.passages = append([]string(nil), passages...)
	if r.err != nil {
		return nil, r.err
	}
	out := make([]float32, len(passages))
	for i, p := range passages {
		out[i] = float32(len(p))
	}
	return out, nil
}

func rerankEngine(t *testing.T, r Reranker, topN int) *Engine {
	t.Helper()
	snap, err := vault.Load(context.Background(), fixtureVault, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(context.Background(), snap, analysis.New(), Options{Reranker: r, RerankTopN: topN})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestRerank(t *testing.T) {
	off, on := false, true
	plain := testEngine(t)
	for _, gran := range []string{GranularityNote, GranularityBlock} {
		t.Run(gran, func(t *testing.T) {
			req := Request{Query: "bread dough water flour", Limit: 10, Granularity: gran}
			base := mustSearch(t, plain, req)
			if len(base.Hits) < 5 {
				t.Fatalf("fixture query found %d hits", len(base.Hits))
			}
			r := &lengthReranker{}
			e := rerankEngine(t, r, 3)
			got := mustSearch(t, e, req)
			if !slices.Contains(got.SignalsUsed, rankers.SignalRerank) {
				t.Errorf("signals used %v", got.SignalsUsed)
			}
			if len(r.passages) != 3 {
				t.Fatalf("reranker got %d passages, want the top 3", len(r.passages))
			}
			// The top 3 are the fused top 3, ordered by passage length.
			var want []string
			for _, h := range base.Hits[:3] {
				want = append(want, h.Path)
			}
			var gotTop []string
			for i, h := range got.Hits[:3] {
				gotTop = append(gotTop, h.Path)
				sh, ok := h.Signals[rankers.SignalRerank]
				if !ok || sh.Rank != i+1 {
					t.Errorf("hit %d: rerank signal %+v", i, sh)
				}
				if i > 0 && sh.Score > got.Hits[i-1].Signals[rankers.SignalRerank].Score {
					t.Errorf("hit %d scores %g above hit %d", i, sh.Score, i-1)
				}
			}
			slices.Sort(want)
			slices.Sort(gotTop)
			if gran == GranularityNote && !reflect.DeepEqual(want, gotTop) {
				t.Errorf("reranked top 3 %v, want the fused top 3 %v", gotTop, want)
			}
			// Below the top N, the fused order stands.
			for i := 3; i < len(base.Hits); i++ {
				if got.Hits[i].Path != base.Hits[i].Path || got.Hits[i].LineStart != base.Hits[i].LineStart {
					t.Errorf("hit %d moved: %s, want %s", i, got.Hits[i].Path, base.Hits[i].Path)
				}
				if _, ok := got.Hits[i].Signals[rankers.SignalRerank]; ok {
					t.Errorf("hit %d below the top N has a rerank signal", i)
				}
			}
			// Passages are chunk text after the title, not snippets.
			for _, p := range r.passages {
				if strings.Contains(p, "**") {
					t.Errorf("passage with snippet highlights: %q", p)
				}
			}
			// rerank: false gives the fused order back.
			req.Rerank = &off
			if got := mustSearch(t, e, req); !reflect.DeepEqual(hitPaths(got), hitPaths(base)) || slices.Contains(got.SignalsUsed, rankers.SignalRerank) {
				t.Errorf("rerank:false gave %v, want %v", hitPaths(got), hitPaths(base))
			}
			req.Rerank = &on
			if got := mustSearch(t, plain, req); !strings.Contains(got.SignalErrors[rankers.SignalRerank], "install-model") || !reflect.DeepEqual(hitPaths(got), hitPaths(base)) {
				t.Errorf("rerank:true without a reranker: errors %v", got.SignalErrors)
			}
		})
	}
}

func TestRerankPassageIsChunkText(t *testing.T) {
	r := &lengthReranker{}
	e := rerankEngine(t, r, 1)
	res := mustSearch(t, e, Request{Query: "levain hydration", Limit: 1, Granularity: GranularityBlock})
	h := res.Hits[0]
	n := e.Snapshot().Notes[h.Note]
	c := e.chunks[h.Note][h.Chunk]
	if want := n.Title + "\n" + n.Body[c.Start:c.End]; len(r.passages) != 1 || r.passages[0] != want {
		t.Errorf("passage %q, want %q", r.passages, want)
	}
}

func TestRerankFailureKeepsFusedOrder(t *testing.T) {
	r := &lengthReranker{err: errors.New("session closed")}
	e := rerankEngine(t, r, 0)
	req := Request{Query: "bread dough water flour", Limit: 10}
	got := mustSearch(t, e, req)
	if want := mustSearch(t, testEngine(t), req); !reflect.DeepEqual(hitPaths(got), hitPaths(want)) {
		t.Errorf("order %v, want the fused %v", hitPaths(got), hitPaths(want))
	}
	if got.SignalErrors[rankers.SignalRerank] != "session closed" || slices.Contains(got.SignalsUsed, rankers.SignalRerank) {
		t.Errorf("errors %v, used %v", got.SignalErrors, got.SignalsUsed)
	}
	if len(r.passages) != min(rankers.DefaultRerankTopN, got.TotalCandidates) {
		t.Errorf("reranker got %d passages, want min(%d, %d)", len(r.passages), rankers.DefaultRerankTopN, got.TotalCandidates)
	}
}
