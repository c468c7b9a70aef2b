package main

import (
	"context"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/tools"
)

func runServe(ctx context.Context, args []string, _, stderr io.Writer) error {
	fs := newFlagSet("serve", "--vault PATH [flags]", stderr)
	var vf vaultFlags
	vf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	logger := stderrLogger(stderr)
	l, err := vf.load(ctx, logger)
	if err != nil {
		return err
	}
	defer l.Close()
	srv := tools.New(l.eng, tools.Options{Version: version, Logger: logger})
	snap := l.eng.Snapshot()
	logger.Info(fmt.Sprintf("enquire-mcp %s ready", version), "vault", snap.Root, "notes", len(snap.Notes),
		"attachments", len(snap.Attachments), "warnings", len(snap.Warnings), "signals", l.eng.Signals(),
		"load_ms", l.took.Milliseconds(), "transport", "stdio")
	if err := srv.MCP().Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
