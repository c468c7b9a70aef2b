package main

import (
	"context"
	"time"
)

// schedule is the open-loop timetable of one client: with a total
// offered rate R over N clients, client i sends call k at
// start + i/R + k·N/R, so the arrivals of all clients together are evenly
// spaced 1/R apart. A call's latency is measured from its scheduled time,
// not from when it was actually sent: when the server falls behind, the
// client's next calls start late, and that wait counts (the "coordinated
// omission" a closed loop hides).
type schedule struct {
	start    time.Time
	offset   time.Duration // i/R
	interval time.Duration // N/R
}

// newSchedule returns client i's timetable, or nil for a closed loop
// (rate ≤ 0: each client sends its next call as soon as the last returns).
func newSchedule(start time.Time, rate float64, clients, i int) *schedule {
	if rate <= 0 {
		return nil
	}
	gap := time.Duration(float64(time.Second) / rate)
	return &schedule{start: start, offset: time.Duration(i) * gap, interval: time.Duration(clients) * gap}
}

// at is when call k is due.
func (s *schedule) at(k int) time.Time {
	return s.start.Add(s.offset + time.Duration(k)*s.interval)
}

// due counts the calls scheduled before end.
func (s *schedule) due(end time.Time) int {
	span := end.Sub(s.start) - s.offset
	if span <= 0 {
		return 0
	}
	return int((span + s.interval - 1) / s.interval)
}

// keptUp says what a count of unsent calls means.
func keptUp(unsent int64) string {
	if unsent == 0 {
		return "the server kept up with the offered rate"
	}
	return "the server fell behind the offered rate"
}

// wait sleeps until t; false when ctx ended first.
func wait(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// lateAfter is how late a call may start before it counts as behind
// schedule (timer and scheduler slack).
const lateAfter = 5 * time.Millisecond
