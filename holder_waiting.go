package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

// waitingRuns are the runs the holder keeps until they are due: by run, in
// due order, and those made due at once. Runs held for wait and for
// wait_for_missing each get the same delay, so each joins the end of its
// delay's queue in due order; every operation costs O(1) per run
// (amortised), whatever the number of runs held. Queue entries name a run
// by key and number, not by pointer, so a run released early (made ready)
// is not kept alive by its place in the queue. Guarded by the processor's
// mutex.
type waitingRuns struct {
	byRun  map[runKey]*heldRun
	queues [2]runQueue // [wait, wait_for_missing]
	ready  []*heldRun
	seq    uint64
}

// runQueue is a FIFO of runs in due order.
type runQueue struct {
	entries []queuedRun
	head    int
}

// queuedRun is a run's place in its queue: the run is byRun[key] while its
// number is seq.
type queuedRun struct {
	key runKey
	seq uint64
	due int64
}

func (w *waitingRuns) len() int { return len(w.byRun) }

// push queues a run until its due time.
func (w *waitingRuns) push(r *heldRun) {
	if w.byRun == nil {
		w.byRun = make(map[runKey]*heldRun)
	}
	w.seq++
	r.seq = w.seq
	key := runKey{r.trace, r.span}
	w.byRun[key] = r
	q := &w.queues[0]
	if r.incomplete {
		q = &w.queues[1]
	}
	q.entries = append(q.entries, queuedRun{key: key, seq: r.seq, due: r.due})
}

// get returns the waiting run of key, or nil.
func (w *waitingRuns) get(key runKey) *heldRun { return w.byRun[key] }

// makeReady makes the run of key, held while its trace showed spans
// missing, due at once. It reports whether it did.
func (w *waitingRuns) makeReady(key runKey) bool {
	r := w.byRun[key]
	if r == nil || !r.incomplete || r.ready {
		return false
	}
	r.ready = true
	w.ready = append(w.ready, r)
	return true
}

// takeDue removes and returns the runs made ready and those due by now
// (every run when all).
func (w *waitingRuns) takeDue(now int64, all bool) []*heldRun {
	var out []*heldRun
	for _, r := range w.ready {
		if w.byRun[runKey{r.trace, r.span}] == r {
			delete(w.byRun, runKey{r.trace, r.span})
			out = append(out, r)
		}
	}
	clear(w.ready)
	w.ready = w.ready[:0]
	for i := range w.queues {
		q := &w.queues[i]
		for q.head < len(q.entries) && (all || q.entries[q.head].due <= now) {
			e := q.entries[q.head]
			q.entries[q.head] = queuedRun{}
			q.head++
			if r := w.byRun[e.key]; r != nil && r.seq == e.seq {
				delete(w.byRun, e.key)
				out = append(out, r)
			}
		}
		q.compact()
	}
	return out
}

// compact moves the queue's live entries to its front once most are gone.
func (q *runQueue) compact() {
	if q.head == len(q.entries) {
		q.entries, q.head = q.entries[:0], 0
		return
	}
	if q.head > 1024 && q.head > len(q.entries)/2 {
		n := copy(q.entries, q.entries[q.head:])
		clear(q.entries[n:])
		q.entries, q.head = q.entries[:n], 0
	}
}

// all calls f with each waiting run, in no order.
func (w *waitingRuns) all(f func(*heldRun)) {
	for _, r := range w.byRun {
		f(r)
	}
}
