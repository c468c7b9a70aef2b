package main

import (
	"io"
	"log/slog"
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestMemLimitFlag(t *testing.T) {
	tests := []struct {
		in, mode string
		bytes    int64
		bad      bool
	}{
		{in: "auto", mode: "auto"},
		{in: " OFF ", mode: "off"},
		{in: "600MiB", mode: "fixed", bytes: 600 << 20},
		{in: "1.5GiB", mode: "fixed", bytes: 3 << 29},
		{in: "1GB", mode: "fixed", bytes: 1e9},
		{in: "700 mb", mode: "fixed", bytes: 700e6},
		{in: "2097152", mode: "fixed", bytes: 2 << 20},
		{in: "2048KiB", mode: "fixed", bytes: 2 << 20},
		{in: "", bad: true},
		{in: "-5MiB", bad: true},
		{in: "0", bad: true},
		{in: "100KiB", bad: true}, // under 1 MiB: surely a mistake
		{in: "lots", bad: true},
		{in: "NaNGB", bad: true},
		{in: "1e30GB", bad: true},
	}
	for _, tt := range tests {
		var m memLimitFlag
		err := m.Set(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("Set(%q) = nil error, mode %s %d", tt.in, m.mode, m.bytes)
			}
			continue
		}
		if err != nil || m.mode != tt.mode || m.bytes != tt.bytes {
			t.Errorf("Set(%q) = %s %d, %v; want %s %d", tt.in, m.mode, m.bytes, err, tt.mode, tt.bytes)
		}
	}
	if got := (&memLimitFlag{}).String(); got != "auto" {
		t.Errorf("default String() = %q, want auto", got)
	}
}

func TestAutoLimit(t *testing.T) {
	const mb = 1 << 20
	tests := []struct {
		name string
		m    goMemory
		want int64
	}{
		// 250 MB live, 300 MB of objects (50 of garbage), 20 MB of
		// runtime overhead: 20 + 250 + 62.5 + 64.
		{"large vault", goMemory{total: 400 * mb, free: 50 * mb, released: 30 * mb, objects: 300 * mb, live: 250 * mb}, 20*mb + 250*mb + 250*mb/4 + autoSlack},
		// A small vault: the slack dominates, so the limit is above what
		// GOGC=100 would allow, and GOGC decides.
		{"small vault", goMemory{total: 60 * mb, free: 10 * mb, released: 5 * mb, objects: 40 * mb, live: 20 * mb}, 5*mb + 20*mb + 5*mb + autoSlack},
		// Inconsistent readings never make the overhead negative.
		{"no overhead", goMemory{total: 10 * mb, free: 10 * mb, released: 10 * mb, objects: 10 * mb, live: 8 * mb}, 8*mb + 2*mb + autoSlack},
	}
	for _, tt := range tests {
		if got := autoLimit(tt.m); got != tt.want {
			t.Errorf("%s: autoLimit = %d MB, want %d MB", tt.name, got/mb, tt.want/mb)
		}
	}
}

// TestMemLimitApply sets the limit as serve does and checks that auto
// follows the live heap across collections, and that stopping restores
// the limit found.
func TestMemLimitApply(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	before := debug.SetMemoryLimit(-1)

	fixed := memLimitFlag{mode: "fixed", bytes: 3 << 30}
	stop := fixed.apply(logger)
	if got := debug.SetMemoryLimit(-1); got != 3<<30 {
		t.Errorf("fixed: limit %d, want %d", got, int64(3<<30))
	}
	stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("fixed: after stop limit %d, want %d", got, before)
	}

	off := memLimitFlag{mode: "off"}
	off.apply(logger)()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("off: limit %d, want %d", got, before)
	}

	auto := memLimitFlag{}
	stop = auto.apply(logger)
	first := debug.SetMemoryLimit(-1)
	if first == math.MaxInt64 || first < autoSlack {
		t.Fatalf("auto: limit %d, want a derived one", first)
	}
	// Hold 64 MB live: after a collection the limit covers it. (Not
	// "first + 64 MB": the package's other tests free memory meanwhile.)
	const held = 64 << 20
	ballast := make([]byte, held)
	for i := range ballast {
		ballast[i] = byte(i)
	}
	grew := false
	for range 50 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer runs on its own goroutine
		if debug.SetMemoryLimit(-1) >= held+autoSlack {
			grew = true
			break
		}
	}
	runtime.KeepAlive(ballast)
	if !grew {
		t.Errorf("auto: limit %d while holding 64 MB, want ≥ %d", debug.SetMemoryLimit(-1), held+autoSlack)
	}
	stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("auto: after stop limit %d, want %d", got, before)
	}
	// Stopped: later collections leave the limit alone.
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("auto: a collection after stop set the limit to %d", got)
	}

	t.Setenv("GOMEMLIMIT", "5GiB") // the runtime read it at start; apply must leave the limit alone
	auto.apply(logger)()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("GOMEMLIMIT set: limit %d, want the runtime's %d", got, before)
	}
}
