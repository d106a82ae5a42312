package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"cmp"
	"context"
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processorhelper"
	"go.uber.org/zap"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/calltap"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/metadata"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/rules"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
)

// tcaProcessor scores agent runs as their spans pass through. Every span is
// passed on; agent spans are annotated in place, or held back and emitted
// later when wait or an asynchronous scorer asks for it.
type tcaProcessor struct {
	cfg    *Config
	logger *zap.Logger
	next   consumer.Traces
	rules  []*rules.Rule
	// outputs are the rules' attribute keys and event names, by rule index.
	outputs []ruleOutput
	tel     *telemetry
	// scoring settings derived from the config
	extractOpts extract.Options
	decodeOpts  extract.DecodeOptions
	// keepResults is set when a scorer reads tool results; keepResultsAlways
	// when one other than a sampled judge does.
	keepResults, keepResultsAlways bool
	// captureContext is set when a rule's scorer reads the run context;
	// contextAlways when a scorer other than a sampled judge reads it.
	captureContext, contextAlways bool
	// tap receives each scored run's calls (toolscore; nil in a
	// collector).
	tap calltap.Func
	// toolServices are the services whose runs leave tool spans (guarded
	// by mu).
	toolServices toolServices
	// readTurns is set when model turns are read from model-call spans:
	// a rule takes calls from the model's requests.
	readTurns bool
	// servesLogs is set when a logs pipeline shares the processor (see
	// shared_instances.go): model calls of services that send log records
	// await them.
	servesLogs atomic.Bool
	// placeholderDefinitions is set when a rule reads arguments and "{}"
	// may be a placeholder (empty_arguments: unknown): the run context of
	// spans in a convention that writes "{}" placeholders is captured for
	// its tool definitions, which tell calls made without arguments (see
	// rules.Rule.Calls).
	placeholderDefinitions bool
	// definitions caches tool definitions read from recorded texts.
	definitions definitionsCache
	// judges are the rules' LLM judges, by rule (nil for rules without).
	judges []*ruleJudge
	// host are the telemetry settings judge clients are made with.
	host component.TelemetrySettings
	// makeJudge makes a rule's judge client at Start (tests replace it).
	makeJudge func(context.Context, *JudgeConfig, component.Host, component.TelemetrySettings) (toolcall.Completer, error)
	now       func() time.Time

	// mu guards the store and the holder's waiting runs and kept
	// annotations: the mutable state between batches.
	mu    sync.Mutex
	store *trajectory.Store
	// early is the scratch the store's runs released early are taken into.
	early []trajectory.RunRef
	// habits are the evidence each service's agents were learned never to
	// send late (guarded by mu).
	habits *completionHabits
	// roots are recent trace roots that passed as ordinary spans (nil
	// without wait_for_missing).
	roots *passedRoots
	// convs holds the steps of runs that span traces (nil when off).
	convs *conversations
	// holder owns the agent spans taken out of their batch until they are
	// delivered or counted lost.
	holder *holder
	// lifecycle guards closed: batches read it, Shutdown sets it.
	lifecycle sync.RWMutex
	closed    bool
	// tracked mirrors store.Traces() so ordinary batches skip the lock.
	tracked atomic.Int64

	// lifecycle of the background loop that releases held runs.
	tick <-chan time.Time
	// wake is the holder's signal that held runs are due early (nil when
	// a test drives releases).
	wake      <-chan struct{}
	stopTick  func()
	done      chan struct{}
	loopDone  chan struct{}
	startOnce sync.Once
}

// processorOption changes a processor for tests (an injected clock and tick).
type processorOption func(*tcaProcessor)

func newProcessor(set processor.Settings, cfg *Config, next consumer.Traces, opts ...processorOption) (*tcaProcessor, error) {
	p := &tcaProcessor{}
	compiled := make([]*rules.Rule, 0, len(cfg.Rules))
	judges := make([]*ruleJudge, len(cfg.Rules))
	for i := range cfg.Rules {
		var judgeFor func(int) toolcall.Completer
		if jc := cfg.Rules[i].Judge; jc != nil {
			judges[i] = newRuleJudge(jc)
			judgeFor = func(scorer int) toolcall.Completer {
				o := &judgeObserver{p: p, rule: i, scorer: scorer}
				return judges[i].guard.For(o.observe)
			}
		}
		r, err := compileRule(&cfg.Rules[i], set.TelemetrySettings, judgeFor)
		if err != nil {
			return nil, err
		}
		compiled = append(compiled, r)
	}
	tb, err := metadata.NewTelemetryBuilder(set.TelemetrySettings)
	if err != nil {
		return nil, err
	}
	habits := new(completionHabits)
	tel, err := newTelemetry(tb, set.ID.String(), compiled, habits)
	if err != nil {
		return nil, err
	}
	*p = tcaProcessor{
		cfg:        cfg,
		judges:     judges,
		host:       set.TelemetrySettings,
		makeJudge:  newJudgeClient,
		logger:     set.Logger,
		next:       next,
		rules:      compiled,
		outputs:    newRuleOutputs(compiled),
		tel:        tel,
		habits:     habits,
		decodeOpts: extract.DecodeOptions{EmptyIsKnown: cfg.EmptyArguments == "empty", MaxArgumentBytes: cfg.Limits.MaxArgumentBytes},
		now:        time.Now,
		done:       make(chan struct{}),
	}
	p.readTurns = slices.ContainsFunc(compiled, func(r *rules.Rule) bool { return r.Source.ReadsRequests() })
	p.captureContext = readsContext(compiled, true)
	p.contextAlways = readsContext(compiled, false)
	p.placeholderDefinitions = cfg.EmptyArguments != "empty" && slices.ContainsFunc(compiled, (*rules.Rule).ReadsArguments)
	p.store = trajectory.NewStore(p.storeLimits())
	p.store.SetMaxPendingRecords(cfg.Limits.MaxPendingRecords)
	if recordsRoots(cfg) {
		p.roots = newPassedRoots()
	}
	p.convs = newConversations(cfg.Conversations, cfg.Limits.MaxCallsPerTrajectory)
	p.toolServices = toolServices{}
	if !slices.ContainsFunc(judges, func(j *ruleJudge) bool { return j != nil }) {
		p.judges = nil // no judge rule: nothing to sample
	}
	p.extractOpts.SkipTools = slices.Clone(cfg.SkipTools)
	p.keepResults = needsResults(compiled, true)
	p.keepResultsAlways = needsResults(compiled, false)
	if p.tap = calltap.Get(set.ID); p.tap != nil {
		p.keepResultsAlways = true // toolscore lists each call's result
	}
	for _, o := range opts {
		o(p)
	}
	p.holder = newHolder(p, cfg, next)
	return p, nil
}

