package toolcallaccuracyprocessor

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// invalidUTF8Trace is an agent span with one tool span whose name, and
// arguments, hold a byte that is not UTF-8.
func invalidUTF8Trace() ptrace.Traces {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	ss.Scope().SetName("weather_app")
	trace := pcommon.TraceID{9, 9}
	tool := ss.Spans().AppendEmpty()
	tool.SetTraceID(trace)
	tool.SetSpanID(pcommon.SpanID{2})
	tool.SetParentSpanID(pcommon.SpanID{1})
	tool.SetName("execute_tool get_\xffweather")
	tool.SetStartTimestamp(10)
	tool.SetEndTimestamp(20)
	tool.Attributes().PutStr("gen_ai.operation.name", "execute_tool")
	tool.Attributes().PutStr("gen_ai.tool.name", "get_\xffweather")
	tool.Attributes().PutStr("gen_ai.tool.call.arguments", "{\"city\":\"Par\xffis\",\"unit\":\"celsius\"}")
	tool.Attributes().PutStr("gen_ai.tool.call.result", "\"sunny \xfe\"")
	agent := ss.Spans().AppendEmpty()
	agent.SetTraceID(trace)
	agent.SetSpanID(pcommon.SpanID{1})
	agentSpan(agent, "weather_agent", 1, 30)
	return td
}

// TestWrittenTextIsValidUTF8 runs a tool span named "get_\xffweather"
// through the processor: every string it writes on the agent span, in
// attributes and evaluation events, must be valid UTF-8, whatever the span
// held. The peers configuration adds every peer profile's explanations.
func TestWrittenTextIsValidUTF8(t *testing.T) {
	for _, name := range []string{"paris", "peers"} {
		t.Run(name, func(t *testing.T) {
			cfg := loadConfig(t, "testdata/golden/config.yaml", name)
			cfg.Output.ToolCalls = ToolCallsAlways
			out := newHarness(t, cfg).run(t, []ptrace.Traces{invalidUTF8Trace()})
			agent := onlyScored(t, out)
			checked := 0
			var check func(where string, v pcommon.Value)
			check = func(where string, v pcommon.Value) {
				switch v.Type() {
				case pcommon.ValueTypeStr:
					checked++
					assert.True(t, utf8.ValidString(v.Str()), "%s: %q is not valid UTF-8", where, v.Str())
				case pcommon.ValueTypeSlice:
					for _, e := range v.Slice().All() {
						check(where, e)
					}
				}
			}
			for k, v := range agent.Attributes().All() {
				if k != "gen_ai.operation.name" && k != "gen_ai.agent.name" {
					check(k, v)
				}
			}
			for _, e := range agent.Events().All() {
				for k, v := range e.Attributes().All() {
					check(e.Name()+" "+k, v)
				}
			}
			require.NotZero(t, checked)
			calls := stringSlice(agent.Attributes(), attrToolCalls)
			assert.Equal(t, []string{"get_\uFFFDweather"}, calls, "the name is written with U+FFFD for the bad byte")
		})
	}
}

// TestValidTextKeepsValidText checks the fast path: valid text, the usual
// case, is returned as it is and costs no allocation.
func TestValidTextKeepsValidText(t *testing.T) {
	const name = "get_weather ☀"
	var got string
	allocs := testing.AllocsPerRun(100, func() { got = validText(name) })
	assert.Zero(t, allocs)
	assert.Equal(t, name, got)
	assert.Equal(t, "a\uFFFDb\uFFFD", validText("a\xffb\xc3"))
	res := toolcall.Result{Explanation: "score 1: 2 of 2 expected calls matched"}
	allocs = testing.AllocsPerRun(100, func() { got = explanation(&res, runGaps{}, 512) })
	assert.Zero(t, allocs)
	assert.Equal(t, res.Explanation, got)
}
