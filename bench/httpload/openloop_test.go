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
