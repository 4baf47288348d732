package deque

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// The tests in this file record short concurrent histories against a Ring or an
// Injector and ask porcupine whether each history is linearizable with respect
// to a sequential specification. Histories are kept to about 40 operations so
// each check takes microseconds and many interleavings can be tried.
//
// Timestamps come from one atomic counter: an operation's Call is taken before
// it starts and its Return after it ends, so the [Call, Return] intervals are
// consistent with real time, which is all porcupine needs.
//
// Model states are strings, one byte per queued value, oldest first: values
// in one history are distinct and below 256, and strings compare with ==.

// linClock hands out strictly increasing timestamps.
type linClock struct{ t atomic.Int64 }

func (c *linClock) now() int64 { return c.t.Add(1) }

// pause idles for a random short while, so that the goroutines' operations
// drift against each other from one history to the next instead of lining up
// the same way every time. It spins on a local, which costs the same with and
// without the race detector.
func pause(rng *rand.Rand) int {
	x := 0
	for i := range rng.IntN(8) * 64 {
		x ^= i
	}
	return x
}

// roundBarrier lines the goroutines of a test up at the start of every round
// (one round records one history). The goroutines live for the whole test and
// spin between rounds, so every P stays busy and the operations of a round
// really run in parallel; goroutines started per history would mostly run one
// after another, each finishing before the scheduler wakes another P. Waiters
// yield now and then, so it also works with more goroutines than Ps.
type roundBarrier struct {
	arrived atomic.Int64
	parties int64
}

func (b *roundBarrier) await(round int) {
	b.arrived.Add(1)
	// Counting arrivals across rounds works because no goroutine can reach
	// round r+1 before all have reached round r.
	for i := 0; b.arrived.Load() < b.parties*int64(round+1); i++ {
		if i%64 == 63 {
			runtime.Gosched()
		}
	}
}

type dequeOpKind uint8

const (
	opPush dequeOpKind = iota
	opPushBatch
	opPop
	opPopBatch
	opSteal
)

func (k dequeOpKind) String() string {
	return [...]string{"Push", "PushBatch", "Pop", "PopBatch", "Steal"}[k]
}

type dequeInput struct {
	kind  dequeOpKind
	v     int    // Push: the value; PopBatch: len(dst)
	batch string // PushBatch: the values offered, one byte each
}

type dequeOutput struct {
	v     int // Pop, Steal: the value; PushBatch: how many were added
	ok    bool
	batch string // PopBatch: the values taken, one byte each
}

// dequeModel is the sequential specification of a Ring of capacity c: a
// deque whose owner end is the back of the string and whose thief end is the
// front.
//
// A failed Push (or a PushBatch that adds less than fits) is accepted in any
// state. The ring may refuse a Push below
// capacity while a thief that claimed a slot one lap earlier is still reading
// it (the seq protocol in ring.go), and that thief's Steal may already be
// linearized, so "full" is not observable from outside. Such a Push changes
// nothing, so accepting it cannot hide a lost or duplicated element; that Push
// succeeds exactly when the ring is not full without thieves is checked by
// TestRingMatchesSequentialDeque.
func dequeModel(c int) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return "" },
		Step: func(state, input, output any) (bool, any) {
			s, in, out := state.(string), input.(dequeInput), output.(dequeOutput)
			switch in.kind {
			case opPush:
				if !out.ok {
					return true, s
				}
				return len(s) < c, s + string([]byte{byte(in.v)})
			case opPushBatch:
				// Adds a prefix of the batch, all at once (one publishing
				// store), never past capacity. A shorter prefix than what
				// fits is accepted for the same reason as a failed Push.
				n := out.v
				return n >= 0 && n <= len(in.batch) && len(s)+n <= c, s + in.batch[:n]
			case opPopBatch:
				// Atomic: the min(len(dst), len) newest, newest first.
				k := min(in.v, len(s))
				top := []byte(s[len(s)-k:])
				slices.Reverse(top)
				return out.batch == string(top), s[:len(s)-k]
			case opPop:
				if !out.ok {
					return s == "", s
				}
				return s != "" && s[len(s)-1] == byte(out.v), s[:max(len(s)-1, 0)]
			default: // opSteal
				if !out.ok {
					return s == "", s
				}
				return s != "" && s[0] == byte(out.v), s[min(1, len(s)):]
			}
		},
		DescribeOperation: func(input, output any) string {
			in, out := input.(dequeInput), output.(dequeOutput)
			switch in.kind {
			case opPush:
				return fmt.Sprintf("Push(%d) -> %v", in.v, out.ok)
			case opPushBatch:
				return fmt.Sprintf("PushBatch(%v) -> %d", []byte(in.batch), out.v)
			case opPopBatch:
				return fmt.Sprintf("PopBatch(dst[%d]) -> %v", in.v, []byte(out.batch))
			}
			return fmt.Sprintf("%v() -> %d, %v", in.kind, out.v, out.ok)
		},
		DescribeState: func(state any) string { return fmt.Sprint([]byte(state.(string))) },
	}
}

