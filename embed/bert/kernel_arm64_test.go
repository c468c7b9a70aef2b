package bert

import "testing"

// TestNEONDispatch checks that arm64 runs the NEON kernel set first,
// with the plain-Go one after it.
func TestNEONDispatch(t *testing.T) {
	ks := kernels()
	if len(ks) != 2 || ks[0].name != "neon" || ks[1].name != "go" {
		t.Fatalf("kernels on arm64: %v, want [neon go]", Kernels())
	}
}
