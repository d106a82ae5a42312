package extract

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// deepValue builds, without recursion, a map {"city": "Paris", "deep": ...}
// whose deep member nests levels kvlist and array values.
func deepValue(levels int) pcommon.Value {
	v := pcommon.NewValueEmpty()
	fillDeep(v, levels)
	return v
}

// fillDeep makes v the value deepValue returns (pdata's own copies recurse).
func fillDeep(v pcommon.Value, levels int) {
	v.SetEmptyMap().PutStr("city", "Paris")
	inner := v.Map().PutEmpty("deep")
	for i := 0; i < levels; i++ {
		if i%2 == 0 {
			inner = inner.SetEmptyMap().PutEmpty("k")
		} else {
			inner = inner.SetEmptySlice().AppendEmpty()
		}
	}
	inner.SetInt(1)
}

// TestValueTextDeep checks that an attribute value nested 1.5 million
// levels deep is rendered without exhausting the stack, as text whose deep
// member is unknown when parsed, and whose other members are kept.
func TestValueTextDeep(t *testing.T) {
	v := deepValue(1_500_000)
	text := valueText(v)
	assert.Less(t, len(text), 4<<10, "text past the depth limit is not written")
	args, st := DecodeArguments(text, EncodingJSON, DecodeOptions{})
	require.Equal(t, ArgumentsKnown, st)
	city, _ := args.Get("city")
	assert.Equal(t, "Paris", city.StringValue())
	deep, _ := args.Get("deep")
	for deep.Kind() == jsonv.KindArray || deep.Kind() == jsonv.KindObject {
		if deep.Kind() == jsonv.KindArray {
			deep = deep.Index(0)
		} else {
			deep, _ = deep.Get("k")
		}
	}
	assert.True(t, deep.IsUnknown(), "the value past the depth limit is unknown")

	// A value within the limit is written whole.
	shallow := valueText(deepValue(200))
	assert.True(t, strings.HasSuffix(shallow, "1"+strings.Repeat("]}", 100)+"}"), shallow[len(shallow)-20:])
}

// TestClassifyDeepArguments checks the same through the span attribute
// that holds a tool's arguments as a map.
func TestClassifyDeepArguments(t *testing.T) {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	s := ss.Spans().AppendEmpty()
	s.SetName("execute_tool weather")
	s.Attributes().PutStr("gen_ai.operation.name", "execute_tool")
	s.Attributes().PutStr("gen_ai.tool.name", "weather")
	fillDeep(s.Attributes().PutEmpty("gen_ai.tool.call.arguments"), 1_500_000)
	res := Classify(s, ss.Scope(), &Options{})
	require.Equal(t, KindTool, res.Kind)
	assert.Less(t, len(res.Call.Args), 4<<10)
}
