//go:build race

package search_test

// raceEnabled shortens the slowest sequential equivalence tests under the
// race detector, which runs them many times slower and finds nothing in
// code that one goroutine runs; `go test ./...` runs them whole.
const raceEnabled = true
