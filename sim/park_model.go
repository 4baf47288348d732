package sim

import (
	"errors"
	"sync/atomic"

	"github.com/spindle-go/spindle/internal/core"
	"github.com/spindle-go/spindle/internal/deque"
)

// parkWorld is the shared memory of the park/wake protocol model: a queue
// (reduced to a counter), the searcher count, the idle bitmask, and one
// permit per worker.
type parkWorld struct {
	work     atomic.Int64
	spinning atomic.Int32
	idle     *deque.Bitmask
	permit   [1]bool
	blocked  bool // the worker blocked (a later permit would wake it)
}

// ParkModel restates core's park protocol (Worker.PrepareParking, Pool.wakeOne)
// as one atomic operation per step: a searching worker gives up and parks
// while a publisher pushes one task and decides whether to wake it. Under
// every interleaving the worker must not end up blocked with work queued and
// no permit. With recheckFirst the worker re-checks the queue before
// announcing itself idle — the classic lost-wakeup bug — and the model must
// fail.
func ParkModel(recheckFirst bool) Model {
	var w *parkWorld
	name := "park_vs_publish_no_lost_wakeup"
	if recheckFirst {
		name = "broken_park_recheck_before_announce"
	}
	return Model{
		Name: name,
		Init: func(*core.State) {},
		Build: func(obs *Observed) []Thread {
			w = &parkWorld{idle: deque.NewBitmask(1)}
			w.spinning.Store(1) // the worker starts as a searcher
			wpc, sawWork := 0, false
			worker := ThreadFunc(func(*core.State) bool {
				switch wpc {
				case 0: // stopSpinning
					w.spinning.Add(-1)
				case 1: // announce (or, broken, re-check first)
					if recheckFirst {
						sawWork = w.work.Load() > 0
					} else {
						w.idle.Set(0)
					}
				case 2: // re-check (or, broken, announce second)
					if recheckFirst {
						w.idle.Set(0)
					} else {
						sawWork = w.work.Load() > 0
					}
				case 3:
					if sawWork { // back out: Unparked
						if w.idle.TryClear(0) {
							w.spinning.Add(1)
						}
						return false
					}
					if w.permit[0] {
						w.permit[0] = false // the block returns at once
						return false
					}
					w.blocked = true
					return false
				}
				wpc++
				return true
			})
			ppc := 0
			publisher := ThreadFunc(func(*core.State) bool {
				switch ppc {
				case 0:
					w.work.Add(1) // push
				case 1:
					if w.spinning.Load() > 0 {
						return false // a searcher will find it
					}
				case 2:
					if i := w.idle.Next(0); i >= 0 && w.idle.TryClear(i) {
						w.spinning.Add(1)
						w.permit[i] = true
					}
					return false
				}
				ppc++
				return true
			})
			return []Thread{worker, publisher}
		},
		Check: func(*core.State, *Observed) error {
			// A permit that arrives after the worker blocked wakes it, so the
			// only bad end is blocked, work queued, and no permit.
			if w.blocked && !w.permit[0] && w.work.Load() > 0 {
				return errors.New("worker blocked with work queued and no wakeup coming")
			}
			return nil
		},
	}
}