// ringHistories records rounds histories, each by one owner and some thieves
// on a fresh ring. A StealHalf is recorded as the individual Steals it is made
// of, because it is not atomic as a whole: each element is claimed by its own
// CAS, and other operations may take effect between them. The k-th element's
// interval runs from the end of the (k-1)-th put (or the call) to the start of
// the k-th put, which brackets the Steal that produced it exactly.
//
// Values are at most 3*ownerOps, so ownerOps must stay below 85.
func ringHistories(seed uint64, rounds, capacity, thieves, ownerOps, thiefOps int) [][]porcupine.Operation {
	rings := make([]*Ring[int], rounds)
	for i := range rings {
		rings[i] = NewRing[int](capacity)
	}
	clocks := make([]linClock, rounds)
	hists := make([][][]porcupine.Operation, rounds)
	for i := range hists {
		hists[i] = make([][]porcupine.Operation, thieves+1)
	}
	bar := roundBarrier{parties: int64(thieves + 1)}
	var wg sync.WaitGroup

	wg.Add(1)
	go func() { // owner, client 0
		defer wg.Done()
		rng := rand.New(rand.NewPCG(seed, 0))
		for round := range rounds {
			r, clock := rings[round], &clocks[round]
			var h []porcupine.Operation
			next := 1
			bar.await(round)
			for range ownerOps {
				pause(rng)
				switch op := rng.IntN(10); {
				case op < 5:
					call := clock.now()
					ok := r.Push(next)
					h = append(h, porcupine.Operation{ClientId: 0, Input: dequeInput{kind: opPush, v: next}, Call: call, Output: dequeOutput{ok: ok}, Return: clock.now()})
					next++
				case op < 6:
					vs := make([]int, 1+rng.IntN(3))
					bs := make([]byte, len(vs))
					for i := range vs {
						vs[i], bs[i] = next, byte(next)
						next++
					}
					call := clock.now()
					n := r.PushBatch(vs)
					h = append(h, porcupine.Operation{ClientId: 0, Input: dequeInput{kind: opPushBatch, batch: string(bs)}, Call: call, Output: dequeOutput{v: n}, Return: clock.now()})
				case op < 7:
					dst := make([]int, 1+rng.IntN(3))
					call := clock.now()
					n := r.PopBatch(dst)
					ret := clock.now()
					bs := make([]byte, n)
					for i, v := range dst[:n] {
						bs[i] = byte(v)
					}
					h = append(h, porcupine.Operation{ClientId: 0, Input: dequeInput{kind: opPopBatch, v: len(dst)}, Call: call, Output: dequeOutput{batch: string(bs)}, Return: ret})
				default:
					call := clock.now()
					v, ok := r.Pop()
					h = append(h, porcupine.Operation{ClientId: 0, Input: dequeInput{kind: opPop}, Call: call, Output: dequeOutput{v: v, ok: ok}, Return: clock.now()})
				}
			}
			hists[round][0] = h
		}
	}()

	for id := 1; id <= thieves; id++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(id)))
			for round := range rounds {
				r, clock := rings[round], &clocks[round]
				var h []porcupine.Operation
				bar.await(round)
				for range thiefOps {
					pause(rng)
					if rng.IntN(10) < 7 {
						call := clock.now()
						v, ok := r.Steal()
						h = append(h, porcupine.Operation{ClientId: id, Input: dequeInput{kind: opSteal}, Call: call, Output: dequeOutput{v: v, ok: ok}, Return: clock.now()})
						continue
					}
					call := clock.now()
					n := r.StealHalf(1+rng.IntN(3), func(v int) {
						ret := clock.now()
						h = append(h, porcupine.Operation{ClientId: id, Input: dequeInput{kind: opSteal}, Call: call, Output: dequeOutput{v: v, ok: true}, Return: ret})
						call = clock.now()
					})
					if n == 0 {
						// With max >= 1, moving nothing means it saw the ring empty.
						h = append(h, porcupine.Operation{ClientId: id, Input: dequeInput{kind: opSteal}, Call: call, Output: dequeOutput{}, Return: clock.now()})
					}
				}
				hists[round][id] = h
			}
		}()
	}

	wg.Wait()
	return flatten(hists)
}

