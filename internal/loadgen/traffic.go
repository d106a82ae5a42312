package loadgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/ordinaryspan"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
)

// This file builds the load generator's traffic: GenAI runs replayed from
// captured traces (templates) under fresh ids, mixed with ordinary HTTP
// server spans, cut into requests of at most one batch.

// spanGroup is a resource and instrumentation scope that spans are sent
// under. Group 0 is the ordinary spans'.
type SpanGroup struct {
	resource    pcommon.Resource
	resSchema   string
	Scope       pcommon.InstrumentationScope
	scopeSchema string
}

// templateSpan is one span of a template, read only.
type templateSpan struct {
	span  ptrace.Span
	group int // index into traffic.groups
	// parent indexes the instance's ids: a span of the template, or past
	// them one of its parents outside the template; -1 for a root.
	parent int
	agent  bool
}

// loadTemplate is one captured trace: the spans of one agent run.
type Template struct {
	name string // file:line and trace id
	// spans in the order they are sent: every other span in capture order,
	// then the agent spans, innermost first.
	spans []templateSpan
	// index maps a template span id to its index (for span links).
	index    map[pcommon.SpanID]int
	traceID  pcommon.TraceID
	external int // parents outside the template
	minStart pcommon.Timestamp
	agents   int
}

// readTemplates splits the documents' traces into templates, one per trace
// id, and registers their resources and scopes as groups.
func ReadTemplates(docs []otlpjson.Doc, groups *[]SpanGroup) ([]*Template, error) {
	opts := extract.Options{SkipTools: extract.DefaultSkipTools()}
	var out []*Template
	for _, d := range docs {
		byTrace := map[pcommon.TraceID]*Template{}
		var order []*Template
		rss := d.Traces.ResourceSpans()
		for i := 0; i < rss.Len(); i++ {
			rs := rss.At(i)
			sss := rs.ScopeSpans()
			for j := 0; j < sss.Len(); j++ {
				ss := sss.At(j)
				group := len(*groups)
				*groups = append(*groups, SpanGroup{resource: rs.Resource(), resSchema: rs.SchemaUrl(), Scope: ss.Scope(), scopeSchema: ss.SchemaUrl()})
				spans := ss.Spans()
				for k := 0; k < spans.Len(); k++ {
					s := spans.At(k)
					tpl := byTrace[s.TraceID()]
					if tpl == nil {
						tpl = &Template{name: fmt.Sprintf("%s:%d trace %s", d.Path, d.Line, s.TraceID()), traceID: s.TraceID(), index: map[pcommon.SpanID]int{}}
						byTrace[s.TraceID()] = tpl
						order = append(order, tpl)
					}
					kind := extract.Classify(s, ss.Scope(), &opts).Kind
					tpl.spans = append(tpl.spans, templateSpan{span: s, group: group, agent: kind == extract.KindAgent})
				}
			}
		}
		for _, tpl := range order {
			if err := tpl.finish(); err != nil {
				return nil, err
			}
			out = append(out, tpl)
		}
	}
	return out, nil
}

// finish orders the spans for sending and resolves parent links.
func (t *Template) finish() error {
	for i, s := range t.spans {
		if _, dup := t.index[s.span.SpanID()]; dup {
			return fmt.Errorf("%s: span id %s appears twice", t.name, s.span.SpanID())
		}
		t.index[s.span.SpanID()] = i
	}
	// Without a span the processor takes for an agent run, the run's
	// boundary is its root.
	agents := 0
	for _, s := range t.spans {
		if s.agent {
			agents++
		}
	}
	if agents == 0 {
		for i, s := range t.spans {
			if _, ok := t.index[s.span.ParentSpanID()]; !ok {
				t.spans[i].agent = true
			}
		}
	}
	depth := make(map[pcommon.SpanID]int, len(t.spans))
	for _, s := range t.spans {
		d := 0
		for p := s.span.ParentSpanID(); d < len(t.spans); d++ {
			i, ok := t.index[p]
			if !ok {
				break
			}
			p = t.spans[i].span.ParentSpanID()
		}
		depth[s.span.SpanID()] = d
	}
	slices.SortStableFunc(t.spans, func(a, b templateSpan) int {
		switch {
		case a.agent != b.agent:
			if a.agent {
				return 1
			}
			return -1
		case a.agent:
			return depth[b.span.SpanID()] - depth[a.span.SpanID()] // inner agents close first
		}
		return 0
	})
	clear(t.index)
	for i, s := range t.spans {
		t.index[s.span.SpanID()] = i
	}
	ext := map[pcommon.SpanID]int{}
	t.minStart = math.MaxUint64
	for i, s := range t.spans {
		t.minStart = min(t.minStart, s.span.StartTimestamp())
		if s.agent {
			t.agents++
		}
		p := s.span.ParentSpanID()
		switch idx, ok := t.index[p]; {
		case p.IsEmpty():
			t.spans[i].parent = -1
		case ok:
			t.spans[i].parent = idx
		default:
			e, seen := ext[p]
			if !seen {
				e = len(t.spans) + len(ext)
				ext[p] = e
			}
			t.spans[i].parent = e
		}
	}
	t.external = len(ext)
	return nil
}

