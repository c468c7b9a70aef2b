//go:build !linux

package pdf

import "os/exec"

// setParentDeathSignal does nothing where the kernel cannot signal a child
// when its parent dies: the child's own timer bounds its life instead (see
// ServeIsolated).
func setParentDeathSignal(*exec.Cmd) {}
