package pdf

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"
)

// Defaults of Isolated.
const (
	// DefaultTimeout bounds one isolated extraction.
	DefaultTimeout = 60 * time.Second
	// DefaultMemoryLimit bounds the memory of the child process: 1 GiB.
	DefaultMemoryLimit int64 = 1 << 30
)

// Exit codes of a child that stops itself (see ServeIsolated).
const (
	exitTimeout     = 3
	exitOutOfMemory = 4
)

// Child process supervision.
const (
	// memoryPollInterval is how often the child checks its memory.
	memoryPollInterval = 50 * time.Millisecond
	// waitDelay bounds the wait for the child's output once it has been
	// killed (a grandchild holding the pipes open must not block us).
	waitDelay = time.Second
)

// Isolated extracts in a child process: a crafted PDF that makes the
// parser loop forever or allocate without bound (a Go runtime abort that
// recover cannot catch) then costs one failed file, never the caller.
//
// The child cannot outlive its budget: the parent kills it at Timeout,
// the child exits on its own at Timeout too (should the parent be gone)
// and, on Linux, is killed when the parent dies. It also exits when its
// memory exceeds MemoryLimit. Both count against the file: the error
// wraps ErrCorrupt ("gave up after ...", "ran out of memory (>1 GiB)").
// A child that cannot be started yields an error that does not.
type Isolated struct {
	// Command starts the child: a program and its leading arguments; the
	// limits and the PDF path are appended (see ServeIsolated). The child
	// must run ServeIsolated with its remaining arguments.
	Command []string
	// Timeout kills a child that takes longer (0: DefaultTimeout).
	Timeout time.Duration
	// MemoryLimit is the memory, in bytes, that the child's Go runtime may
	// use (0: DefaultMemoryLimit).
	MemoryLimit int64
}

// errChildTimeout is the cause of the context of a child that timed out.
var errChildTimeout = errors.New("pdf: isolated extraction timed out")

// result is what the child writes to its stdout.
type result struct {
	Doc   *Document `json:"doc,omitempty"`
	Kind  string    `json:"kind,omitempty"` // see kinds; "other" for the rest
	Error string    `json:"error,omitempty"`
}

// Extract runs Extract in a child process with the same contract; the
// child opens path itself.
func (x Isolated) Extract(ctx context.Context, path string, opts Options) (*Document, error) {
	return x.run(ctx, path, nil, opts)
}

// ExtractFile runs ExtractFile in a child process with the same contract.
// The child is handed f as its standard input and never opens a path
// (so a vault that confined the open keeps it confined); it reads f with
// ReadAt, so f's offset does not matter and does not move.
func (x Isolated) ExtractFile(ctx context.Context, f *os.File, opts Options) (*Document, error) {
	doc, err := x.run(ctx, f.Name(), f, opts)
	var ce *childError
	if errors.As(err, &ce) { // the child named its input stdinArg
		ce.msg = strings.Replace(ce.msg, "pdf: extract "+stdinArg+":", "pdf: extract "+f.Name()+":", 1)
	}
	return doc, err
}

// stdinArg, as the PATH of ServeIsolated, reads the PDF from the
// standard input (an open file, not a pipe).
const stdinArg = "-"

