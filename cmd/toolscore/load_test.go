package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/loadgen"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
)

// recSpan is a span as the receiver stand-in got it.
type recSpan struct {
	trace        pcommon.TraceID
	span, parent pcommon.SpanID
	name         string
	genai        bool
	attrs        int
	req          int // the request it came in, in order of arrival
}

// otlpRecorder is an OTLP/HTTP and OTLP/gRPC receiver stand-in that keeps
// every span with the request it came in.
type otlpRecorder struct {
	ptraceotlp.UnimplementedGRPCServer
	mu     sync.Mutex
	reqs   [][]recSpan
	status int // answer every HTTP request with this status, when set
}

func (r *otlpRecorder) Export(_ context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.reqs)
	var spans []recSpan
	rss := req.Traces().ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		sss := rss.At(i).ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			genai := sss.At(j).Scope().Name() != loadgen.OrdinaryGroup().Scope.Name()
			ss := sss.At(j).Spans()
			for k := 0; k < ss.Len(); k++ {
				s := ss.At(k)
				spans = append(spans, recSpan{trace: s.TraceID(), span: s.SpanID(), parent: s.ParentSpanID(),
					name: s.Name(), genai: genai, attrs: s.Attributes().Len(), req: n})
			}
		}
	}
	r.reqs = append(r.reqs, spans)
	return ptraceotlp.NewExportResponse(), nil
}

func (r *otlpRecorder) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	if r.status != 0 {
		http.Error(w, "overloaded", r.status)
		return
	}
	body, _ := io.ReadAll(hr.Body)
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalProto(body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	resp, _ := r.Export(hr.Context(), req)
	data, _ := resp.MarshalProto()
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(data)
}

func (r *otlpRecorder) spans() []recSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []recSpan
	for _, req := range r.reqs {
		out = append(out, req...)
	}
	return out
}

// byTrace groups spans by trace.
func byTrace(spans []recSpan) map[pcommon.TraceID][]recSpan {
	out := map[pcommon.TraceID][]recSpan{}
	for _, s := range spans {
		out[s.trace] = append(out[s.trace], s)
	}
	return out
}

func httpRecorder(t *testing.T) (*otlpRecorder, string) {
	rec := &otlpRecorder{}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return rec, srv.URL
}

func grpcRecorder(t *testing.T) (*otlpRecorder, string) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	rec := &otlpRecorder{}
	srv := grpc.NewServer()
	ptraceotlp.RegisterGRPCServer(srv, rec)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return rec, lis.Addr().String()
}

func loadJSON(t *testing.T, args ...string) (int, map[string]any, *loadReport) {
	t.Helper()
	code, out, errOut := toolscore(t, append([]string{"load", "-format", "json"}, args...)...)
	require.Empty(t, errOut)
	var fields map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &fields), out)
	var rep loadReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	return code, fields, &rep
}

// isAgent reports whether s is its run's agent span: in the demo traces,
// the root.
func isAgent(s recSpan) bool { return s.genai && s.parent.IsEmpty() }

