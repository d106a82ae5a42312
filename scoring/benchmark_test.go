package scoring

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/peers"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall/toolcalltest"
)

// typicalTrajectory returns 10 expected and 10 actual calls with nested
// arguments shaped like a production agent run: seven tools, three of them
// called twice, arguments written in schema order, two calls with a wrong
// nested value, and two neighbouring calls swapped.
func typicalTrajectory() ([]toolcall.ExpectedCall, []toolcall.Call) {
	tools := []string{"search_flights", "get_weather", "lookup_policy", "book_hotel", "search_flights", "get_weather", "convert_currency", "lookup_policy", "send_email", "get_itinerary"}
	var exp []toolcall.ExpectedCall
	var act []toolcall.Call
	for i, tool := range tools {
		args := fmt.Sprintf(`{"query":"trip %d","filters":{"city":"Paris","dates":{"from":"2026-05-%02d","to":"2026-05-%02d"},"tags":["a","b"]},"limit":%d}`, i, i+1, i+3, 10+i)
		exp = append(exp, toolcall.ExpectedCall{Name: tool, Args: toolcalltest.MustParse(args)})
	}
	order := []int{0, 1, 3, 2, 4, 5, 6, 7, 8, 9}
	for _, i := range order {
		city := "Paris"
		if i == 2 || i == 7 {
			city = "Lyon"
		}
		args := fmt.Sprintf(`{"query":"trip %d","filters":{"city":%q,"dates":{"from":"2026-05-%02d","to":"2026-05-%02d"},"tags":["a","b"]},"limit":%d}`, i, city, i+1, i+3, 10+i)
		act = append(act, toolcall.Call{Name: tools[i], Args: toolcalltest.MustParse(args)})
	}
	return exp, toolcall.NumberCalls(act)
}

// stressTrajectory returns 10 expected and 10 actual calls with nested
// arguments built to be expensive: four tools each called two or three
// times (so every same-tool pair must be scored), every object's keys in a
// different order from the expectation, four calls with a wrong nested
// value, and the actual calls in reverse order.
func stressTrajectory() ([]toolcall.ExpectedCall, []toolcall.Call) {
	tools := []string{"search_flights", "get_weather", "lookup_policy", "book_hotel"}
	var exp []toolcall.ExpectedCall
	var act []toolcall.Call
	for i := 0; i < 10; i++ {
		tool := tools[i%len(tools)]
		args := fmt.Sprintf(`{"query":"trip %d","filters":{"city":"Paris","dates":{"from":"2026-05-%02d","to":"2026-05-%02d"},"tags":["a","b"]},"limit":%d}`, i, i+1, i+3, 10+i)
		exp = append(exp, toolcall.ExpectedCall{Name: tool, Args: toolcalltest.MustParse(args)})
	}
	for i := 9; i >= 0; i-- {
		tool := tools[i%len(tools)]
		city := "Paris"
		if i%3 == 0 {
			city = "Lyon"
		}
		args := fmt.Sprintf(`{"limit":%d,"query":"trip %d","filters":{"dates":{"to":"2026-05-%02d","from":"2026-05-%02d"},"city":%q,"tags":["a","b"]}}`, 10+i, i, i+3, i+1, city)
		act = append(act, toolcall.Call{Name: tool, Args: toolcalltest.MustParse(args)})
	}
	return exp, toolcall.NumberCalls(act)
}

// reversedTrajectory returns 10 expected calls to 10 distinct tools, with
// nested MongoDB-style arguments (a "$gte" key included), and the 10 actual
// calls matching them exactly but in reverse order: the in-order greedy
// pairing fails at once, so every pair is evaluated and the ordered
// assignment decides.
func reversedTrajectory() ([]toolcall.ExpectedCall, []toolcall.Call) {
	var exp []toolcall.ExpectedCall
	var act []toolcall.Call
	args := func(i int) string {
		return fmt.Sprintf(`{"db":"test","collection":"users%d","filter":{"age":{"$gte":%d},"status":"active","tags":["a","b"]},"limit":10}`, i, 18+i)
	}
	for i := 0; i < 10; i++ {
		exp = append(exp, toolcall.ExpectedCall{Name: fmt.Sprintf("tool_%d", i), Args: toolcalltest.MustParse(args(i))})
	}
	for i := 9; i >= 0; i-- {
		act = append(act, toolcall.Call{Name: fmt.Sprintf("tool_%d", i), Args: toolcalltest.MustParse(args(i))})
	}
	return exp, toolcall.NumberCalls(act)
}

