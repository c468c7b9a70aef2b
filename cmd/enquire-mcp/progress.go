package main

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressEvery is how often a long run off a terminal (CI logs, pipes,
// a service's journal) says how far it is: a bar there would be noise,
// and silence for minutes looks like a hang.
const progressEvery = 5 * time.Second

// progress shows a bar with rate and ETA when w is a terminal, and a
// line every progressEvery otherwise.
type progress struct {
	bar   *progressbar.ProgressBar
	lines *lineProgress
}

// newProgress starts the progress of work over total units (e.g. "files";
// total may be an estimate, see Set).
func newProgress(w io.Writer, total int, desc, unit string) *progress {
	return newProgressEvery(w, total, desc, unit, progressEvery)
}

func newProgressEvery(w io.Writer, total int, desc, unit string, every time.Duration) *progress {
	if !isTerminal(w) {
		return &progress{lines: startLines(w, total, desc, unit, every)}
	}
	if total <= 0 {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

// isTerminal reports whether w is a terminal (an *os.File or a syncWriter
// over one).
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// Set moves the progress to done of total; the total the work reports
// wins over the estimate it started with (a resumed embedding run has
// fewer chunks left than the index holds).
func (p *progress) Set(done, total int) {
	if p.lines != nil {
		p.lines.set(done, total)
		return
	}
	if p.bar == nil {
		return
	}
	if total > 0 && int64(total) != p.bar.GetMax64() {
		p.bar.ChangeMax(total)
	}
	_ = p.bar.Set(done)
}

// Done finishes and clears the bar, or stops the lines (nothing is
// written after Done returns).
func (p *progress) Done() {
	if p.lines != nil {
		p.lines.finish()
	}
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// lineProgress writes a progress line on every tick, from its own
// goroutine: a single slow step (a scanned PDF's OCR) still gets its
// lines.
type lineProgress struct {
	w          io.Writer
	desc, unit string
	start      time.Time
	stop       chan struct{}
	stopped    chan struct{}
	once       sync.Once

	mu          sync.Mutex
	done, total int
	// at is when done last moved.
	at time.Time
}

func startLines(w io.Writer, total int, desc, unit string, every time.Duration) *lineProgress {
	now := time.Now()
	l := &lineProgress{w: w, desc: desc, unit: unit, start: now, at: now, total: total,
		stop: make(chan struct{}), stopped: make(chan struct{})}
	go l.loop(every)
	return l
}

// line is the report at now.
func (l *lineProgress) line(now time.Time) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done == 0 {
		return progressLine(l.desc, l.unit, 0, l.total, now.Sub(l.start), 0)
	}
	return progressLine(l.desc, l.unit, l.done, l.total, l.at.Sub(l.start), now.Sub(l.at))
}

func (l *lineProgress) loop(every time.Duration) {
	defer close(l.stopped)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case now := <-t.C:
			fmt.Fprintln(l.w, l.line(now))
		}
	}
}

func (l *lineProgress) set(done, total int) {
	l.setAt(done, total, time.Now())
}

func (l *lineProgress) setAt(done, total int, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if done != l.done {
		l.at = now
	}
	l.done = done
	if total > 0 {
		l.total = total
	}
}

func (l *lineProgress) finish() {
	l.once.Do(func() { close(l.stop) })
	<-l.stopped
}

// progressLine is one report: "indexing: 4,210/13,415 files, 31%, ETA
// 12 s"; before the first unit is done, or without a total, the time so
// far instead of an ETA. elapsed is the time the done units took, since
// the time from then to now: work that reports in large steps (a batch
// of 256 chunks) counts down between them instead of seeming to slow
// down.
func progressLine(desc, unit string, done, total int, elapsed, since time.Duration) string {
	if total <= 0 {
		return fmt.Sprintf("%s: %s %s, %s so far", desc, thousands(done), unit, humanDuration(elapsed+since))
	}
	done = min(done, total)
	head := fmt.Sprintf("%s: %s/%s %s, %d%%", desc, thousands(done), thousands(total), unit, done*100/total)
	if done == 0 || elapsed <= 0 {
		return head + ", " + humanDuration(elapsed+since) + " so far"
	}
	eta := time.Duration(float64(elapsed)*float64(total-done)/float64(done)) - since
	return head + ", ETA " + humanDuration(max(eta, 0))
}

// thousands writes n with comma separators: 13415 → "13,415".
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// humanDuration rounds d to what a progress line needs: "12 s",
// "2 min 30 s", "1 h 5 min".
func humanDuration(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		return fmt.Sprintf("%d min %d s", s/60, s%60)
	}
	return fmt.Sprintf("%d h %d min", s/3600, s%3600/60)
}

// syncWriter serialises writes to w: the progress lines come from their
// own goroutine while the command writes warnings.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// Fd is w's file descriptor, so that isTerminal sees through the
// wrapper (an invalid one when w is not a file).
func (s *syncWriter) Fd() uintptr {
	if f, ok := s.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}
