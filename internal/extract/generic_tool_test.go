package extract

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestGenericToolSpans: a span that names a tool and carries its id, input
// or output is a tool call with no GenAI key (VoltAgent's shape); naming a
// tool alone is not enough; OpenInference's TOOL spans, which also write
// tool.name, stay OpenInference's; an agent span of a framework's own
// naming is an agent run.
func TestGenericToolSpans(t *testing.T) {
	scope := pcommon.NewInstrumentationScope()
	tool := ptrace.NewSpan()
	tool.SetName("tool.execution:lookup_stock")
	a := tool.Attributes()
	a.PutStr("entity.type", "agent")
	a.PutStr("span.type", "tool")
	a.PutStr("tool.name", "lookup_stock")
	a.PutStr("tool.call.id", "call_1")
	a.PutStr("input", `{"symbol":"ZZZZ"}`)
	tool.Status().SetCode(ptrace.StatusCodeError)
	assert.False(t, Ordinary(tool))
	res := Classify(tool, scope, &Options{})
	assert.Equal(t, KindTool, res.Kind)
	assert.Equal(t, ConventionGeneric, res.Convention)
	assert.Equal(t, "lookup_stock", res.Call.Name)
	assert.Equal(t, "call_1", res.Call.ID)
	assert.Equal(t, `{"symbol":"ZZZZ"}`, res.Call.Args)
	assert.True(t, res.Call.Failed)

	named := ptrace.NewSpan()
	named.Attributes().PutStr("tool.name", "lookup_stock")
	assert.NotEqual(t, KindTool, Classify(named, scope, &Options{}).Kind, "a name without input, output or id")

	oi := ptrace.NewSpan()
	oi.Attributes().PutStr("openinference.span.kind", "TOOL")
	oi.Attributes().PutStr("tool.name", "get_weather")
	oi.Attributes().PutStr("input.value", `{"city":"Paris"}`)
	assert.Equal(t, ConventionOpenInference, Classify(oi, scope, &Options{}).Convention)

	agent := ptrace.NewSpan()
	agent.SetName("weather_agent")
	agent.Attributes().PutStr("entity.type", "agent")
	agent.Attributes().PutStr("ai.model.name", "gpt-4.1-mini")
	assert.Equal(t, KindAgent, Classify(agent, scope, &Options{}).Kind)
	model := ptrace.NewSpan()
	model.Attributes().PutStr("entity.type", "agent")
	model.Attributes().PutStr("span.type", "llm")
	model.Attributes().PutStr("llm.model", "gpt-4.1-mini")
	assert.Equal(t, KindOther, Classify(model, scope, &Options{}).Kind)
}
