package scoring

import (
	"context"
	"math"
	"reflect"
	"regexp"
	"testing"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// fuzzTools is the small tool vocabulary fuzzed calls draw names from, so
// that calls and expectations collide often.
var fuzzTools = []string{"search", "get_weather", "lookup_stock", "find"}

// fuzzScorer is a scorer and the same scorer built with OmitDetails.
type fuzzScorer struct {
	toolcall.Scorer
	lean toolcall.Scorer
}

// fuzzExpectations are built once: every scorer over a few expectation
// shapes (plain, ordered, exact, with matchers, optional and forbidden).
func fuzzScorers(t testing.TB) []fuzzScorer {
	exps := []toolcall.Expectation{
		{Calls: []toolcall.ExpectedCall{{Name: "search", Args: jsonv.MustValueOf(map[string]any{"q": "go", "n": 3})}, {Name: "get_weather"}}},
		{Order: toolcall.OrderInOrder, ExtraCalls: toolcall.ExtraPenalize, Calls: []toolcall.ExpectedCall{{Name: "find"}, {Name: "search"}, {Name: "find", Args: jsonv.MustValueOf(map[string]any{"filter": map[string]any{"a": 1}})}}},
		{Order: toolcall.OrderExact, Calls: []toolcall.ExpectedCall{{Name: "lookup_stock", Args: jsonv.MustValueOf(map[string]any{"symbol": "ZZZZ"})}}},
		{Calls: []toolcall.ExpectedCall{{Name: "search", Matchers: []toolcall.PathMatcher{{Path: "q", Matcher: toolcall.Regex(mustRegexp("^g"))}, {Path: "tags[*]", Matcher: toolcall.OfType("string")}}}}},
		{CoerceStrings: true, Calls: []toolcall.ExpectedCall{{Name: "find", Args: jsonv.MustValueOf(map[string]any{"tags": []any{"a", 1.5, true, nil}, "k": "v"})}}},
		{Calls: []toolcall.ExpectedCall{{Name: "lookup_stock", Args: jsonv.MustValueOf(map[string]any{"id": int64(9007199254740993), "n": -0.0})}}},
	}
	var out []fuzzScorer
	for _, name := range toolcall.ScorerNames() {
		for _, e := range exps {
			s, err := toolcall.New(name, toolcall.Settings{Expectation: e, Threshold: 0.5})
			if err != nil {
				continue // a profile that cannot express this expectation
			}
			lean, err := toolcall.New(name, toolcall.Settings{Expectation: e, Threshold: 0.5, OmitDetails: true})
			if err != nil {
				t.Fatalf("%s: built without OmitDetails, not with it: %v", name, err)
			}
			out = append(out, fuzzScorer{s, lean})
		}
	}
	if len(out) < len(toolcall.ScorerNames()) {
		t.Fatalf("only %d scorers built for %d names", len(out), len(toolcall.ScorerNames()))
	}
	return out
}

// FuzzScore decodes random bytes into a list of calls (names from a small
// vocabulary, JSON arguments cut from the input) and runs every scorer: no
// panic, every score in [0, 1], and the same result when the arguments are
// given as documents, indexed or deferred, and when built with OmitDetails
// (but for Details).
func FuzzScore(f *testing.F) {
	f.Add([]byte(`{"q":"go","n":3}|{"q":"gone"}|{"symbol":"ZZZZ"}`), uint8(3), uint8(7))
	f.Add([]byte(`{"filter":{"a":1.0,"b":[1,2]}}|[1,"x",null]|"plain"|{"tags":["a",1]}`), uint8(9), uint8(200))
	f.Add([]byte(`{}|{"q":{"$gte":18}}|{`), uint8(1), uint8(0))
	// Written as Python's json.dumps writes it, and members that only start
	// as the expected ones do.
	f.Add([]byte(`{"n": 3, "q": "go"}|{"filter": {"a": 1}}|{"n":30,"q":"go"}|{"symbol": "ZZZZ", "x": [1, 2]}`), uint8(0), uint8(0))
	f.Add([]byte(`{"id":9007199254740992,"n":0}|{"id": 9007199254740993, "n": -0}|{"id":9007199254740993.0,"n":0e5}`), uint8(2), uint8(0))
	f.Add([]byte(`{"k":"v","tags":["a",1.5,true,null]}|{"k": "v", "tags": ["a", 1.5, true, null]}|{"tags":["a",1.5,true,null,1]}`), uint8(3), uint8(0))
	scorers := fuzzScorers(f)
	f.Fuzz(func(t *testing.T, data []byte, nameSeed, flags uint8) {
		var calls []toolcall.Call
		var docs []jsonv.Document
		var dp jsonv.DocumentParser
		start := 0
		for i := 0; i <= len(data) && len(calls) < 12; i++ {
			if i < len(data) && data[i] != '|' {
				continue
			}
			k := len(calls)
			c := toolcall.Call{Name: fuzzTools[(int(nameSeed)+k*7)%len(fuzzTools)], Position: k}
			text := string(data[start:i])
			if v, err := jsonv.Parse(text); err == nil {
				c.Args = v
				doc, _ := dp.Parse(text)
				docs = append(docs, doc)
			} else {
				c.ArgsUnknown = true
				docs = append(docs, jsonv.Document{})
			}
			if flags&(1<<(k%8)) != 0 {
				c.Status = toolcall.StatusError
			}
			c.Turn = 1 + k/2
			calls = append(calls, c)
			start = i + 1
		}
		withDocs := make([]toolcall.Call, len(calls))
		deferred := make([]toolcall.Call, len(calls))
		deferredDocs := make([]jsonv.Document, len(calls))
		for k, c := range calls {
			d := c
			if !c.ArgsUnknown {
				c.Args, c.ArgsDoc = jsonv.Value{}, &docs[k]
				deferredDocs[k] = jsonv.DeferredDocument(docs[k].Text())
				d.Args, d.ArgsDoc = jsonv.Value{}, &deferredDocs[k]
			}
			withDocs[k], deferred[k] = c, d
		}
		for _, s := range scorers {
			res := s.Score(context.Background(), calls)
			// Every scorer reads arguments given as documents the same.
			if got := s.Score(context.Background(), withDocs); !reflect.DeepEqual(res, got) {
				t.Fatalf("%s: documents scored %+v, trees %+v", s.Name(), got, res)
			}
			if got := s.Score(context.Background(), deferred); !reflect.DeepEqual(res, got) {
				t.Fatalf("%s: deferred documents scored %+v, trees %+v", s.Name(), got, res)
			}
			lean := s.lean.Score(context.Background(), calls)
			if lean.Details != nil {
				t.Fatalf("%s: details built with OmitDetails: %v", s.Name(), lean.Details)
			}
			full := res
			full.Details = nil
			if !reflect.DeepEqual(full, lean) {
				t.Fatalf("%s: with OmitDetails %+v, without %+v", s.Name(), lean, full)
			}
			if math.IsNaN(res.Score) || res.Score < 0 || res.Score > 1 {
				t.Fatalf("%s: score %v outside [0, 1] for %d calls", s.Name(), res.Score, len(calls))
			}
			if res.Outcome == toolcall.OutcomeError && res.Err == nil {
				t.Fatalf("%s: error outcome without an error", s.Name())
			}
		}
	})
}

func mustRegexp(s string) *regexp.Regexp { return regexp.MustCompile(s) }