// benchShapes are the 10 × 10 trajectories the scorer benchmarks run on.
var benchShapes = []struct {
	name  string
	build func() ([]toolcall.ExpectedCall, []toolcall.Call)
}{{"typical", typicalTrajectory}, {"stress", stressTrajectory}, {"reversed", reversedTrajectory}}

// BenchmarkNative10x10 measures the native scorer on 10 expected × 10
// actual calls with nested arguments (target: ≤ 5 µs/op, ≤ 20 allocs/op on
// the typical shape).
func BenchmarkNative10x10(b *testing.B) {
	shapes := benchShapes
	for _, shape := range shapes {
		for _, order := range []toolcall.OrderMode{toolcall.OrderAny, toolcall.OrderInOrder} {
			exp, calls := shape.build()
			b.Run(shape.name+"/"+string(order), func(b *testing.B) {
				s, err := toolcall.NewNative(toolcall.Expectation{Calls: exp, Order: order}, 1)
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					s.Score(ctx, calls)
				}
			})
		}
	}
}

// BenchmarkNativeDeferred measures the native scorer on the processor's
// benchmark run: 5 in-order calls whose arguments are deferred documents,
// checked on their text. "spaced" writes them as Python's json.dumps does
// (", " and ": "), "extra" adds a member the expectation does not name.
func BenchmarkNativeDeferred(b *testing.B) {
	shapes := []struct{ name, format string }{
		{"compact", `{"city":"Paris","days":%d,"filters":{"unit":"celsius","tags":["a","b"]}}`},
		{"spaced", `{"city": "Paris", "days": %d, "filters": {"unit": "celsius", "tags": ["a", "b"]}}`},
		{"extra", `{"city":"Paris","days":%d,"lang":"fr","filters":{"unit":"celsius","tags":["a","b"]}}`},
	}
	for _, shape := range shapes {
		b.Run(shape.name, func(b *testing.B) {
			var exp []toolcall.ExpectedCall
			calls := make([]toolcall.Call, 5)
			docs := make([]jsonv.Document, 5)
			for i := range calls {
				tool := fmt.Sprintf("tool_%d", i)
				exp = append(exp, toolcall.ExpectedCall{Name: tool, Args: toolcalltest.MustParse(fmt.Sprintf(shapes[0].format, i))})
				docs[i] = jsonv.DeferredDocument(fmt.Sprintf(shape.format, i))
				calls[i] = toolcall.Call{Name: tool, ArgsDoc: &docs[i], Position: i}
			}
			s, err := toolcall.NewNative(toolcall.Expectation{Calls: exp, Order: toolcall.OrderInOrder}, 1)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if r := s.Score(ctx, calls); r.Err != nil || r.Score != 1 {
				b.Fatalf("score %v, err %v", r.Score, r.Err)
			}
			b.ReportAllocs()
			for b.Loop() {
				s.Score(ctx, calls)
			}
		})
	}
}

// benchProfiles are the peer profiles the benchmarks build, with options.
var benchProfiles = []struct {
	name    string
	profile string
	options map[string]any
}{
	{"mongodb", peers.MongoDBName, nil},
	{"mastra_tool_call", peers.MastraToolCallName, nil},
	{"mastra_trajectory", peers.MastraTrajectoryName, nil},
	{"mastra_trajectory_full", peers.MastraTrajectoryFullName, map[string]any{"defaults": map[string]any{"max_steps": 12, "no_redundant_calls": true}}},
	{"deepeval", peers.DeepEvalName, map[string]any{"evaluation_params": []any{"input_parameters"}}},
	{"deepeval/ordering", peers.DeepEvalName, map[string]any{"evaluation_params": []any{"input_parameters"}, "should_consider_ordering": true}},
	{"agentevals", peers.AgentEvalsName, nil},
	{"agentevals/unordered", peers.AgentEvalsName, map[string]any{"trajectory_match_mode": "unordered"}},
	{"adk", peers.ADKName, map[string]any{"match_type": "ANY_ORDER"}},
	{"adk/tool_parameter_match", peers.ADKName, map[string]any{"metric": "tool_parameter_match"}},
	{"ragas", peers.RagasName, nil},
	{"ragas/unordered", peers.RagasName, map[string]any{"strict_order": false}},
}

