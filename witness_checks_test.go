package toolcallaccuracyprocessor

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

var updateWitnesses = flag.Bool("update-witnesses", false, "rewrite testdata/golden/witness_checks.txt")

// TestWitnessChecks runs the checks of a call's witnesses (the
// witness_checks rules of testdata/golden/config.yaml) on captures of each
// convention, some bent to show one disagreement, and asserts the finding
// on the call and its tool_calls status.
func TestWitnessChecks(t *testing.T) {
	tests := []struct {
		name, file string
		// bend changes the capture (nil: as captured).
		bend func(t *testing.T, in []ptrace.Traces)
		// want is in the rule's explanation; status is counted once.
		want, status string
	}{
		{
			name: "requested_not_executed: Genkit Go, the flow aborted before get_weather's span was exported",
			file: "captures/genkit-go-mock-toolerror-nowait.otlp.jsonl",
			want: `call 2 get_weather: requested by the model, never executed`, status: "requested_not_executed",
		},
		{
			name: "requested_not_executed: OpenAI Agents under OpenInference, lookup_stock ZZZZ.PA's tool span lost",
			file: "captures/openai-agents-openinference-mock-batch.otlp.jsonl",
			bend: func(t *testing.T, in []ptrace.Traces) { dropSpan(t, in, "lookup_stock", 1) },
			want: `lookup_stock: requested by the model, never executed; the app answered "{\"symbol\":\"ZZZZ.PA\",\"price\":42.17,\"currency\":\"EUR\"}"`, status: "requested_not_executed",
		},
		{
			name: "a hallucinated request the app refused: OpenAI SDK + OpenInference, manual tool loop, no tool spans",
			file: "captures/openai-sdk-openinference-manual-batch.otlp.jsonl",
			want: `call 4 book_flight: tool "book_flight" was not offered to the model`, status: "hallucinated",
		},
		{
			name: "a hallucinated request the app refused: OpenAI SDK + OpenLLMetry, manual tool loop, no tool spans",
			file: "captures/openai-sdk-openllmetry-manual-simple.otlp.jsonl",
			want: `call 4 book_flight: tool "book_flight" was not offered to the model`, status: "hallucinated",
		},
		{
			// Neither in the turn's response nor in the later request's
			// history (which the pairing reads as the request too).
			name: "executed_not_requested: Strands, a turn's request for lookup_stock not recorded",
			file: "captures/strands-ts-mock-batch.otlp.jsonl",
			bend: func(t *testing.T, in []ptrace.Traces) {
				dropEvent(t, in, "chat", "gen_ai.choice", "ZZZZ.PA")
				dropEvent(t, in, "chat", "gen_ai.assistant.message", "ZZZZ.PA")
			},
			want: `lookup_stock: executed, but no model request for it was recorded`, status: "executed_not_requested",
		},
		{
			// Its bare "ZZZZ" agrees with the request's {"symbol":"ZZZZ"}
			// (a bare value); bent to another symbol, it does not.
			name: "arguments_changed: LangChain JS under OpenInference, the failed call's bare input bent to another value",
			file: "emitters/langchain-openinference-mock.otlp.jsonl",
			bend: func(t *testing.T, in []ptrace.Traces) { setSpanString(t, in, "lookup_stock", "input.value", "ZZZX") },
			want: `call 2 lookup_stock: failed, and no later call to "lookup_stock" succeeded, and executed with other arguments than the model requested ({"symbol":"ZZZZ"})`, status: "arguments_changed",
		},
		{
			name: "mcp_disagreement: OpenLLMetry MCP client ERROR, Shinzo MCP server OK",
			file: "captures/mcp-tool-error-openllmetry-shinzo-simple.otlp.jsonl",
			want: `call 3 lookup_stock: the client side reported a failure the MCP server did not`, status: "mcp_disagreement",
		},
		{
			name: "mcp_one_side: the MCP semantic conventions, the server's span of get_weather lost",
			file: "captures/constructed-mcp.json",
			bend: func(t *testing.T, in []ptrace.Traces) { dropSpanID(t, in, "7dd645d9a67d4e62") },
			want: `call 1 get_weather: an MCP client span, and no server span`, status: "mcp_one_side",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := readTraceFile(t, filepath.Join("testdata", "traces", tt.file))
			if tt.bend != nil {
				tt.bend(t, in)
			}
			cfg := loadConfig(t, filepath.Join("testdata", "golden", "config.yaml"), "witness_checks")
			h := newHarness(t, cfg)
			scored := scoredSpans(h.run(t, in))
			require.Len(t, scored, 1)
			for _, span := range scored {
				explanation, _ := span.Attributes().Get("tool_call_accuracy.witnesses.explanation")
				assert.Contains(t, explanation.Str(), tt.want)
			}
			m, err := h.tel.GetMetric("otelcol_processor_tool_call_accuracy_tool_calls")
			require.NoError(t, err)
			counted := int64(0)
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				if v, _ := dp.Attributes.Value("status"); v.AsString() == tt.status {
					counted += dp.Value
				}
			}
			assert.Equal(t, int64(1), counted, "tool_calls{status=%s}", tt.status)
		})
	}
}