// flatten joins each round's per-goroutine histories.
func flatten(hists [][][]porcupine.Operation) [][]porcupine.Operation {
	out := make([][]porcupine.Operation, len(hists))
	for i, perClient := range hists {
		for _, h := range perClient {
			out[i] = append(out[i], h...)
		}
	}
	return out
}

// checkLinearizable fails the test if history is not linearizable under
// model, logging the history and saving porcupine's visualization to a file.
func checkLinearizable(t *testing.T, what string, model porcupine.Model, history []porcupine.Operation) {
	t.Helper()
	res, info := porcupine.CheckOperationsVerbose(model, history, 30*time.Second)
	if res == porcupine.Ok {
		return
	}
	var b strings.Builder
	for _, op := range history {
		fmt.Fprintf(&b, "\n  client %d [%3d,%3d] %s", op.ClientId, op.Call, op.Return, model.DescribeOperation(op.Input, op.Output))
	}
	if f, err := os.CreateTemp("", "deque-linearizability-*.html"); err == nil {
		if err := porcupine.Visualize(model, info, f); err == nil {
			b.WriteString("\n  visualization: " + f.Name())
		}
		f.Close()
	}
	t.Fatalf("%s: history is %v, not linearizable:%s", what, res, b.String())
}

func TestRingIsLinearizable(t *testing.T) {
	histories := 3000
	if testing.Short() {
		histories = 300
	}
	tests := []struct {
		capacity, thieves, ownerOps, thiefOps int
	}{
		{capacity: 2, thieves: 2, ownerOps: 20, thiefOps: 8},
		{capacity: 4, thieves: 3, ownerOps: 16, thiefOps: 7},
		{capacity: 8, thieves: 2, ownerOps: 24, thiefOps: 6},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("cap=%d/thieves=%d", tt.capacity, tt.thieves), func(t *testing.T) {
			model := dequeModel(tt.capacity)
			var steals, pops, fulls int
			for i, h := range ringHistories(uint64(tt.capacity), histories, tt.capacity, tt.thieves, tt.ownerOps, tt.thiefOps) {
				checkLinearizable(t, fmt.Sprintf("history %d", i), model, h)
				for _, op := range h {
					in, out := op.Input.(dequeInput), op.Output.(dequeOutput)
					switch {
					case in.kind == opSteal && out.ok:
						steals++
					case in.kind == opPop && out.ok, in.kind == opPopBatch && out.batch != "":
						pops++
					case in.kind == opPush && !out.ok:
						fulls++
					}
				}
			}
			// The histories must have exercised both ends and a full ring, or
			// they prove little.
			if steals == 0 || pops == 0 || fulls == 0 {
				t.Fatalf("weak histories: %d successful steals, %d pops, %d refused pushes", steals, pops, fulls)
			}
		})
	}
}

type injectorOpKind uint8