// capturesContext reports whether the run context of a span of trace in
// scope is captured: when a scorer wants it, or for the tool definitions
// of a convention that writes "{}" placeholders (see
// placeholderDefinitions).
func (p *tcaProcessor) capturesContext(trace [16]byte, scope pcommon.InstrumentationScope) bool {
	return p.captureContext && p.wantsContext(trace) || p.placeholderDefinitions && extract.ScopeWritesEmptyPlaceholder(scope)
}

// storeLimits are the store's limits; run context is kept only when a
// rule's scorer reads it, or for ADK's tool definitions (see
// placeholderDefinitions).
func (p *tcaProcessor) storeLimits() trajectory.Limits {
	l := p.cfg.Limits
	contextBytes := 0
	if p.captureContext || p.placeholderDefinitions {
		contextBytes = l.MaxContextBytes
	}
	return trajectory.Limits{
		MaxOpenTrajectories:   l.MaxOpenTrajectories,
		MaxHeldRuns:           l.MaxHeldRuns,
		MaxCallsPerTrajectory: l.MaxCallsPerTrajectory,
		MaxAge:                l.MaxAge,
		MaxTrackedTraces:      l.MaxTrackedTraces,
		MaxSpansPerTrace:      l.MaxSpansPerTrace,
		MaxContextBytes:       contextBytes,
	}
}

func (p *tcaProcessor) start(ctx context.Context, host component.Host) error {
	var err error
	p.startOnce.Do(func() {
		if err = p.startJudges(ctx, host); err != nil {
			return
		}
		if p.tick == nil {
			interval := sweepInterval(p.cfg)
			t := time.NewTicker(interval)
			p.tick, p.stopTick = t.C, t.Stop
			// A test that injects the tick drives the releases itself.
			p.wake = p.holder.ready
		}
		p.loopDone = make(chan struct{})
		go p.loop()
		p.holder.start(deferredWorkers(p.cfg))
	})
	return err
}

// sweepInterval is how often held runs are checked and idle traces swept.
func sweepInterval(cfg *Config) time.Duration {
	d := time.Second
	if cfg.Wait > 0 && cfg.Wait/4 < d {
		d = max(cfg.Wait/4, 10*time.Millisecond)
	}
	return d
}

// loop releases held runs when due and drops idle traces.
func (p *tcaProcessor) loop() {
	defer close(p.loopDone)
	for {
		select {
		case <-p.done:
			return
		case <-p.tick:
			p.holder.tick(context.Background())
		case <-p.wake:
			p.holder.releaseDue(context.Background(), false)
		}
	}
}

// shutdown refuses further batches, stops the loop, scores and emits every
// held run, and drops the remaining state (counting open trajectories as
// evicted). Held spans that cannot be sent are returned as an error. It is
// safe without start.
func (p *tcaProcessor) shutdown(ctx context.Context) error {
	p.lifecycle.Lock()
	if p.closed {
		p.lifecycle.Unlock()
		return nil
	}
	p.closed = true
	p.lifecycle.Unlock()
	close(p.done)
	if p.loopDone != nil {
		<-p.loopDone
	}
	if p.stopTick != nil {
		p.stopTick()
	}
	// Judges in flight are cancelled; queued runs go out with what is in.
	err := p.holder.close(ctx)
	p.mu.Lock()
	p.store.Shutdown()
	st := p.store.TakeStats()
	p.publishSizes()
	p.mu.Unlock()
	p.tel.recordStore(ctx, st)
	p.tel.tb.Shutdown()
	return err
}

// spanRef locates a span in the batch being processed.
type spanRef struct{ rs, ss, sp int }

// in returns the span ref locates in td, with its resource and scope.
func (r spanRef) in(td ptrace.Traces) (ptrace.ResourceSpans, ptrace.ScopeSpans, ptrace.Span) {
	rs := td.ResourceSpans().At(r.rs)
	ss := rs.ScopeSpans().At(r.ss)
	return rs, ss, ss.Spans().At(r.sp)
}

// entry is one span of the batch, classified. Tool calls live in the
// batch's calls slice, so ordinary spans stay small.
type entry struct {
	ref    spanRef
	trace  pcommon.TraceID
	span   pcommon.SpanID
	parent pcommon.SpanID
	end    pcommon.Timestamp
	call   int32 // index into batch.calls, for tool spans
	kind   extract.Kind
	genai  bool
	// localRoot marks a span other than a tool or agent span whose parent
	// is remote (see hasRemoteParent), when local_roots is on.
	localRoot bool
	// modelStart is a model call's start time (0 for other spans).
	modelStart pcommon.Timestamp
	// start is an agent span's start time (0 for other spans), failed
	// marks an agent span with an error status.
	start  pcommon.Timestamp
	failed bool
	// context indexes batch.contexts plus one: the run context an agent
	// or model-call span recorded (0 for none).
	context int32
	// turn indexes batch.turns plus one: the model turn a model-call span
	// recorded (0 for none).
	turn int32
}

