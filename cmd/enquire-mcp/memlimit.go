package main

import (
	"fmt"
	"log/slog"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
)

// The servers' garbage collection: by default Go lets the heap grow to
// twice the live data before collecting (GOGC=100). A server that holds
// a large vault in memory (250 MB live at 107,000 notes) then sits at
// twice that much, for garbage that a search makes (about a megabyte) and
// drops at once. --memory-limit auto, the default, keeps the headroom
// proportional to a quarter of the live heap plus a fixed slack instead,
// through Go's soft memory limit, re-derived after every collection so
// that it follows the vault as it grows or shrinks.
const (
	// autoHeadroom is the share of the live heap the collector may
	// allocate on top of it before collecting again.
	autoHeadroom = 0.25
	// autoSlack is added to the headroom: small vaults collect no more
	// often than GOGC=100 would (the soft limit only ever lowers the
	// goal), and a burst of searches does not collect at every search.
	autoSlack = 64 << 20
)

// memLimitFlag is --memory-limit: "auto", "off", or a size in bytes with
// an optional unit (KiB, MiB, GiB, KB, MB, GB).
type memLimitFlag struct {
	mode  string // "auto", "off" or "fixed"
	bytes int64  // the fixed limit
}

func (m *memLimitFlag) String() string {
	switch m.mode {
	case "", "auto":
		return "auto"
	case "fixed":
		return strconv.FormatInt(m.bytes, 10)
	}
	return m.mode
}

// Set parses a --memory-limit value.
func (m *memLimitFlag) Set(s string) error {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "auto", "off":
		m.mode, m.bytes = v, 0
		return nil
	}
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	m.mode, m.bytes = "fixed", n
	return nil
}

// parseSize reads a positive byte count with an optional unit.
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"b", 1}}
	v := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range units {
		if rest, ok := strings.CutSuffix(v, u.suffix); ok {
			v, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f*mult < 1<<20 || f*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("memory limit %q: want auto, off or a size of at least 1MiB such as 600MiB or 1GB", s)
	}
	return int64(f * mult), nil
}

// goMemory is what the runtime reports of its memory after a collection.
type goMemory struct {
	total, free, released, objects, live uint64
}

var goMemoryMetrics = []string{
	"/memory/classes/total:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/objects:bytes",
	"/gc/heap/live:bytes",
}

func readGoMemory() goMemory {
	s := make([]metrics.Sample, len(goMemoryMetrics))
	for i, name := range goMemoryMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	v := make([]uint64, len(s))
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	return goMemory{total: v[0], free: v[1], released: v[2], objects: v[3], live: v[4]}
}

// autoLimit is the soft memory limit for m: what the runtime holds
// besides heap objects (stacks, its own structures), the live heap, and
// the headroom. The limit the runtime compares counts all of it.
func autoLimit(m goMemory) int64 {
	overhead := int64(m.total) - int64(m.free) - int64(m.released) - int64(m.objects)
	return max(overhead, 0) + int64(m.live) + int64(autoHeadroom*float64(m.live)) + autoSlack
}

// apply sets the process's memory limit as m says and returns the
// function that stops following the heap and restores the limit found.
// GOMEMLIMIT in the environment wins over auto (the runtime already
// applies it); a fixed size wins over GOMEMLIMIT.
func (m *memLimitFlag) apply(logger *slog.Logger) (stop func()) {
	old := debug.SetMemoryLimit(-1)
	restore := func() { debug.SetMemoryLimit(old) }
	switch {
	case m.mode == "off":
		return func() {}
	case m.mode == "fixed":
		debug.SetMemoryLimit(m.bytes)
		logger.Info("memory limit", "bytes", m.bytes)
		return restore
	case os.Getenv("GOMEMLIMIT") != "":
		logger.Info("memory limit from GOMEMLIMIT", "bytes", old)
		return func() {}
	}
	f := &gcFollower{}
	f.follow()
	logger.Debug("memory limit follows the live heap", "bytes", debug.SetMemoryLimit(-1))
	return func() {
		f.stop()
		restore()
	}
}

// gcFollower re-derives the memory limit after every collection: an
// object without references whose finalizer runs once per cycle and
// arms the next one (finalizers run after the collection that found the
// object unreachable).
type gcFollower struct {
	mu      sync.Mutex
	stopped bool
}

func (f *gcFollower) follow() {
	debug.SetMemoryLimit(autoLimit(readGoMemory()))
	f.arm()
}

func (f *gcFollower) arm() {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if !f.stopped {
			debug.SetMemoryLimit(autoLimit(readGoMemory()))
			f.arm()
		}
	})
}

func (f *gcFollower) stop() {
	f.mu.Lock()
	f.stopped = true
	f.mu.Unlock()
}

// gcSentinel is the object gcFollower's finalizer hangs on (not zero
// sized: the runtime does not run finalizers of zero-sized objects
// reliably).
type gcSentinel struct{ _ [16]byte }
