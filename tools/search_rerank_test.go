package tools

import (
	"testing"

	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
)

func TestSearchOutputRerank(t *testing.T) {
	on := true
	if req := (SearchInput{Query: "q", Rerank: &on}).Request(); req.Rerank == nil || !*req.Rerank {
		t.Errorf("rerank not passed on: %+v", req.Rerank)
	}
	if req := (SearchInput{Query: "q"}).Request(); req.Rerank != nil {
		t.Errorf("absent rerank became %v", *req.Rerank)
	}
	out := NewSearchOutput(&search.Result{Query: "q", Hits: []search.Hit{{Path: "a.md", Signals: map[string]rankers.SignalHit{
		rankers.SignalRerank: {Rank: 1, Score: 4.5}, rankers.SignalTFIDF: {Rank: 2, Score: 0.3}}}}})
	ps := out.Matches[0].PerSignal
	if ps.Rerank == nil || ps.Rerank.Rank != 1 || ps.Rerank.Score != 4.5 || ps.TFIDF == nil {
		t.Errorf("per_signal %+v", ps)
	}
}
