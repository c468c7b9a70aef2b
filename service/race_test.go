//go:build race

package service

// raceEnabled shortens the slowest tests under the race detector, which
// runs them many times slower; `go test ./...` runs them whole.
const raceEnabled = true
