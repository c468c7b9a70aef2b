package main

import (
	"context"
	"slices"
	"testing"
	"time"
)

func TestScheduleSpacesAllArrivalsEvenly(t *testing.T) {
	start := time.Unix(1000, 0)
	for _, tc := range []struct {
		rate    float64
		clients int
		gap     time.Duration
	}{
		{rate: 500, clients: 50, gap: 2 * time.Millisecond},
		{rate: 100, clients: 4, gap: 10 * time.Millisecond},
		{rate: 1, clients: 1, gap: time.Second},
	} {
		var all []time.Time
		for i := range tc.clients {
			s := newSchedule(start, tc.rate, tc.clients, i)
			for k := range 20 {
				all = append(all, s.at(k))
			}
		}
		slices.SortFunc(all, func(a, b time.Time) int { return a.Compare(b) })
		for j, at := range all {
			if want := start.Add(time.Duration(j) * tc.gap); !at.Equal(want) {
				t.Fatalf("rate %v, %d clients: arrival %d at %s, want %s", tc.rate, tc.clients, j, at.Sub(start), want.Sub(start))
			}
		}
	}
	if newSchedule(start, 0, 50, 3) != nil {
		t.Fatal("rate 0 must be a closed loop (no schedule)")
	}
}

func TestDueCountsCallsScheduledBeforeTheEnd(t *testing.T) {
	start := time.Unix(1000, 0)
	for _, tc := range []struct {
		rate       float64
		clients, i int
		after      time.Duration
		want       int
	}{
		// 500/s over 50 clients: client 0 is due at 0, 100 ms, 200 ms, …
		{rate: 500, clients: 50, i: 0, after: time.Second, want: 10},
		{rate: 500, clients: 50, i: 0, after: time.Second + time.Nanosecond, want: 11},
		// client 49 starts 98 ms in: 98, 198, …, 998 ms
		{rate: 500, clients: 50, i: 49, after: time.Second, want: 10},
		{rate: 500, clients: 50, i: 49, after: 98 * time.Millisecond, want: 0},
		{rate: 500, clients: 50, i: 49, after: 99 * time.Millisecond, want: 1},
		{rate: 500, clients: 50, i: 3, after: 0, want: 0},
	} {
		s := newSchedule(start, tc.rate, tc.clients, tc.i)
		if got := s.due(start.Add(tc.after)); got != tc.want {
			t.Errorf("rate %v client %d/%d, end after %s: due %d, want %d", tc.rate, tc.i, tc.clients, tc.after, got, tc.want)
		}
		// due agrees with at: every counted call is before the end, the next is not.
		end := start.Add(tc.after)
		if n := s.due(end); (n > 0 && !s.at(n-1).Before(end)) || s.at(n).Before(end) {
			t.Errorf("rate %v client %d: due %d disagrees with at", tc.rate, tc.i, n)
		}
	}
}

func TestWaitStopsAtCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	if !wait(ctx, time.Now().Add(-time.Second)) {
		t.Fatal("a past time must not wait")
	}
	cancel()
	if wait(ctx, time.Now().Add(time.Hour)) {
		t.Fatal("wait must return false once ctx ends")
	}
}
