// Package watch follows a vault on disk and hands its changes, coalesced
// into change sets, to whoever keeps an engine up to date. It uses file
// events (fsnotify, every folder watched, new folders added as they
// appear) or, for network and synced folders where events do not arrive,
// a periodic rescan; when events fail (the watch limit, the vault folder
// removed) it says so once and falls back to rescans.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/privacy"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Mode is how a vault is followed.
type Mode string

// The modes.
const (
	ModeWatch Mode = "watch" // file events
	ModePoll  Mode = "poll"  // periodic rescans
	ModeOff   Mode = "off"
)

// RulesFile is the vault's privacy rules file: inside a dot-folder, so
// otherwise ignored, but a change to it changes what may be shown.
const RulesFile = privacy.IgnoreFile

// Defaults for Options.
const (
	DefaultQuiet    = 150 * time.Millisecond
	DefaultMaxDelay = time.Second
	// FallbackPoll is the rescan interval after file events failed.
	FallbackPoll = 2 * time.Second
)

// Change is one change set: the vault-relative paths that changed (a
// folder stands for everything under it), or, with Rescan, "anything may
// have changed": the receiver compares the vault on disk with what it
// holds (after an event overflow, and on every poll).
type Change struct {
	Paths  []string
	Rescan bool
}

// Options tune a Watcher.
type Options struct {
	// Quiet is how long no event must arrive before a change set is
	// applied (0: DefaultQuiet): an editor's save-through-rename and a
	// burst of writes become one set.
	Quiet time.Duration
	// MaxDelay caps the wait from a set's first event (0: DefaultMaxDelay),
	// so that continuous typing still shows up.
	MaxDelay time.Duration
	// Poll, when positive, rescans at this interval instead of using file
	// events.
	Poll time.Duration
	// Logger gets the one line that says events failed (nil: discard).
	Logger *slog.Logger
}

// Watcher follows one vault. Its methods are safe for concurrent use.
type Watcher struct {
	root string
	opts Options
	log  *slog.Logger

	mu   sync.Mutex
	mode Mode
}

// New follows the vault whose real (symlink-free) root is root.
func New(root string, opts Options) *Watcher {
	if opts.Quiet <= 0 {
		opts.Quiet = DefaultQuiet
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = DefaultMaxDelay
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Watcher{root: root, opts: opts, log: log, mode: ModeOff}
}

// Mode is how the vault is followed now.
func (w *Watcher) Mode() Mode {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.mode
}

func (w *Watcher) setMode(m Mode) {
	w.mu.Lock()
	w.mode = m
	w.mu.Unlock()
}

// Run follows the vault until ctx ends, calling apply with each change
// set, one at a time, on the goroutine that called Run. The first set is
// a rescan once the file events are watched, so a change made at any
// moment after the receiver's own scan is applied.
func (w *Watcher) Run(ctx context.Context, apply func(context.Context, Change)) {
	defer w.setMode(ModeOff)
	if w.opts.Poll > 0 {
		w.poll(ctx, w.opts.Poll, apply)
		return
	}
	err := w.events(ctx, apply)
	if ctx.Err() != nil {
		return
	}
	w.log.Warn(fmt.Sprintf("live vault: file events stopped (%v); rescanning every %s instead", err, FallbackPoll))
	apply(ctx, Change{Rescan: true}) // whatever happened while events failed
	w.poll(ctx, FallbackPoll, apply)
}

// poll rescans at every tick. A rescan with no change costs the receiver a
// stat walk; nothing runs between ticks.
func (w *Watcher) poll(ctx context.Context, every time.Duration, apply func(context.Context, Change)) {
	w.setMode(ModePoll)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			apply(ctx, Change{Rescan: true})
		}
	}
}

// events follows file events until ctx ends (nil) or they fail.
func (w *Watcher) events(ctx context.Context, apply func(context.Context, Change)) error {
	fw, err := fsnotify.NewBufferedWatcher(4096)
	if err != nil {
		return err
	}
	defer fw.Close()
	if err := w.addTree(fw, w.root); err != nil {
		return err
	}
	// What changed between the receiver's scan and the watches being in
	// place sent no event: one rescan catches it, and Mode says "watch"
	// only once the receiver is up to date with the disk.
	apply(ctx, Change{Rescan: true})
	w.setMode(ModeWatch)
	set := newPending(w.opts)
	defer set.stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				return errors.New("the event channel closed")
			}
			if err := w.event(fw, ev, set); err != nil {
				set.flush(ctx, apply)
				return err
			}
		case err, ok := <-fw.Errors:
			switch {
			case !ok:
				return errors.New("the error channel closed")
			case errors.Is(err, fsnotify.ErrEventOverflow):
				set.rescan()
			default:
				set.flush(ctx, apply)
				return err
			}
		case <-set.due():
			if err := w.rewatch(fw, set); err != nil {
				set.flush(ctx, apply)
				return err
			}
			set.flush(ctx, apply)
		}
	}
}

