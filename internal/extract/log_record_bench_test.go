package extract

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// BenchmarkReadLogRecord is what the logs path pays per record before the
// store: naming the record (LogRecordOf) and, for a record a reader reads,
// reading it (ReadRecord). An application's own log record (no event name,
// four attributes, scanned for event.name) witnesses nothing, as does one
// whose EventName no reader reads (a map miss).
func BenchmarkReadLogRecord(b *testing.B) {
	app := logRecord(b, "", `{"msg":"GET /health 200"}`, map[string]string{"http.route": "/health", "http.method": "GET", "user.id": "42", "code.function": "handle"})
	named := plog.NewLogRecord()
	named.SetEventName("app.request")
	kinds := []struct {
		name string
		lr   plog.LogRecord
	}{
		{"app_record_no_attributes", plog.NewLogRecord()},
		{"app_record", app},
		{"app_event_name_field", named},
		{"other_event", logRecord(b, "app.started", "", nil)},
		{"gen_ai.user.message", logRecord(b, "gen_ai.user.message", `{"content":"What is the weather in Paris, and the price of ZZZZ?"}`, nil)},
		{"gen_ai.choice", logRecord(b, "gen_ai.choice", `{"finish_reason":"tool_calls","index":0,"message":{"tool_calls":[{"id":"call_weather_paris","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\",\"unit\":\"celsius\"}"}},{"id":"call_stock_zzzz","type":"function","function":{"name":"lookup_stock","arguments":"{\"symbol\":\"ZZZZ\"}"}}]}}`, nil)},
		{"gen_ai.tool.message", logRecord(b, "gen_ai.tool.message", `{"id":"call_stock_zzzz","content":"error: unknown symbol ZZZZ"}`, nil)},
		{"inference_details", logRecord(b, "gen_ai.client.inference.operation.details", "", map[string]string{
			"gen_ai.output.messages": `[{"role":"assistant","parts":[{"type":"tool_call","id":"call_weather_paris","name":"get_weather","arguments":{"city":"Paris","unit":"celsius"}}]}]`,
			"gen_ai.input.messages":  `[{"role":"user","parts":[{"type":"text","content":"What is the weather in Paris?"}]}]`,
		})},
	}
	res := pcommon.NewMap()
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			b.ReportAllocs()
			var r Record
			var w Witness
			for b.Loop() {
				if LogRecordOf(k.lr, res, &r) {
					ReadRecord(&r, &w)
				}
			}
		})
	}
}