// loadRun is one replay of a template.
type loadRun struct {
	tpl     *Template
	traceID pcommon.TraceID
	ids     []pcommon.SpanID // the template's spans, then its external parents
	shift   int64            // added to every timestamp
	next    int              // next span to send
	hold    bool             // its agent spans are held to the end
	lastReq uint64           // the last request that carried one of its spans
}

// heldSpan is an agent span kept back until the end.
type heldSpan struct {
	run *loadRun
	i   int
}

// trafficConfig shapes the traffic.
type Config struct {
	Batch    int
	Share    float64 // of the spans that belong to GenAI runs
	Split    bool
	Hold     int
	DropHeld bool
	Limit    int64 // spans in all; 0 for no limit
}

// traffic produces the requests. It is used by one goroutine.
type Traffic struct {
	cfg       Config
	templates []*Template
	groups    []SpanGroup
	rng       *rand.Rand
	now       func() time.Time
	ordinary  ptrace.Span

	nextTpl int
	Active  []*loadRun // runs with spans still to send, oldest first
	Held    []heldSpan
	Dropped int64 // held agent spans never to be sent

	// committed counts the spans sent or promised: the rest of the active
	// runs and the held spans that will be sent. It never passes the limit.
	committed int64
	sent      int64 // spans in the stream so far (held ones not included)
	genai     int64 // GenAI spans among them
	Runs      int
	holdLeft  int
}

func NewTraffic(cfg Config, templates []*Template, groups []SpanGroup, seed uint64) *Traffic {
	if cfg.Batch < 1 {
		cfg.Batch = 1
	}
	t := &Traffic{
		cfg: cfg, templates: templates, groups: groups,
		rng:      rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		now:      time.Now,
		holdLeft: cfg.Hold,
	}
	t.ordinary = ptrace.NewSpan()
	ordinaryspan.Fill(t.ordinary)
	return t
}

// ordinaryGroup is the resource and scope of the ordinary spans.
func OrdinaryGroup() SpanGroup {
	res := pcommon.NewResource()
	res.Attributes().PutStr("service.name", "orders")
	res.Attributes().PutStr("service.version", "1.4.2")
	scope := pcommon.NewInstrumentationScope()
	scope.SetName("go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp")
	scope.SetVersion("0.63.0")
	return SpanGroup{resource: res, Scope: scope}
}

func (t *Traffic) traceID() pcommon.TraceID {
	var id pcommon.TraceID
	for id.IsEmpty() {
		hi, lo := t.rng.Uint64(), t.rng.Uint64()
		for i := range 8 {
			id[i] = byte(hi >> (56 - 8*i))
			id[8+i] = byte(lo >> (56 - 8*i))
		}
	}
	return id
}

func (t *Traffic) spanID() pcommon.SpanID {
	var id pcommon.SpanID
	for id.IsEmpty() {
		v := t.rng.Uint64()
		for i := range 8 {
			id[i] = byte(v >> (56 - 8*i))
		}
	}
	return id
}

// free is how many more spans may be promised.
func (t *Traffic) free() int64 {
	if t.cfg.Limit <= 0 {
		return math.MaxInt64
	}
	return t.cfg.Limit - t.committed
}

