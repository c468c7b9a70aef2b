package rankers_test

import (
	"testing"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// TestFieldWeightsAreBM25s: TF-IDF's default field weights are the ones
// BM25's FTS5 column weights are made of (index.DefaultFieldWeights).
func TestFieldWeightsAreBM25s(t *testing.T) {
	if rankers.DefaultFieldWeights != index.DefaultFieldWeights() {
		t.Fatalf("TF-IDF weighs fields %+v, BM25 %+v", rankers.DefaultFieldWeights, index.DefaultFieldWeights())
	}
}
