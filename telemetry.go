package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judgelimits"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadata"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/rules"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
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
	statusInvalidArguments
	statusRepeated
	statusUnrecoveredFailure
	statusOverBudget
	statusNotExecuted
	statusNotRequested
	statusArgumentsChanged
	statusMCPDisagreement
	statusMCPOneSide
	statusRefused
	statusUnknownTool
	statusFailed
	numCallStatuses
)

var callStatusNames = [numCallStatuses]string{"matched", "mismatched", "missing", "unexpected", "out_of_order", "forbidden", "hallucinated",
	"invalid_arguments", "repeated", "unrecovered_failure", "over_budget",
	toolcall.CheckNotExecuted, toolcall.CheckNotRequested, toolcall.CheckArgumentsChanged, toolcall.CheckMCPDisagreement, toolcall.CheckMCPOneSide,
	toolcall.CheckRefused, toolcall.CheckUnknownTool, toolcall.CheckFailed}

// findingStatus is the tool_calls status of a check a call failed; an
// undefined tool counts as hallucinated (from Breakdown.Hallucinated).
func findingStatus(check string) (callStatus, bool) {
	switch check {
	case toolcall.CheckInvalidArguments:
		return statusInvalidArguments, true
	case toolcall.CheckRepeated:
		return statusRepeated, true
	case toolcall.CheckUnrecoveredFailed:
		return statusUnrecoveredFailure, true
	case toolcall.CheckOverBudget:
		return statusOverBudget, true
	case toolcall.CheckNotExecuted:
		return statusNotExecuted, true
	case toolcall.CheckRefused:
		return statusRefused, true
	case toolcall.CheckUnknownTool:
		return statusUnknownTool, true
	case toolcall.CheckFailed:
		return statusFailed, true
	case toolcall.CheckNotRequested:
		return statusNotRequested, true
	case toolcall.CheckArgumentsChanged:
		return statusArgumentsChanged, true
	case toolcall.CheckMCPDisagreement:
		return statusMCPDisagreement, true
	case toolcall.CheckMCPOneSide:
		return statusMCPOneSide, true
	}
	return 0, false
}

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
	plain     measureOpts
	eval      [][][numOutcomes]measureOpts // [rule][scorer][outcome]
	score     [][]measureOpts              // [rule][scorer]
	calls     [][numCallStatuses]measureOpts
	extracted [extract.NumConventions][2]measureOpts // [known, unknown]
	evicted   [len(evictReasonNames)]measureOpts
	// dropped, cyclic and overSpans are the dropped_calls reasons.
	dropped, cyclic, overSpans measureOpts
	// completed, unfinished and overLimit are the incomplete_runs
	// resolutions.
	completed, unfinished, overLimit measureOpts
	// lostDownstream is the lost_spans reason for held spans not sent.
	lostDownstream measureOpts
	// context are the context_issues reasons.
	context [numContextIssues]measureOpts
	// judge are the judge metrics' attribute sets, by rule and scorer.
	judge [][]judgeOpts
	// records are the log_records outcomes (logs.go).
	records recordTelemetry

	// unrecognized is unrecognized_spans by service (unrecognized.go).
	unrecognized unrecognizedSeries

	open, held atomic.Int64
	// countsPool recycles batchCounts (see newCounts).
	countsPool sync.Pool
}