// event records one event; a new folder gets watched (with its subfolders)
// and counts as changed as a whole, since files written into it before
// its watch existed sent no event.
func (w *Watcher) event(fw *fsnotify.Watcher, ev fsnotify.Event, set *pending) error {
	rel, ok := w.rel(ev.Name)
	if !ok {
		return nil
	}
	if rel == "" {
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			return fmt.Errorf("the vault folder %s was removed or moved", w.root)
		}
		return nil
	}
	if hidden(rel) && rel != RulesFile && rel != path.Dir(RulesFile) {
		return nil
	}
	// A folder created here, or one whose watch fsnotify just dropped
	// because it saw the folder move (it then reports a rename at the
	// folder's current path, which still exists), is watched anew.
	if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Rename) || ev.Has(fsnotify.Remove) {
		if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() {
			if err := w.watchMoved(fw, ev.Name); err != nil {
				return err
			}
			set.dirs = append(set.dirs, ev.Name)
		}
	}
	set.add(rel)
	return nil
}

// rewatch watches the folders that appeared in a change set once more,
// just before it is applied: a folder moved within the vault keeps its
// inotify watch, which fsnotify drops when it sees the move (IN_MOVE_SELF),
// possibly after the first add. What changed in between is covered: the
// folder is in the change set and is read whole when it is applied.
func (w *Watcher) rewatch(fw *fsnotify.Watcher, set *pending) error {
	for _, dir := range set.dirs {
		if info, err := os.Lstat(dir); err == nil && info.IsDir() {
			if err := w.watchMoved(fw, dir); err != nil {
				return err
			}
		}
	}
	set.dirs = nil
	return nil
}

// watchMoved watches a folder that appeared, perhaps by a move within the
// vault. Its subfolders then still have their inotify watches, which
// fsnotify keeps under their old paths (adding the new path returns the
// old watch), so their events would name paths that no longer exist:
// watches of folders gone from their path are dropped first.
func (w *Watcher) watchMoved(fw *fsnotify.Watcher, dir string) error {
	for _, p := range fw.WatchList() {
		if info, err := os.Lstat(p); err != nil || !info.IsDir() {
			_ = fw.Remove(p) // already gone from inotify is fine
		}
	}
	return w.addTree(fw, dir)
}

// addTree watches dir and every folder under it, skipping the folders a
// vault load skips and never following a symlink.
func (w *Watcher) addTree(fw *fsnotify.Watcher, dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // a folder that vanished or cannot be read: its parent's events still come
		}
		if !d.IsDir() {
			return nil
		}
		if p != w.root && vault.Skipped(d.Name()) && p != filepath.Join(w.root, filepath.FromSlash(path.Dir(RulesFile))) {
			return filepath.SkipDir
		}
		if err := fw.Add(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return fmt.Errorf("watch %s: %w (on Linux, raise fs.inotify.max_user_watches or use --poll)", p, err)
		}
		return nil
	})
}

// rel is the vault-relative, slash-separated NFC path of an event.
func (w *Watcher) rel(name string) (string, bool) {
	rel, err := filepath.Rel(w.root, name)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	if rel == "." {
		return "", true
	}
	return norm.NFC.String(filepath.ToSlash(rel)), true
}

func hidden(rel string) bool {
	for part := range strings.SplitSeq(rel, "/") {
		if vault.Skipped(part) {
			return true
		}
	}
	return false
}

// pending is the change set being collected, with its two deadlines: the
// quiet period after the last event and the cap after the first.
type pending struct {
	opts   Options
	dirs   []string // folders created in this set (absolute)
	paths  map[string]bool
	order  []string
	all    bool
	first  time.Time
	timer  *time.Timer
	active bool
}

func newPending(opts Options) *pending {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &pending{opts: opts, paths: map[string]bool{}, timer: t}
}

func (p *pending) add(rel string) {
	if !p.paths[rel] {
		p.paths[rel] = true
		p.order = append(p.order, rel)
	}
	p.arm()
}

func (p *pending) rescan() {
	p.all = true
	p.arm()
}

// arm (re)starts the quiet period, never past the cap.
func (p *pending) arm() {
	now := time.Now()
	if !p.active {
		p.active, p.first = true, now
	}
	wait := min(p.opts.Quiet, p.first.Add(p.opts.MaxDelay).Sub(now))
	p.timer.Reset(max(wait, 0))
}

// due fires when the set should be applied (never while it is empty).
func (p *pending) due() <-chan time.Time { return p.timer.C }

func (p *pending) flush(ctx context.Context, apply func(context.Context, Change)) {
	if !p.active {
		return
	}
	ch := Change{Paths: p.order, Rescan: p.all}
	p.paths, p.order, p.all, p.active = map[string]bool{}, nil, false, false
	p.timer.Stop()
	apply(ctx, ch)
}

func (p *pending) stop() { p.timer.Stop() }
