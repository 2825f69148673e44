//go:build race

package store

// raceEnabled reports a build with the race detector, whose overhead grows
// with the memory a test touches and so distorts timings.
const raceEnabled = true