// run extracts in a child: from path, or from stdin when it is set (path
// then only names the file in messages).
func (x Isolated) run(ctx context.Context, path string, stdin *os.File, opts Options) (*Document, error) {
	if len(x.Command) == 0 {
		return nil, errors.New("pdf: isolated extraction needs a command")
	}
	timeout := x.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	limit := x.MemoryLimit
	if limit <= 0 {
		limit = DefaultMemoryLimit
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errChildTimeout)
	defer cancel()
	a := childArgs{opts: opts.withDefaults(), timeout: timeout, memLimit: limit, path: path}
	if stdin != nil {
		a.path = stdinArg
	}
	cmd := exec.CommandContext(ctx, x.Command[0], append(append([]string(nil), x.Command[1:]...), a.format()...)...)
	if stdin != nil {
		cmd.Stdin = stdin // an *os.File: the child inherits the descriptor itself
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &limitedWriter{w: &stderr, n: 4096}
	cmd.WaitDelay = waitDelay
	setParentDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		// Not the file's fault (missing binary, process limits): no
		// ErrCorrupt, so that the file is tried again.
		return nil, fmt.Errorf("pdf: extract %s: start extractor: %w", path, err)
	}
	runErr := cmd.Wait()
	if runErr != nil {
		var exit *exec.ExitError
		switch {
		case context.Cause(ctx) == errChildTimeout, // not the caller's deadline: that is no fault of the file
			errors.As(runErr, &exit) && exit.ExitCode() == exitTimeout:
			return nil, fmt.Errorf("pdf: extract %s: %w: gave up after %s", path, ErrCorrupt, timeout)
		case ctx.Err() != nil:
			return nil, fmt.Errorf("pdf: extract %s: %w", path, ctx.Err())
		case errors.As(runErr, &exit) && exit.ExitCode() == exitOutOfMemory:
			return nil, fmt.Errorf("pdf: extract %s: %w: ran out of memory (>%s)", path, ErrCorrupt, formatBytes(limit))
		}
	}
	var res result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || res.Doc == nil && res.Error == "" {
		why := strings.TrimSpace(firstLine(stderr.String()))
		if runErr != nil {
			why = strings.TrimSuffix(runErr.Error()+": "+why, ": ")
		}
		return nil, fmt.Errorf("pdf: extract %s: %w: extractor crashed (%s)", path, ErrCorrupt, why)
	}
	if res.Doc != nil {
		return res.Doc, nil
	}
	return nil, &childError{msg: res.Error, kind: kindError(res.Kind)}
}

// childError is an error reported by the child: its message, which is
// the one Extract returned there, and the sentinel its kind stands for.
type childError struct {
	msg  string
	kind error // nil for "other"
}

func (e *childError) Error() string { return e.msg }
func (e *childError) Unwrap() error { return e.kind }

// childArgs are the arguments of ServeIsolated.
type childArgs struct {
	opts     Options
	timeout  time.Duration
	memLimit int64
	path     string
}

// format returns the arguments: MAXBYTES MAXPAGES MAXTEXT TIMEOUT
// MEMLIMIT PATH.
func (a childArgs) format() []string {
	return []string{
		strconv.FormatInt(a.opts.MaxBytes, 10), strconv.Itoa(a.opts.MaxPages), strconv.Itoa(a.opts.MaxTextBytes),
		a.timeout.String(), strconv.FormatInt(a.memLimit, 10), a.path,
	}
}

// parseArgs parses the arguments of ServeIsolated: MAXBYTES MAXPAGES
// MAXTEXT TIMEOUT MEMLIMIT PATH, or the earlier MAXBYTES MAXPAGES MAXTEXT
// PATH (with the default timeout and memory limit).
func parseArgs(args []string) (childArgs, error) {
	a := childArgs{timeout: DefaultTimeout, memLimit: DefaultMemoryLimit}
	if len(args) != 4 && len(args) != 6 {
		return a, fmt.Errorf("pdf: want max-bytes max-pages max-text-bytes [timeout memory-limit] path, got %d arguments", len(args))
	}
	maxBytes, err1 := strconv.ParseInt(args[0], 10, 64)
	maxPages, err2 := strconv.Atoi(args[1])
	maxText, err3 := strconv.Atoi(args[2])
	var err4, err5 error
	if len(args) == 6 {
		a.timeout, err4 = time.ParseDuration(args[3])
		a.memLimit, err5 = strconv.ParseInt(args[4], 10, 64)
		if err4 == nil && a.timeout <= 0 {
			err4 = fmt.Errorf("timeout %s is not positive", a.timeout)
		}
		if err5 == nil && a.memLimit <= 0 {
			err5 = fmt.Errorf("memory limit %d is not positive", a.memLimit)
		}
	}
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return a, fmt.Errorf("pdf: bad limits: %w", err)
	}
	a.opts = Options{MaxBytes: maxBytes, MaxPages: maxPages, MaxTextBytes: maxText}
	a.path = args[len(args)-1]
	return a, nil
}

