package main

import (
	"context"
	"errors"
	"flag"

	"github.com/enquire-mcp/enquire-mcp/embed/models"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
)

// maxRerankTopN bounds --rerank-top-n: each passage is one cross-encoder
// run of up to 512 tokens.
const maxRerankTopN = 1000

// rerankFlags choose a cross-encoder for the searching commands.
type rerankFlags struct {
	model string
	topN  int
}

func (r *rerankFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.model, "rerank", "", "re-order the top hits with this cross-encoder (ms-marco-MiniLM-L-6-v2, bge-reranker-base or a model folder; installed with install-model; the ort build only)")
	fs.IntVar(&r.topN, "rerank-top-n", rankers.DefaultRerankTopN, "how many fused hits the reranker re-scores")
}

// open loads the reranker, or returns nil without --rerank. A model that
// is unknown, not installed, or needs the ort build is an error: the
// server does not start without the reranker it was asked for.
func (r *rerankFlags) open(ctx context.Context, opts models.Options) (search.Reranker, error) {
	if r.model == "" {
		return nil, nil
	}
	if r.topN < 1 || r.topN > maxRerankTopN {
		return nil, usageError("--rerank-top-n must be 1-%d, not %d", maxRerankTopN, r.topN)
	}
	rr, err := models.OpenReranker(ctx, r.model, opts)
	if errors.Is(err, models.ErrUnknown) {
		return nil, usageError("--rerank: %v", err)
	}
	return rr, err
}
