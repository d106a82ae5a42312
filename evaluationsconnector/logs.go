package evaluationsconnector // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector"

import (
	"context"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/evaluation"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/metadata"
)

// logsConnector writes one gen_ai.evaluation.result log record per
// evaluation. It keeps no state between batches: each batch's records go to
// the next consumer within ConsumeTraces, whose error is returned.
type logsConnector struct {
	component.StartFunc
	next           consumer.Logs
	tel            *telemetry
	reader         evaluation.Reader
	dims           []dimension
	maxExplanation int
	version        string
	clock          clock
	// spans recycles the scratch a batch reads its spans into.
	spans sync.Pool
}

var _ connector.Traces = (*logsConnector)(nil)

func newLogsConnector(set connector.Settings, cfg *Config, next consumer.Logs, clk clock) (*logsConnector, error) {
	tel, err := newTelemetry(set.TelemetrySettings, set.ID, signalLogs)
	if err != nil {
		return nil, err
	}
	return &logsConnector{
		next:           next,
		tel:            tel,
		reader:         evaluation.Reader{ProcessorAttributes: cfg.ProcessorAttributes},
		dims:           newDimensions(cfg.Dimensions),
		maxExplanation: cfg.MaxExplanationLength,
		version:        set.BuildInfo.Version,
		clock:          clk,
		spans:          sync.Pool{New: func() any { return new(evaluation.Span) }},
	}, nil
}

// Capabilities says the connector reads the spans without changing them.
func (*logsConnector) Capabilities() consumer.Capabilities {
	return consumer.Capabilities{MutatesData: false}
}

// Shutdown releases the telemetry; safe without Start.
func (c *logsConnector) Shutdown(context.Context) error {
	c.tel.shutdown()
	return nil
}

// ConsumeTraces sends the batch's evaluations on as log records, under the
// resource of their spans and the connector's scope.
func (c *logsConnector) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	var (
		n        counts
		ld       plog.Logs
		made     bool
		sp       *evaluation.Span
		observed pcommon.Timestamp
		records  plog.LogRecordSlice
		resource = -1 // the index of the resource records belongs to
	)
	forEachEvaluated(td, c.reader, func(i int, rs ptrace.ResourceSpans, span ptrace.Span) {
		if sp == nil {
			sp = c.spans.Get().(*evaluation.Span)
			observed = pcommon.NewTimestampFromTime(c.clock.Now())
		}
		sp.Reset()
		c.reader.Read(span, sp)
		n.add(sp)
		if len(sp.Evaluations) == 0 {
			return
		}
		if !made {
			ld, made = plog.NewLogs(), true
		}
		if resource != i {
			records, resource = c.newResourceLogs(ld, rs), i
		}
		records.EnsureCapacity(records.Len() + len(sp.Evaluations))
		for e := range sp.Evaluations {
			c.appendRecord(records, span, &sp.Evaluations[e], observed, &n)
		}
	})
	if sp != nil {
		sp.Reset()
		c.spans.Put(sp)
	}
	c.tel.record(ctx, &n)
	if !made {
		return nil
	}
	return c.next.ConsumeLogs(ctx, ld)
}

// newResourceLogs adds the resource of rs to ld, with the connector's scope,
// and returns the scope's records.
func (c *logsConnector) newResourceLogs(ld plog.Logs, rs ptrace.ResourceSpans) plog.LogRecordSlice {
	rl := ld.ResourceLogs().AppendEmpty()
	rs.Resource().CopyTo(rl.Resource())
	rl.SetSchemaUrl(rs.SchemaUrl())
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName(metadata.ScopeName)
	sl.Scope().SetVersion(c.version)
	sl.SetSchemaUrl(semconv.SchemaURL)
	return sl.LogRecords()
}

// appendRecord adds the log record of one evaluation of span.
func (c *logsConnector) appendRecord(records plog.LogRecordSlice, span ptrace.Span, ev *evaluation.Evaluation, observed pcommon.Timestamp, n *counts) {
	lr := records.AppendEmpty()
	lr.SetEventName(evaluation.EventName)
	lr.SetTimestamp(ev.Timestamp)
	lr.SetObservedTimestamp(observed)
	lr.SetTraceID(span.TraceID())
	lr.SetSpanID(span.SpanID())
	lr.SetFlags(plog.LogRecordFlags(span.Flags() & 0xff)) // the W3C trace flags
	sev := severityOf(ev.Outcome())
	lr.SetSeverityNumber(sev.number)
	lr.SetSeverityText(sev.text)

	attrs := lr.Attributes()
	if ev.Source == evaluation.SourceSpanEvent {
		// The event's attributes, whatever the producer recorded besides
		// the conventions' (an evaluator's identity or version), with the
		// conventions' made right.
		ev.Event.Attributes().CopyTo(attrs)
		switch {
		case ev.InvalidScore:
			attrs.Remove(evaluation.AttrScore)
		case ev.IntScore:
			attrs.PutDouble(evaluation.AttrScore, ev.Score)
		}
		if ev.InvalidLabel {
			attrs.Remove(evaluation.AttrLabel)
		}
	} else {
		attrs.EnsureCapacity(7 + len(c.dims))
		attrs.PutStr(evaluation.AttrName, ev.Name)
		if ev.HasScore {
			attrs.PutDouble(evaluation.AttrScore, ev.Score)
		}
		if ev.Label != "" {
			attrs.PutStr(evaluation.AttrLabel, ev.Label)
		}
		if ev.ErrorType != "" {
			attrs.PutStr(evaluation.AttrErrorType, ev.ErrorType)
		}
		if ev.Explanation != "" {
			attrs.PutStr(evaluation.AttrExplanation, ev.Explanation)
		}
		attrs.PutStr(evaluation.AttrRule, ev.Rule)
		if ev.Scorer != "" {
			attrs.PutStr(evaluation.AttrScorer, ev.Scorer)
		}
	}
	if s, cut := truncateExplanation(ev.Explanation, c.maxExplanation); cut {
		attrs.PutStr(evaluation.AttrExplanation, s)
		n.truncated++
	}
	// The dimensions the span itself carries (its resource's are the
	// record's resource), so that records can be found by agent or model.
	spanAttrs := span.Attributes()
	for d := range c.dims {
		name := c.dims[d].name
		if v, ok := spanAttrs.Get(name); ok {
			if _, set := attrs.Get(name); !set {
				v.CopyTo(attrs.PutEmpty(name))
			}
		}
	}
}

// severity is a log record's severity number and text.
type severity struct {
	number plog.SeverityNumber
	text   string
}

// severityOf gives an evaluation's record its severity: a pass, a run not
// evaluated (a judge budget spent, say) and a label the connector does not
// know are INFO; a fail is WARN (the agent did something wrong); an
// evaluator error is ERROR (the evaluation itself is broken).
func severityOf(o evaluation.Outcome) severity {
	switch o {
	case evaluation.OutcomeFail:
		return severity{plog.SeverityNumberWarn, "WARN"}
	case evaluation.OutcomeError:
		return severity{plog.SeverityNumberError, "ERROR"}
	}
	return severity{plog.SeverityNumberInfo, "INFO"}
}