const (
	injPush injectorOpKind = iota
	injPushBatch
	injPop
	injPopBatch
	injLen
	injDrain
)

type injectorInput struct {
	kind  injectorOpKind
	vs    string // pushed values, one byte each
	dst   int    // PopBatch: len(dst)
	share int    // PopBatch: share
}

type injectorOutput struct {
	vs string // popped values, one byte each
	n  int    // Len, Drain: the count returned
}

// injectorModel is the sequential specification of an Injector: an unbounded
// FIFO in which every operation, PopBatch and Drain included, is atomic, and
// PopBatch takes exactly min(len(dst), ceil(n/share)) elements (n when
// share <= 1).
func injectorModel() porcupine.Model {
	return porcupine.Model{
		Init: func() any { return "" },
		Step: func(state, input, output any) (bool, any) {
			s, in, out := state.(string), input.(injectorInput), output.(injectorOutput)
			switch in.kind {
			case injPush, injPushBatch:
				return true, s + in.vs
			case injPop:
				if out.vs == "" {
					return s == "", s
				}
				return s != "" && s[:1] == out.vs, s[min(1, len(s)):]
			case injPopBatch:
				k := len(s)
				if in.share > 1 {
					k = (len(s) + in.share - 1) / in.share
				}
				k = min(k, in.dst)
				return out.vs == s[:k], s[k:]
			case injLen:
				return out.n == len(s), s
			default: // injDrain
				return out.n == len(s), ""
			}
		},
		DescribeOperation: func(input, output any) string {
			in, out := input.(injectorInput), output.(injectorOutput)
			switch in.kind {
			case injPush:
				return fmt.Sprintf("Push(%d)", in.vs[0])
			case injPushBatch:
				return fmt.Sprintf("PushBatch(%v)", []byte(in.vs))
			case injPop:
				return fmt.Sprintf("Pop() -> %v", []byte(out.vs))
			case injPopBatch:
				return fmt.Sprintf("PopBatch(dst[%d], %d) -> %v", in.dst, in.share, []byte(out.vs))
			case injLen:
				return fmt.Sprintf("Len() -> %d", out.n)
			default:
				return fmt.Sprintf("Drain() -> %d", out.n)
			}
		},
		DescribeState: func(state any) string { return fmt.Sprint([]byte(state.(string))) },
	}
}

// injectorHistories records rounds histories, each by producers and
// consumers on a fresh injector. Producer p pushes values from its own range,
// so every value in a history is distinct.
//
// The checker's work grows with the number of orders in which concurrent
// pushes can be linearized before a pop pins them down: the model states of
// different orders differ, so its cache cannot merge them. A Drain or Len that
// sees only a count pins nothing. With P producers of k operations each there
// are at most (P*k)! / (k!)^P orders; the configurations below keep that in
// the tens of thousands, so no history comes near the checker's timeout.
func injectorHistories(seed uint64, rounds, producers, consumers, producerOps, consumerOps int) [][]porcupine.Operation {
	queues := make([]Injector[int], rounds)
	clocks := make([]linClock, rounds)
	hists := make([][][]porcupine.Operation, rounds)
	for i := range hists {
		hists[i] = make([][]porcupine.Operation, producers+consumers)
	}
	bar := roundBarrier{parties: int64(producers + consumers)}
	var wg sync.WaitGroup
	for id := range producers + consumers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(id)))
			for round := range rounds {
				q, clock := &queues[round], &clocks[round]
				var h []porcupine.Operation
				record := func(in injectorInput, call int64, out injectorOutput) {
					h = append(h, porcupine.Operation{ClientId: id, Input: in, Call: call, Output: out, Return: clock.now()})
				}
				next := 1 + id*(255/(producers+consumers))
				bar.await(round)
				ops := consumerOps
				if id < producers {
					ops = producerOps
				}
				for range ops {
					pause(rng)
					if id < producers {
						if rng.IntN(2) == 0 {
							call := clock.now()
							q.Push(next)
							record(injectorInput{kind: injPush, vs: string([]byte{byte(next)})}, call, injectorOutput{})
							next++
							continue
						}
						batch := make([]int, 1+rng.IntN(3))
						bs := make([]byte, len(batch))
						for i := range batch {
							batch[i], bs[i] = next, byte(next)
							next++
						}
						call := clock.now()
						q.PushBatch(batch)
						record(injectorInput{kind: injPushBatch, vs: string(bs)}, call, injectorOutput{})
						continue
					}
					switch op := rng.IntN(20); {
					case op < 8:
						call := clock.now()
						v, ok := q.Pop()
						var out injectorOutput
						if ok {
							out.vs = string([]byte{byte(v)})
						}
						record(injectorInput{kind: injPop}, call, out)
					case op < 16:
						dst := make([]int, 1+rng.IntN(4))
						share := rng.IntN(4)
						call := clock.now()
						n := q.PopBatch(dst, share)
						bs := make([]byte, n)
						for i, v := range dst[:n] {
							bs[i] = byte(v)
						}
						record(injectorInput{kind: injPopBatch, dst: len(dst), share: share}, call, injectorOutput{vs: string(bs)})
					case op < 19:
						call := clock.now()
						n := q.Len()
						record(injectorInput{kind: injLen}, call, injectorOutput{n: n})
					default:
						call := clock.now()
						n := q.Drain()
						record(injectorInput{kind: injDrain}, call, injectorOutput{n: n})
					}
				}
				hists[round][id] = h
			}
		}()
	}
	wg.Wait()
	return flatten(hists)
}

