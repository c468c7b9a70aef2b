package main

import (
	"flag"
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// tuneFlags may force BM25's b (serve, serve-http, search, eval).
type tuneFlags struct {
	bm25B unitFlag
}

// register adds --bm25-b and the removed ranking flags that are still
// accepted (registerRemovedTuning).
func (t *tuneFlags) register(fs *flag.FlagSet) {
	registerRemovedTuning(fs)
	fs.Var(&t.bm25B, "bm25-b", fmt.Sprintf("BM25's length normalisation b, 0-1, for every search (default %g)", rankers.BM25B))
}

// registerRemovedTuning accepts the flags of the per-vault weight
// self-tuning and of the BM25 proximity bonus, which are gone: a client
// config written while they existed must still start the server, so each
// is a hidden no-op that says so on stderr.
func registerRemovedTuning(fs *flag.FlagSet) {
	const why = "the default ranking is used"
	removedFlag(fs, "self-tune", true, why)
	removedFlag(fs, "no-self-tune", true, why)
	removedFlag(fs, "self-tune-rule", false, why)
	removedFlag(fs, "bm25-proximity", true, why)
}

// bm25 is the engine's forced k1 and b: the zero value (the defaults)
// unless --bm25-b was given.
func (t *tuneFlags) bm25() index.BM25Params {
	if !t.bm25B.set {
		return index.BM25Params{}
	}
	return index.BM25Params{K1: rankers.BM25K1, B: t.bm25B.v}
}