// serveHook, when set (by tests), runs in ServeIsolated before the
// extraction, with the child's guards in place.
var serveHook func()

// ServeIsolated is the child side of Isolated. args are MAXBYTES MAXPAGES
// MAXTEXT TIMEOUT MEMLIMIT PATH (TIMEOUT a Go duration such as "1m0s",
// MEMLIMIT in bytes), or MAXBYTES MAXPAGES MAXTEXT PATH with
// DefaultTimeout and DefaultMemoryLimit. A PATH of "-" reads the PDF from
// the standard input, which must be the open file itself (see
// Isolated.ExtractFile). It writes the result as JSON to w and returns an
// error only when it cannot write.
//
// It is meant to be all a child process does: while it runs, the process
// exits with status 3 once TIMEOUT has passed, and with status 4 as soon
// as the Go runtime holds more than MEMLIMIT bytes (checked every 50 ms;
// the runtime's soft memory limit is set to MEMLIMIT too). On Linux the
// kernel also caps its address space (RLIMIT_AS, see addressSpaceLimit),
// so that one huge allocation fails at once instead of outrunning the
// 50 ms poll.
func ServeIsolated(ctx context.Context, args []string, w io.Writer) error {
	var res result
	a, err := parseArgs(args)
	if err == nil {
		stop := guardChild(a.timeout, a.memLimit)
		defer stop()
		if serveHook != nil {
			serveHook()
		}
		if a.path == stdinArg {
			res.Doc, err = ExtractFile(ctx, os.NewFile(0, stdinArg), a.opts)
		} else {
			res.Doc, err = Extract(ctx, a.path, a.opts)
		}
	}
	if err != nil {
		res.Kind, res.Error = errorKind(err), err.Error()
	}
	return json.NewEncoder(w).Encode(res)
}

// guardChild makes the process exit once timeout has passed or when its
// memory exceeds limit, until stop is called.
func guardChild(timeout time.Duration, limit int64) (stop func()) {
	if err := limitAddressSpace(addressSpaceLimit(limit)); err != nil {
		fmt.Fprintf(os.Stderr, "pdf: cannot cap the address space (%v); the memory watchdog still runs\n", err)
	}
	timer := time.AfterFunc(timeout, func() {
		fmt.Fprintf(os.Stderr, "pdf: extraction gave up after %s\n", timeout)
		os.Exit(exitTimeout)
	})
	oldLimit := debug.SetMemoryLimit(limit)
	done := make(chan struct{})
	go watchMemory(limit, done)
	return func() {
		timer.Stop()
		close(done)
		debug.SetMemoryLimit(oldLimit)
	}
}

// watchMemory exits the process when the memory the Go runtime holds
// (mapped and not returned to the system) exceeds limit, until done is
// closed.
func watchMemory(limit int64, done <-chan struct{}) {
	samples := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	tick := time.NewTicker(memoryPollInterval)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		metrics.Read(samples)
		used := int64(samples[0].Value.Uint64() - samples[1].Value.Uint64())
		if used > limit {
			fmt.Fprintf(os.Stderr, "pdf: extraction ran out of memory (>%s)\n", formatBytes(limit))
			os.Exit(exitOutOfMemory)
		}
	}
}

// formatBytes writes n in the largest binary unit that divides it.
func formatBytes(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// kinds are the error kinds the child reports, and the sentinels they
// stand for in the parent.
var kinds = []struct {
	name string
	err  error
}{{"encrypted", ErrEncrypted}, {"too_large", ErrTooLarge}, {"corrupt", ErrCorrupt}, {"not_found", fs.ErrNotExist}}

// errorKind returns the kind of err, "other" if none.
func errorKind(err error) string {
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return "other"
}

// kindError returns the sentinel of kind, nil if none.
func kindError(kind string) error {
	for _, k := range kinds {
		if k.name == kind {
			return k.err
		}
	}
	return nil
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
