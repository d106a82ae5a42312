package jsonv

import (
	"strings"
	"testing"
)

func TestSlabParse(t *testing.T) {
	big := "[" + strings.Repeat("1,", 300) + "1]"
	docs := []string{
		`{"city":"Paris","unit":"celsius"}`, `{"symbol":"ZZZZ"}`, `[]`, `"x"`, `1`,
		`{"a":[1,{"b":[2,3]}],"c":"\u00e9"}`, big, `{"a":` + strings.Repeat(`[`, 70) + strings.Repeat(`]`, 70) + `}`,
		`{"a":`, `[1,]`,
	}
	var sl Slab
	for round := 0; round < 3; round++ {
		var got []Value
		for range 20 {
			for _, d := range docs {
				v, err := sl.Parse(d)
				_, werr := Parse(d)
				if (err == nil) != (werr == nil) {
					t.Fatalf("Slab.Parse(%q) error %v, Parse error %v", d, err, werr)
				}
				got = append(got, v)
			}
		}
		// Every value keeps its elements while the later ones are parsed.
		for i, v := range got {
			d := docs[i%len(docs)]
			if want, err := Parse(d); err == nil && v.JSON() != want.JSON() {
				t.Errorf("round %d: Slab.Parse(%q) = %s, want %s", round, d, v.JSON(), want.JSON())
			}
		}
		sl.Reset()
	}
}

func TestSlabAllocs(t *testing.T) {
	var sl Slab
	sl.Parse(strings.Repeat(`{"a":1,"b":[2,3]}`, 1)) // the first buffer
	sl.Reset()
	n := testing.AllocsPerRun(50, func() {
		for range 5 {
			sl.Parse(`{"a":1,"b":[2,3]}`)
		}
		sl.Reset()
	})
	if n != 0 {
		t.Errorf("parsing into a reset slab allocates %v times, want 0", n)
	}
}

// BenchmarkSlabParse parses the arguments of a run of five calls.
func BenchmarkSlabParse(b *testing.B) {
	var sl Slab
	b.ReportAllocs()
	for b.Loop() {
		for range 5 {
			sl.Parse(`{"city":"Paris","unit":"celsius"}`)
		}
		sl.Reset()
	}
}
