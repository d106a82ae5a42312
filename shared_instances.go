package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"context"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/processor"
)

// One processor serves a traces and a logs pipeline that name the same
// component ID (the shared-component pattern of contrib receivers and
// connectors): the logs pipeline's records join the runs the traces
// pipeline assembles. The collector creates a processor per pipeline; the
// factory hands both the same instance, started by the first pipeline
// that starts it and shut down by the last one that shuts it down.
//
// Two pipelines of one signal naming the same ID get instances of their
// own (a processor instance sends held spans to one pipeline's next
// consumer), as a processor in two traces pipelines always has.

// sharedInstances are the processors by component ID that serve one
// signal so far and may serve the other.
type sharedInstances struct {
	mu sync.Mutex
	m  map[component.ID]*sharedProcessor
}

// sharedProcessor is a processor and the pipelines it serves.
type sharedProcessor struct {
	p            *tcaProcessor
	traces, logs bool
	// started and running count the pipelines that started it and have
	// not shut it down.
	running int
	mu      sync.Mutex
}

// forTraces returns the processor for a traces pipeline with next: the
// instance a logs pipeline of the same ID made, or a new one.
func (s *sharedInstances) forTraces(set processor.Settings, cfg *Config, next consumer.Traces, opts []processorOption) (*sharedProcessor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sp, ok := s.m[set.ID]; ok && !sp.traces && sp.p.cfg == cfg {
		sp.traces = true
		sp.p.holder.next = next
		return sp, nil
	}
	p, err := newProcessor(set, cfg, next, opts...)
	if err != nil {
		return nil, err
	}
	return s.add(set.ID, &sharedProcessor{p: p, traces: true}), nil
}

// forLogs returns the processor for a logs pipeline: the instance a traces
// pipeline of the same ID made, or a new one whose held spans go nowhere
// until a traces pipeline takes it.
func (s *sharedInstances) forLogs(set processor.Settings, cfg *Config, opts []processorOption) (*sharedProcessor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sp, ok := s.m[set.ID]; ok && !sp.logs && sp.p.cfg == cfg {
		sp.logs = true
		sp.p.servesLogs.Store(true)
		return sp, nil
	}
	p, err := newProcessor(set, cfg, nil, opts...)
	if err != nil {
		return nil, err
	}
	p.servesLogs.Store(true)
	return s.add(set.ID, &sharedProcessor{p: p, logs: true}), nil
}

func (s *sharedInstances) add(id component.ID, sp *sharedProcessor) *sharedProcessor {
	if s.m == nil {
		s.m = map[component.ID]*sharedProcessor{}
	}
	s.m[id] = sp
	return sp
}

// forget removes sp from the map once it is shut down.
func (s *sharedInstances) forget(sp *sharedProcessor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, v := range s.m {
		if v == sp {
			delete(s.m, id)
		}
	}
}

// start starts the processor for one pipeline; the first start starts it.
func (sp *sharedProcessor) start(ctx context.Context, host component.Host) error {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.running++
	return sp.p.start(ctx, host)
}

// shutdown shuts the processor down for one pipeline: the last pipeline
// that started it (or any, when none did: Shutdown is safe without Start)
// shuts it down.
func (sp *sharedProcessor) shutdown(s *sharedInstances) func(context.Context) error {
	return func(ctx context.Context) error {
		sp.mu.Lock()
		defer sp.mu.Unlock()
		if sp.running > 1 {
			sp.running--
			return nil
		}
		sp.running = 0
		s.forget(sp)
		return sp.p.shutdown(ctx)
	}
}
