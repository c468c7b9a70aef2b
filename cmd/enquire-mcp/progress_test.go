package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	tests := []struct {
		name           string
		done, total    int
		elapsed, since time.Duration
		want           string
	}{
		{"eta", 100, 400, 10 * time.Second, 0, "indexing: 100/400 files, 25%, ETA 30 s"},
		{"counting down since the last step", 100, 400, 10 * time.Second, 12 * time.Second, "indexing: 100/400 files, 25%, ETA 18 s"},
		{"overdue", 100, 400, 10 * time.Second, time.Minute, "indexing: 100/400 files, 25%, ETA 0 s"},
		{"thousands and minutes", 4000, 13000, 40 * time.Second, 0, "indexing: 4,000/13,000 files, 30%, ETA 1 min 30 s"},
		{"nothing done yet", 0, 13415, 25 * time.Second, 0, "indexing: 0/13,415 files, 0%, 25 s so far"},
		{"no total", 1200, 0, 2 * time.Minute, 0, "indexing: 1,200 files, 2 min 0 s so far"},
		{"hours", 1, 1000, 10 * time.Second, 0, "indexing: 1/1,000 files, 0%, ETA 2 h 46 min"},
		{"over the total", 12, 10, time.Second, 0, "indexing: 10/10 files, 100%, ETA 0 s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := progressLine("indexing", "files", tt.done, tt.total, tt.elapsed, tt.since); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// lockedBuf is a bytes.Buffer safe for the progress goroutine and the
// test reading it.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestProgressOffTerminal: off a terminal, a run reports a line every
// interval even while one step takes long, and nothing after Done.
func TestProgressOffTerminal(t *testing.T) {
	var out lockedBuf
	p := newProgressEvery(&out, 400, "indexing", "files", 10*time.Millisecond)
	p.Set(100, 400)
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "indexing: 100/400 files, 25%, ETA ") < 2 {
		if time.Now().After(deadline) {
			p.Done()
			t.Fatalf("no progress lines off a terminal: %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.Done()
	after := out.String()
	time.Sleep(50 * time.Millisecond)
	if out.String() != after {
		t.Fatalf("written after Done: %q", strings.TrimPrefix(out.String(), after))
	}
}

// TestProgressETABetweenBatches runs the lines of an embedding run on a
// fake clock: its progress moves a batch of 256 chunks at a time, and
// between two batches the ETA counts down rather than growing.
func TestProgressETABetweenBatches(t *testing.T) {
	t0 := time.Unix(1e9, 0)
	l := &lineProgress{desc: "embedding", unit: "chunks", start: t0, at: t0, total: 17311}
	steps := []struct {
		done int
		at   time.Duration // when the step is reported (-1: not at all)
		line time.Duration // when the line is written
		want string
	}{
		{0, -1, 4 * time.Second, "embedding: 0/17,311 chunks, 0%, 4 s so far"},
		{256, 20 * time.Second, 20 * time.Second, "embedding: 256/17,311 chunks, 1%, ETA 22 min 12 s"},
		{256, -1, 25 * time.Second, "embedding: 256/17,311 chunks, 1%, ETA 22 min 7 s"},
		{512, 40 * time.Second, 45 * time.Second, "embedding: 512/17,311 chunks, 2%, ETA 21 min 47 s"},
	}
	for _, s := range steps {
		if s.at >= 0 {
			l.setAt(s.done, 0, t0.Add(s.at))
		}
		if got := l.line(t0.Add(s.line)); got != s.want {
			t.Errorf("at %s: %q, want %q", s.line, got, s.want)
		}
	}
}
