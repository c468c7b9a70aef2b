package pdf

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal has the kernel kill the child when the parent dies,
// so that it never outlives a parent that was killed.
//
// The signal is tied to the OS thread that starts the child; the Go
// runtime does not end threads except those of goroutines that exit while
// locked to them, which callers of Isolated must not do around Extract.
func setParentDeathSignal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
