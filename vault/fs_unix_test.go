//go:build unix

package vault

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO is refused at once, never opened for a read that would block.
func TestFSReadFileFIFO(t *testing.T) {
	dir := writeVault(t, map[string]string{"a.md": "x"})
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.json"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	fsys := openTestFS(t, dir)
	done := make(chan error, 1)
	go func() { _, _, err := fsys.ReadFile("pipe.json", 1<<10); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("err = %v, want ErrNotRegular", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}
}
