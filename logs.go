package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"context"
	"sync"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
)

// The logs side of the processor: a log record passes through unchanged
// and is never held; what it witnesses of a model call (extract.ReadRecord)
// joins that call's turn in the store by trace and span id, whichever of
// the record and the span arrives first (trajectory/record_witnesses.go).
// A record's service is learned as one that sends records, so its runs
// wait for their records under wait_for_missing.

// recordWitness is one record's witness and its service, collected before
// the lock is taken.
type recordWitness struct {
	w       extract.Witness
	service string
	// turn is set for a record of a model call or of run context, calls
	// for one of tool calls it names by id.
	turn, calls bool
}

// logsBatch is the scratch of one logs batch.
type logsBatch struct {
	rec       extract.Record
	witnesses []recordWitness
	noContext int64
	complete  []runKey
}

var logsBatchPool = sync.Pool{New: func() any { return new(logsBatch) }}

// processLogs is the processorhelper callback of the logs pipeline.
func (p *tcaProcessor) processLogs(ctx context.Context, ld plog.Logs) (plog.Logs, error) {
	p.lifecycle.RLock()
	defer p.lifecycle.RUnlock()
	if p.closed {
		return ld, errShutDown
	}
	b := logsBatchPool.Get().(*logsBatch)
	defer func() {
		clear(b.witnesses)
		b.witnesses, b.complete, b.noContext = b.witnesses[:0], b.complete[:0], 0
		b.rec = extract.Record{}
		logsBatchPool.Put(b)
	}()
	p.readLogs(ld, b)
	if len(b.witnesses) == 0 && b.noContext == 0 {
		return ld, nil
	}
	p.joinRecords(b)
	if len(b.complete) > 0 {
		p.holder.take(nil, ptrace.NewTraces(), b.complete)
	}
	if b.noContext > 0 {
		p.tel.recordNoContext(ctx, b.noContext)
	}
	return ld, nil
}

// readLogs reads what each record of ld witnesses into b: of a model
// call (when model turns are read), of the run context, of tool calls it
// names by id.
func (p *tcaProcessor) readLogs(ld plog.Logs, b *logsBatch) {
	for _, rl := range ld.ResourceLogs().All() {
		res := rl.Resource().Attributes()
		service := ""
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				if !extract.LogRecordOf(lr, res, &b.rec) {
					continue
				}
				b.witnesses = append(b.witnesses, recordWitness{})
				rw := &b.witnesses[len(b.witnesses)-1]
				if !extract.ReadRecord(&b.rec, &rw.w) {
					b.witnesses = b.witnesses[:len(b.witnesses)-1]
					continue
				}
				rw.turn = p.readTurns && (!rw.w.Turn.IsZero() || p.capturesRecordContext(&rw.w))
				rw.calls = hasCallRecords(&rw.w)
				if !rw.turn && !rw.calls {
					b.witnesses = b.witnesses[:len(b.witnesses)-1]
					continue
				}
				if rw.w.TraceID.IsEmpty() || rw.w.SpanID.IsEmpty() && !rw.calls {
					b.noContext++
					b.witnesses = b.witnesses[:len(b.witnesses)-1]
					continue
				}
				if service == "" {
					service = serviceName(rl.Resource())
				}
				rw.service = service
			}
		}
	}
}

// capturesRecordContext reports whether a witness carries run context a
// scorer reads.
func (p *tcaProcessor) capturesRecordContext(w *extract.Witness) bool {
	return p.captureContext && (w.Definitions != "" || w.Request != "" || w.Response != "")
}

// joinRecords gives the store what b's records witnessed and lists in
// b.complete the held runs nothing shows missing any more.
func (p *tcaProcessor) joinRecords(b *logsBatch) {
	now := p.now().UnixNano()
	p.mu.Lock()
	defer p.mu.Unlock()
	var last pcommon.TraceID
	for i := range b.witnesses {
		rw := &b.witnesses[i]
		if rw.calls {
			p.toolServices.saw(rw.service, callRecordsSent)
			keep := p.keepsResults(rw.w.TraceID)
			eachCallRecord(&rw.w, keep, func(c *trajectory.CallRecord) {
				p.store.CallRecord(rw.w.TraceID, rw.w.SpanID, c, now)
			})
		}
		if !rw.turn {
			continue
		}
		p.toolServices.saw(rw.service, recordsSent)
		var part *extract.ContextPart
		if p.capturesRecordContext(&rw.w) {
			part = &extract.ContextPart{Request: rw.w.Request, Response: rw.w.Response, Start: rw.w.Time, End: rw.w.Time}
			if rw.w.Definitions != "" {
				part.Definitions = []string{rw.w.Definitions}
			}
		}
		p.store.Record(rw.w.TraceID, rw.w.SpanID, &rw.w.Turn, part, rw.w.Time, now)
	}
	if p.store.HoldsIncomplete() {
		for i := range b.witnesses {
			if t := b.witnesses[i].w.TraceID; i == 0 || t != last {
				last = t
				b.complete = p.appendComplete(b.complete, t)
			}
		}
	}
	p.tel.recordRecords(context.Background(), p.store.TakeRecordStats())
	p.publishSizes() // a record may start tracking its trace
}

// modelSpanTurn records a model-call span's turn: the one its span
// recorded (e.turn), with the records that waited for the span joined to
// it, or one made of those records; for a service that sends records, one
// that awaits them. Called with p.mu held.
func (p *tcaProcessor) modelSpanTurn(b *batch, e *entry, now int64) {
	var t *extract.ModelTurn
	if e.turn > 0 {
		t = new(extract.ModelTurn)
		*t = b.turns[e.turn-1]
	}
	if e.modelStart != 0 && p.readTurns {
		sends := p.servesLogs.Load() && p.toolServices.sendsRecords(b.serviceOf(e.ref.rs))
		t = p.store.ModelSpanRecords(e.trace, e.span, e.parent, t, uint64(e.modelStart), uint64(e.end), sends, now)
	}
	if t == nil {
		return
	}
	p.store.Turn(e.trace, e.parent, t)
	if len(t.Requested()) > 0 {
		p.toolServices.saw(b.serviceOf(e.ref.rs), requests)
	}
}

// recordTelemetry are the log_records series.
type recordTelemetry struct {
	joined, late, overLimit, maxAge, noContext measureOpts
}

func newRecordTelemetry(proc attribute.KeyValue) recordTelemetry {
	o := func(outcome string) measureOpts { return newMeasureOpts(proc, attribute.String("outcome", outcome)) }
	return recordTelemetry{joined: o("joined"), late: o("late"), overLimit: o("over_limit"), maxAge: o("max_age"), noContext: o("no_trace_context")}
}

// recordRecords records the store's record counters.
func (t *telemetry) recordRecords(ctx context.Context, st trajectory.RecordStats) {
	add := func(n int64, o measureOpts) {
		if n > 0 {
			t.tb.ProcessorToolCallAccuracyLogRecords.Add(ctx, n, o.add...)
		}
	}
	add(st.Joined, t.records.joined)
	add(st.Late, t.records.late)
	add(st.DroppedOverLimit, t.records.overLimit)
	add(st.DroppedMaxAge, t.records.maxAge)
}

func (t *telemetry) recordNoContext(ctx context.Context, n int64) {
	t.tb.ProcessorToolCallAccuracyLogRecords.Add(ctx, n, t.records.noContext.add...)
}
