package main

import "runtime/debug"

// httpGCPercent is serve-http's garbage-collector target (GOGC) when the
// environment sets none. A busy HTTP server allocates per call (request
// and reply JSON, hits, snippets) and with Go's default of 100 spent about
// 9 % of its CPU in the collector; at 200 it collects half as often. On
// the 13k-note vault the peak RSS under load did not change measurably
// (380–393 MiB against 363–397 MiB; docs/benchmarks.md, "HTTP throughput,
// fifth pass"): most of it is not the Go heap's headroom.
const httpGCPercent = 200

// setHTTPGCPercent applies httpGCPercent unless GOGC is set (getenv is
// os.Getenv); it reports whether it did.
func setHTTPGCPercent(getenv func(string) string) bool {
	if getenv("GOGC") != "" {
		return false
	}
	debug.SetGCPercent(httpGCPercent)
	return true
}
