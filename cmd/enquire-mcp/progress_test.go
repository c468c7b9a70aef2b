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
		name        string
		done, total int
		elapsed     time.Duration
		want        string
	}{
		{"eta", 100, 400, 10 * time.Second, "indexing: 100/400 files, 25%, ETA 30 s"},
		{"thousands and minutes", 4000, 13000, 40 * time.Second, "indexing: 4,000/13,000 files, 30%, ETA 1 min 30 s"},
		{"nothing done yet", 0, 13415, 25 * time.Second, "indexing: 0/13,415 files, 0%, 25 s so far"},
		{"no total", 1200, 0, 2 * time.Minute, "indexing: 1,200 files, 2 min 0 s so far"},
		{"hours", 1, 1000, 10 * time.Second, "indexing: 1/1,000 files, 0%, ETA 2 h 46 min"},
		{"over the total", 12, 10, time.Second, "indexing: 10/10 files, 100%, ETA 0 s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := progressLine("indexing", "files", tt.done, tt.total, tt.elapsed); got != tt.want {
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
