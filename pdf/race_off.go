//go:build !race

package pdf

// raceEnabled: built without the race detector.
const raceEnabled = false