// checkRuns checks that no id of the demo traces was sent again, that
// every parent link resolves inside its trace, that ordinary spans are
// roots of their own traces, that every GenAI trace replays a whole
// template (less its agent span when it was dropped), and returns the
// GenAI traces.
func checkRuns(t *testing.T, spans []recSpan) map[pcommon.TraceID][]recSpan {
	t.Helper()
	docs, err := otlpjson.ReadFiles(demoTraces(t)...)
	require.NoError(t, err)
	// The ids of the templates, and for each (by its span names) how many
	// of its spans have a parent that was not captured.
	old := map[string]bool{}
	dangling := map[string]int{}
	for _, d := range docs {
		var names []string
		ids := map[pcommon.SpanID]bool{}
		var parents []pcommon.SpanID
		rss := d.Traces.ResourceSpans()
		for i := 0; i < rss.Len(); i++ {
			for j := 0; j < rss.At(i).ScopeSpans().Len(); j++ {
				ss := rss.At(i).ScopeSpans().At(j).Spans()
				for k := 0; k < ss.Len(); k++ {
					old[ss.At(k).TraceID().String()] = true
					old[ss.At(k).SpanID().String()] = true
					names = append(names, ss.At(k).Name())
					ids[ss.At(k).SpanID()] = true
					parents = append(parents, ss.At(k).ParentSpanID())
				}
			}
		}
		slices.Sort(names)
		key := strings.Join(names, "|")
		dangling[key] = 0
		for _, p := range parents {
			if !p.IsEmpty() && !ids[p] {
				dangling[key]++
			}
		}
	}
	genai := map[pcommon.TraceID][]recSpan{}
	seen := map[pcommon.SpanID]bool{}
	for id, trace := range byTrace(spans) {
		require.False(t, old[id.String()], "trace id %s of a template sent again", id)
		ids := map[pcommon.SpanID]bool{}
		for _, s := range trace {
			require.False(t, old[s.span.String()], "span id %s of a template sent again", s.span)
			require.False(t, seen[s.span], "span id %s sent twice", s.span)
			seen[s.span] = true
			ids[s.span] = true
		}
		var names []string
		missing := 0
		for _, s := range trace {
			names = append(names, s.name)
			if !s.parent.IsEmpty() && !ids[s.parent] {
				missing++
			}
		}
		if trace[0].genai && !slices.ContainsFunc(trace, isAgent) {
			genai[id] = trace // its agent span was dropped (-drop-held)
			continue
		}
		if trace[0].genai {
			// A parent that the capture lacks stays missing (under a fresh
			// id); every other one resolves.
			slices.Sort(names)
			want, ok := dangling[strings.Join(names, "|")]
			require.True(t, ok, "trace %s is no whole replay of a template: %v", id, names)
			require.Equal(t, want, missing, "trace %s: spans whose parent is not in the trace", id)
			genai[id] = trace
			continue
		}
		require.Zero(t, missing)
		require.Len(t, trace, 1, "an ordinary span is its own trace")
		require.Equal(t, "GET /api/orders", trace[0].name)
		require.Equal(t, 10, trace[0].attrs)
	}
	return genai
}

func genaiCount(spans []recSpan) int {
	n := 0
	for _, s := range spans {
		if s.genai {
			n++
		}
	}
	return n
}

func TestLoadHTTP(t *testing.T) {
	rec, url := httpRecorder(t)
	code, fields, rep := loadJSON(t, append([]string{"-endpoint", url, "-rate", "0", "-spans", "3001", "-batch", "100", "-genai-share", "0.1"}, demoTraces(t)...)...)
	require.Equal(t, exitOK, code)
	spans := rec.spans()
	require.Len(t, spans, 3001, "-spans is exact")
	runs := checkRuns(t, spans)
	assert.InDelta(t, 0.1, float64(genaiCount(spans))/float64(len(spans)), 0.01)

	// Every run is whole: under -spans, a run starts only when all of it fits.
	assert.Len(t, runs, rep.Runs)
	sizes := map[int]bool{}
	for _, trace := range runs {
		sizes[len(trace)] = true
		agents := 0
		for _, s := range trace {
			if isAgent(s) {
				agents++
			}
		}
		assert.Equal(t, 1, agents)
	}
	assert.Equal(t, map[int]bool{5: true, 6: true, 7: true, 12: true}, sizes, "the demo runs have 5, 6, 7 or 12 spans")

	for _, f := range []string{"protocol", "target", "spans_sent", "spans_accepted", "spans_rejected", "genai_spans", "runs",
		"held_spans", "dropped_spans", "requests", "errors", "elapsed_seconds", "spans_per_second", "target_rate"} {
		assert.Contains(t, fields, f)
	}
	assert.Equal(t, "http", rep.Protocol)
	assert.Equal(t, url+"/v1/traces", rep.Target)
	assert.Equal(t, int64(3001), rep.SpansSent)
	assert.Equal(t, int64(3001), rep.SpansAccepted)
	assert.Equal(t, int64(genaiCount(spans)), rep.GenAISpans)
	assert.Equal(t, int64(len(rec.reqs)), rep.Requests)
	assert.Equal(t, int64(31), rep.Requests, "3001 spans in requests of 100")
	assert.Zero(t, rep.Errors)
	assert.Positive(t, rep.ElapsedSeconds)
	assert.Positive(t, rep.SpansPerSecond)
	assert.Zero(t, rep.TargetRate)
}

