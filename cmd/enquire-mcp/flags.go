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
		printShownDefaults(fs)
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

// removed is the value of a flag that no longer does anything: any value
// is accepted, and setting it prints one line to the flag set's output.
// Usage leaves such flags out.
type removed struct {
	fs      *flag.FlagSet
	name    string
	boolean bool
	why     string
}

// removedFlag adds a removed flag to fs; boolean says whether it takes no
// value (--flag, --flag=false) or one (--flag V).
func removedFlag(fs *flag.FlagSet, name string, boolean bool, why string) {
	fs.Var(&removed{fs: fs, name: name, boolean: boolean, why: why}, name, "removed: "+why)
}

func (r *removed) String() string { return "" }

// Set says that the flag is ignored.
func (r *removed) Set(string) error {
	fmt.Fprintf(r.fs.Output(), "enquire-mcp: --%s was removed and is ignored: %s\n", r.name, r.why)
	return nil
}

// IsBoolFlag lets a boolean removed flag stand without a value.
func (r *removed) IsBoolFlag() bool { return r.boolean }

// printShownDefaults is fs.PrintDefaults without the removed flags.
func printShownDefaults(fs *flag.FlagSet) {
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	shown.SetOutput(fs.Output())
	fs.VisitAll(func(f *flag.Flag) {
		if _, gone := f.Value.(*removed); !gone {
			shown.Var(f.Value, f.Name, f.Usage)
			shown.Lookup(f.Name).DefValue = f.DefValue
		}
	})
	shown.PrintDefaults()
}