// other is a span of the batch that is neither tool, agent nor model span,
// gathered while some trace is tracked: its trace, which tells keepLinks
// whether it may link a tool span to its run, and its place. Most are not
// kept, so their entries are built only for those that are (see
// linkEntry).
type linkCandidate struct {
	trace pcommon.TraceID
	ref   spanRef
}

// batch holds one ConsumeTraces call's working memory, pooled.
type batch struct {
	entries []entry
	// others are the batch's spans that are neither tool, agent nor model
	// spans, gathered while some trace is tracked: under the lock, apply
	// keeps those of traces that have state or GenAI spans in the batch.
	candidates []linkCandidate
	// roots are the batch's ordinary trace roots, remembered together
	// once classified (see passedRoots).
	roots []passedRoot
	// td is the batch itself, for the entries of the others kept.
	td    ptrace.Traces
	calls []extract.SpanCall
	order []int
	// ordering is applyOrder's working memory.
	ordering orderScratch
	runs     []closedRun
	// complete lists runs held while their traces showed spans missing
	// that this batch completed.
	complete []runKey
	// service is the service.name of resource serviceRS-1 (see serviceOf);
	// toolsSeenRS-1 the resource whose tool spans were last recorded in
	// toolServices.
	service                string
	serviceRS, toolsSeenRS int
	// contexts are the run contexts recorded by the batch's agent and
	// model-call spans, when a rule reads them.
	contexts []extract.ContextPart
	// genai is the set of traces with GenAI spans in the batch.
	genai traceSet
	// keyed is the set of the batch's traces whose calls reach their runs
	// by run key (coding_agents.go).
	keyed traceSet
	// scratch holds the calls and evaluations of the run being scored.
	scratch runScratch
	// turns are the model turns the batch's model-call spans recorded,
	// when they are read.
	turns []extract.ModelTurn
	// turnParser is the memory turns are parsed with, kept from batch to
	// batch with the batch (it keeps no text of theirs).
	turnParser extract.TurnParser
	// classified and part are what classify reads of the span in hand,
	// kept here rather than in its frame (see scoreClosed).
	classified extract.Result
	part       extract.ContextPart
}

var batchPool = sync.Pool{New: func() any { return new(batch) }}

func (b *batch) reset() {
	clear(b.calls) // drop references to span strings
	clear(b.runs)
	clear(b.contexts)
	clear(b.turns)
	b.turns = b.turns[:0]
	b.scratch.clear()
	b.td = ptrace.Traces{}
	b.classified, b.part = extract.Result{}, extract.ContextPart{}
	b.entries, b.candidates, b.calls, b.order, b.runs, b.contexts = b.entries[:0], b.candidates[:0], b.calls[:0], b.order[:0], b.runs[:0], b.contexts[:0]
	b.complete, b.roots = b.complete[:0], b.roots[:0]
	b.keyed.reset()
	b.service, b.serviceRS, b.toolsSeenRS = "", 0, 0
}

// closedRun is an agent run (or a trace root's calls) ready to score, or
// a span seen before: replay holds the annotations its run got then, twin
// marks a copy of an agent span that is held.
type closedRun struct {
	ref   spanRef
	agent pcommon.SpanID
	traj  *trajectory.Trajectory
	hold  bool
	// incomplete marks a run held because its trace showed spans missing;
	// root that the span is a trace root, not an agent span.
	incomplete, root bool
	copyOfHeld       bool
	replay           *annotations
	// heldFor is what a run held incomplete lacked when it was held.
	heldFor trajectory.Missing
	// passedRoot marks the run of a trace root that passed before its
	// spans: agent is the root, ref the span of the run that carries its
	// verdict (see adoptPassedRoots).
	passedRoot bool
	// annotations are the run's annotations as scored in its batch, packed
	// (see annotationWriter), when they could be packed as written.
	annotations []byte
}

// processTraces is the processorhelper callback: classify every span, update
// open trajectories under the lock, then score the runs whose agent span
// arrived and annotate those spans.
func (p *tcaProcessor) processTraces(ctx context.Context, td ptrace.Traces) (ptrace.Traces, error) {
	p.lifecycle.RLock()
	defer p.lifecycle.RUnlock()
	if p.closed {
		return td, errShutDown
	}
	b := batchPool.Get().(*batch)
	defer func() {
		b.reset()
		batchPool.Put(b)
	}()
	tracked := p.tracked.Load() > 0
	b.td = td
	anyGenAI := p.classify(td, b, tracked)
	if !anyGenAI && !tracked {
		return td, nil // nothing GenAI here and nothing waiting: pass through
	}
	if anyGenAI && !tracked {
		// Ordinary spans of the traces this batch starts may sit between
		// a tool span and its agent span.
		p.addLinks(td, b)
	}
	counts := p.tel.newCounts()
	for i := range b.entries {
		e := &b.entries[i]
		if e.call < 0 {
			continue
		}
		c := &b.calls[e.call]
		counts.addExtracted(c.Convention, extract.ArgumentsLikelyKnown(c.Args, c.Encoding, p.decodeOpts))
		if !p.keepsResults(e.trace) {
			c.Result = ""
		}
	}
	if len(b.turns) > 0 {
		parseTurns(b.turns, &b.turnParser)
	}
	runs := p.apply(b, counts)
	if p.convs != nil {
		runs = p.convs.assemble(td, b.entries, runs, p.now().UnixNano(), &counts.store)
	}
	// Runs are scored before held spans are copied aside, so that a span
	// that carries a run's verdict and is held itself (the final model
	// call of a conversation, held for its records) keeps the verdict.
	var held []heldRun
	for i := range runs {
		if run := &runs[i]; !run.setAside() {
			held = p.scoreClosed(ctx, td, run, counts, &b.scratch, held)
		}
	}
	for i := range runs {
		if run := &runs[i]; run.setAside() {
			held = p.setAside(td, run, held)
		}
	}
	if len(runs) > 0 {
		p.holder.keepScored(td, runs, held)
	}
	if len(held) > 0 || len(b.complete) > 0 {
		p.holder.take(held, td, b.complete)
	}
	p.tel.record(ctx, counts)
	if td.SpanCount() == 0 {
		// Every span of the batch is held; it is emitted later.
		return td, processorhelper.ErrSkipProcessingData
	}
	return td, nil
}

