package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/enquire-mcp/enquire-mcp/edit"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/service"
	"github.com/enquire-mcp/enquire-mcp/stdio"
	"github.com/enquire-mcp/enquire-mcp/tools"
	"github.com/enquire-mcp/enquire-mcp/watch"
)

// serveFlags are the flags of serve alone.
type serveFlags struct {
	enableWrite         bool
	enabled, disabled   string
	dailyFolder, dailyF string
	watch               bool
	poll                time.Duration
	maxReply            int
	maxFileSize         int64 // the vault flag, for the tools' size checks
	enableMemory        bool
	memoryFolder        string
	memLimit            memLimitFlag
}

func runServe(ctx context.Context, args []string, _, stderr io.Writer) error {
	fs := newFlagSet("serve", "--vault PATH [flags]", stderr)
	var vf vaultFlags
	vf.register(fs)
	var sf serveFlags
	sf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	vf.noteGiven(fs, contentKeep)
	if err := sf.check(); err != nil {
		return err
	}
	logger := stderrLogger(stderr)
	vf.keepState = true
	l, err := vf.load(ctx, logger)
	if err != nil {
		return err
	}
	defer l.CloseOrWarn()
	defer sf.memLimit.apply(logger)()
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	sf.maxFileSize = vf.maxFileSize
	srv, _ := sf.newServer(ctx, l, vf.indexWhy, logger, "stdio")
	if err := srv.MCP().Run(ctx, stdio.Std(logger)); err != nil && ctx.Err() == nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// register adds the flags serve and serve-http share.
func (sf *serveFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&sf.enableWrite, "enable-write", false, "register the write tools (create, append, set frontmatter, rename) and the memory tools; without it (and --enable-memory) the vault is never written")
	fs.StringVar(&sf.enabled, "enabled-tools", "", "comma-separated tool names: register only these")
	fs.StringVar(&sf.disabled, "disabled-tools", "", "comma-separated tool names never to register")
	fs.StringVar(&sf.dailyFolder, "daily-folder", "", "folder of daily notes for the \"today\"/\"yesterday\" titles (default: from .obsidian/daily-notes.json)")
	fs.StringVar(&sf.dailyF, "daily-format", "", "moment.js name format of daily notes (default: from .obsidian/daily-notes.json, else YYYY-MM-DD)")
	fs.BoolVar(&sf.watch, "watch", true, "follow changes made to the vault while serving (file events; --watch=false: only at start and after write tools)")
	fs.DurationVar(&sf.poll, "poll", 0, "follow changes by rescanning the vault at this interval instead of file events (network and synced folders), e.g. 2s")
	fs.IntVar(&sf.maxReply, "max-reply-bytes", tools.DefaultMaxReplyBytes, "byte budget of one tool reply; a bigger reply is an error that says how to page")
	fs.BoolVar(&sf.enableMemory, "enable-memory", false, "register obsidian_remember and obsidian_forget (memories are notes in --memory-folder); --enable-write registers them too")
	fs.StringVar(&sf.memoryFolder, "memory-folder", tools.DefaultMemoryFolder, "vault-relative folder where obsidian_remember writes memories")
	fs.Var(&sf.memLimit, "memory-limit", "Go soft memory limit once the vault is loaded: auto (the live heap plus a quarter of it plus 64MiB, followed as it changes; GOMEMLIMIT in the environment wins), off (Go's default, GOGC), or a size such as 600MiB")
}

// check validates the shared flags after parsing.
func (sf *serveFlags) check() error {
	if sf.poll < 0 || sf.poll > 0 && sf.poll < 100*time.Millisecond {
		return usageError("--poll %s: give an interval of at least 100ms", sf.poll)
	}
	if err := atLeast("max-reply-bytes", sf.maxReply, 1); err != nil {
		return err
	}
	if _, err := tools.MemoryFolder(sf.memoryFolder); err != nil {
		return usageError("--memory-folder: %v", err)
	}
	return nil
}

// newServer builds the one MCP server over the loaded vault (serve and
// serve-http alike), follows the vault until ctx ends, and logs the
// ready line (indexWhy says why the index is used or not). The channel
// is closed once the vault is no longer followed.
func (sf *serveFlags) newServer(ctx context.Context, l *service.Vault, indexWhy string, logger *slog.Logger, transport string) (*tools.Server, <-chan struct{}) {
	var w *watch.Watcher
	if sf.watch || sf.poll > 0 {
		w = watch.New(l.Root(), watch.Options{Poll: sf.poll, Logger: logger})
	}
	toolsLogger := logger
	if transport == "http" {
		// The SDK logs every stateless request's session at info level.
		toolsLogger = slog.New(minLevel{logger.Handler(), slog.LevelWarn})
	}
	var trash *edit.SystemTrash
	if sf.enableWrite {
		if t, err := edit.FindSystemTrash(); err == nil {
			trash = &t
		} else {
			logger.Info("deleted notes go to the vault's .trash folder", "why", err.Error())
		}
	}
	eng := l.Engine() // the watcher swaps the engine from Follow on
	srv := tools.New(eng, tools.Options{
		SystemTrash: trash,
		Version:     version, Logger: toolsLogger, EnableWrite: sf.enableWrite,
		EnabledTools: splitList(sf.enabled), DisabledTools: splitList(sf.disabled),
		Reload:        l.Reload,
		Live:          liveStatus(l, w),
		DailyNotes:    tools.DailyNotes{Folder: sf.dailyFolder, Format: sf.dailyF},
		MaxReplyBytes: sf.maxReply, MaxFileSize: sf.maxFileSize,
		EnableMemory: sf.enableMemory, MemoryFolder: sf.memoryFolder,
	})
	l.OnSwap(srv.Swap)
	warnUnknownTools(srv, *sf, logger)
	done := l.Follow(ctx, w)
	snap := eng.Snapshot()
	if sf.enableWrite || sf.enableMemory {
		cleanStaleTemp(ctx, snap, time.Now(), logger)
	}
	logger.Info(fmt.Sprintf("enquire-mcp %s ready", version), "vault", snap.Root, "notes", len(snap.Notes),
		"attachments", len(snap.Attachments), "warnings", len(snap.Warnings), "signals", eng.Signals(), "index", indexWhy,
		"tools", len(srv.Registered()), "write", sf.enableWrite, "live", liveMode(*sf), "load_ms", l.Status().Took.Milliseconds(), "start", l.Status().Start, "transport", transport,
		"query_text_sent_to", sentTo(eng))
	return srv, done
}

// liveStatus is what obsidian_stats and vault/info report.
func liveStatus(l *service.Vault, w *watch.Watcher) func() tools.LiveStatus {
	return func() tools.LiveStatus {
		mode := string(watch.ModeOff)
		if w != nil {
			mode = string(w.Mode())
		}
		return tools.LiveStatus{Mode: mode, LastChange: l.LastChange()}
	}
}

// liveMode is how serve follows the vault, for the ready line.
func liveMode(sf serveFlags) string {
	switch {
	case sf.poll > 0:
		return fmt.Sprintf("poll every %s", sf.poll)
	case sf.watch:
		return "watch"
	}
	return "off"
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// sentTo says, for the ready line, where search query text goes: "none"
// (nothing leaves the machine) or the remote embedding model's ID, which
// holds its host.
func sentTo(eng *search.Engine) string {
	if r := eng.RemoteEmbeddings(); r != "" {
		return r
	}
	return "none"
}
