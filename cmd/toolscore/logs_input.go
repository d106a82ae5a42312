package main

import (
	"context"
	"fmt"

	"go.opentelemetry.io/collector/processor"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
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

// recordRef is one log record's witness of a call: where the record is and
// what it says of the call.
type recordRef struct {
	trace string
	text  string
}

// attachRecords lists on each call of rep's runs the log records that
// witnessed it: read again with the processor's readers, matched by trace
// and call id.
func attachRecords(rep *Report, logs []otlpjson.LogDoc) {
	if len(logs) == 0 {
		return
	}
	byCall := map[string][]recordRef{}
	var rec extract.Record
	var w extract.Witness
	for _, d := range logs {
		n := 0
		for _, rl := range d.Logs.ResourceLogs().All() {
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					n++
					if !extract.LogRecordOf(lr, rl.Resource().Attributes(), &rec) || !extract.ReadRecord(&rec, &w) {
						continue
					}
					at := fmt.Sprintf("%s:%d#%d %s", d.Path, d.Line, n, rec.Name)
					trace := w.TraceID.String()
					add := func(id, what string) {
						if id != "" {
							byCall[id] = append(byCall[id], recordRef{trace, at + " (" + what + ")"})
						}
					}
					for _, c := range w.Turn.Requested {
						add(c.ID, "requested")
					}
					for _, o := range w.Turn.Outcomes {
						add(o.ID, "outcome")
					}
					for _, r := range w.Results {
						add(r.ID, "result")
					}
					for _, dec := range w.Decisions {
						add(dec.ID, "decision")
					}
					var t extract.ModelTurn
					if w.Turn.Input != "" || w.Turn.Output != "" {
						t.AddWitness(&w.Turn)
						for _, c := range t.Requested() {
							add(c.ID, "requested")
						}
						for _, o := range t.Outcomes() {
							add(o.ID, "outcome")
						}
					}
				}
			}
		}
	}
	for i := range rep.Runs {
		run := &rep.Runs[i]
		for k := range run.Calls {
			c := &run.Calls[k]
			for _, r := range byCall[c.ID] {
				if r.trace == run.TraceID {
					c.Records = append(c.Records, r.text)
				}
			}
		}
	}
}