func TestLoadGRPC(t *testing.T) {
	rec, addr := grpcRecorder(t)
	code, _, rep := loadJSON(t, append([]string{"-protocol", "grpc", "-endpoint", addr, "-rate", "0", "-spans", "1000", "-batch", "64", "-workers", "3", "-genai-share", "0.3"}, demoTraces(t)...)...)
	require.Equal(t, exitOK, code)
	spans := rec.spans()
	require.Len(t, spans, 1000)
	checkRuns(t, spans)
	assert.InDelta(t, 0.3, float64(genaiCount(spans))/float64(len(spans)), 0.02)
	assert.Equal(t, "grpc://"+addr, rep.Target)
	assert.Equal(t, int64(1000), rep.SpansAccepted)
}

// TestLoadSplit: each run's spans come in separate requests, interleaved
// with other runs', its agent span after all the others, even with several
// senders.
func TestLoadSplit(t *testing.T) {
	rec, url := httpRecorder(t)
	code, _, rep := loadJSON(t, append([]string{"-endpoint", url, "-rate", "0", "-spans", "2000", "-batch", "50", "-workers", "4", "-genai-share", "0.2", "-split"}, demoTraces(t)...)...)
	require.Equal(t, exitOK, code)
	spans := rec.spans()
	require.Len(t, spans, 2000)
	runs := checkRuns(t, spans)
	require.Len(t, runs, rep.Runs)
	require.Greater(t, len(runs), 30)
	for id, trace := range runs {
		reqs := map[int]bool{}
		agent, lastOther := -1, -1
		for _, s := range trace {
			assert.False(t, reqs[s.req], "run %s: two spans in request %d", id, s.req)
			reqs[s.req] = true
			if isAgent(s) {
				agent = s.req
			} else {
				lastOther = max(lastOther, s.req)
			}
		}
		require.GreaterOrEqual(t, agent, 0, "run %s has no agent span", id)
		assert.Greater(t, agent, lastOther, "run %s: agent span before its other spans", id)
	}
	interleaved := 0
	for _, req := range rec.reqs {
		traces := map[pcommon.TraceID]bool{}
		for _, s := range req {
			if s.genai {
				traces[s.trace] = true
			}
		}
		if len(traces) > 1 {
			interleaved++
		}
	}
	assert.Greater(t, interleaved, len(rec.reqs)/2, "requests carry spans of several runs")
}

// TestLoadHold: the agent spans of N runs come last, after every other
// span, or never with -drop-held; -spans counts the spans sent.
func TestLoadHold(t *testing.T) {
	for _, drop := range []bool{false, true} {
		t.Run(fmt.Sprintf("drop=%v", drop), func(t *testing.T) {
			rec, url := httpRecorder(t)
			args := []string{"-endpoint", url, "-rate", "0", "-spans", "900", "-batch", "40", "-workers", "3", "-genai-share", "0.2", "-hold", "3"}
			if drop {
				args = append(args, "-drop-held")
			}
			code, _, rep := loadJSON(t, append(args, demoTraces(t)...)...)
			require.Equal(t, exitOK, code)
			spans := rec.spans()
			require.Len(t, spans, 900)
			runs := checkRuns(t, spans)
			var open []pcommon.TraceID
			for id, trace := range runs {
				if !slices.ContainsFunc(trace, isAgent) {
					open = append(open, id)
				}
			}
			last := rec.reqs[len(rec.reqs)-1]
			if drop {
				assert.Len(t, open, 3, "three runs never get their agent span")
				assert.Equal(t, int64(3), rep.DroppedSpans)
				assert.Zero(t, rep.HeldSpans)
				return
			}
			assert.Empty(t, open)
			assert.Equal(t, int64(3), rep.HeldSpans)
			require.Len(t, last, 3, "the held agent spans come alone, in the last request")
			for _, s := range last {
				require.True(t, isAgent(s))
				for _, other := range runs[s.trace] {
					if other.span != s.span {
						assert.Less(t, other.req, s.req)
					}
				}
			}
		})
	}
}

