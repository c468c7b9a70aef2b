package main

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestTrackRSSSamplesStartEveryTickAndEnd(t *testing.T) {
	var n atomic.Int64
	ticks := make(chan time.Time)
	var stopped atomic.Bool
	tr := newRSSTrack(func() int64 { return n.Add(1) << 20 }, ticks, func() { stopped.Store(true) })
	for range 3 {
		ticks <- time.Time{} // unbuffered: taken before the next send
	}
	s := tr.finish()
	if len(s) != 5 {
		t.Fatalf("%d samples, want start + 3 ticks + end = 5: %v", len(s), s)
	}
	for i, v := range s {
		if v != int64(i+1)<<20 {
			t.Fatalf("sample %d = %d, want the %dth read", i, v, i+1)
		}
	}
	if !stopped.Load() {
		t.Fatal("the ticker was not stopped")
	}
	if s := trackRSS(func() int64 { return 7 }, time.Hour).finish(); len(s) != 2 || s[0] != 7 || s[1] != 7 {
		t.Fatalf("an hour's interval, finished at once: %v, want start and end", s)
	}
}

func TestReportRSSShowsTheTimeline(t *testing.T) {
	mb := func(xs ...int64) []int64 {
		for i := range xs {
			xs[i] <<= 20
		}
		return xs
	}
	for _, tc := range []struct {
		samples []int64
		want    []string
	}{
		{mb(100, 110, 120, 130, 140, 150, 160), []string{
			"start 100.0 MiB, max 160.0 MiB, end 160.0 MiB",
			"(MiB, then the end): 100 120 140 160\n",
		}},
		{mb(100, 300, 120, 130, 140, 150), []string{
			"max 300.0 MiB, end 150.0 MiB",
			"(MiB, then the end): 100 120 140 150\n",
		}},
		{mb(90), []string{"start 90.0 MiB, max 90.0 MiB, end 90.0 MiB", "): 90\n"}},
	} {
		var b strings.Builder
		reportRSS(&b, tc.samples, time.Second, 2*time.Second)
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%v: report\n%s\nlacks %q", tc.samples, b.String(), w)
			}
		}
	}
}
