package main

import (
	"context"
	"fmt"

	"go.opentelemetry.io/collector/processor"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
)

// feedLogs gives the processor's logs side every log record of the input
// before any span: what a record witnesses waits for its span in the
// processor, so each trace, fed whole afterwards, is scored with every
// record that names its spans, whatever the order of files and lines.
func feedLogs(ctx context.Context, proc processor.Logs, logs []otlpjson.LogDoc) error {
	for _, d := range logs {
		if err := proc.ConsumeLogs(ctx, d.Logs); err != nil {
			return fmt.Errorf("%s:%d: %w", d.Path, d.Line, err)
		}
	}
	return nil
}

// consumeTraces feeds the traces, noting the file each trace came from.
func consumeTraces(ctx context.Context, proc processor.Traces, docs []otlpjson.Doc, res *offlineResult) error {
	for _, d := range docs {
		for _, rs := range d.Traces.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					if _, ok := res.sources[s.TraceID().String()]; !ok {
						res.sources[s.TraceID().String()] = d.Path
					}
				}
			}
		}
		if err := proc.ConsumeTraces(ctx, d.Traces); err != nil {
			return fmt.Errorf("%s:%d: %w", d.Path, d.Line, err)
		}
	}
	return nil
}
