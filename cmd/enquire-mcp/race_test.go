//go:build race

package main

// raceEnabled shortens the slowest tests under the race detector, which
// runs them many times slower; `go test ./...` runs them whole.
const raceEnabled = true