// TestLoadRate: -rate holds over a second (the first batch is a burst).
func TestLoadRate(t *testing.T) {
	rec, url := httpRecorder(t)
	code, _, rep := loadJSON(t, "-endpoint", url, "-rate", "2000", "-batch", "100", "-duration", "1s", "-genai-share", "0")
	require.Equal(t, exitOK, code)
	n := len(rec.spans())
	assert.Equal(t, int64(n), rep.SpansSent)
	assert.Zero(t, genaiCount(rec.spans()))
	assert.GreaterOrEqual(t, n, 1400)
	assert.LessOrEqual(t, n, 2200)
	assert.InDelta(t, 1.0, rep.ElapsedSeconds, 0.3)
	assert.InDelta(t, 2000, rep.SpansPerSecond, 600)
	assert.Equal(t, float64(2000), rep.TargetRate)
}

func TestLoadErrors(t *testing.T) {
	rec := &otlpRecorder{status: http.StatusServiceUnavailable}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	code, out, errOut := toolscore(t, "load", "-endpoint", srv.URL, "-rate", "0", "-spans", "250", "-genai-share", "0")
	assert.Equal(t, exitFailed, code, errOut)
	assert.Contains(t, out, "toolscore load: 250 spans to "+srv.URL+"/v1/traces (http)")
	assert.Contains(t, out, "accepted   0\n")
	assert.Contains(t, out, "requests   3\n")
	assert.Contains(t, out, "errors     3\n")
	assert.Contains(t, out, "503 Service Unavailable")

	rejecting := httptest.NewServer(&otlpSink{reject: 2})
	defer rejecting.Close()
	code, _, rep := loadJSON(t, "-endpoint", rejecting.URL, "-rate", "0", "-spans", "250", "-genai-share", "0")
	assert.Equal(t, exitFailed, code)
	assert.Equal(t, int64(6), rep.SpansRejected)
	assert.Equal(t, int64(244), rep.SpansAccepted)
	assert.Zero(t, rep.Errors)

	for _, args := range [][]string{
		{"load"}, // GenAI runs need trace files
		{"load", "-genai-share", "1.5", demoTrace("adk-go-mock")},
		{"load", "-format", "yaml", "-genai-share", "0"},
		{"load", "-duration", "0", "-genai-share", "0"},
		{"load", "-batch", "0", "-genai-share", "0"},
		{"load", "-protocol", "udp", "-genai-share", "0"},
	} {
		code, _, errOut := toolscore(t, args...)
		assert.Equal(t, exitFailure, code, "%v", args)
		assert.NotEmpty(t, errOut, "%v", args)
	}
}

// TestTrafficLimits drives the traffic alone over many shapes: -spans is
// exact, every run started is whole, and the stream ends.
func TestTrafficLimits(t *testing.T) {
	docs, err := otlpjson.ReadFiles(demoTraces(t)...)
	require.NoError(t, err)
	groups := []loadgen.SpanGroup{loadgen.OrdinaryGroup()}
	templates, err := loadgen.ReadTemplates(docs, &groups)
	require.NoError(t, err)
	require.Len(t, templates, 9)
	for _, share := range []float64{0, 0.05, 0.5, 1} {
		for _, split := range []bool{false, true} {
			for _, hold := range []int{0, 2} {
				for _, drop := range []bool{false, true} {
					for _, limit := range []int64{1, 7, 100, 1001} {
						for _, batch := range []int{1, 10, 64} {
							name := "share=" + strconv.FormatFloat(share, 'g', -1, 64) + fmt.Sprintf("/split=%v/hold=%d/drop=%v/spans=%d/batch=%d", split, hold, drop, limit, batch)
							cfg := loadgen.Config{Batch: batch, Share: share, Split: split, Hold: hold, DropHeld: drop, Limit: limit}
							tr := loadgen.NewTraffic(cfg, templates, groups, 1)
							total, genai := 0, 0
							var seq uint64
							for range 10 * limit {
								b, state := tr.Next(seq+1, seq)
								if state == loadgen.NextDone {
									break
								}
								require.Equal(t, loadgen.NextRequest, state, name)
								require.LessOrEqual(t, b.Spans, batch, name)
								seq++
								total += b.Spans
								genai += b.GenAI
							}
							for _, b := range tr.HeldRequests() {
								total += b.Spans
								genai += b.GenAI
							}
							require.Equal(t, int(limit), total, name)
							require.Empty(t, tr.Active, name)
							if share == 0 {
								require.Zero(t, genai, name)
							}
						}
					}
				}
			}
		}
	}
}