// parseTurns reads the recorded request and response of the batch's model
// turns, once, before apply takes the lock (the turns then keep what they
// read and no text of their spans, see extract.ModelTurn.Parse): a held run's completeness is judged
// from them under it, and the JSON parser's frames are kept off that
// deeper path.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func parseTurns(turns []extract.ModelTurn, p *extract.TurnParser) {
	extract.ParseTurns(turns, p)
}

// setAside handles a closed run that is not scored now: a replay gets the
// annotations its run got before; a twin or a run that waits is appended
// to held. (Kept out of processTraces, whose frame is on the way down to
// the scorers: see scoreClosed.)
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (p *tcaProcessor) setAside(td ptrace.Traces, run *closedRun, held []heldRun) []heldRun {
	rs, ss, span := run.ref.in(td)
	if run.replay != nil {
		run.replay.writeTo(span)
		return held
	}
	var h heldRun
	if run.incomplete {
		h = p.holder.newRunFor(run.ref, rs, ss, span, p.cfg.WaitForMissing)
		h.incomplete, h.root, h.heldFor = true, run.root, run.heldFor
		if run.passedRoot {
			h.span = run.agent // the run is the root's; the span carries it
		}
	} else {
		h = p.holder.newRun(run.ref, rs, ss, span)
	}
	h.copyOfHeld = run.copyOfHeld
	return append(held, h)
}

// setAside reports a run whose span is held or written by another run's
// verdict (a replay), not scored in its batch.
func (r *closedRun) setAside() bool { return r.replay != nil || r.copyOfHeld || r.hold }

// scoreClosed scores a closed run on its span, appending it to held when
// deferred scorers are still to run.
//
// The frames from processTraces down to the scorers are kept small: the
// OTLP receivers call processTraces on a goroutine of their own whose stack
// has about 4.4 KiB left, and a call that needs more copies the whole stack
// to twice its size (cmd/toolscore's TestStackBudget holds the path to
// that budget).
func (p *tcaProcessor) scoreClosed(ctx context.Context, td ptrace.Traces, run *closedRun, counts *batchCounts, scratch *runScratch, held []heldRun) []heldRun {
	rs, ss, span := run.ref.in(td)
	from := scratch.keepAnnotations()
	if deferred := p.score(ctx, rs, ss, span, run.agent, run.traj, counts, scratch); deferred != nil {
		held = p.holdDeferred(run.ref, rs, ss, span, deferred, held)
	}
	run.annotations = scratch.annotations[from:]
	return held
}

// holdDeferred appends the run on span, scored but for its deferred
// scorers, to held.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (p *tcaProcessor) holdDeferred(ref spanRef, rs ptrace.ResourceSpans, ss ptrace.ScopeSpans, span ptrace.Span, deferred *scoredRun, held []heldRun) []heldRun {
	h := p.holder.newRun(ref, rs, ss, span)
	h.deferred = deferred
	return append(held, h)
}

// classify reads every span once. GenAI spans get an entry; other spans are
// gathered in b.others only when some trace is tracked (they may link a tool
// span to its agent), for apply to sort out under the lock.
func (p *tcaProcessor) classify(td ptrace.Traces, b *batch, tracked bool) bool {
	anyGenAI := false
	for ri, rs := range td.ResourceSpans().All() {
		for si, ss := range rs.ScopeSpans().All() {
			scope := ss.Scope()
			for pi, span := range ss.Spans().All() {
				if extract.Ordinary(span) {
					p.rememberRoot(b, span)
					if tracked {
						b.candidates = append(b.candidates, linkCandidate{trace: span.TraceID(), ref: spanRef{ri, si, pi}})
					}
					continue
				}
				// One pass over the attributes classifies the span and, for
				// a model call, an agent or a GenAI root, reads its run
				// context when a rule wants it.
				part := &b.part
				*part = extract.ContextPart{}
				into := part
				if !p.capturesContext(span.TraceID(), scope) {
					into = nil
				}
				res := &b.classified
				extract.ClassifyInto(span, scope, &p.extractOpts, parentOf(span).IsEmpty(), into, res)
				if !res.GenAI {
					// Not reached: a span that is not ordinary is GenAI.
					if tracked {
						b.candidates = append(b.candidates, linkCandidate{trace: span.TraceID(), ref: spanRef{ri, si, pi}})
					}
					continue
				}
				if res.NamesTool {
					p.tel.countUnrecognized(rs.Resource(), res)
				}
				anyGenAI = true
				p.addEntry(b, spanRef{ri, si, pi}, span)
			}
		}
	}
	p.roots.addAll(b.roots)
	return anyGenAI
}

