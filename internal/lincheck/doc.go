// Package lincheck checks, in tests, that a function reading untrusted input
// does work linear in that input. Every such reader in the module (the
// decoders and their candidate search, the keyword automaton and rule
// matching, line diffs, rename detection, tree diffs, index parsing, report
// writers, merge) is run on adversarial shapes at a size n and at Scale×n,
// and the test fails when the cost at Scale×n is more than Scale×Slack
// times the cost at n. A quadratic path costs Scale² times as much at the
// larger size (64× for the default scale of 8), a linear one about Scale
// (8×), so the default slack of 3 (a bound of 24×) leaves room for caches,
// n log n sorts and a busy machine on one side and for nothing quadratic on
// the other.
//
// Cost is measured two ways, each compared separately:
//
//   - CPU time of the process (user + system, getrusage on Unix; wall
//     time elsewhere), the best of several runs: CPU time does not count
//     the time other processes hold the cores, so it is stable on a
//     shared machine, and the best of several runs drops the runs a
//     collection or a cache flush slowed. A call too short to time is
//     repeated until a run lasts MinRun, and the cost is per call.
//   - Bytes allocated (runtime.MemStats), which is exact: a reader that
//     copies a growing prefix at each step shows up here even where its
//     time hides in the noise.
//
// A failed comparison is measured again, up to Attempts times, before it
// fails the test: a quadratic path fails every attempt, a noisy one not.
//
// Sizes come in pairs, Size(short, full): `go test -short` (CI) takes the
// short one, a full run the other:
//
//	go test -run '^TestLinear' -count 1 ./...          # full sizes
//	go test -short -run '^TestLinear' -count 1 ./...   # CI's sizes
//
// Tests using this package are named TestLinear… so that the commands above
// select them.
package lincheck
