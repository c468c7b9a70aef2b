//go:build race

package static

// raceEnabled: under the race detector sync.Pool drops objects at random,
// so allocation counts are not stable.
const raceEnabled = true
