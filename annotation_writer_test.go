package toolcallaccuracyprocessor

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// TestAnnotatePacksAsWritten: the annotations annotate packs as it writes
// them are the bytes packAnnotations reads back from the span, for every
// output setting; nothing is packed when the span carried annotations
// before (they are read back instead) or no attributes are written (no
// copy is kept).
func TestAnnotatePacksAsWritten(t *testing.T) {
	cfg := parisConfig(t) // paris_trip, then stock_must_succeed
	p, err := newProcessor(processortest.NewNopSettings(NewFactory().Type()), cfg, consumertest.NewNop())
	require.NoError(t, err)
	calls := []toolcall.Call{{Name: "get_weather"}, {Name: "lookup_stock"}, {Name: "search\xff"}}
	evals := func() []evaluation {
		return []evaluation{
			{rule: 0, calls: calls, result: toolcall.Result{Outcome: toolcall.OutcomeFail, Score: 0.5, Explanation: "score 0.50",
				Breakdown: toolcall.Breakdown{Pairs: []toolcall.Pair{{Expected: 0, Actual: 0, Score: 1}}, Missing: []int{1}, Unexpected: []int{2}, OutOfOrder: []toolcall.Pair{{Actual: 1}}}}},
			{rule: 1, calls: calls, result: toolcall.Result{Outcome: toolcall.OutcomeError, Explanation: "boom"}},
			{rule: 1, scorer: 1, calls: calls, result: toolcall.Result{Outcome: toolcall.OutcomeNotEvaluated, Explanation: "skipped"}},
		}
	}
	outs := append([]ruleOutput(nil), p.outputs...)
	outs[1].labels = append(outs[1].labels, "judge")
	outs[1].evalNames = append(outs[1].evalNames, "stock_must_succeed/judge")
	span := func() ptrace.Span {
		s := ptrace.NewSpan()
		s.SetEndTimestamp(1_800_000_000_123_456_789)
		s.Attributes().PutStr("gen_ai.operation.name", "invoke_agent")
		s.Events().AppendEmpty().SetName("exception")
		return s
	}
	for _, tt := range []struct {
		name               string
		attributes, events bool
		before             func(ptrace.Span)
		packed             bool
	}{
		{"attributes and events", true, true, nil, true},
		{"attributes only", true, false, nil, true},
		{"events only: nothing kept", false, true, nil, false},
		{"an attribute of ours before", true, true, func(s ptrace.Span) { s.Attributes().PutBool(attrPassed, true) }, false},
		{"an evaluation event before", true, true, func(s ptrace.Span) { s.Events().AppendEmpty().SetName(eventEvaluation) }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := cfg.Output
			out.Attributes, out.Events, out.ToolCalls = tt.attributes, tt.events, ToolCallsAlways
			s := span()
			if tt.before != nil {
				tt.before(s)
			}
			keep := []byte("earlier run")
			run := &scoredRun{calls: calls, evals: evals(), gaps: runGaps{dropped: 1}, keep: &keep}
			annotate(s, run, p.rules, outs, &out)
			if !tt.packed {
				assert.Equal(t, "earlier run", string(keep))
				return
			}
			require.Greater(t, len(keep), len("earlier run"))
			assert.Equal(t, "earlier run", string(keep[:len("earlier run")]), "appended")
			assert.Equal(t, packAnnotations(nil, s), keep[len("earlier run"):])
		})
	}
}

// TestScoredAnnotationsKeptAsSent: for every golden trace, the annotations
// kept for a scored run's span sent again are those the span went out with
// (runs held for late spans keep theirs when sent, read from the span).
func TestScoredAnnotationsKeptAsSent(t *testing.T) {
	kept := 0
	for _, tt := range goldenCases() {
		t.Run(tt.file, func(t *testing.T) {
			in := readTraceFile(t, filepath.Join("testdata", "traces", tt.file))
			c := newControlled(t, loadConfig(t, filepath.Join("testdata", "golden", "config.yaml"), tt.config))
			c.send(t, cloneAll(in)...)
			sent := map[runKey]ptrace.Span{}
			for _, td := range c.sink.AllTraces() {
				eachSpan(td, func(s ptrace.Span) { sent[runKey{s.TraceID(), s.SpanID()}] = s })
			}
			c.p.mu.Lock()
			kept += c.p.holder.scored.len()
			for key, a := range c.p.holder.scored.byRun.All() {
				span, ok := sent[key]
				if assert.True(t, ok, "a kept run's span went out") {
					assert.Equal(t, copyAnnotations(span).packed, a.packed, "span %s", span.Name())
				}
			}
			c.p.mu.Unlock()
			require.NoError(t, c.proc.Shutdown(context.Background()))
		})
	}
	assert.Greater(t, kept, 10, "runs kept in all")
}

// eachSpan calls f with every span of td.
func eachSpan(td ptrace.Traces, f func(ptrace.Span)) {
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				f(s)
			}
		}
	}
}

// TestPackedKeys: every key the processor writes packs to a code of its
// own, below literalKey, and reads back as itself; other keys pack as text.
func TestPackedKeys(t *testing.T) {
	require.Less(t, int(ruleKeyCode(len(ruleKeyFields)-1)), literalKey)
	require.Len(t, packedKeyCodes, len(packedKeys), "packedKeys are distinct")
	var keys []annotationKey
	for _, name := range packedKeys {
		keys = append(keys, fixedKey(name))
	}
	for f := range ruleKeyFields {
		keys = append(keys, ruleKey("paris_trip", f))
	}
	for _, k := range keys {
		assert.Equal(t, k.packed, string(packKey(nil, k.name)), "%s packs alike written and read back", k.name)
		u := unpacker{b: []byte(k.packed)}
		assert.Equal(t, k.name, u.key())
		assert.Empty(t, u.b)
	}
	for _, name := range []string{"http.route", attrPrefix + "x.unknown_field", attrPrefix + "no_rule", attrPrefix + ".passed"} {
		packed := packKey(nil, name)
		assert.Equal(t, byte(literalKey), packed[0], name)
		u := unpacker{b: packed}
		assert.Equal(t, name, u.key())
	}
}
