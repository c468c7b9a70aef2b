//go:build race

package index

// raceEnabled shortens the slowest sequential equivalence tests under the
// race detector, which runs them many times slower and finds nothing in
// code that one goroutine runs; `go test ./...` runs them whole.
const raceEnabled = true
