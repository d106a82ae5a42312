package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"encoding/binary"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
)

// passedRoots remembers the roots of recent traces that passed through as
// ordinary spans (an app's own request or session span above its model
// calls): when spans of the trace's run arrive after its root (each span
// exported on its own, in any order), the run is still assembled under the
// root and scored on a span of the run still in hand (see adoptPassedRoots).
//
// A fixed table of passedRootSlots entries, one per trace by its id's low
// bits: a newer trace takes an older one's slot, so a root is remembered
// for about the last passedRootSlots traces (a few seconds at tens of
// thousands of traces per second; 768 KiB). A batch's roots are written
// together under one lock (addAll): each write to the table most likely
// misses the cache, and a lock released after each of them waited for each
// miss in turn, where the writes of one critical section overlap.
type passedRoots struct {
	mu    sync.Mutex
	slots []passedRoot
	// any is set once a root was added: until then (a service whose
	// roots are agent spans, which never pass) get answers without a lock.
	any atomic.Bool
}

type passedRoot struct {
	trace pcommon.TraceID
	span  pcommon.SpanID
}

const passedRootSlots = 1 << 15

func newPassedRoots() *passedRoots {
	return &passedRoots{slots: make([]passedRoot, passedRootSlots)}
}

func slotOf(trace pcommon.TraceID) int {
	return int(binary.LittleEndian.Uint64(trace[8:]) & (passedRootSlots - 1))
}

// addAll remembers the roots of traces, later ones taking earlier ones'
// slots. r may be nil (roots are not recorded), when roots is empty.
func (r *passedRoots) addAll(roots []passedRoot) {
	if len(roots) == 0 {
		return
	}
	r.mu.Lock()
	for _, root := range roots {
		r.slots[slotOf(root.trace)] = root
	}
	r.mu.Unlock()
	if !r.any.Load() {
		r.any.Store(true)
	}
}

// get returns the root of a trace that passed, if remembered.
func (r *passedRoots) get(trace pcommon.TraceID) (pcommon.SpanID, bool) {
	if !r.any.Load() {
		return pcommon.SpanID{}, false
	}
	r.mu.Lock()
	e := r.slots[slotOf(trace)]
	r.mu.Unlock()
	return e.span, e.trace == trace && !e.span.IsEmpty()
}

// adoptPassedRoots looks, for each trace of the batch, for a root that
// passed through before the spans of its run: the store then assembles
// the run under it. A run complete already is scored on the batch's last
// span of it (its latest model call, else another span of the run); one
// that is not is held on that span until it is, like an agent span. Called
// with p.mu held.
func (p *tcaProcessor) adoptPassedRoots(b *batch, runs []closedRun, now int64) []closedRun {
	var last pcommon.TraceID
	for k, i := range b.order {
		e := &b.entries[i]
		if k > 0 && e.trace == last {
			continue
		}
		last = e.trace
		root, ok := p.roots.get(e.trace)
		if !ok {
			continue
		}
		carrier := carrierOf(b, k)
		if carrier == nil {
			continue
		}
		o := trajectory.AgentOptions{HoldIfMissing: true}
		p.serviceOptions(b, carrier.ref, &o)
		traj, missing, adopted := p.store.RootPassed(e.trace, root, o, now)
		switch {
		case !adopted:
		case missing != trajectory.MissingNone:
			runs = append(runs, closedRun{ref: carrier.ref, agent: root, hold: true, incomplete: true, root: true, passedRoot: true, heldFor: missing})
		case traj != nil:
			runs = append(runs, closedRun{ref: carrier.ref, agent: root, traj: traj, passedRoot: true})
		}
	}
	return runs
}

// carrierOf returns the entry of the trace that starts at b.order[k] that
// carries a passed root's verdict: its latest model call, else its latest
// GenAI span that is neither an agent span nor a root; nil when it has
// none.
func carrierOf(b *batch, k int) *entry {
	trace := b.entries[b.order[k]].trace
	var best *entry
	bestModel := false
	for _, i := range b.order[k:] {
		e := &b.entries[i]
		if e.trace != trace {
			break
		}
		if !e.genai || e.kind == extract.KindAgent || e.parent.IsEmpty() || e.localRoot {
			continue
		}
		model := e.modelStart != 0
		if best == nil || (model && !bestModel) || (model == bestModel && e.end >= best.end) {
			best, bestModel = e, model
		}
	}
	return best
}

// recordsRoots reports whether roots that pass first are remembered: only
// wait_for_missing waits for what comes after them.
func recordsRoots(cfg *Config) bool { return cfg.WaitForMissing > 0 && cfg.Wait == 0 }

// rememberRoot adds span to the batch's roots when it is a trace root and
// roots are recorded (see passedRoots).
func (p *tcaProcessor) rememberRoot(b *batch, span ptrace.Span) {
	if p.roots != nil && span.ParentSpanID().IsEmpty() {
		b.roots = append(b.roots, passedRoot{trace: span.TraceID(), span: span.SpanID()})
	}
}
