package pdf

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// gone reports whether process pid has ended (a zombie has).
func gone(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// "pid (comm) S ...": the state follows the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X'
}

func TestIsolatedChildDiesWithParent(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	quickRaceExit(t)
	parent := exec.Command(testExecutable(t), "-test.run=^$")
	parent.Env = append(os.Environ(), "ENQUIRE_PDF_CHILD=parent", "ENQUIRE_PDF_PIDFILE="+pidFile)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	pid := readPID(t, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	_ = parent.Process.Kill()
	_ = parent.Wait()
	for deadline := time.Now().Add(10 * time.Second); !gone(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("child %d outlived its killed parent by 10s", pid)
		}
	}
}
