package toolcall

import "testing"

// BenchmarkAlignInto aligns the run the end-to-end benchmark's expectation
// rule sees most: two calls of one model turn, to the two expected tools,
// started in the other order, so that they move.
func BenchmarkAlignInto(b *testing.B) {
	a, err := NewTurnAligner(Expectation{Order: OrderInOrder, Calls: []ExpectedCall{
		want("get_weather", `{"city":"Paris","unit":"celsius"}`),
		want("lookup_stock", `{"symbol":"ZZZZ"}`),
	}})
	if err != nil {
		b.Fatal(err)
	}
	calls := NumberCalls([]Call{
		inTurn(1, call("lookup_stock", `{"symbol":"ZZZZ"}`)),
		inTurn(1, call("get_weather", `{"city":"Paris","unit":"celsius"}`)),
	})
	var buf []Call
	b.ReportAllocs()
	for b.Loop() {
		if got := a.AlignInto(&buf, calls); got[0].Name != "get_weather" {
			b.Fatal("not aligned")
		}
	}
}