func newTelemetry(tb *metadata.TelemetryBuilder, id string, rs []*rules.Rule, habits *completionHabits) (*telemetry, error) {
	proc := attribute.String("processor", id)
	t := &telemetry{
		tb:             tb,
		unrecognized:   unrecognizedSeries{proc: proc},
		plain:          newMeasureOpts(proc),
		dropped:        newMeasureOpts(proc, attribute.String("reason", "max_calls_per_trajectory")),
		cyclic:         newMeasureOpts(proc, attribute.String("reason", "parent_cycle")),
		completed:      newMeasureOpts(proc, attribute.String("resolution", "complete")),
		unfinished:     newMeasureOpts(proc, attribute.String("resolution", "deadline")),
		overLimit:      newMeasureOpts(proc, attribute.String("resolution", "over_limit")),
		overSpans:      newMeasureOpts(proc, attribute.String("reason", "max_spans_per_trace")),
		lostDownstream: newMeasureOpts(proc, attribute.String("reason", "downstream_error")),
		records:        newRecordTelemetry(proc),
	}
	for _, r := range rs {
		evals := make([][numOutcomes]measureOpts, len(r.Scorers))
		scores := make([]measureOpts, len(r.Scorers))
		for si, s := range r.Scorers {
			ra, sa := attribute.String("rule", r.Name), attribute.String("scorer", s.Label)
			scores[si] = newMeasureOpts(proc, ra, sa)
			for o := 0; o < numOutcomes; o++ {
				evals[si][o] = newMeasureOpts(proc, ra, sa, attribute.String("outcome", toolcall.Outcome(o).String()))
			}
		}
		t.eval = append(t.eval, evals)
		t.score = append(t.score, scores)
		var cs [numCallStatuses]measureOpts
		for st := range cs {
			cs[st] = newMeasureOpts(proc, attribute.String("rule", r.Name), attribute.String("status", callStatusNames[st]))
		}
		t.calls = append(t.calls, cs)
		jo := make([]judgeOpts, len(r.Scorers))
		for si, sc := range r.Scorers {
			if !sc.Deferred {
				continue
			}
			ra, sa := attribute.String("rule", r.Name), attribute.String("scorer", sc.Label)
			jo[si].plain = newMeasureOpts(proc, ra, sa)
			for o := range jo[si].outcome {
				jo[si].outcome[o] = newMeasureOpts(proc, ra, sa, attribute.String("outcome", judgelimits.Outcome(o).String()))
			}
			jo[si].input = newMeasureOpts(proc, ra, sa, attribute.String("token_type", "input"))
			jo[si].output = newMeasureOpts(proc, ra, sa, attribute.String("token_type", "output"))
		}
		t.judge = append(t.judge, jo)
	}
	for _, c := range extract.Conventions() {
		conv := attribute.String("convention", c.String())
		t.extracted[c] = [2]measureOpts{
			newMeasureOpts(proc, conv, attribute.String("arguments", "known")),
			newMeasureOpts(proc, conv, attribute.String("arguments", "unknown")),
		}
	}
	for i, name := range contextIssueNames {
		t.context[i] = newMeasureOpts(proc, attribute.String("reason", name))
	}
	for r, name := range evictReasonNames {
		t.evicted[r] = newMeasureOpts(proc, attribute.String("reason", name))
	}
	if err := tb.RegisterProcessorToolCallAccuracyOpenTrajectoriesCallback(func(_ context.Context, o metric.Int64Observer) error {
		o.Observe(t.open.Load(), t.plain.observe...)
		return nil
	}); err != nil {
		return nil, err
	}
	var learned [numEvidence]measureOpts
	for ev, name := range evidenceNames {
		learned[ev] = newMeasureOpts(proc, attribute.String("evidence", name))
	}
	if err := tb.RegisterProcessorToolCallAccuracyLearnedCompletionsCallback(func(_ context.Context, o metric.Int64Observer) error {
		for ev := range numEvidence {
			o.Observe(habits.learned[ev].Load(), learned[ev].observe...)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := tb.RegisterProcessorToolCallAccuracyHeldSpansCallback(func(_ context.Context, o metric.Int64Observer) error {
		o.Observe(t.held.Load(), t.plain.observe...)
		return nil
	}); err != nil {
		return nil, err
	}
	return t, nil
}

// measureOpts is one attribute set as the option lists the instruments
// take, built once, so that recording passes an existing slice and
// allocates nothing.
type measureOpts struct {
	add     []metric.AddOption
	record  []metric.RecordOption
	observe []metric.ObserveOption
}

func newMeasureOpts(attrs ...attribute.KeyValue) measureOpts {
	o := metric.WithAttributeSet(attribute.NewSet(attrs...))
	return measureOpts{add: []metric.AddOption{o}, record: []metric.RecordOption{o}, observe: []metric.ObserveOption{o}}
}

// batchCounts accumulates one batch's counts, recorded with one call per
// non-zero series. Counts are pooled: take them with newCounts, and record
// hands them back.
type batchCounts struct {
	eval       [][][numOutcomes]int64
	calls      [][numCallStatuses]int64
	extracted  [extract.NumConventions][2]int64 // [known, unknown]
	noRule     int64
	context    [numContextIssues]int64
	store      trajectory.Stats
	scoreCalls []scoreSample
}

type scoreSample struct {
	rule, scorer int
	value        float64
}

// newCounts returns zeroed counts shaped for the processor's rules.
func (t *telemetry) newCounts() *batchCounts {
	if c, ok := t.countsPool.Get().(*batchCounts); ok {
		return c
	}
	c := &batchCounts{eval: make([][][numOutcomes]int64, len(t.eval)), calls: make([][numCallStatuses]int64, len(t.calls))}
	for i := range t.eval {
		c.eval[i] = make([][numOutcomes]int64, len(t.eval[i]))
	}
	return c
}

// reset zeroes the counts for reuse.
func (c *batchCounts) reset() {
	for i := range c.eval {
		clear(c.eval[i])
	}
	clear(c.calls)
	c.extracted = [extract.NumConventions][2]int64{}
	c.noRule, c.store, c.scoreCalls = 0, trajectory.Stats{}, c.scoreCalls[:0]
	c.context = [numContextIssues]int64{}
}

func (c *batchCounts) addExtracted(conv extract.Convention, known bool) {
	if conv >= extract.NumConventions {
		return
	}
	if known {
		c.extracted[conv][0]++
	} else {
		c.extracted[conv][1]++
	}
}

// record adds a batch's counts to the instruments and returns them to the
// pool: c must not be used afterwards.
func (t *telemetry) record(ctx context.Context, c *batchCounts) {
	tb := t.tb
	for ri := range c.eval {
		for si := range c.eval[ri] {
			for o, n := range c.eval[ri][si] {
				if n > 0 {
					tb.ProcessorToolCallAccuracyEvaluations.Add(ctx, n, t.eval[ri][si][o].add...)
				}
			}
		}
		for st, n := range c.calls[ri] {
			if n > 0 {
				tb.ProcessorToolCallAccuracyToolCalls.Add(ctx, n, t.calls[ri][st].add...)
			}
		}
	}
	for _, s := range c.scoreCalls {
		tb.ProcessorToolCallAccuracyScore.Record(ctx, s.value, t.score[s.rule][s.scorer].record...)
	}
	for conv := range c.extracted {
		for k, n := range c.extracted[conv] {
			if n > 0 {
				tb.ProcessorToolCallAccuracyExtractedCalls.Add(ctx, n, t.extracted[conv][k].add...)
			}
		}
	}
	for i, n := range c.context {
		if n > 0 {
			tb.ProcessorToolCallAccuracyContextIssues.Add(ctx, n, t.context[i].add...)
		}
	}
	if c.noRule > 0 {
		tb.ProcessorToolCallAccuracyRunsWithoutRule.Add(ctx, c.noRule, t.plain.add...)
	}
	t.recordStore(ctx, c.store)
	c.reset()
	t.countsPool.Put(c)
}

func (t *telemetry) recordStore(ctx context.Context, st trajectory.Stats) {
	tb := t.tb
	for r, n := range st.Evicted {
		if n > 0 {
			tb.ProcessorToolCallAccuracyEvictedTrajectories.Add(ctx, n, t.evicted[r].add...)
		}
	}
	if st.Late > 0 {
		tb.ProcessorToolCallAccuracyLateSpans.Add(ctx, st.Late, t.plain.add...)
	}
	if st.Dropped > 0 {
		tb.ProcessorToolCallAccuracyDroppedCalls.Add(ctx, st.Dropped, t.dropped.add...)
	}
	if st.Cyclic > 0 {
		tb.ProcessorToolCallAccuracyDroppedCalls.Add(ctx, st.Cyclic, t.cyclic.add...)
	}
	if st.OverSpans > 0 {
		tb.ProcessorToolCallAccuracyDroppedCalls.Add(ctx, st.OverSpans, t.overSpans.add...)
	}
	if st.Completed > 0 {
		tb.ProcessorToolCallAccuracyIncompleteRuns.Add(ctx, st.Completed, t.completed.add...)
	}
	if st.Unfinished > 0 {
		tb.ProcessorToolCallAccuracyIncompleteRuns.Add(ctx, st.Unfinished, t.unfinished.add...)
	}
	if st.OverLimit > 0 {
		tb.ProcessorToolCallAccuracyIncompleteRuns.Add(ctx, st.OverLimit, t.overLimit.add...)
	}
}

// judgeOpts are one judge scorer's metric attribute sets.
type judgeOpts struct {
	plain, input, output measureOpts
	outcome              [judgelimits.NumOutcomes]measureOpts
}

// recordJudge records one judge request: its outcome, duration and tokens.
func (t *telemetry) recordJudge(rule, scorer int, outcome judgelimits.Outcome, took time.Duration, resp *toolcall.ChatResponse) {
	if rule >= len(t.judge) || scorer >= len(t.judge[rule]) {
		return
	}
	o := &t.judge[rule][scorer]
	ctx := context.Background()
	t.tb.ProcessorToolCallAccuracyJudgeRequests.Add(ctx, 1, o.outcome[outcome].add...)
	if outcome == judgelimits.OutcomeBudget || outcome == judgelimits.OutcomeCacheHit {
		return // nothing was sent
	}
	t.tb.ProcessorToolCallAccuracyJudgeDuration.Record(ctx, took.Seconds(), o.plain.record...)
	if resp != nil {
		t.tb.ProcessorToolCallAccuracyJudgeTokens.Add(ctx, int64(resp.InputTokens), o.input.add...)
		t.tb.ProcessorToolCallAccuracyJudgeTokens.Add(ctx, int64(resp.OutputTokens), o.output.add...)
	}
}
