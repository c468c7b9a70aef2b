//go:build unix

package pdf

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readPID waits for a child to write its pid to file.
func readPID(t *testing.T, file string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(file); err == nil && len(b) > 0 {
			pid, err := strconv.Atoi(string(b))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
	}
	t.Fatal("the child wrote no pid")
	return 0
}

func TestIsolatedKillsHungChild(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Setenv("ENQUIRE_PDF_PIDFILE", pidFile)
	_, err := child(t, "hang", 500*time.Millisecond).Extract(context.Background(), "x.pdf", Options{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "gave up after") {
		t.Fatalf("err = %v", err)
	}
	pid := readPID(t, pidFile)
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("child %d still exists after Extract returned (kill 0: %v)", pid, err)
	}
}