// addEntry adds the entry of a GenAI span, classified in b.classified
// (and its run context in b.part), at ref. It is not inlined: classify's
// frame is on the way down to the extractors (see scoreClosed).
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (p *tcaProcessor) addEntry(b *batch, ref spanRef, span ptrace.Span) {
	res, part := &b.classified, &b.part
	e := spanEntry(ref, span)
	e.kind, e.genai = res.Kind, true
	e.localRoot = p.cfg.LocalRoots && res.Kind != extract.KindTool && res.Kind != extract.KindAgent && hasRemoteParent(span)
	if res.Kind == extract.KindTool {
		e.call = int32(len(b.calls))
		b.calls = append(b.calls, res.Call)
	}
	if res.ModelCall {
		e.modelStart = span.StartTimestamp()
	}
	if res.Kind == extract.KindAgent {
		e.start = span.StartTimestamp()
		e.failed = span.Status().Code() == ptrace.StatusCodeError
	}
	if !part.Empty() {
		b.contexts = append(b.contexts, *part)
		e.context = int32(len(b.contexts))
	}
	if p.readTurns && extract.IsTurn(res) {
		b.turns = slices.Grow(b.turns, 1)[:len(b.turns)+1] // ReadTurn writes all of it
		if extract.ReadTurn(span, &b.turns[len(b.turns)-1]) {
			e.turn = int32(len(b.turns))
		} else {
			b.turns = b.turns[:len(b.turns)-1]
		}
	}
	b.entries = append(b.entries, e)
	if res.Scheduled {
		p.addUnexecuted(b, ref, span)
	}
	if res.Convention == extract.ConventionCodex && res.Kind != extract.KindOther {
		addKeyed(b, span)
	}
}

// spanEntry is the entry of the span at ref with what every entry records;
// callers add its kind and marks.
func spanEntry(ref spanRef, span ptrace.Span) entry {
	return entry{ref: ref, trace: span.TraceID(), span: span.SpanID(), parent: parentOf(span), end: span.EndTimestamp(), call: -1}
}

// linkEntry is the entry of a span that is neither tool, agent nor model
// span, at ref in td.
func (p *tcaProcessor) linkEntry(td ptrace.Traces, ref spanRef) entry {
	_, _, span := ref.in(td)
	e := spanEntry(ref, span)
	e.localRoot = p.cfg.LocalRoots && hasRemoteParent(span)
	return e
}

// collectGenAITraces gathers in b.genai the traces of the batch's entries,
// while they are its GenAI spans only (before links are added).
func (b *batch) collectGenAITraces() {
	b.genai.reset()
	for i := range b.entries {
		b.genai.add(b.entries[i].trace)
	}
}

// parentOf returns the span's parent id; a span that names itself as its
// parent is taken as having none (a root), so its run is still scored.
func parentOf(span ptrace.Span) pcommon.SpanID {
	parent := span.ParentSpanID()
	if parent == span.SpanID() {
		return pcommon.SpanID{}
	}
	return parent
}

// Span flags (OTLP 1.1+) that say whether the span's parent is remote.
const (
	spanFlagsHasIsRemote = 0x100
	spanFlagsIsRemote    = 0x200
)

// hasRemoteParent reports whether the span's flags mark its parent as
// remote (in another process), making the span a local root.
func hasRemoteParent(span ptrace.Span) bool {
	const mask = spanFlagsHasIsRemote | spanFlagsIsRemote
	return !span.ParentSpanID().IsEmpty() && span.Flags()&mask == mask
}

// addLinks adds the ordinary spans of the traces that have GenAI spans in
// this batch.
func (p *tcaProcessor) addLinks(td ptrace.Traces, b *batch) {
	b.collectGenAITraces()
	// Entries were appended in span order, so a cursor finds the spans
	// that already have one.
	genai := len(b.entries)
	next := 0
	for ri, rs := range td.ResourceSpans().All() {
		for si, ss := range rs.ScopeSpans().All() {
			for pi, span := range ss.Spans().All() {
				ref := spanRef{ri, si, pi}
				if next < genai && b.entries[next].ref == ref {
					next++
					continue
				}
				if !b.genai.has(span.TraceID()) || b.keyed.has(span.TraceID()) {
					continue
				}
				e := spanEntry(ref, span)
				e.localRoot = p.cfg.LocalRoots && hasRemoteParent(span)
				b.entries = append(b.entries, e)
			}
		}
	}
}

