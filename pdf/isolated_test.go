package pdf

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The test binary is also the child process: with ENQUIRE_PDF_CHILD set it
// serves one extraction (or misbehaves as asked) instead of running tests.
func TestMain(m *testing.M) {
	switch os.Getenv("ENQUIRE_PDF_CHILD") {
	case "":
		os.Exit(m.Run())
	case "serve":
		if err := ServeIsolated(context.Background(), os.Args[len(os.Args)-4:], os.Stdout); err != nil {
			os.Exit(1)
		}
	case "hang":
		time.Sleep(time.Hour)
	case "crash":
		os.Stderr.WriteString("fatal error: runtime: out of memory\n")
		os.Exit(2)
	}
	os.Exit(0)
}

func child(t *testing.T, mode string, timeout time.Duration) Isolated {
	t.Helper()
	t.Setenv("ENQUIRE_PDF_CHILD", mode)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Isolated{Command: []string{exe, "-test.run=^$"}, Timeout: timeout}
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
	for _, tt := range []struct {
		path string
		opts Options
		want error
	}{
		{bad, Options{}, ErrCorrupt},
		{good, Options{MaxBytes: 10}, ErrTooLarge},
	} {
		if _, err := x.Extract(context.Background(), tt.path, tt.opts); !errors.Is(err, tt.want) {
			t.Errorf("%s %+v: err = %v, want %v", tt.path, tt.opts, err, tt.want)
		}
	}
}

func TestIsolatedContainsHangsAndCrashes(t *testing.T) {
	start := time.Now()
	_, err := child(t, "hang", 300*time.Millisecond).Extract(context.Background(), "x.pdf", Options{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "gave up after") || time.Since(start) > 10*time.Second {
		t.Fatalf("hang: err = %v after %v", err, time.Since(start))
	}
	_, err = child(t, "crash", 10*time.Second).Extract(context.Background(), "x.pdf", Options{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "out of memory") {
		t.Fatalf("crash: err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := child(t, "hang", time.Minute).Extract(ctx, "x.pdf", Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v", err)
	}
	if _, err := (Isolated{}).Extract(context.Background(), "x.pdf", Options{}); err == nil {
		t.Fatal("no command accepted")
	}
}
