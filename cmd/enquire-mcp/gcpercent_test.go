package main

import (
	"runtime/debug"
	"testing"
)

func TestSetHTTPGCPercent(t *testing.T) {
	orig := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(orig) })
	for _, tc := range []struct {
		env  string
		want int // GOGC in effect afterwards
		set  bool
	}{
		{"", httpGCPercent, true},
		{"50", 100, false}, // the user's GOGC (applied by the runtime at start) stays
		{"off", 100, false},
	} {
		debug.SetGCPercent(100)
		set := setHTTPGCPercent(func(k string) string {
			if k == "GOGC" {
				return tc.env
			}
			return ""
		})
		if got := debug.SetGCPercent(100); set != tc.set || got != tc.want {
			t.Errorf("GOGC=%q: set %v, percent %d; want %v, %d", tc.env, set, got, tc.set, tc.want)
		}
	}
}
