// Package classic holds the classic fork/join benchmark programs (fib,
// nqueens, skynet, matmul, and Spice's tree sum), each written the ways a Go
// programmer would write it: plain sequential code, a goroutine and a
// sync.WaitGroup at every fork, a fixed pool of goroutines fed by a channel,
// and package fork. The testing.B benchmarks in the bench module (which add
// errgroup) and `spindle bench` run the same code, so the two tell the same
// story.
//
// Every version forks at every call the sequential code makes, as the
// tzcnt/runtime-benchmarks suite and Spice's benchmark do: no grain size, no
// cutoff. That is the point of the comparison: fork makes a fork that
// nobody takes cost a few instructions, where a goroutine costs hundreds of
// nanoseconds.
//
// The channel pool is the usual bounded pool: N goroutines receive funcs
// from an unbuffered channel. A fork hands its call to a pool goroutine if
// one is waiting and runs it inline otherwise (a blocking send could
// deadlock: every pool goroutine may be waiting for a join), and the joiner
// waits on a WaitGroup.
package classic
