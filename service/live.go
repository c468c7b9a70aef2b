package service

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/watch"
)

// Reload brings the engine up to date with the files at paths after a
// write tool changed them (nil: reload the whole vault), and hands the
// new engine to the function OnSwap set. Calls are serialised with the
// live watcher's.
func (l *Vault) Reload(ctx context.Context, paths []string) (*search.Engine, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if paths == nil {
		e, err := l.build(ctx, "", true)
		if err != nil {
			return nil, err
		}
		l.swap(e)
		return e, nil
	}
	if err := l.update(ctx, paths); err != nil {
		return nil, err
	}
	return l.eng, nil
}

// Apply applies one change set of the live watcher. A failure is logged:
// the server keeps the engine it has, and the next change set (or rescan)
// repairs what this one missed.
func (l *Vault) Apply(ctx context.Context, ch watch.Change) {
	l.mu.Lock()
	defer l.mu.Unlock()
	paths := ch.Paths
	if ch.Rescan {
		changed, err := l.eng.Snapshot().Changed(ctx)
		if err != nil {
			if ctx.Err() == nil {
				l.warnOnce("live vault: rescan failed; answers stay as they are", err)
			}
			return
		}
		paths = append(paths, changed...)
		if statRules(l.root) != l.rulesAt {
			paths = append(paths, watch.RulesFile)
		}
	}
	if len(paths) == 0 {
		return
	}
	if slices.ContainsFunc(paths, func(p string) bool { return p == watch.RulesFile || p == path.Dir(watch.RulesFile) }) {
		// New privacy rules change what every note may show: load anew.
		e, err := l.build(ctx, "", true)
		if err != nil {
			l.warnOnce("live vault: reloading after a change of "+watch.RulesFile+" failed", err)
			return
		}
		l.swap(e)
		l.lastChange.Store(time.Now().UnixNano())
		return
	}
	if err := l.update(ctx, paths); err != nil && ctx.Err() == nil {
		l.warnOnce("live vault: applying a change failed; it is retried with the next change", err)
	}
}

// warnOnce logs a live-mode problem, but not the same one twice in a row.
func (l *Vault) warnOnce(msg string, err error) {
	if text := err.Error(); text != l.lastWarn {
		l.lastWarn = text
		l.logger.Warn(msg, "err", err)
	}
}

// update re-reads the files at paths and updates the snapshot, the index
// (those paths only), the vectors of changed chunks and the engine, then
// swaps the new engine in. l.mu is held.
func (l *Vault) update(ctx context.Context, paths []string) error {
	start := time.Now()
	cur := l.eng
	old := cur.Snapshot()
	snap, d, err := old.Update(ctx, paths, l.vaultOpts)
	if err != nil {
		return err
	}
	if !d.Changed() && sameTimes(old, snap) && old.Privacy.HiddenNotes == snap.Privacy.HiddenNotes && old.Privacy.HiddenFiles == snap.Privacy.HiddenFiles {
		return nil // a new hidden file changes nothing shown, but the counts
	}
	l.logNewWarnings(old, snap)
	opts := l.searchOpts
	var synced time.Duration
	if l.ix != nil {
		var scoped []*vault.Note
		seen := map[int]bool{}
		for _, p := range paths {
			for _, i := range snap.Under(p) {
				if !seen[i] { // a folder and a note in it may both have changed
					seen[i] = true
					scoped = append(scoped, snap.Notes[i])
				}
			}
		}
		t := time.Now()
		if err := l.syncIndex(ctx, snap, index.NotesSource(snap, scoped, paths), "", true, &opts); err != nil {
			return err
		}
		synced = time.Since(t)
	}
	eng, err := cur.Update(ctx, snap, d, opts)
	if err != nil {
		return fmt.Errorf("update the engine: %w", err)
	}
	l.swap(eng)
	l.lastChange.Store(time.Now().UnixNano())
	l.lastWarn = ""
	l.logger.Debug("live vault: change applied", "paths", len(paths), "added", len(d.Added), "removed", len(d.Removed),
		"relinked", len(d.Relinked), "index_ms", synced.Milliseconds(), "ms", time.Since(start).Milliseconds())
	return nil
}

// sameTimes reports whether no note's size or time changed (a delta says
// nothing about a touched file whose content stayed the same).
func sameTimes(a, b *vault.Snapshot) bool {
	return len(a.Notes) == len(b.Notes) && slices.EqualFunc(a.Notes, b.Notes, func(x, y *vault.Note) bool { return x == y })
}

// logNewWarnings logs the warnings snap has and old had not.
func (l *Vault) logNewWarnings(old, snap *vault.Snapshot) {
	seen := make(map[vault.Warning]bool, len(old.Warnings))
	for _, w := range old.Warnings {
		seen[w] = true
	}
	for _, w := range snap.Warnings {
		if !seen[w] {
			l.logger.Warn("vault", "path", w.Path, "problem", w.Message)
		}
	}
}

// swap makes e the engine and hands it to the server (l.mu is held).
func (l *Vault) swap(e *search.Engine) {
	l.eng = e
	l.vectors.sawEngine(l, e)
	if l.onSwap != nil {
		l.onSwap(e)
	}
	l.saveSoon(stateSaveDelay)
}

// fileStamp is what a rescan compares of the privacy rules file.
type fileStamp struct {
	exists  bool
	size    int64
	modNano int64
}

// statRules stamps the vault's privacy rules file (the zero stamp when
// there is none).
func statRules(root string) fileStamp {
	info, err := os.Stat(filepath.Join(root, filepath.FromSlash(watch.RulesFile)))
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{true, info.Size(), info.ModTime().UnixNano()}
}

// Follow keeps the engine current until ctx ends: it applies the change
// sets w reports (nil: none; writes still reload through Reload) and
// picks up the vectors another process writes into the index. The
// channel it returns is closed once both have stopped: no change is
// applied after that.
func (l *Vault) Follow(ctx context.Context, w *watch.Watcher) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		followed := make(chan struct{})
		go func() {
			defer close(followed)
			l.followVectors(ctx, vectorPollEvery)
		}()
		if w != nil {
			w.Run(ctx, l.Apply)
		}
		<-followed
	}()
	return done
}
