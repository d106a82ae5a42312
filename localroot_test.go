package toolcallaccuracyprocessor

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// localRootTrace is a service's part of a trace, without an agent span: a
// server span whose parent is in the calling gateway, with two OTel GenAI
// tool spans under it. remote sets the span flags that mark the server
// span's parent remote.
func localRootTrace(remote bool) ptrace.Traces {
	td := ptrace.NewTraces()
	spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	trace := pcommon.TraceID{0xa, 1}
	root := spans.AppendEmpty()
	root.SetName("POST /plan")
	root.SetKind(ptrace.SpanKindServer)
	root.SetTraceID(trace)
	root.SetSpanID(pcommon.SpanID{1})
	root.SetParentSpanID(pcommon.SpanID{0xee}) // the gateway's span
	if remote {
		root.SetFlags(spanFlagsHasIsRemote | spanFlagsIsRemote | 0x01)
	}
	root.SetStartTimestamp(1_000)
	root.SetEndTimestamp(9_000)
	for i, c := range []struct{ name, args string }{
		{"get_weather", `{"city":"Paris","unit":"celsius"}`},
		{"lookup_stock", `{"symbol":"ZZZZ"}`},
	} {
		s := spans.AppendEmpty()
		s.SetName("execute_tool " + c.name)
		s.SetTraceID(trace)
		s.SetSpanID(pcommon.SpanID{byte(2 + i)})
		s.SetParentSpanID(pcommon.SpanID{1})
		s.SetFlags(spanFlagsHasIsRemote | 0x01) // parent known local
		s.SetStartTimestamp(pcommon.Timestamp(2_000 + 2_000*i))
		s.SetEndTimestamp(pcommon.Timestamp(3_000 + 2_000*i))
		s.Attributes().PutStr("gen_ai.operation.name", "execute_tool")
		s.Attributes().PutStr("gen_ai.tool.name", c.name)
		s.Attributes().PutStr("gen_ai.tool.call.arguments", c.args)
	}
	return td
}

// callerSpans is the calling process's part of the trace localRootTrace
// belongs to: its agent span and the HTTP client span that called the
// service (the server span's remote parent).
func callerSpans() ptrace.Traces {
	td := ptrace.NewTraces()
	spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	trace := pcommon.TraceID{0xa, 1}
	client := spans.AppendEmpty()
	client.SetName("POST")
	client.SetKind(ptrace.SpanKindClient)
	client.SetTraceID(trace)
	client.SetSpanID(pcommon.SpanID{0xee})
	client.SetParentSpanID(pcommon.SpanID{0xa0})
	client.SetStartTimestamp(900)
	client.SetEndTimestamp(9_100)
	agent := spans.AppendEmpty()
	agentSpan(agent, "planner", 500, 9_500)
	agent.SetTraceID(trace)
	agent.SetSpanID(pcommon.SpanID{0xa0})
	return td
}

// TestLocalRootIsScored: with local_roots, a run with no agent span whose
// local root has a remote parent is scored on that local root, whether its
// spans come in one batch or one per batch; without the flags, or with
// local_roots off, it waits for its parent.
func TestLocalRootIsScored(t *testing.T) {
	cfg := loadConfig(t, filepath.Join("testdata", "golden", "config.yaml"), "paris")
	cfg.LocalRoots = true
	t.Run("one batch", func(t *testing.T) {
		in := []ptrace.Traces{localRootTrace(true)}
		out := newHarness(t, cfg).run(t, cloneAll(in))
		assertConserved(t, in, out)
		root := onlyScored(t, out)
		assert.Equal(t, "POST /plan", root.Name())
		assertRule(t, root, "paris_trip", ruleResult{score: 1, passed: true})
	})
	t.Run("one span per batch", func(t *testing.T) {
		in := []ptrace.Traces{localRootTrace(true)}
		out := newHarness(t, cfg).run(t, splitSpans(cloneAll(in)))
		assertConserved(t, in, out)
		assertRule(t, onlyScored(t, out), "paris_trip", ruleResult{score: 1, passed: true})
	})
	t.Run("no remote flag", func(t *testing.T) {
		in := []ptrace.Traces{localRootTrace(false)}
		out := newHarness(t, cfg).run(t, cloneAll(in))
		assertConserved(t, in, out)
		require.Empty(t, scoredSpans(out), "the parent may still come: the run stays open")
	})
	t.Run("local_roots off", func(t *testing.T) {
		off := loadConfig(t, filepath.Join("testdata", "golden", "config.yaml"), "paris")
		in := []ptrace.Traces{localRootTrace(true)}
		out := newHarness(t, off).run(t, cloneAll(in))
		assertConserved(t, in, out)
		require.Empty(t, scoredSpans(out), "off by default: the run waits for its caller")
	})
}

// TestCallerCollectsARemoteServicesCalls: when the calling process's spans
// reach the same collector, the service's calls join the caller's run by
// default (local_roots off), even though the service's top span has a
// remote parent.
func TestCallerCollectsARemoteServicesCalls(t *testing.T) {
	cfg := loadConfig(t, filepath.Join("testdata", "golden", "config.yaml"), "paris")
	in := []ptrace.Traces{localRootTrace(true), callerSpans()}
	out := newHarness(t, cfg).run(t, splitSpans(cloneAll(in)))
	assertConserved(t, in, out)
	agent := onlyScored(t, out)
	assert.Equal(t, "invoke_agent planner", agent.Name())
	assertRule(t, agent, "paris_trip", ruleResult{score: 1, passed: true})
}
