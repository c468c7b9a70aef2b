package pdf

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test binary is also the child process: with ENQUIRE_PDF_CHILD set it
// serves one extraction (or misbehaves as asked) instead of running tests.
// Children are started as "EXE -test.run=^$ ARGS...".
func TestMain(m *testing.M) {
	mode := os.Getenv("ENQUIRE_PDF_CHILD")
	switch mode {
	case "":
		os.Exit(m.Run())
	case "serve", "serve-hang", "serve-grow", "serve-huge":
		switch mode {
		case "serve-hang":
			serveHook = func() { time.Sleep(time.Hour) }
		case "serve-grow":
			serveHook = growMemory
		case "serve-huge":
			serveHook = hugeAllocation
		}
		if err := ServeIsolated(context.Background(), os.Args[2:], os.Stdout); err != nil {
			os.Exit(1)
		}
	case "hang":
		if f := os.Getenv("ENQUIRE_PDF_PIDFILE"); f != "" {
			_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600)
		}
		time.Sleep(time.Hour)
	case "crash":
		os.Stderr.WriteString("fatal error: runtime: out of memory\n")
		os.Exit(2)
	case "exit":
		code, _ := strconv.Atoi(os.Getenv("ENQUIRE_PDF_EXIT"))
		os.Exit(code)
	case "parent":
		// Extract through a child that hangs and writes its pid; the test
		// kills this process meanwhile.
		os.Setenv("ENQUIRE_PDF_CHILD", "hang")
		exe, _ := os.Executable()
		_, _ = Isolated{Command: []string{exe, "-test.run=^$"}, Timeout: time.Hour}.Extract(context.Background(), "x.pdf", Options{})
	}
	os.Exit(0)
}

// grown keeps what growMemory allocates.
var grown [][]byte

// growMemory allocates until the child's memory watchdog stops it (or 2
// GiB, should it not).
func growMemory() {
	for range 512 {
		grown = append(grown, make([]byte, 4<<20))
		time.Sleep(time.Millisecond)
	}
	time.Sleep(time.Hour)
}

// hugeAllocation asks for 2 GiB at once, then waits for the memory
// watchdog (which only an address-space limit can beat to it).
func hugeAllocation() {
	grown = append(grown, make([]byte, 2<<30))
	time.Sleep(time.Hour)
}

