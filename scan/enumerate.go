package scan

// enumJob is the state of one source's Enumerate tasks: the source, the
// objects it listed that the frontier has not admitted yet, and a permit
// handed to the job when it was woken. One task owns a job at a time; a
// job that yields or parks is run again later, by any worker.
type enumJob struct {
	src     source
	l       batch // pending objects; subs are spawned as soon as they are listed
	drained bool  // the source has nothing more to list
	// permit is a frontier permit handed to this job when it was woken
	// from the wait list. The job spends it on its next object or, if it
	// has none, gives it back before its task ends.
	permit bool
}

// close abandons the job: the source's resources and the objects it
// listed and never admitted.
func (j *enumJob) close() {
	j.src.close()
	for _, o := range j.l.objs {
		o.closeFile()
	}
	j.l.objs = nil
}

// enumerate is the Enumerate task: it asks the job's source for one batch
// and admits it. Sub-sources (subdirectories) become Enumerate tasks;
// objects take a frontier permit and become Fetch tasks. When the
// frontier is full, the job parks on it with the objects it has not
// admitted, and a released permit is handed to it and spawns it again: it
// never blocks and never spins.
//
// A job lists its next batch only when the last one is admitted, so the
// objects listed ahead of the frontier are at most one batch per source
// being listed. Between batches it yields through the injector: the
// batch's sub-sources and objects, on this worker's ring, run first
// (depth first, which bounds the directories being listed by the depth of
// the tree), while an idle worker may take the rest of the source.
func (e *engine) enumerate(w *worker, j *enumJob) {
	if e.stopped() {
		e.endJob(w, j)
		return
	}
	if len(j.l.objs) == 0 && !j.drained {
		j.drained = !j.src.list(e, w, &j.l)
		for i, s := range j.l.subs {
			w.Spawn(task{kind: kindEnumerate, job: &enumJob{src: s}})
			j.l.subs[i] = nil
		}
		j.l.subs = j.l.subs[:0]
	}
	for len(j.l.objs) > 0 {
		if e.stopped() {
			e.endJob(w, j)
			return
		}
		o := j.l.objs[0]
		switch {
		case !e.s.Shard.Takes(o.name):
			w.Scratch.c.skipped[skipShard]++
		case !o.listed && e.skipsPath(w, o.name):
			w.Scratch.c.skipped[skipAllowlist]++
		case !e.admit(w, j, o):
			if e.front.park(j) {
				w.Scratch.c.backpressure++
				return
			}
			continue // a permit was freed meanwhile
		}
		j.l.objs[0] = nil
		j.l.objs = j.l.objs[1:]
	}
	j.l.objs = j.l.objs[:0]
	if j.drained {
		e.endJob(w, j)
		return
	}
	if j.permit {
		j.permit = false
		e.releasePermit(w) // woken with a permit that this batch did not need
	}
	w.SpawnGlobal(task{kind: kindEnumerate, job: j})
}

// admit takes a permit for o (or spends the one the job was handed) and
// spawns its first Fetch. It returns false, having done nothing, when the
// frontier is full.
func (e *engine) admit(w *worker, j *enumJob, o *object) bool {
	if j.permit {
		j.permit = false
	} else if !e.front.tryAcquire() {
		return false
	}
	if p := e.s.Progress; p != nil {
		p.Discovered.Add(1)
	}
	w.Spawn(task{kind: kindFetch, obj: o})
	return true
}

// endJob closes a job that is done or abandoned, returning a permit it was
// handed and did not spend.
func (e *engine) endJob(w *worker, j *enumJob) {
	j.close()
	if j.permit {
		j.permit = false
		e.releasePermit(w)
	}
}

// releasePermit returns a frontier permit and spawns the parked task it
// is handed to, if any.
func (e *engine) releasePermit(w *worker) {
	if j := e.front.release(); j != nil {
		w.Spawn(task{kind: kindEnumerate, job: j})
	}
}

// skipsPath asks the detector whether the global allowlist excludes path.
// A panic in the detector stops the scan, and the path counts as skipped.
func (e *engine) skipsPath(w *worker, path string) (skip bool) {
	if !e.guard(func() { skip = e.det.SkipPath(w.Scratch.scratch, path) }) {
		return true
	}
	return skip
}