func TestInjectorIsLinearizable(t *testing.T) {
	histories := 3000
	if testing.Short() {
		histories = 300
	}
	tests := []struct {
		producers, consumers, producerOps, consumerOps int
	}{
		{producers: 1, consumers: 2, producerOps: 14, consumerOps: 12},
		{producers: 2, consumers: 2, producerOps: 8, consumerOps: 10}, // 16!/(8!)^2 = 12870 push orders
		{producers: 3, consumers: 1, producerOps: 4, consumerOps: 14}, // 12!/(4!)^3 = 34650
		{producers: 2, consumers: 3, producerOps: 7, consumerOps: 7},  // 14!/(7!)^2 = 3432
	}
	model := injectorModel()
	for _, tt := range tests {
		t.Run(fmt.Sprintf("producers=%d/consumers=%d", tt.producers, tt.consumers), func(t *testing.T) {
			var taken int
			for i, h := range injectorHistories(uint64(tt.producers), histories, tt.producers, tt.consumers, tt.producerOps, tt.consumerOps) {
				checkLinearizable(t, fmt.Sprintf("history %d", i), model, h)
				for _, op := range h {
					taken += len(op.Output.(injectorOutput).vs)
				}
			}
			if taken == 0 {
				t.Fatal("weak histories: no consumer ever took an element")
			}
		})
	}
}

