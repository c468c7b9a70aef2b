package main

import (
	"context"
	"log/slog"
	"runtime"
	"time"

	"github.com/enquire-mcp/enquire-mcp/tools"
)

const (
	// defaultWarmSearches is serve-http's --warmup: enough calls for the
	// per-call cost to settle (the first few hundred calls of a fresh
	// process cost up to twice the later ones).
	defaultWarmSearches = 256
	// warmBudget bounds the warm-up's wall time, whatever the vault's
	// size.
	warmBudget = 2 * time.Second
	// warmParallelPerCPU is the warm-up's calls in flight per CPU: several,
	// so the heap grows toward what concurrent clients will use.
	warmParallelPerCPU = 4
)

// warmUp runs srv's warm-up (see tools.Server.Warm) before serve-http
// says it is ready, and logs what it did.
func warmUp(ctx context.Context, srv *tools.Server, searches int, logger *slog.Logger) {
	if searches <= 0 {
		return
	}
	st, err := srv.Warm(ctx, tools.WarmOptions{
		Searches: searches, Parallel: warmParallelPerCPU * runtime.GOMAXPROCS(0), Budget: warmBudget,
	})
	if err != nil {
		logger.Warn("warm-up skipped", "err", err)
		return
	}
	logger.Info("warmed up", "calls", st.Calls, "errors", st.Errors, "ms", st.Took.Milliseconds())
}
