package toolcallaccuracyprocessor

import (
	"context"
	"sync"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/otel/attribute"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
)

// maxUnrecognizedServices bounds the services unrecognized_spans keeps a
// series for; spans of further services are counted under "(other)".
const maxUnrecognizedServices = 256

// unrecognizedSeries are the unrecognized_spans series, one per service,
// made when a service's first such span comes. Ordinary spans never reach
// it: only a GenAI span whose attributes name a tool and that no rule read
// as a call does, so a production user sees that a new framework arrived.
type unrecognizedSeries struct {
	proc attribute.KeyValue
	mu   sync.Mutex
	opts map[string]measureOpts
}

// countUnrecognized counts a span classified as res, from res, when it
// names a tool but is neither a call, an agent run nor a model call.
func (t *telemetry) countUnrecognized(res pcommon.Resource, c *extract.Result) {
	if c.Kind != extract.KindOther || c.ModelCall {
		return
	}
	o := t.unrecognized.series(serviceName(res))
	t.tb.ProcessorToolCallAccuracyUnrecognizedSpans.Add(context.Background(), 1, o.add...)
}

func (u *unrecognizedSeries) series(service string) measureOpts {
	u.mu.Lock()
	defer u.mu.Unlock()
	if o, ok := u.opts[service]; ok {
		return o
	}
	if u.opts == nil {
		u.opts = map[string]measureOpts{}
	}
	if len(u.opts) >= maxUnrecognizedServices {
		service = "(other)"
		if o, ok := u.opts[service]; ok {
			return o
		}
	}
	o := newMeasureOpts(u.proc, attribute.String("service", service))
	u.opts[service] = o
	return o
}
