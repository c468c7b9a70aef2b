package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"
)

// errUsage marks a command-line mistake (exit code 2).
var errUsage = errors.New("usage")

func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

// atLeast is a usage error when the value of flag name is below least:
// a stray minus sign must not fall back to a default in silence.
func atLeast[T int | int64 | float64 | time.Duration](name string, v, least T) error {
	if v < least {
		return usageError("--%s %v: want at least %v", name, v, least)
	}
	return nil
}

// parseFlags parses a command that takes flags only.
func parseFlags(fs *flag.FlagSet, args []string) error {
	pos, err := parseInterspersed(fs, args)
	if err == nil && len(pos) > 0 {
		err = usageError("unexpected argument %q", pos[0])
	}
	return err
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

// errorLogger reports only errors (commands whose output is for humans).
func errorLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelError}))
}

func stderrLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// warnUnknownTools names --enabled-tools entries that matched nothing (a
// typo would otherwise silently hide every tool).
func warnUnknownTools(srv interface{ Registered() []string }, sf serveFlags, logger *slog.Logger) {
	registered := map[string]bool{}
	for _, name := range srv.Registered() {
		registered[name] = true
	}
	for _, name := range splitList(sf.enabled) {
		if !registered[name] {
			logger.Warn("--enabled-tools names a tool that is not registered", "tool", name)
		}
	}
}