// apply updates the store with a batch, under the lock. Within a batch spans
// are applied trace by trace, and within a trace children first whatever
// their order in the batch: tool spans, then links, then agent spans, then
// trace roots, each group by end time (children end before their parents, so
// nested records of one call merge and a sub-agent closes before the agent
// around it). Trace by trace, a run completed inside the batch closes before
// the next trace's calls open runs, so a batch with more runs than
// max_open_trajectories does not evict its own runs.
func (p *tcaProcessor) apply(b *batch, counts *batchCounts) []closedRun {
	now := p.now().UnixNano()
	if len(b.candidates) == 0 {
		b.order = applyOrder(b.entries, b.order, &b.ordering) // outside the lock
	}
	runs := b.runs[:0]
	p.mu.Lock()
	defer p.mu.Unlock()
	p.store.Sweep(now)
	p.holder.sweep(now)
	p.markKeyed(b, now)
	if len(b.candidates) > 0 {
		p.keepLinks(b)
		b.order = applyOrder(b.entries, b.order, &b.ordering)
	}
	tools := 0 // the current trace's tool entries not applied yet
	for k, i := range b.order {
		e := &b.entries[i]
		switch {
		case e.kind == extract.KindTool:
			if tools == 0 {
				tools = toolEntries(b.entries, b.order[k:])
				p.store.ExpectCalls(tools)
			}
			tools--
			if p.store.ToolOf(e.trace, e.span, e.parent, &b.calls[e.call], now) {
				p.habits.late(b.serviceOf(e.ref.rs))
			}
			if b.toolsSeenRS != e.ref.rs+1 { // once per resource and batch
				b.toolsSeenRS = e.ref.rs + 1
				p.toolServices.saw(b.serviceOf(e.ref.rs), toolSpans)
			}
		case e.kind == extract.KindAgent:
			runs = p.applyAgent(b, e, runs, now)
		default:
			runs = p.applyOther(b, e, runs, now)
		}
	}
	if p.roots != nil {
		runs = p.adoptPassedRoots(b, runs, now)
	}
	if p.store.HoldsIncomplete() {
		p.completed(b)
	}
	b.complete = p.releasedEarly(b.complete)
	p.takeStats(counts)
	b.runs = runs
	return runs
}

// completed lists in b.complete the runs of the batch's traces held while
// their traces showed spans missing that nothing shows missing any more.
// Called with p.mu held.
func (p *tcaProcessor) completed(b *batch) {
	var last pcommon.TraceID
	for k, i := range b.order {
		trace := b.entries[i].trace
		if k > 0 && trace == last {
			continue
		}
		last = trace
		b.complete = p.appendComplete(b.complete, trace)
	}
}

// releasedEarly appends to keys the held runs the store released early
// (limits.max_held_runs): the holder sends them at once. Called with p.mu
// held.
func (p *tcaProcessor) releasedEarly(keys []runKey) []runKey {
	p.early = p.store.TakeReleasedEarly(p.early[:0])
	for _, r := range p.early {
		keys = append(keys, runKey{r.Trace, r.Span})
	}
	return keys
}

// appendComplete appends to keys the runs of trace held while it showed
// spans missing that nothing shows missing any more. Called with p.mu held.
func (p *tcaProcessor) appendComplete(keys []runKey, trace pcommon.TraceID) []runKey {
	p.store.Incomplete(trace, func(span pcommon.SpanID, m trajectory.Missing) {
		if m == trajectory.MissingNone {
			keys = append(keys, runKey{trace, span})
		}
	})
	return keys
}

// applyAgent applies an agent span to the store, appending the run it
// closes (or holds) to runs. apply's branches are functions of their own
// so that apply's frame, which the deepest calls below it (a tool span's
// arguments decoded when a duplicate record is merged) sit under, stays
// small (see scoreClosed). Called with p.mu held.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (p *tcaProcessor) applyAgent(b *batch, e *entry, runs []closedRun, now int64) []closedRun {
	if seen := p.store.Seen(e.trace, e.span); seen != trajectory.SeenNot {
		// A retried batch or a duplicate span id: the run was scored (or
		// is held) already.
		return p.seenBefore(runs, e, seen)
	}
	if e.context > 0 {
		p.store.AttachContext(e.trace, e.span, &b.contexts[e.context-1], true, now)
	}
	o := trajectory.AgentOptions{Hold: p.cfg.Wait > 0, HoldIfMissing: p.cfg.WaitForMissing > 0, Start: uint64(e.start), End: uint64(e.end), Failed: e.failed, ModelCall: e.modelStart != 0}
	if o.HoldIfMissing {
		p.serviceOptions(b, e.ref, &o)
	}
	traj, missing := p.store.AgentOrHold(e.trace, e.span, e.parent, o, now)
	incomplete := missing != trajectory.MissingNone
	if hold := o.Hold || incomplete; traj != nil || hold {
		runs = append(runs, closedRun{ref: e.ref, agent: e.span, traj: traj, hold: hold, incomplete: incomplete, heldFor: missing})
	}
	return runs
}

// serviceOptions marks in o what the service of the span at ref was seen
// to record (tool spans, requests, log records) and the evidence its agent
// (or root) was learned never to send late: what holding it waits for.
// Called with p.mu held.
func (p *tcaProcessor) serviceOptions(b *batch, ref spanRef, o *trajectory.AgentOptions) {
	service := b.serviceOf(ref.rs)
	o.ToolSpans, o.Requests = p.toolServices.awaitsTools(service), p.toolServices.recordsRequests(service)
	logs := p.servesLogs.Load()
	o.Records = logs && p.toolServices.sendsRecords(service)
	o.CallRecords = logs && p.toolServices.sendsCallRecords(service)
	_, _, span := ref.in(b.td)
	p.habits.options(service, agentOf(span), o)
}