// TestWitnessChecksOnCaptures keeps, for every capture, what the checks of
// a call's witnesses say of its runs (testdata/golden/witness_checks.txt):
// a capture whose calls all agree says so.
func TestWitnessChecksOnCaptures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "traces", "*", "*.json*"))
	require.NoError(t, err)
	sort.Strings(files)
	var b strings.Builder
	for _, f := range files {
		cfg := loadConfig(t, filepath.Join("testdata", "golden", "config.yaml"), "witness_checks")
		// Every run, by span name then span id: a file may have several
		// runs whose spans share a name (gemini -p's steps).
		runs := scoredRuns(newHarness(t, cfg).run(t, readTraceFile(t, f)))
		sort.SliceStable(runs, func(i, j int) bool { return runs[i].Name() < runs[j].Name() })
		var lines []string
		for _, r := range runs {
			explanation, _ := r.Attributes().Get("tool_call_accuracy.witnesses.explanation")
			line := filepath.Base(f) + " / " + r.Name() + ": " + explanation.Str() + "\n"
			if !slices.Contains(lines, line) {
				lines = append(lines, line)
			}
		}
		for _, l := range lines {
			b.WriteString(l)
		}
	}
	requireGoldenText(t, "witness_checks.txt", *updateWitnesses, b.String(), "go test -run TestWitnessChecksOnCaptures -update-witnesses .")
}

// requireGoldenText compares got with testdata/golden/name, which update
// rewrites first; rewrite says the command that does.
func requireGoldenText(t *testing.T, name string, update bool, got, rewrite string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, rewrite+" writes it")
	require.Equal(t, string(want), got, rewrite+" rewrites it")
}

// dropSpan removes the nth (from 0) span named name, by end time.
func dropSpan(t *testing.T, in []ptrace.Traces, name string, nth int) {
	t.Helper()
	var ends []ptrace.Span
	for _, td := range in {
		for _, s := range allSpans(td) {
			if s.Name() == name {
				ends = append(ends, s)
			}
		}
	}
	sort.Slice(ends, func(i, j int) bool { return ends[i].EndTimestamp() < ends[j].EndTimestamp() })
	require.Greater(t, len(ends), nth, "spans named %q", name)
	dropSpanID(t, in, ends[nth].SpanID().String())
}

// dropSpanID removes the span with the hex id.
func dropSpanID(t *testing.T, in []ptrace.Traces, id string) {
	t.Helper()
	dropped := 0
	for _, td := range in {
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				ss.Spans().RemoveIf(func(s ptrace.Span) bool {
					if s.SpanID().String() == id {
						dropped++
						return true
					}
					return false
				})
			}
		}
	}
	require.Equal(t, 1, dropped, "span %s", id)
}

// dropEvent removes the events named event whose attributes mention text
// from the spans whose name starts with span.
func dropEvent(t *testing.T, in []ptrace.Traces, span, event, text string) {
	t.Helper()
	dropped := 0
	for _, td := range in {
		for _, s := range allSpans(td) {
			if !strings.HasPrefix(s.Name(), span) {
				continue
			}
			s.Events().RemoveIf(func(e ptrace.SpanEvent) bool {
				if e.Name() != event {
					return false
				}
				for _, v := range e.Attributes().All() {
					if strings.Contains(v.AsString(), text) {
						dropped++
						return true
					}
				}
				return false
			})
		}
	}
	require.Positive(t, dropped, "%s events of %s mentioning %q", event, span, text)
}

// setSpanString sets attribute key of every span named span.
func setSpanString(t *testing.T, in []ptrace.Traces, span, key, value string) {
	t.Helper()
	n := 0
	for _, td := range in {
		for _, s := range allSpans(td) {
			if s.Name() == span {
				s.Attributes().PutStr(key, value)
				n++
			}
		}
	}
	require.Positive(t, n, "spans named %q", span)
}
