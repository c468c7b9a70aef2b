package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// memTrace samples a process's resident memory from /proc/PID/status
// while it runs, to tell when its peak happens (during the start, or
// during the searches) and which kind it is: anonymous (heap, stacks)
// or file-backed (the binary, mapped state files).
type memTrace struct {
	pid   int
	start time.Time
	stop  chan struct{}
	done  sync.WaitGroup

	mu      sync.Mutex
	samples []memSample
	mark    time.Duration // when the start ended (first search answered)
}

// memSample is one reading, in kB, at time at after the process started.
type memSample struct {
	at              time.Duration
	rss, anon, file int
}

// traceMem samples this process's child every interval until stop is
// called. It is called before the child starts (the MCP client starts it
// and only returns once the server answered, after its start): it finds
// it among the processes (startbench runs one child at a time).
func traceMem(start time.Time, interval time.Duration) *memTrace {
	t := &memTrace{start: start, stop: make(chan struct{})}
	t.done.Add(1)
	go func() {
		defer t.done.Done()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for t.pid == 0 {
			t.pid = childPID() // 0 until the child runs the server's binary
			select {
			case <-t.stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
		for {
			if s, ok := t.read(); ok {
				t.mu.Lock()
				t.samples = append(t.samples, s)
				t.mu.Unlock()
			}
			select {
			case <-t.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return t
}

// childPID is the pid of a child of this process that runs another
// binary, 0 when there is none: until it executes the server, a child
// forked by Go shares this process's memory, and its RSS is ours.
func childPID() int {
	ents, _ := os.ReadDir("/proc")
	me := os.Getpid()
	self, _ := os.Readlink("/proc/self/exe")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name (field 2) may hold spaces: the parent is the
		// second field after it.
		i := strings.LastIndexByte(string(b), ')')
		if f := strings.Fields(string(b[i+1:])); i > 0 && len(f) > 1 && f[1] == strconv.Itoa(me) {
			if exe, err := os.Readlink("/proc/" + e.Name() + "/exe"); err == nil && exe != self {
				return pid
			}
		}
	}
	return 0
}

// read takes one sample; false when the process is gone.
func (t *memTrace) read() (memSample, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", t.pid))
	if err != nil {
		return memSample{}, false
	}
	s := memSample{at: time.Since(t.start)}
	for _, l := range strings.Split(string(b), "\n") {
		for field, dst := range map[string]*int{"VmRSS:": &s.rss, "RssAnon:": &s.anon, "RssFile:": &s.file} {
			if rest, ok := strings.CutPrefix(l, field); ok {
				fmt.Sscanf(rest, "%d", dst)
			}
		}
	}
	return s, true
}

// markReady records the end of the start.
func (t *memTrace) markReady() {
	t.mu.Lock()
	t.mark = time.Since(t.start)
	t.mu.Unlock()
}

// finish stops sampling and returns the samples.
func (t *memTrace) finish() []memSample {
	close(t.stop)
	t.done.Wait()
	if t.pid == 0 {
		return nil
	}
	if s, ok := t.read(); ok {
		t.samples = append(t.samples, s)
	}
	return t.samples
}

// memSummary is what a trace says: the peak anonymous memory, when it
// was reached, and whether that was during the start.
type memSummary struct {
	peakAnon, anonAtReady, fileAtPeakRSS int
	peakAnonAt                           time.Duration
	inStart                              bool
}

func summarize(ss []memSample, ready time.Duration) memSummary {
	var m memSummary
	peakRSS := 0
	for _, s := range ss {
		if s.anon > m.peakAnon {
			m.peakAnon, m.peakAnonAt = s.anon, s.at
		}
		if s.rss > peakRSS {
			peakRSS, m.fileAtPeakRSS = s.rss, s.file
		}
		if s.at <= ready {
			m.anonAtReady = s.anon
		}
	}
	m.inStart = m.peakAnonAt <= ready
	return m
}

// writeTrace writes the samples as CSV (ms since the process started, then
// VmRSS, RssAnon and RssFile in MB), with the end of the start as a
// comment line.
func writeTrace(w io.Writer, label string, ready time.Duration, ss []memSample) {
	fmt.Fprintf(w, "# %s ready at %d ms\nms,rss_mb,anon_mb,filemb\n", label, ready.Milliseconds())
	for _, s := range ss {
		fmt.Fprintf(w, "%d,%d,%d,%d\n", s.at.Milliseconds(), s.rss/1024, s.anon/1024, s.file/1024)
	}
}

// writeMaps writes where pid's resident memory is, from /proc/PID/smaps:
// the resident kB of each mapped file, and of anonymous mappings grouped
// by size class, largest first (comment lines of the -mem-trace file).
func writeMaps(w io.Writer, pid int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		fmt.Fprintf(w, "# smaps: %v\n", err)
		return
	}
	rss := map[string]int{}
	name := ""
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			name = "[anonymous]"
			if len(f) >= 6 {
				name = strings.Join(f[5:], " ")
			}
			var lo, hi uint64
			fmt.Sscanf(f[0], "%x-%x", &lo, &hi)
			if name == "[anonymous]" {
				name = fmt.Sprintf("[anonymous, mappings of ≥ %d MB]", sizeClass((hi-lo)>>20))
			}
		case len(f) >= 2 && f[0] == "Rss:":
			kb, _ := strconv.Atoi(f[1])
			rss[name] += kb
		}
	}
	names := make([]string, 0, len(rss))
	for n := range rss {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return rss[names[i]] > rss[names[j]] })
	for _, n := range names {
		if rss[n] >= 1024 {
			fmt.Fprintf(w, "# rss %d MB %s\n", rss[n]>>10, n)
		}
	}
}

// sizeClass rounds mb down to a power of two (0 for under 1 MB).
func sizeClass(mb uint64) uint64 {
	c := uint64(0)
	for c2 := uint64(1); c2 <= mb; c2 *= 2 {
		c = c2
	}
	return c
}