// startRun replays the next template when its spans fit under the limit
// and, unless split, when the spans it sends in the stream fit in room
// (a run is kept in one request when it fits in a batch).
func (t *Traffic) startRun(room int) *loadRun {
	if len(t.templates) == 0 {
		return nil
	}
	tpl := t.templates[t.nextTpl]
	hold := t.holdLeft > 0 && tpl.agents > 0
	stream, total := len(tpl.spans), int64(len(tpl.spans))
	if hold {
		stream -= tpl.agents
		if t.cfg.DropHeld {
			total -= int64(tpl.agents)
		}
	}
	if total > t.free() || (!t.cfg.Split && stream > room && stream <= t.cfg.Batch) {
		return nil
	}
	t.nextTpl = (t.nextTpl + 1) % len(t.templates)
	if hold {
		t.holdLeft--
	}
	r := &loadRun{tpl: tpl, traceID: t.traceID(), ids: make([]pcommon.SpanID, len(tpl.spans)+tpl.external), hold: hold}
	for i := range r.ids {
		r.ids[i] = t.spanID()
	}
	r.shift = t.now().UnixNano() - int64(tpl.minStart)
	t.committed += total
	t.Runs++
	t.Active = append(t.Active, r)
	return r
}

// requestBuilder assembles one request.
type RequestBuilder struct {
	TD     ptrace.Traces
	groups []SpanGroup
	slices map[int]ptrace.SpanSlice
	Spans  int
	GenAI  int
}

func newRequestBuilder(groups []SpanGroup) *RequestBuilder {
	return &RequestBuilder{TD: ptrace.NewTraces(), groups: groups, slices: map[int]ptrace.SpanSlice{}}
}

func (b *RequestBuilder) append(group int) ptrace.Span {
	ss, ok := b.slices[group]
	if !ok {
		g := b.groups[group]
		rs := b.TD.ResourceSpans().AppendEmpty()
		g.resource.CopyTo(rs.Resource())
		rs.SetSchemaUrl(g.resSchema)
		scope := rs.ScopeSpans().AppendEmpty()
		g.Scope.CopyTo(scope.Scope())
		scope.SetSchemaUrl(g.scopeSchema)
		ss = scope.Spans()
		b.slices[group] = ss
	}
	b.Spans++
	return ss.AppendEmpty()
}

// emitRunSpan appends span i of run r under its fresh ids.
func (b *RequestBuilder) emitRunSpan(r *loadRun, i int) {
	ts := r.tpl.spans[i]
	dst := b.append(ts.group)
	ts.span.CopyTo(dst)
	dst.SetTraceID(r.traceID)
	dst.SetSpanID(r.ids[i])
	if ts.parent >= 0 {
		dst.SetParentSpanID(r.ids[ts.parent])
	}
	shift := func(ts pcommon.Timestamp) pcommon.Timestamp {
		if ts == 0 {
			return 0
		}
		return pcommon.Timestamp(int64(ts) + r.shift)
	}
	dst.SetStartTimestamp(shift(dst.StartTimestamp()))
	dst.SetEndTimestamp(shift(dst.EndTimestamp()))
	events := dst.Events()
	for e := 0; e < events.Len(); e++ {
		events.At(e).SetTimestamp(shift(events.At(e).Timestamp()))
	}
	links := dst.Links()
	for l := 0; l < links.Len(); l++ {
		link := links.At(l)
		if link.TraceID() != r.tpl.traceID {
			continue
		}
		link.SetTraceID(r.traceID)
		if j, ok := r.tpl.index[link.SpanID()]; ok {
			link.SetSpanID(r.ids[j])
		}
	}
	b.GenAI++
}

// emitOrdinary appends an ordinary span, the root of its own trace.
func (t *Traffic) emitOrdinary(b *RequestBuilder, now time.Time) {
	dst := b.append(0)
	t.ordinary.CopyTo(dst)
	dst.SetTraceID(t.traceID())
	dst.SetSpanID(t.spanID())
	dst.SetStartTimestamp(pcommon.NewTimestampFromTime(now.Add(-5 * time.Millisecond)))
	dst.SetEndTimestamp(pcommon.NewTimestampFromTime(now))
}

// nextState says what next produced.
type nextState int

const (
	NextRequest nextState = iota // a request to send
	NextWait                     // nothing can go until more requests are acknowledged
	NextDone                     // the stream is over (the limit is reached)
)