// applyOther applies a span that is neither tool nor agent span (a model
// call, a step, a GenAI root, an ordinary span kept as a link), appending
// the run it closes, if any, to runs. Called with p.mu held.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (p *tcaProcessor) applyOther(b *batch, e *entry, runs []closedRun, now int64) []closedRun {
	if e.genai && p.habits.anyLearned() && p.store.Late(e.trace, e.parent) {
		p.habits.late(b.serviceOf(e.ref.rs))
	}
	if e.context > 0 && e.modelStart == 0 {
		// A GenAI root's context is its run's, like an agent's.
		p.store.AttachContext(e.trace, e.span, &b.contexts[e.context-1], true, now)
	}
	var traj *trajectory.Trajectory
	setAside := false // a root held, or a copy of one
	switch {
	case e.localRoot:
		traj = p.store.LocalRoot(e.trace, e.span, e.genai, now)
	case (e.parent.IsEmpty() || e.parent == e.span) && p.cfg.WaitForMissing > 0 && p.cfg.Wait == 0:
		if seen := p.store.Seen(e.trace, e.span); seen == trajectory.SeenHeld {
			runs, setAside = p.seenBefore(runs, e, seen), true // a retried batch: the root is held
			break
		}
		var missing trajectory.Missing
		o := trajectory.AgentOptions{HoldIfMissing: true}
		p.serviceOptions(b, e.ref, &o)
		traj, missing = p.store.RootOrHold(e.trace, e.span, e.genai, o, now)
		if setAside = missing != trajectory.MissingNone; setAside {
			runs = append(runs, closedRun{ref: e.ref, agent: e.span, hold: true, incomplete: true, root: true})
		}
	default:
		traj = p.store.Link(e.trace, e.span, e.parent, e.genai, now)
	}
	switch {
	case setAside:
	case traj != nil:
		runs = append(runs, closedRun{ref: e.ref, agent: e.span, traj: traj})
	case e.parent.IsEmpty() || e.localRoot:
		if a := p.holder.replayed(e.trace, e.span); a != nil {
			runs = append(runs, closedRun{ref: e.ref, agent: e.span, replay: a}) // a retried root run
		}
	}
	if e.modelStart != 0 {
		p.store.ModelCall(e.trace, e.parent, uint64(e.modelStart))
	}
	if e.turn > 0 || e.modelStart != 0 {
		p.modelSpanTurn(b, e, now) // with the log records that witnessed it
	}
	if e.context > 0 && e.modelStart != 0 {
		p.store.AttachContext(e.trace, e.parent, &b.contexts[e.context-1], false, now)
	}
	return runs
}

// takeStats moves the store's counters into the batch's counts and
// publishes its sizes. Called with p.mu held.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func (p *tcaProcessor) takeStats(counts *batchCounts) {
	counts.store = p.store.TakeStats()
	p.tel.recordRecords(context.Background(), p.store.TakeRecordStats())
	p.publishSizes()
}

// keepLinks moves to b.entries the spans of b.others that may link a tool
// span to its run: those of traces the store tracks or that have GenAI spans
// in this batch, and, while retried runs' annotations are kept, the roots
// they are kept for (a retried root run is found by its root span). The
// rest pass untouched. Called with p.mu held.
func (p *tcaProcessor) keepLinks(b *batch) {
	b.collectGenAITraces()
	replays := p.holder.replaying()
	// A batch's spans come trace by trace: what is decided for a trace is
	// kept for its next candidates (a Codex trace has hundreds).
	var last pcommon.TraceID
	keyed, links := false, false
	for i := range b.candidates {
		o := &b.candidates[i]
		if i == 0 || o.trace != last {
			last = o.trace
			keyed = p.keyedTrace(b, o.trace)
			links = !keyed && (p.store.Tracks(o.trace) || b.genai.has(o.trace))
		}
		if keyed {
			continue
		}
		if links {
			b.entries = append(b.entries, p.linkEntry(b.td, o.ref))
		} else if replays && p.holder.mayReplay(o.trace) {
			// A root of a trace not tracked can only be a retried root run:
			// it is applied only when annotations are kept for it, so the
			// many other roots of a busy collector are not ordered and
			// applied for nothing.
			if e := p.linkEntry(b.td, o.ref); (e.parent.IsEmpty() || e.localRoot) && p.holder.replayed(e.trace, e.span) != nil {
				b.entries = append(b.entries, e)
			}
		}
	}
}

// again handles an agent span seen before: a copy of a held span waits
// with it; a span whose run was scored gets the annotations kept for it, or
// passes unannotated when none were kept (its first copy went out scored).
// Nothing is scored or counted twice. Called with p.mu held.
func (p *tcaProcessor) seenBefore(runs []closedRun, e *entry, seen trajectory.Seen) []closedRun {
	if seen == trajectory.SeenHeld {
		return append(runs, closedRun{ref: e.ref, agent: e.span, copyOfHeld: true})
	}
	if a := p.holder.replayed(e.trace, e.span); a != nil {
		return append(runs, closedRun{ref: e.ref, agent: e.span, replay: a})
	}
	if ce := p.logger.Check(zap.DebugLevel, "agent span seen before passed on unannotated"); ce != nil {
		ce.Write(zap.Stringer("trace_id", e.trace), zap.Stringer("span_id", e.span))
	}
	return runs
}

// publishSizes mirrors the store's sizes for the gauges and the lock-free
// "anything tracked?" check. Called with p.mu held.
func (p *tcaProcessor) publishSizes() {
	p.tel.open.Store(int64(p.store.Open()))
	p.tracked.Store(int64(p.store.Traces()))
}

