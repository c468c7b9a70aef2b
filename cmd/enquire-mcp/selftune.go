package main

import (
	"context"
	"encoding/json"
	"os"

	"github.com/enquire-mcp/enquire-mcp/search"
)

// selfTuneVersion changes when the self-tuning rule or its constants do,
// so that a kept choice made by another rule is made again.
const selfTuneVersion = 1

// savedTuning is the self-tuned choice kept next to the index.
type savedTuning struct {
	Version int `json:"version"`
	// Root is the vault the choice was made for: an index file given by
	// hand may be reused for another vault.
	Root   string        `json:"root"`
	Tuning search.Tuning `json:"tuning"`
}

// selfTunePath is where the choice is kept: beside the index file.
func selfTunePath(indexPath string) string { return indexPath + ".selftune.json" }

// applySelfTune gives the engine the weights the vault's own known-item
// queries choose (search.Engine.SelfTune). The choice is read from the
// file beside the index when this version made it, else computed now (one
// search per query, a few seconds on a large vault) and kept there; the
// index command always computes it again. Skipped with --rrf-weights or
// --no-self-tune, and without the persistent index (no BM25 to weigh).
func (l *loaded) applySelfTune(ctx context.Context) {
	switch {
	case len(l.flags.weights.m) > 0:
		l.tuneWhy = "off: --rrf-weights given"
		return
	case l.flags.noSelfTune:
		l.tuneWhy = "off: --no-self-tune"
		return
	case l.ix == nil:
		l.tuneWhy = "off: no persistent index (no BM25 signal)"
		return
	}
	path := selfTunePath(l.ix.Path())
	t, ok := readTuning(path, l.root)
	if !ok || l.flags.retune {
		var err error
		if t, err = l.eng.SelfTune(ctx); err != nil {
			l.logger.Warn("self-tuning the weights failed; the defaults stay", "err", err)
			l.tuneWhy = "off: " + err.Error()
			return
		}
		if err := writeTuning(path, l.root, t); err != nil {
			l.logger.Warn("could not keep the self-tuned weights; they will be computed again at the next start", "err", err)
		}
	}
	l.tuneWhy = t.Why
	l.searchOpts.Tuning = t
	l.eng = l.eng.WithTuning(t)
}

// readTuning reads a kept choice; false when there is none of this
// version for this vault.
func readTuning(path, root string) (search.Tuning, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return search.Tuning{}, false
	}
	var s savedTuning
	if json.Unmarshal(raw, &s) != nil || s.Version != selfTuneVersion || s.Root != root || s.Tuning.Why == "" {
		return search.Tuning{}, false
	}
	return s.Tuning, true
}

// writeTuning keeps a choice (written to a temporary file, then renamed).
func writeTuning(path, root string, t search.Tuning) error {
	raw, err := json.MarshalIndent(savedTuning{Version: selfTuneVersion, Root: root, Tuning: t}, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, raw, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
