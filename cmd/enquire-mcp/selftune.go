package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
)

// tunePendingWhy is what vault/info and the ready line say while serve
// computes the choice in the background.
const tunePendingWhy = "pending: the vault's own queries are choosing in the background; the defaults serve until then"

// savedTuning is the self-tuned choice kept in the index's meta table.
type savedTuning struct {
	// Version is the rule that made the choice (search.Rule): a choice
	// of another rule than the one in use is made again.
	Version int `json:"version"`
	// Root is the vault the choice was made for: an index file given by
	// hand may be reused for another vault.
	Root   string        `json:"root"`
	Tuning search.Tuning `json:"tuning"`
}

// selfTuneOffWhy is what vault/info, eval and index say when self-tuning
// was not asked for.
const selfTuneOffWhy = "off: the default weights (--self-tune lets the vault choose)"

// applySelfTune, under --self-tune, gives the engine the weights the
// vault's own known-item queries choose (search.Engine.SelfTune). The
// choice is read from the index when this version made it for this
// vault, else computed now (one search per query, seconds on a large
// vault) and kept there; the index command always computes it again.
// serve and serve-http (tuneLater) do not compute it here: they become
// ready with the defaults and tuneInBackground computes it. Skipped with
// --rrf-weights, without --self-tune, and without the persistent index
// (no BM25 to weigh).
func (l *loaded) applySelfTune(ctx context.Context) {
	switch {
	case len(l.flags.weights.m) > 0:
		l.tuneWhy = "off: --rrf-weights given"
		return
	case !l.flags.tune.tuning():
		l.tuneWhy = selfTuneOffWhy
		return
	case l.ix == nil:
		l.tuneWhy = "off: no persistent index (no BM25 signal)"
		return
	}
	if !l.flags.retune {
		if t, ok := l.keptTuning(ctx); ok {
			l.useTuning(t)
			return
		}
	}
	if l.flags.tuneLater {
		l.tunePending = true
		l.useTuning(search.Tuning{Why: tunePendingWhy})
		return
	}
	start := time.Now()
	t, err := l.eng.SelfTune(ctx, l.flags.tune.selfTuneRule())
	if err != nil {
		l.logger.Warn("self-tuning the weights failed; the defaults stay", "err", err)
		l.tuneWhy = "off: " + err.Error()
		return
	}
	l.tuneTook = time.Since(start)
	l.keepTuning(t)
	l.useTuning(t)
}

// tuneSummary says which weights the engine uses and, when they were
// chosen now, how long that took (the index command prints it).
func (l *loaded) tuneSummary() string {
	if l.tuneTook == 0 {
		return l.tuneWhy
	}
	return fmt.Sprintf("%s (chosen in %s)", l.tuneWhy, l.tuneTook.Round(time.Millisecond))
}

// useTuning makes t the engine's weights and those of every later engine
// (live updates and reloads start from l.searchOpts).
func (l *loaded) useTuning(t search.Tuning) {
	l.tuneWhy = t.Why
	l.searchOpts.Tuning = t
	l.eng = l.eng.WithTuning(t)
}

// keptTuning reads the choice kept in the index; false when there is none
// of this version for this vault.
func (l *loaded) keptTuning(ctx context.Context) (search.Tuning, bool) {
	raw, err := l.ix.SelfTune(ctx)
	if err != nil {
		l.logger.Warn("could not read the kept self-tuned weights; choosing again", "err", err)
		return search.Tuning{}, false
	}
	return decodeTuning(raw, l.root, l.flags.tune.selfTuneRule())
}

// keepTuning keeps t in the index; a failure only costs a new choice at
// the next start.
func (l *loaded) keepTuning(t search.Tuning) {
	raw, err := encodeTuning(l.root, l.flags.tune.selfTuneRule(), t)
	if err == nil {
		err = l.ix.KeepSelfTune(raw)
	}
	if err != nil {
		l.logger.Warn("could not keep the self-tuned weights; they will be computed again at the next start", "err", err)
	}
}

// decodeTuning reads a kept choice; false when there is none of this
// rule for this vault, or it is damaged.
func decodeTuning(raw, root string, rule search.Rule) (search.Tuning, bool) {
	var s savedTuning
	if raw == "" || json.Unmarshal([]byte(raw), &s) != nil || s.Version != int(rule) || s.Root != root || s.Tuning.Why == "" ||
		!(s.Tuning.BM25B >= 0 && s.Tuning.BM25B <= 1) {
		return search.Tuning{}, false
	}
	return s.Tuning, true
}

// encodeTuning is the kept form of t, made by rule for the vault at root.
func encodeTuning(root string, rule search.Rule, t search.Tuning) (string, error) {
	raw, err := json.Marshal(savedTuning{Version: int(rule), Root: root, Tuning: t})
	return string(raw), err
}

// tuneInBackground makes the choice applySelfTune left pending, after
// the server is ready: at most rankers.SelfTuneBackgroundBudget, stopped
// by ctx or Close. The choice is kept in the index and swapped in as a
// live update is (under l.mu, through l.swap), then logged. Call it once,
// after newServer set l.onSwap.
func (l *loaded) tuneInBackground(ctx context.Context) {
	if !l.tunePending {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, rankers.SelfTuneBackgroundBudget)
	l.tuneCancel, l.tuneDone = cancel, make(chan struct{})
	l.mu.Lock()
	eng := l.eng
	l.mu.Unlock()
	go func() {
		defer close(l.tuneDone)
		defer cancel()
		rule := l.flags.tune.selfTuneRule()
		choose := func(e *search.Engine, ctx context.Context) (search.Tuning, error) { return e.SelfTune(ctx, rule) }
		if l.tuneChoose != nil {
			choose = l.tuneChoose
		}
		start := time.Now()
		t, err := choose(eng, ctx)
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			l.logger.Warn(fmt.Sprintf("self-tuning the weights took over %s; the defaults stay (enquire-mcp index computes the choice without a bound)", rankers.SelfTuneBackgroundBudget))
			return
		case err != nil && ctx.Err() != nil:
			return // shutting down
		case err != nil:
			l.logger.Warn("self-tuning the weights failed; the defaults stay", "err", err)
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		l.keepTuning(t)
		l.useTuning(t)
		l.swap(l.eng)
		l.logger.Info("self-tuned weights applied", "weights_chosen_by", t.Why, "ms", time.Since(start).Milliseconds())
		if l.tuneApplied != nil {
			l.tuneApplied(t)
		}
	}()
}

// stopTuning cancels a background choice and waits for it (Close does,
// before the index closes).
func (l *loaded) stopTuning() {
	if l.tuneCancel != nil {
		l.tuneCancel()
		<-l.tuneDone
	}
}