// applyOrder returns entry indexes in application order, reusing order
// and the scratch: by trace, then rank (see entryRank), then end time, and
// in batch order where those are equal.
//
// A batch has few traces, each span's among its trace's (runs arrive
// whole): the entries are counted per trace, placed trace by trace in trace
// order, and each trace's few sorted in place. A batch of more traces than
// groupedTraces is sorted whole.
func applyOrder(entries []entry, order []int, scratch *orderScratch) []int {
	keys, groups := scratch.keys[:0], scratch.groups[:0]
	grouped := true
	g := -1 // the last entry's group
	for i := range entries {
		e := &entries[i]
		k := orderKey{
			hi: binary.BigEndian.Uint64(e.trace[:8]), lo: binary.BigEndian.Uint64(e.trace[8:]),
			end: e.end, i: int32(i), rank: entryRank(e),
		}
		if grouped && (g < 0 || groups[g].hi != k.hi || groups[g].lo != k.lo) {
			if g = findGroup(groups, k.hi, k.lo); g < 0 && len(groups) < groupedTraces {
				groups = append(groups, traceGroup{hi: k.hi, lo: k.lo})
				g = len(groups) - 1
			} else if g < 0 {
				grouped = false // too many: sorted whole
			}
		}
		if grouped {
			groups[g].n++
			k.group = uint8(g)
		}
		keys = append(keys, k)
	}
	scratch.keys, scratch.groups = keys, groups
	order = order[:0]
	if !grouped {
		slices.SortFunc(keys, compareOrderKeys)
		for _, k := range keys {
			order = append(order, int(k.i))
		}
		return order
	}
	return orderByGroup(keys, groups, order)
}

// orderScratch is applyOrder's working memory, reused batch to batch (not
// on the stack: a batch may run on a new goroutine, whose stack a large
// frame would make grow).
type orderScratch struct {
	// keys are the entries' sort keys, in entry order unless sorted whole.
	keys []orderKey
	// groups are the batch's traces, in order of first entry.
	groups []traceGroup
}

// groupedTraces bounds the traces of a batch that applyOrder orders by
// group (found by a linear search).
const groupedTraces = 64

// traceGroup is a trace's entries in applyOrder: its id as orderKey has
// it, how many entries it has, and where the next goes in the order.
type traceGroup struct {
	hi, lo uint64
	n, at  int
}

// findGroup returns the group of the trace (hi, lo), or -1.
func findGroup(groups []traceGroup, hi, lo uint64) int {
	for i := range groups {
		if groups[i].hi == hi && groups[i].lo == lo {
			return i
		}
	}
	return -1
}

// orderByGroup returns the entries of keys (in entry order, each naming its
// group) in application order, in order's memory: groups in trace order
// (a counting sort), then each group's entries by rank, end time and index.
func orderByGroup(keys []orderKey, groups []traceGroup, order []int) []int {
	var byTrace [groupedTraces]uint8
	sorted := byTrace[:len(groups)]
	for i := range sorted {
		sorted[i] = uint8(i)
	}
	// Insertion sort: a batch has a few traces.
	for i := 1; i < len(sorted); i++ {
		for j := i; j > 0 && traceLess(&groups[sorted[j]], &groups[sorted[j-1]]); j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	at := 0
	for _, g := range sorted {
		groups[g].at = at
		at += groups[g].n
	}
	order = slices.Grow(order, len(keys))[:len(keys)]
	for i := range keys {
		gr := &groups[keys[i].group]
		order[gr.at] = i
		gr.at++
	}
	// Each group's entries, in entry order, by rank and end time: an
	// insertion sort, stable as the index breaks no tie it has not kept. A
	// large group (one trace of many spans) is sorted by the whole key, the
	// index last, instead: an insertion sort of it takes quadratic time.
	from := 0
	for _, g := range sorted {
		to := from + groups[g].n
		if to-from > maxInsertionSort {
			// One trace's keys, each at its own index (keys are in entry
			// order when grouped).
			slices.SortFunc(order[from:to], func(x, y int) int { return compareOrderKeys(keys[x], keys[y]) })
			from = to
			continue
		}
		for i := from + 1; i < to; i++ {
			for j := i; j > from && entryLess(&keys[order[j]], &keys[order[j-1]]); j-- {
				order[j], order[j-1] = order[j-1], order[j]
			}
		}
		from = to
	}
	return order
}

// maxInsertionSort bounds the entries of a trace that orderByGroup sorts
// by insertion.
const maxInsertionSort = 32

// traceLess orders groups by trace id.
func traceLess(a, b *traceGroup) bool {
	return a.hi < b.hi || a.hi == b.hi && a.lo < b.lo
}

// entryLess orders one trace's entries by rank, then end time.
func entryLess(a, b *orderKey) bool {
	return a.rank < b.rank || a.rank == b.rank && a.end < b.end
}

// toolEntries counts the tool entries at the start of order that are of the
// first one's trace: in application order, a trace's tool spans come first
// and together.
func toolEntries(entries []entry, order []int) int {
	trace := entries[order[0]].trace
	n := 0
	for _, i := range order {
		if e := &entries[i]; e.kind != extract.KindTool || e.trace != trace {
			break
		}
		n++
	}
	return n
}

// orderKey is an entry's place in application order, in integers: its
// trace as two big-endian words (which compare as the bytes do), its rank,
// its end time, and its index, which breaks the remaining ties as a stable
// sort would. group is its trace's in applyOrder's grouping.
type orderKey struct {
	hi, lo uint64
	end    pcommon.Timestamp
	i      int32
	rank   uint8
	group  uint8
}

func compareOrderKeys(a, b orderKey) int {
	switch {
	case a.hi != b.hi:
		return cmp.Compare(a.hi, b.hi)
	case a.lo != b.lo:
		return cmp.Compare(a.lo, b.lo)
	case a.rank != b.rank:
		return cmp.Compare(a.rank, b.rank)
	case a.end != b.end:
		return cmp.Compare(a.end, b.end)
	}
	return cmp.Compare(a.i, b.i)
}

// entryRank is an entry's group within its trace: tool spans, then links,
// then agent spans, then trace (or local) roots.
func entryRank(e *entry) uint8 {
	switch {
	case e.kind == extract.KindTool:
		return 0
	case e.kind == extract.KindAgent:
		return 2
	case e.parent.IsEmpty() || e.localRoot:
		return 3
	}
	return 1
}