// BenchmarkProfiles measures every peer profile on the typical 10 × 10
// trajectory with nested arguments, and on the reversed one (named
// "reversed/<profile>"); then on the reversed one built as the processor
// builds them, with OmitDetails ("omit_details/reversed/<profile>").
func BenchmarkProfiles(b *testing.B) {
	for _, shape := range []string{"typical", "reversed", "omit_details/reversed"} {
		exp, calls := typicalTrajectory()
		prefix := ""
		if shape != "typical" {
			exp, calls = reversedTrajectory()
			prefix = shape + "/"
		}
		for _, p := range benchProfiles {
			settings := toolcall.Settings{Expectation: toolcall.Expectation{Calls: exp}, Threshold: 0.5, Options: p.options, OmitDetails: shape == "omit_details/reversed"}
			benchmarkProfile(b, prefix+p.name, p.profile, settings, calls)
		}
	}
}

func benchmarkProfile(b *testing.B, name, profile string, settings toolcall.Settings, calls []toolcall.Call) {
	b.Run(name, func(b *testing.B) {
		s, err := toolcall.New(profile, settings)
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		if r := s.Score(ctx, calls); r.Err != nil {
			b.Fatal(r.Err)
		}
		b.ReportAllocs()
		for b.Loop() {
			s.Score(ctx, calls)
		}
	})
}

// BenchmarkCompile measures building scorers from the reversed 10 × 10
// expectation: the native scorer in order and the two peer profiles whose
// scoring the reversed benchmarks measure.
func BenchmarkCompile(b *testing.B) {
	exp, _ := reversedTrajectory()
	builds := []struct {
		name, scorer string
		order        toolcall.OrderMode
	}{
		{"native/in_order", toolcall.NativeName, toolcall.OrderInOrder},
		{"mastra_trajectory", peers.MastraTrajectoryName, ""},
		{"mongodb", peers.MongoDBName, ""},
	}
	for _, c := range builds {
		b.Run(c.name, func(b *testing.B) {
			settings := toolcall.Settings{Expectation: toolcall.Expectation{Calls: exp, Order: c.order}, Threshold: 0.5}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := toolcall.New(c.scorer, settings); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParse measures decoding one tool call's arguments, as a tree and
// as a document (whose store is reused, as a run's calls share one), beside
// encoding/json decoding the same text into an interface{} as a baseline.
func BenchmarkParse(b *testing.B) {
	docs := []struct{ name, text string }{
		{"small", `{"city":"Paris","days":3,"filters":{"unit":"celsius","tags":["a","b"]}}`},
		{"prose", `{"to":"ops@example.com","subject":"Weekly report","body":"Hi team,\nthe numbers are in: revenue is up 4.2%, churn is flat, and the \"north\" region, finally, beat its target. Details, charts and caveats follow in the attached sheet; ping me with questions.","cc":["a@example.com","b@example.com"],"priority":2,"draft":false}`},
	}
	for _, d := range docs {
		b.Run(d.name+"/scoring", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(d.text)))
			for b.Loop() {
				if _, err := jsonv.Parse(d.text); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(d.name+"/document", func(b *testing.B) {
			var dp jsonv.DocumentParser
			b.ReportAllocs()
			b.SetBytes(int64(len(d.text)))
			for b.Loop() {
				dp.Grow(len(d.text)/4 + 1)
				if _, err := dp.Parse(d.text); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(d.name+"/encoding_json", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(d.text)))
			for b.Loop() {
				var v any
				if err := json.Unmarshal([]byte(d.text), &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
