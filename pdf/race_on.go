//go:build race

package pdf

// raceEnabled: built with the race detector, whose shadow memory makes an
// address-space cap meaningless.
const raceEnabled = true
