package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// errUsage marks a command-line mistake (exit code 2).
var errUsage = errors.New("usage")

func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

// vaultFlags are the flags every command that loads a vault shares.
type vaultFlags struct {
	vault       string
	maxFileSize int64
	staleDays   int
}

func (v *vaultFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&v.vault, "vault", os.Getenv("ENQUIRE_VAULT"), "path to the Obsidian vault (env ENQUIRE_VAULT)")
	fs.Int64Var(&v.maxFileSize, "max-file-size", vault.DefaultMaxFileSize, "skip notes larger than this many bytes")
	fs.IntVar(&v.staleDays, "stale-days", search.DefaultStaleDays, "age in days from which a hit is reported stale")
}

// load reads the vault and builds the search engine.
func (v *vaultFlags) load(ctx context.Context, logger *slog.Logger) (*search.Engine, time.Duration, error) {
	if v.vault == "" {
		return nil, 0, usageError("--vault is required (or set ENQUIRE_VAULT)")
	}
	start := time.Now()
	snap, err := vault.Load(ctx, v.vault, vault.Options{MaxFileSize: v.maxFileSize})
	if err != nil {
		return nil, 0, err
	}
	for _, w := range snap.Warnings {
		logger.Warn("vault", "path", w.Path, "problem", w.Message)
	}
	eng, err := search.New(ctx, snap, analysis.New(), search.Options{StaleDays: v.staleDays})
	if err != nil {
		return nil, 0, err
	}
	return eng, time.Since(start), nil
}

// parseInterspersed parses flags that may come before or after positional
// arguments ("search --vault v query --limit 5").
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: enquire-mcp %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

func stderrLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}
