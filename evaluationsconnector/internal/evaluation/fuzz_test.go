package evaluation

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// fuzzKeys are the keys a fuzzed span's attributes and events take: every
// key the reader looks at, near misses, and others.
var fuzzKeys = []string{
	AttrName, AttrScore, AttrLabel, AttrExplanation, AttrErrorType, AttrRule, AttrScorer,
	"tool_call_accuracy.r.outcome", "tool_call_accuracy.r.score", "tool_call_accuracy.r.scorer",
	"tool_call_accuracy.r.explanation", "tool_call_accuracy.r.call_statuses",
	"tool_call_accuracy.s.outcome", "tool_call_accuracy.s.call_statuses",
	"tool_call_accuracy.rules", "tool_call_accuracy.score", "tool_call_accuracy..outcome",
	"tool_call_accuracy.a.b.outcome", "gen_ai.agent.name", "",
}

// fuzzSpan builds a span from data: a program of bytes, each op taking the
// bytes after it, that adds events (of the evaluation name or another) and
// attributes of every type to them or to the span.
func fuzzSpan(data []byte) ptrace.Span {
	span := ptrace.NewSpan()
	span.SetEndTimestamp(1_000)
	target := span.Attributes()
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	text := func() string {
		n := int(next() % 16)
		if n > len(data) {
			n = len(data)
		}
		s := string(data[:n])
		data = data[n:]
		return s
	}
	var put func(m pcommon.Map, key string, depth int)
	put = func(m pcommon.Map, key string, depth int) {
		switch next() % 8 {
		case 0:
			m.PutStr(key, text())
		case 1:
			m.PutInt(key, int64(int8(next())))
		case 2:
			m.PutDouble(key, float64(int8(next()))/8)
		case 3:
			m.PutDouble(key, []float64{math.NaN(), math.Inf(1), math.Inf(-1), -0.0}[next()%4])
		case 4:
			m.PutBool(key, next()%2 == 0)
		case 5:
			s := m.PutEmptySlice(key)
			for range next() % 4 {
				if next()%2 == 0 {
					s.AppendEmpty().SetStr(text())
				} else {
					s.AppendEmpty().SetInt(1)
				}
			}
		case 6:
			mm := m.PutEmptyMap(key)
			if depth < 2 {
				for range next() % 4 {
					put(mm, text(), depth+1)
				}
			}
		case 7:
			m.PutEmptyBytes(key).FromRaw([]byte(text()))
		}
	}
	for len(data) > 0 {
		switch op := next(); op % 4 {
		case 0, 1:
			key := fuzzKeys[int(next())%len(fuzzKeys)]
			if op%4 == 1 {
				key = text()
			}
			put(target, key, 0)
		case 2:
			e := span.Events().AppendEmpty()
			if next()%4 == 0 {
				e.SetName("exception")
			} else {
				e.SetName(EventName)
			}
			e.SetTimestamp(pcommon.Timestamp(next()))
			target = e.Attributes()
		case 3:
			target = span.Attributes()
		}
	}
	return span
}

// FuzzRead reads spans of every shape: reading never panics, and what it
// returns keeps the reader's promises.
func FuzzRead(f *testing.F) {
	f.Add([]byte{})
	// An evaluation event with a name and a double score.
	f.Add([]byte{2, 1, 5, 0, 0, 4, 'n', 'a', 'm', 'e', 0, 1, 2, 8})
	// Processor attributes: outcome, score, call statuses.
	f.Add([]byte{0, 7, 0, 4, 'p', 'a', 's', 's', 0, 8, 2, 4, 0, 11, 6, 1, 7, 'm', 'a', 't', 'c', 'h', 'e', 'd', 5, 2, 0, 3, 'g', 'e', 't', 1})
	f.Add([]byte{2, 2, 0, 0, 0, 0, 2, 0, 2, 12, 0, 1, 1, 3, 1, 3, 1, 2, 2, 0, 3, 0, 8, 0, 4, 'f', 'a', 'i', 'l'})
	f.Fuzz(func(t *testing.T, data []byte) {
		span := fuzzSpan(data)
		var withAttrs, eventsOnly Span
		Reader{ProcessorAttributes: true}.Read(span, &withAttrs)
		if (Reader{}).Has(span) {
			Reader{}.Read(span, &eventsOnly)
		}
		for _, s := range []*Span{&withAttrs, &eventsOnly} {
			require.Equal(t, int64(len(s.Evaluations)), s.Read[SourceSpanEvent]+s.Read[SourceSpanAttributes])
			rules := map[string]bool{}
			for _, ev := range s.Evaluations {
				require.NotEmpty(t, ev.Name)
				if ev.HasScore {
					require.False(t, math.IsNaN(ev.Score) || math.IsInf(ev.Score, 0), "score %v", ev.Score)
					require.False(t, ev.InvalidScore)
				}
				require.False(t, ev.IntScore && !ev.HasScore)
				require.NotZero(t, ev.Timestamp)
				if ev.Rule != "" {
					rules[ev.Rule] = true
				}
			}
			for _, tc := range s.ToolCalls {
				require.NotEmpty(t, tc.Status)
				require.True(t, rules[tc.Rule], "calls of rule %q, which no evaluation read has", tc.Rule)
			}
		}
		require.Equal(t, eventsOnly.Read[SourceSpanEvent], withAttrs.Read[SourceSpanEvent], "processor attributes add to the events")
		require.Zero(t, eventsOnly.Read[SourceSpanAttributes])
		require.LessOrEqual(t, len(eventsOnly.ToolCalls), len(withAttrs.ToolCalls))
	})
}
