package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/tools"
)

// serveFlags are the flags of serve alone.
type serveFlags struct {
	enableWrite         bool
	enabled, disabled   string
	dailyFolder, dailyF string
}

func runServe(ctx context.Context, args []string, _, stderr io.Writer) error {
	fs := newFlagSet("serve", "--vault PATH [flags]", stderr)
	var vf vaultFlags
	vf.register(fs)
	var sf serveFlags
	fs.BoolVar(&sf.enableWrite, "enable-write", false, "register the write tools (create, append, set frontmatter, rename); without it the vault is never written")
	fs.StringVar(&sf.enabled, "enabled-tools", "", "comma-separated tool names: register only these")
	fs.StringVar(&sf.disabled, "disabled-tools", "", "comma-separated tool names never to register")
	fs.StringVar(&sf.dailyFolder, "daily-folder", "", "folder of daily notes for the \"today\"/\"yesterday\" titles (default: from .obsidian/daily-notes.json)")
	fs.StringVar(&sf.dailyF, "daily-format", "", "moment.js name format of daily notes (default: from .obsidian/daily-notes.json, else YYYY-MM-DD)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	logger := stderrLogger(stderr)
	l, err := vf.load(ctx, logger)
	if err != nil {
		return err
	}
	defer l.Close()
	srv := tools.New(l.eng, tools.Options{
		Version: version, Logger: logger, EnableWrite: sf.enableWrite,
		EnabledTools: splitList(sf.enabled), DisabledTools: splitList(sf.disabled),
		Reload:     l.Reload,
		DailyNotes: tools.DailyNotes{Folder: sf.dailyFolder, Format: sf.dailyF},
	})
	warnUnknownTools(srv, sf, logger)
	snap := l.eng.Snapshot()
	logger.Info(fmt.Sprintf("enquire-mcp %s ready", version), "vault", snap.Root, "notes", len(snap.Notes),
		"attachments", len(snap.Attachments), "warnings", len(snap.Warnings), "signals", l.eng.Signals(), "index", l.ixWhy,
		"tools", len(srv.Registered()), "write", sf.enableWrite, "load_ms", l.took.Milliseconds(), "transport", "stdio")
	if err := srv.MCP().Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
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
