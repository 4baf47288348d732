// Command model is a discrete-event model of how a Pool of two workers
// shares the tree sum of BenchmarkTreeSum (a balanced tree, a fork at every
// node with two children), to show how the time a promoted job waits before
// it starts decides what the second worker is worth:
//
//	go run ./fork/testdata/model -nodes 20 -wake 150us -first 1
//	go run ./fork/testdata/model -nodes 20 -wake 1us -first 0.5
//
// Every node costs the same (-node, the 1-worker nanoseconds per node). A worker
// walks its job depth first, left child first, keeping the right children
// it has not started as records, newest on top; a leaf goes on with the
// newest record. Each worker reads its clock every quarter heartbeat from
// the start of its job; a read that comes a heartbeat or more after the
// worker's last promotion (or, for the caller, -first heartbeats after the
// start of the Call), while the other worker has nothing to do, hands the
// other worker the oldest record, which it starts -wake later. A worker
// that runs out of work while the record it offered has not started takes
// it back and runs it itself, as Join does; a caller that waits for the
// other worker's last job runs on -wake after that job ends. The model prints the time of
// the Call on one worker and on two, and their ratio.
package main

import (
	"flag"
	"fmt"
	"time"
)

type worker struct {
	path     []int // subtrees to walk now, innermost last (sizes)
	stack    []int // records not started, oldest first (subtree sizes)
	lastBeat float64
	nextRead float64
	// A job handed to this worker: its size and when it starts.
	handed  int
	startAt float64
	from    *worker
}

func (w *worker) busy() bool { return len(w.path) > 0 || len(w.stack) > 0 }

func main() {
	logn := flag.Int("nodes", 20, "the tree has 2^nodes-1 nodes")
	node := flag.Float64("node", 2.5, "nanoseconds per node on one worker")
	hb := flag.Duration("heartbeat", 100*time.Microsecond, "heartbeat")
	wake := flag.Duration("wake", 150*time.Microsecond, "from a promotion to the job's start on the other worker")
	first := flag.Float64("first", 1, "first promotion of the Call after this many heartbeats")
	phase := flag.Float64("phase", 0, "the caller's clock reads come this fraction of a quarter heartbeat late")
	flag.Parse()
	n := 1<<*logn - 1
	c, H, L := *node, float64(*hb), float64(*wake)
	caller, other := &worker{path: []int{n}}, &worker{}
	caller.lastBeat = -(*first - 1) * H
	caller.nextRead = H/4 + *phase*H/4
	other.lastBeat = -1e18 // its last promotion was long ago
	ws := []*worker{caller, other}
	t := 0.0
	inf := 1e300
	idleSince := inf
	for {
		for i, w := range ws {
			o := ws[1-i]
			if w.handed > 0 && t >= w.startAt {
				w.path, w.handed = []int{w.handed}, 0
				w.nextRead = t + H/4
			}
			if !w.busy() {
				// Out of work: take back a record offered and not started.
				if o.handed > 0 && o.from == w && t < o.startAt {
					w.path, o.handed = []int{o.handed}, 0
				} else {
					continue
				}
			}
			if len(w.path) == 0 {
				w.path = append(w.path, w.stack[len(w.stack)-1])
				w.stack = w.stack[:len(w.stack)-1]
			}
			size := w.path[len(w.path)-1]
			w.path = w.path[:len(w.path)-1]
			if size > 1 { // fork the right child, walk the left
				w.stack = append(w.stack, (size-1)/2)
				w.path = append(w.path, (size-1)/2)
			}
			if t >= w.nextRead {
				w.nextRead = t + H/4
				if t-w.lastBeat >= H && !o.busy() && o.handed == 0 && len(w.stack) > 0 {
					o.handed, o.startAt, o.from = w.stack[0], t+L, w
					w.stack = w.stack[1:]
					w.lastBeat = t
				}
			}
		}
		if !caller.busy() && !other.busy() && caller.handed == 0 && other.handed == 0 {
			break
		}
		if !caller.busy() && caller.handed == 0 {
			idleSince = min(idleSince, t)
		} else {
			idleSince = inf
		}
		t += c
	}
	if idleSince < t {
		// The caller waited for the other worker's job, parked or polling:
		// it runs on once woken.
		t += L
	}
	one := float64(n) * c
	fmt.Printf("2^%d-1 nodes, wake %v, first promotion after %.2g heartbeats, phase %.2g: 1 worker %v, 2 workers %v: %.2fx\n",
		*logn, *wake, *first, *phase, time.Duration(one).Round(time.Microsecond), time.Duration(t).Round(time.Microsecond), one/t)
}