func testExecutable(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// child returns an Isolated running the test binary in mode.
func child(t *testing.T, mode string, timeout time.Duration) Isolated {
	t.Helper()
	t.Setenv("ENQUIRE_PDF_CHILD", mode)
	quickRaceExit(t)
	return Isolated{Command: []string{testExecutable(t), "-test.run=^$"}, Timeout: timeout}
}

// quickRaceExit spares children built with the race detector its
// one-second sleep at exit.
func quickRaceExit(t *testing.T) {
	t.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
}

func TestIsolatedMatchesInProcess(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.pdf")
	if err := os.WriteFile(good, buildPDF(t, []genPage{{lines: []string{"first page"}}, {}, {lines: []string{"third", "page"}}}, encryptNone), 0o644); err != nil {
		t.Fatal(err)
	}
	x := child(t, "serve", 30*time.Second)
	want, err := Extract(context.Background(), good, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := x.Extract(context.Background(), good, Options{})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("isolated = %+v, %v; in process = %+v", got, err, want)
	}
	bad := filepath.Join(dir, "bad.pdf")
	if err := os.WriteFile(bad, []byte("%PDF-1.4\ngarbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pdf")
	for _, tt := range []struct {
		path    string
		opts    Options
		want    error
		corrupt bool
	}{
		{bad, Options{}, ErrCorrupt, true},
		{good, Options{MaxBytes: 10}, ErrTooLarge, false},
		{missing, Options{}, fs.ErrNotExist, false},
	} {
		_, err := x.Extract(context.Background(), tt.path, tt.opts)
		if !errors.Is(err, tt.want) || errors.Is(err, ErrCorrupt) != tt.corrupt {
			t.Errorf("%s %+v: err = %v, want %v", tt.path, tt.opts, err, tt.want)
			continue
		}
		// The message is the one Extract gives in process.
		_, inProcess := Extract(context.Background(), tt.path, tt.opts)
		if msg := err.Error(); msg != inProcess.Error() || strings.HasPrefix(msg, "pdf: pdf:") || strings.Count(msg, "pdf: extract") != 1 {
			t.Errorf("%s: message %q, in process %q", tt.path, err, inProcess)
		}
	}
}

// ExtractFile hands the child the open file, never a path: the file is
// extracted even after its name is gone, exactly as in process.
func TestIsolatedExtractFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.pdf")
	if err := os.WriteFile(good, buildPDF(t, []genPage{{lines: []string{"first page"}}, {lines: []string{"second"}}}, encryptNone), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := Extract(context.Background(), good, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(good)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(7, 0); err != nil { // the offset must not matter
		t.Fatal(err)
	}
	if err := os.Remove(good); err != nil && runtime.GOOS != "windows" {
		t.Fatal(err)
	}
	x := child(t, "serve", 30*time.Second)
	got, err := x.ExtractFile(context.Background(), f, Options{})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("isolated = %+v, %v; in process = %+v", got, err, want)
	}
	inProcess, err := ExtractFile(context.Background(), f, Options{})
	if err != nil || !reflect.DeepEqual(inProcess, want) {
		t.Fatalf("ExtractFile in process = %+v, %v", inProcess, err)
	}
	// Errors name the file, as in process.
	bad := filepath.Join(dir, "bad.pdf")
	if err := os.WriteFile(bad, []byte("%PDF-1.4\ngarbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	bf, err := os.Open(bad)
	if err != nil {
		t.Fatal(err)
	}
	defer bf.Close()
	_, err = x.ExtractFile(context.Background(), bf, Options{})
	_, inErr := ExtractFile(context.Background(), bf, Options{})
	if !errors.Is(err, ErrCorrupt) || inErr == nil || err.Error() != inErr.Error() {
		t.Fatalf("bad file: isolated %v, in process %v", err, inErr)
	}
	if _, err := x.ExtractFile(context.Background(), bf, Options{MaxBytes: 4}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over MaxBytes: %v", err)
	}
}

func TestIsolatedContainsHangsAndCrashes(t *testing.T) {
	start := time.Now()
	_, err := child(t, "hang", 300*time.Millisecond).Extract(context.Background(), "x.pdf", Options{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "gave up after 300ms") || time.Since(start) > 10*time.Second {
		t.Fatalf("hang: err = %v after %v", err, time.Since(start))
	}
	_, err = child(t, "crash", 10*time.Second).Extract(context.Background(), "x.pdf", Options{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "out of memory") {
		t.Fatalf("crash: err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := child(t, "hang", time.Minute).Extract(ctx, "x.pdf", Options{}); !errors.Is(err, context.Canceled) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("cancelled: err = %v", err)
	}
	// The caller's own deadline is no fault of the file.
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := child(t, "hang", time.Minute).Extract(ctx, "x.pdf", Options{}); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("caller's deadline: err = %v", err)
	}
	if _, err := (Isolated{}).Extract(context.Background(), "x.pdf", Options{}); err == nil {
		t.Fatal("no command accepted")
	}
}

func TestIsolatedStartFailureIsNotCorrupt(t *testing.T) {
	x := Isolated{Command: []string{filepath.Join(t.TempDir(), "no-such-extractor")}}
	_, err := x.Extract(context.Background(), "x.pdf", Options{})
	if err == nil || errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "start extractor") {
		t.Fatalf("err = %v, want a start failure not wrapping ErrCorrupt", err)
	}
}

func TestIsolatedExitCodes(t *testing.T) {
	for _, tt := range []struct {
		code int
		want string
	}{
		{exitTimeout, "gave up after 10s"},
		{exitOutOfMemory, "ran out of memory (>1 GiB)"},
	} {
		t.Setenv("ENQUIRE_PDF_EXIT", strconv.Itoa(tt.code))
		_, err := child(t, "exit", 10*time.Second).Extract(context.Background(), "x.pdf", Options{})
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("exit %d: err = %v, want %q", tt.code, err, tt.want)
		}
	}
}

func TestIsolatedChildGuards(t *testing.T) {
	// Past its timeout the child exits on its own, parent or not.
	exe := testExecutable(t)
	cmd := exec.Command(exe, "-test.run=^$", "1000", "10", "1000", "200ms", strconv.FormatInt(DefaultMemoryLimit, 10), "x.pdf")
	quickRaceExit(t)
	cmd.Env = append(os.Environ(), "ENQUIRE_PDF_CHILD=serve-hang")
	start := time.Now()
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != exitTimeout {
			t.Errorf("child exited with %v after %v, want status %d", err, time.Since(start), exitTimeout)
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("child still running 10s after its 200ms timeout")
	}

	// Over its memory limit the child exits.
	x := child(t, "serve-grow", 20*time.Second)
	x.MemoryLimit = 64 << 20
	_, err := x.Extract(context.Background(), "x.pdf", Options{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "ran out of memory (>64 MiB)") {
		t.Fatalf("growing child: err = %v", err)
	}
}

func TestParseArgs(t *testing.T) {
	a, err := parseArgs([]string{"100", "2", "300", "p.pdf"})
	if err != nil || a.path != "p.pdf" || a.opts != (Options{MaxBytes: 100, MaxPages: 2, MaxTextBytes: 300}) ||
		a.timeout != DefaultTimeout || a.memLimit != DefaultMemoryLimit {
		t.Errorf("legacy arguments: %+v, %v", a, err)
	}
	want := childArgs{opts: Options{MaxBytes: 100, MaxPages: 2, MaxTextBytes: 300}, timeout: 90 * time.Second, memLimit: 5 << 20, path: "12"}
	if a, err := parseArgs(want.format()); err != nil || a != want {
		t.Errorf("round trip: %+v, %v, want %+v", a, err, want)
	}
	for _, args := range [][]string{
		{"1", "2", "3"},
		{"1", "2", "3", "4", "p.pdf"},
		{"x", "2", "3", "p.pdf"},
		{"1", "2", "3", "soon", "5", "p.pdf"},
		{"1", "2", "3", "-1s", "5", "p.pdf"},
		{"1", "2", "3", "1s", "0", "p.pdf"},
	} {
		if _, err := parseArgs(args); err == nil {
			t.Errorf("parseArgs(%q) accepted", args)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{1 << 30: "1 GiB", 64 << 20: "64 MiB", 3 << 10: "3 KiB", 1000: "1000 bytes", 3 << 29: "1536 MiB"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