// next builds request seq. acked is the highest sequence number up to
// which every request has been answered: with split, an agent span goes
// only once the requests with its run's other spans were answered, so it
// arrives after them whatever the number of senders.
func (t *Traffic) Next(seq, acked uint64) (*RequestBuilder, nextState) {
	b := newRequestBuilder(t.groups)
	batch := t.cfg.Batch
	target := int(math.Round(float64(t.sent+int64(batch))*t.cfg.Share)) - int(t.genai)
	target = max(0, min(target, batch))
	if t.free() == 0 {
		// Only the active runs' spans are left to send.
		target = batch
	}
	if t.cfg.Split {
		t.takeSplit(b, target, seq, acked)
	} else {
		t.takeWhole(b, target, seq)
	}
	// The other slots go to ordinary spans, as many as the limit leaves
	// once the active runs are provided for. When no run fits under the
	// limit any more, ordinary spans fill whole batches up to it.
	ordinary := int64(batch - target)
	if b.Spans == 0 && len(t.Active) == 0 && t.cfg.Limit > 0 {
		ordinary = int64(batch)
	}
	ordinary = min(ordinary, t.free())
	now := t.now()
	for range ordinary {
		t.emitOrdinary(b, now)
	}
	t.committed += ordinary
	t.sent += int64(b.Spans)
	t.genai += int64(b.GenAI)
	if b.Spans > 0 {
		return b, NextRequest
	}
	if len(t.Active) > 0 {
		return nil, NextWait
	}
	return nil, NextDone
}

// takeWhole adds up to n GenAI spans, keeping each run's spans together in
// one request (a run longer than a batch continues in the next ones).
func (t *Traffic) takeWhole(b *RequestBuilder, n int, seq uint64) {
	for b.GenAI < n {
		var r *loadRun
		if len(t.Active) > 0 {
			r = t.Active[0]
		} else if r = t.startRun(n - b.GenAI); r == nil {
			return
		}
		for r.next < len(r.tpl.spans) && b.GenAI < n {
			t.take(b, r, seq)
		}
		if r.next == len(r.tpl.spans) {
			t.Active = t.Active[1:]
		}
	}
}

// takeSplit adds up to n GenAI spans, one at most of each run, so that a
// run's spans go in separate requests, interleaved with other runs'.
func (t *Traffic) takeSplit(b *RequestBuilder, n int, seq, acked uint64) {
	kept := t.Active[:0]
	for _, r := range t.Active {
		if b.GenAI < n {
			t.take1(b, r, seq, acked)
		}
		if r.next < len(r.tpl.spans) {
			kept = append(kept, r)
		}
	}
	clear(t.Active[len(kept):])
	t.Active = kept
	for b.GenAI < n {
		r := t.startRun(0)
		if r == nil {
			return
		}
		t.take1(b, r, seq, acked)
		if r.next == len(r.tpl.spans) {
			t.Active = t.Active[:len(t.Active)-1]
		}
	}
}

// take1 adds run r's next span unless it is an agent span whose run's
// earlier requests are unanswered. Held agent spans are set aside.
func (t *Traffic) take1(b *RequestBuilder, r *loadRun, seq, acked uint64) {
	for r.next < len(r.tpl.spans) {
		ts := r.tpl.spans[r.next]
		if ts.agent && r.hold {
			t.holdSpan(r)
			continue
		}
		if ts.agent && r.lastReq > acked {
			return
		}
		t.take(b, r, seq)
		return
	}
}

// take adds run r's next span (or holds it).
func (t *Traffic) take(b *RequestBuilder, r *loadRun, seq uint64) {
	if r.tpl.spans[r.next].agent && r.hold {
		t.holdSpan(r)
		return
	}
	b.emitRunSpan(r, r.next)
	r.next++
	r.lastReq = seq
}

func (t *Traffic) holdSpan(r *loadRun) {
	if t.cfg.DropHeld {
		t.Dropped++
	} else {
		t.Held = append(t.Held, heldSpan{run: r, i: r.next})
	}
	r.next++
}

// heldRequests builds the requests of the held agent spans.
func (t *Traffic) HeldRequests() []*RequestBuilder {
	var out []*RequestBuilder
	for len(t.Held) > 0 {
		n := min(len(t.Held), t.cfg.Batch)
		b := newRequestBuilder(t.groups)
		for _, h := range t.Held[:n] {
			b.emitRunSpan(h.run, h.i)
		}
		t.Held = t.Held[n:]
		out = append(out, b)
	}
	return out
}
