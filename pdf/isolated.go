package pdf

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// DefaultTimeout bounds one isolated extraction.
const DefaultTimeout = 60 * time.Second

// Isolated extracts in a child process: a crafted PDF that makes the
// parser loop forever or allocate without bound (a Go runtime abort that
// recover cannot catch) then costs one failed file, never the caller.
type Isolated struct {
	// Command starts the child: a program and its leading arguments; the
	// options and the PDF path are appended. The child must run
	// ServeIsolated with its remaining arguments.
	Command []string
	// Timeout kills a child that takes longer (0: DefaultTimeout).
	Timeout time.Duration
}

// result is what the child writes to its stdout.
type result struct {
	Doc   *Document `json:"doc,omitempty"`
	Kind  string    `json:"kind,omitempty"` // encrypted | too_large | corrupt | not_found | other
	Error string    `json:"error,omitempty"`
}

// Extract runs Extract in a child process with the same contract.
func (x Isolated) Extract(ctx context.Context, path string, opts Options) (*Document, error) {
	if len(x.Command) == 0 {
		return nil, errors.New("pdf: isolated extraction needs a command")
	}
	timeout := x.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	opts = opts.withDefaults()
	args := append(append([]string(nil), x.Command[1:]...),
		strconv.FormatInt(opts.MaxBytes, 10), strconv.Itoa(opts.MaxPages), strconv.Itoa(opts.MaxTextBytes), path)
	cmd := exec.CommandContext(ctx, x.Command[0], args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &limitedWriter{w: &stderr, n: 4096}
	runErr := cmd.Run()
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("pdf: extract %s: %w: gave up after %s", path, ErrCorrupt, timeout)
		}
		return nil, fmt.Errorf("pdf: extract %s: %w", path, ctx.Err())
	}
	var res result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		why := strings.TrimSpace(firstLine(stderr.String()))
		if runErr != nil {
			why = runErr.Error() + ": " + why
		}
		return nil, fmt.Errorf("pdf: extract %s: %w: extractor crashed (%s)", path, ErrCorrupt, why)
	}
	if res.Doc != nil {
		return res.Doc, nil
	}
	return nil, fmt.Errorf("%w: %s", kindError(res.Kind), res.Error)
}

// ServeIsolated is the child side of Isolated: args are max bytes, max
// pages, max text bytes and the path. It writes the result as JSON to w
// and returns an error only when it cannot write.
func ServeIsolated(ctx context.Context, args []string, w io.Writer) error {
	var res result
	opts, path, err := parseArgs(args)
	if err == nil {
		res.Doc, err = Extract(ctx, path, opts)
	}
	if err != nil {
		res.Kind, res.Error = errorKind(err), err.Error()
	}
	return json.NewEncoder(w).Encode(res)
}

func parseArgs(args []string) (Options, string, error) {
	if len(args) != 4 {
		return Options{}, "", fmt.Errorf("pdf: want max-bytes max-pages max-text-bytes path, got %d arguments", len(args))
	}
	maxBytes, err1 := strconv.ParseInt(args[0], 10, 64)
	maxPages, err2 := strconv.Atoi(args[1])
	maxText, err3 := strconv.Atoi(args[2])
	if err := errors.Join(err1, err2, err3); err != nil {
		return Options{}, "", fmt.Errorf("pdf: bad limits: %w", err)
	}
	return Options{MaxBytes: maxBytes, MaxPages: maxPages, MaxTextBytes: maxText}, args[3], nil
}

var kinds = []struct {
	name string
	err  error
}{{"encrypted", ErrEncrypted}, {"too_large", ErrTooLarge}, {"corrupt", ErrCorrupt}}

func errorKind(err error) string {
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return "other"
}

func kindError(kind string) error {
	for _, k := range kinds {
		if k.name == kind {
			return k.err
		}
	}
	return errors.New("pdf")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// limitedWriter keeps the first n bytes (a crashing child's stderr can be
// a long stack trace).
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.n -= k
		if _, err := l.w.Write(p[:k]); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
