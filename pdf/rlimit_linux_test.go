package pdf

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// On Linux the child's address space is capped by the kernel (issue 10):
// one 2 GiB allocation fails at once (a runtime out-of-memory abort)
// instead of being mapped and caught by the 50 ms watchdog later.
func TestIsolatedAddressSpaceLimit(t *testing.T) {
	if raceEnabled {
		t.Skip("no address-space cap under the race detector (its shadow memory grows with every mapping)")
	}
	x := child(t, "serve-huge", 20*time.Second)
	x.MemoryLimit = 64 << 20
	_, err := x.Extract(context.Background(), "x.pdf", Options{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "extractor crashed") || !strings.Contains(err.Error(), "out of memory") {
		t.Fatalf("err = %v, want the child's allocation refused by RLIMIT_AS (a runtime out-of-memory crash), not the watchdog", err)
	}
}

func TestAddressSpaceLimit(t *testing.T) {
	if raceEnabled {
		if addressSpaceLimit(1<<30) != 0 {
			t.Fatal("a cap under the race detector")
		}
		return
	}
	base := mappedBytes()
	if base == 0 {
		t.Fatal("VmSize not read from /proc/self/status")
	}
	if got := addressSpaceLimit(1 << 30); got < base+2<<30 || got > base+2<<30+256<<20+64<<20 {
		t.Errorf("addressSpaceLimit(1 GiB) = %d with %d mapped", got, base)
	}
	if addressSpaceLimit(0) != 0 || addressSpaceLimit(-1) != 0 {
		t.Error("a cap without a memory limit")
	}
}
