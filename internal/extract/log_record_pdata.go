package extract

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// LogRecordOf fills r from a log record of resource and reports whether a
// reader is registered for its event name (the record's EventName, else
// its event.name attribute). A record no reader reads costs a field read,
// a scan of its attributes for event.name when EventName is empty, and a
// map miss.
func LogRecordOf(lr plog.LogRecord, resource pcommon.Map, r *Record) bool {
	name := lr.EventName()
	if name == "" || !ReadsRecord(name) {
		// Codex's Rust appender writes its source location as EventName
		// ("event otel/src/events/session_telemetry.rs:737") and the
		// event's name in event.name.
		name = eventNameAttribute(lr.Attributes())
	}
	if name == "" || !ReadsRecord(name) {
		return false
	}
	t := lr.Timestamp()
	if t == 0 {
		t = lr.ObservedTimestamp()
	}
	*r = Record{Name: name, Attributes: lr.Attributes(), Body: lr.Body(), Resource: resource,
		TraceID: lr.TraceID(), SpanID: lr.SpanID(), Time: uint64(t)}
	return true
}

// SpanEventOf fills r from an event of span and reports whether a reader
// is registered for its name.
func SpanEventOf(ev ptrace.SpanEvent, span ptrace.Span, resource pcommon.Map, r *Record) bool {
	if !ReadsRecord(ev.Name()) {
		return false
	}
	*r = Record{Name: ev.Name(), Attributes: ev.Attributes(), Resource: resource,
		TraceID: span.TraceID(), SpanID: span.SpanID(), Time: uint64(ev.Timestamp()), SpanEvent: true}
	return true
}

// eventNameAttribute returns the event.name attribute's string, "" when
// none. Keys are compared by length first: an application's record with a
// few attributes costs a few comparisons of lengths.
func eventNameAttribute(attrs pcommon.Map) string {
	for k, v := range attrs.All() {
		if len(k) == len("event.name") && k == "event.name" && v.Type() == pcommon.ValueTypeStr {
			return v.Str()
		}
	}
	return ""
}
