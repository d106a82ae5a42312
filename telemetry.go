package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"context"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadata"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/rules"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/scoring"
)

// callStatus is the status attribute of the tool_calls metric.
type callStatus uint8

const (
	statusMatched callStatus = iota
	statusMismatched
	statusMissing
	statusUnexpected
	statusOutOfOrder
	statusForbidden
	statusHallucinated
	numCallStatuses
)

var callStatusNames = [numCallStatuses]string{"matched", "mismatched", "missing", "unexpected", "out_of_order", "forbidden", "hallucinated"}

var evictReasonNames = [...]string{
	trajectory.EvictMaxAge:    "max_age",
	trajectory.EvictMaxOpen:   "max_open_trajectories",
	trajectory.EvictMaxTraces: "max_tracked_traces",
	trajectory.EvictShutdown:  "shutdown",
}

// numOutcomes covers pass, fail, error and not_evaluated.
const numOutcomes = 4

// telemetry records the processor's metrics with attribute sets built once,
// at creation, so the hot path allocates nothing for them.
type telemetry struct {
	tb        *metadata.TelemetryBuilder
	plain     metric.MeasurementOption
	eval      [][][numOutcomes]metric.MeasurementOption // [rule][scorer][outcome]
	score     [][]metric.MeasurementOption              // [rule][scorer]
	calls     [][numCallStatuses]metric.MeasurementOption
	extracted map[extract.Convention][2]metric.MeasurementOption // [known, unknown]
	evicted   [len(evictReasonNames)]metric.MeasurementOption
	dropped   metric.MeasurementOption

	open, held atomic.Int64
}

func newTelemetry(tb *metadata.TelemetryBuilder, id string, rs []*rules.Rule) (*telemetry, error) {
	proc := attribute.String("processor", id)
	t := &telemetry{
		tb:        tb,
		plain:     metric.WithAttributeSet(attribute.NewSet(proc)),
		extracted: make(map[extract.Convention][2]metric.MeasurementOption),
		dropped:   metric.WithAttributeSet(attribute.NewSet(proc, attribute.String("reason", "max_calls_per_trajectory"))),
	}
	for _, r := range rs {
		evals := make([][numOutcomes]metric.MeasurementOption, len(r.Scorers))
		scores := make([]metric.MeasurementOption, len(r.Scorers))
		for si, s := range r.Scorers {
			ra, sa := attribute.String("rule", r.Name), attribute.String("scorer", s.Label)
			scores[si] = metric.WithAttributeSet(attribute.NewSet(proc, ra, sa))
			for o := 0; o < numOutcomes; o++ {
				evals[si][o] = metric.WithAttributeSet(attribute.NewSet(proc, ra, sa, attribute.String("outcome", scoring.Outcome(o).String())))
			}
		}
		t.eval = append(t.eval, evals)
		t.score = append(t.score, scores)
		var cs [numCallStatuses]metric.MeasurementOption
		for st := range cs {
			cs[st] = metric.WithAttributeSet(attribute.NewSet(proc, attribute.String("rule", r.Name), attribute.String("status", callStatusNames[st])))
		}
		t.calls = append(t.calls, cs)
	}
	for _, c := range extract.Conventions() {
		conv := attribute.String("convention", c.String())
		t.extracted[c] = [2]metric.MeasurementOption{
			metric.WithAttributeSet(attribute.NewSet(proc, conv, attribute.String("arguments", "known"))),
			metric.WithAttributeSet(attribute.NewSet(proc, conv, attribute.String("arguments", "unknown"))),
		}
	}
	for r, name := range evictReasonNames {
		t.evicted[r] = metric.WithAttributeSet(attribute.NewSet(proc, attribute.String("reason", name)))
	}
	if err := tb.RegisterProcessorToolCallAccuracyOpenTrajectoriesCallback(func(_ context.Context, o metric.Int64Observer) error {
		o.Observe(t.open.Load(), t.plain)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := tb.RegisterProcessorToolCallAccuracyHeldSpansCallback(func(_ context.Context, o metric.Int64Observer) error {
		o.Observe(t.held.Load(), t.plain)
		return nil
	}); err != nil {
		return nil, err
	}
	return t, nil
}

// batchCounts accumulates one batch's counts, recorded with one call per
// non-zero series.
type batchCounts struct {
	eval       [][][numOutcomes]int64
	calls      [][numCallStatuses]int64
	extracted  map[extract.Convention]*[2]int64
	noRule     int64
	store      trajectory.Stats
	scoreCalls []scoreSample
}

type scoreSample struct {
	rule, scorer int
	value        float64
}

func (t *telemetry) newCounts() *batchCounts {
	c := &batchCounts{eval: make([][][numOutcomes]int64, len(t.eval)), calls: make([][numCallStatuses]int64, len(t.calls))}
	for i := range t.eval {
		c.eval[i] = make([][numOutcomes]int64, len(t.eval[i]))
	}
	return c
}

func (c *batchCounts) addExtracted(conv extract.Convention, known bool) {
	if c.extracted == nil {
		c.extracted = make(map[extract.Convention]*[2]int64, 4)
	}
	n := c.extracted[conv]
	if n == nil {
		n = new([2]int64)
		c.extracted[conv] = n
	}
	if known {
		n[0]++
	} else {
		n[1]++
	}
}

// record adds a batch's counts to the instruments.
func (t *telemetry) record(ctx context.Context, c *batchCounts) {
	tb := t.tb
	for ri := range c.eval {
		for si := range c.eval[ri] {
			for o, n := range c.eval[ri][si] {
				if n > 0 {
					tb.ProcessorToolCallAccuracyEvaluations.Add(ctx, n, t.eval[ri][si][o])
				}
			}
		}
		for st, n := range c.calls[ri] {
			if n > 0 {
				tb.ProcessorToolCallAccuracyToolCalls.Add(ctx, n, t.calls[ri][st])
			}
		}
	}
	for _, s := range c.scoreCalls {
		tb.ProcessorToolCallAccuracyScore.Record(ctx, s.value, t.score[s.rule][s.scorer])
	}
	for conv, n := range c.extracted {
		opts, ok := t.extracted[conv]
		if !ok {
			continue
		}
		if n[0] > 0 {
			tb.ProcessorToolCallAccuracyExtractedCalls.Add(ctx, n[0], opts[0])
		}
		if n[1] > 0 {
			tb.ProcessorToolCallAccuracyExtractedCalls.Add(ctx, n[1], opts[1])
		}
	}
	if c.noRule > 0 {
		tb.ProcessorToolCallAccuracyRunsWithoutRule.Add(ctx, c.noRule, t.plain)
	}
	t.recordStore(ctx, c.store)
}

func (t *telemetry) recordStore(ctx context.Context, st trajectory.Stats) {
	tb := t.tb
	for r, n := range st.Evicted {
		if n > 0 {
			tb.ProcessorToolCallAccuracyEvictedTrajectories.Add(ctx, n, t.evicted[r])
		}
	}
	if st.Late > 0 {
		tb.ProcessorToolCallAccuracyLateSpans.Add(ctx, st.Late, t.plain)
	}
	if st.Dropped > 0 {
		tb.ProcessorToolCallAccuracyDroppedCalls.Add(ctx, st.Dropped, t.dropped)
	}
}
