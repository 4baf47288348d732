//go:build race

package archive

// raceEnabled lets the heaviest tests shrink under the race detector,
// which slows decoding tenfold; what they check does not depend on size.
const raceEnabled = true