// TestModelsRejectNonLinearizableHistories guards the two models above: a
// model that accepted everything would make the linearizability tests pass
// vacuously.
func TestModelsRejectNonLinearizableHistories(t *testing.T) {
	type op = porcupine.Operation
	push := func(client int, v int, call, ret int64) op {
		return op{ClientId: client, Input: dequeInput{kind: opPush, v: v}, Output: dequeOutput{ok: true}, Call: call, Return: ret}
	}
	take := func(client int, k dequeOpKind, v int, ok bool, call, ret int64) op {
		return op{ClientId: client, Input: dequeInput{kind: k}, Output: dequeOutput{v: v, ok: ok}, Call: call, Return: ret}
	}
	ipush := func(client int, vs string, call, ret int64) op {
		return op{ClientId: client, Input: injectorInput{kind: injPushBatch, vs: vs}, Output: injectorOutput{}, Call: call, Return: ret}
	}
	ipopBatch := func(client, dst, share int, vs string, call, ret int64) op {
		return op{ClientId: client, Input: injectorInput{kind: injPopBatch, dst: dst, share: share}, Output: injectorOutput{vs: vs}, Call: call, Return: ret}
	}
	tests := []struct {
		name  string
		model porcupine.Model
		h     []op
		ok    bool
	}{
		{"steal takes oldest", dequeModel(4), []op{push(0, 1, 1, 2), push(0, 2, 3, 4), take(1, opSteal, 1, true, 5, 6)}, true},
		{"steal takes newest", dequeModel(4), []op{push(0, 1, 1, 2), push(0, 2, 3, 4), take(1, opSteal, 2, true, 5, 6)}, false},
		{"pop takes oldest", dequeModel(4), []op{push(0, 1, 1, 2), push(0, 2, 3, 4), take(0, opPop, 1, true, 5, 6)}, false},
		{"element taken twice", dequeModel(4), []op{push(0, 1, 1, 2), take(0, opPop, 1, true, 3, 6), take(1, opSteal, 1, true, 3, 6)}, false},
		{"empty while holding one", dequeModel(4), []op{push(0, 1, 1, 2), take(1, opSteal, 0, false, 3, 4), take(0, opPop, 1, true, 5, 6)}, false},
		{"steal overlapping its push", dequeModel(4), []op{push(0, 1, 1, 4), take(1, opSteal, 1, true, 2, 3)}, true},
		{"push beyond capacity", dequeModel(2), []op{push(0, 1, 1, 2), push(0, 2, 3, 4), push(0, 3, 5, 6)}, false},
		{"batch beyond capacity", dequeModel(2), []op{push(0, 1, 1, 2), {ClientId: 0, Input: dequeInput{kind: opPushBatch, batch: "\x02\x03"}, Output: dequeOutput{v: 2}, Call: 3, Return: 4}}, false},
		{"batch seen half-published", dequeModel(4), []op{
			{ClientId: 0, Input: dequeInput{kind: opPushBatch, batch: "\x01\x02"}, Output: dequeOutput{v: 2}, Call: 1, Return: 10},
			take(1, opSteal, 1, true, 2, 3), take(1, opSteal, 0, false, 4, 5)}, false},
		{"pop batch newest first", dequeModel(4), []op{push(0, 1, 1, 2), push(0, 2, 3, 4), push(0, 3, 5, 6),
			{ClientId: 0, Input: dequeInput{kind: opPopBatch, v: 2}, Output: dequeOutput{batch: "\x03\x02"}, Call: 7, Return: 8}}, true},
		{"pop batch oldest first", dequeModel(4), []op{push(0, 1, 1, 2), push(0, 2, 3, 4), push(0, 3, 5, 6),
			{ClientId: 0, Input: dequeInput{kind: opPopBatch, v: 2}, Output: dequeOutput{batch: "\x02\x03"}, Call: 7, Return: 8}}, false},
		{"pop batch short of what is there", dequeModel(4), []op{push(0, 1, 1, 2), push(0, 2, 3, 4),
			{ClientId: 0, Input: dequeInput{kind: opPopBatch, v: 3}, Output: dequeOutput{batch: "\x02"}, Call: 5, Return: 6}}, false},
		{"batch in order", injectorModel(), []op{ipush(0, "\x01\x02\x03\x04", 1, 2), ipopBatch(1, 8, 2, "\x01\x02", 3, 4)}, true},
		{"batch ignores share", injectorModel(), []op{ipush(0, "\x01\x02\x03\x04", 1, 2), ipopBatch(1, 8, 2, "\x01", 3, 4)}, false},
		{"batch out of order", injectorModel(), []op{ipush(0, "\x01\x02\x03\x04", 1, 2), ipopBatch(1, 2, 1, "\x02\x01", 3, 4)}, false},
		{"batch split by concurrent pop", injectorModel(), []op{ipush(0, "\x01\x02\x03", 1, 2), ipopBatch(1, 2, 1, "\x01\x03", 3, 6), ipopBatch(2, 1, 1, "\x02", 4, 5)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := porcupine.CheckOperations(tt.model, tt.h); got != tt.ok {
				t.Fatalf("CheckOperations = %v, want %v", got, tt.ok)
			}
		})
	}
}
