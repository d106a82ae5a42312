// Package calltap lets an offline caller in this module (toolscore) see
// the calls each run was scored on: the merged calls with their witnesses,
// exactly as the processor's scorers received them. A tap is registered
// for a processor's component id before the processor is created; a
// processor without one (every collector's) pays nothing.
package calltap // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/calltap"

import (
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
)

// Run is one scored run: its trace and agent span, the calls its tool
// spans recorded (records merged), and the calls the scorers received
// (every witness paired, before a rule's view of them).
type Run struct {
	Trace    pcommon.TraceID
	Agent    pcommon.SpanID
	Recorded []trajectory.StoredCall
	Scored   []toolcall.Call
	// Unselected marks a run with calls that no rule selected: Scored are
	// its calls with every witness, as a rule reading all calls gets them.
	Unselected bool
}

// Func receives each scored run. It is called on the goroutine that
// scores the run and must not keep Scored (its memory is reused).
type Func func(Run)

var (
	mu   sync.Mutex
	taps = map[component.ID]Func{}
)

// Set registers f for the processor created with id, and returns the
// function that removes it.
func Set(id component.ID, f Func) (remove func()) {
	mu.Lock()
	defer mu.Unlock()
	taps[id] = f
	return func() {
		mu.Lock()
		defer mu.Unlock()
		delete(taps, id)
	}
}

// Get returns the tap registered for id, nil when none is.
func Get(id component.ID) Func {
	mu.Lock()
	defer mu.Unlock()
	return taps[id]
}
