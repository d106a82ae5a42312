package jsonv

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in, want string
		err      error
	}{
		{`{"b":1,"a":[true,null,"x"]}`, `{"b":1,"a":[true,null,"x"]}`, nil},
		{` {"a" : 1.50e1 } `, `{"a":15}`, nil},
		{`{"a":1,"a":2}`, `{"a":2}`, nil},
		{`"\u00e9\ud83d\ude00\n"`, `"é😀\n"`, nil},
		{`"\ud800"`, "\"\uFFFD\"", nil}, // a lone surrogate reads as U+FFFD, as in encoding/json
		{`["\ud800","x"]`, "[\"\uFFFD\",\"x\"]", nil},
		{`"\ud800`, ``, ErrTruncated},
		{`"\ud800\`, ``, ErrTruncated},
		{`{"query":"a very long que`, ``, ErrTruncated},
		{`[1,2`, ``, ErrTruncated},
		{`tru`, ``, ErrTruncated},
		{`{"a":1,}`, ``, &SyntaxError{}},
		{`{'a': 1}`, ``, &SyntaxError{}},
		{`01`, ``, &SyntaxError{}},
		{`{"a":1} x`, ``, &SyntaxError{}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			v, err := Parse(tt.in)
			switch want := tt.err.(type) {
			case nil:
				require.NoError(t, err)
				assert.Equal(t, tt.want, v.JSON())
			case *SyntaxError:
				var se *SyntaxError
				assert.ErrorAs(t, err, &se)
			default:
				assert.ErrorIs(t, err, want)
			}
		})
	}
}

// TestParseRepeatedKeysInLargeObjects covers objects past dupScanLimit, whose
// keys are indexed in a map: a repeated key keeps its first position and its
// last value either way, and nested objects keep their own keys.
// TestParseHostileInputReservesLittle: text that nests deep and ends, or
// packs a container with bare commas, fails without reserving memory for
// slots the parse never fills.
func TestParseHostileInputReservesLittle(t *testing.T) {
	for name, text := range map[string]string{
		"deep":   strings.Repeat("[", 1<<16),
		"commas": "{" + strings.Repeat(",", 1<<16) + "}",
	} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Parse(text)
			runtime.ReadMemStats(&after)
			require.Error(t, err)
			// The checking pass fails, so no slots are reserved.
			p := parser{s: text, counting: true}
			_, cerr := p.check(0, 0)
			require.Equal(t, err, cerr)
			// Reserving a slot per bracket or comma would take megabytes.
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(256<<10))
		})
	}
}

func TestParseRepeatedKeysInLargeObjects(t *testing.T) {
	var in, want strings.Builder
	in.WriteString("{")
	want.WriteString("{")
	for i := 0; i < 3*dupScanLimit; i++ {
		fmt.Fprintf(&in, `"k%d":%d,`, i, i)
		if i > 0 {
			want.WriteString(",")
		}
		v := strconv.Itoa(i)
		switch i {
		case 1: // repeated at the end, a key the map indexed when built
			v = `"early"`
		case 2 * dupScanLimit: // a key the map indexed as it came
			v = `{"k1":"inner","k1":"inner2"}`
		}
		fmt.Fprintf(&want, `"k%d":%s`, i, v)
	}
	in.WriteString(`"k1":"early",`)
	fmt.Fprintf(&in, `"k%d":{"k1":"inner","k1":"inner2"}}`, 2*dupScanLimit)
	want.WriteString("}")
	v, err := Parse(in.String())
	require.NoError(t, err)
	assert.Equal(t, 3*dupScanLimit, v.Len())
	wantV, err := Parse(want.String())
	require.NoError(t, err)
	assert.Equal(t, strings.ReplaceAll(want.String(), `{"k1":"inner","k1":"inner2"}`, `{"k1":"inner2"}`), v.JSON())
	assert.True(t, Equal(wantV, v))
}

func TestNumbersKeepTheirLiteral(t *testing.T) {
	a, _ := Parse(`12345678901234567890`)
	b, _ := Parse(`12345678901234567891`)
	assert.False(t, Equal(a, b), "integers beyond float64 precision compare by digits")
	c, _ := Parse(`1.0`)
	d, _ := Parse(`1`)
	assert.True(t, Equal(c, d))
	assert.False(t, c.IsInteger())
	assert.True(t, d.IsInteger())
}

// FuzzParse checks the parser against encoding/json: it accepts exactly the
// documents encoding/json accepts (apart from invalid UTF-8, which it keeps
// as bytes) and decodes them to the same value.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}],"c":"\u00e9"}`, `[1e400]`, `"x`, `{"a":1,"a":2}`, `-0.0`, `[[[[]]]]`} {
		f.Add(s)
	}
	f.Add(`  "a\"b\u00e9\n" `)
	f.Add(`"x" "y"`)
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if Valid(s) != (err == nil) {
			t.Fatalf("Valid(%q) = %v, Parse error %v", s, Valid(s), err)
		}
		if str, ok := UnquoteString(s); ok != (err == nil && v.Kind() == KindString) || ok && str != v.StringValue() {
			t.Fatalf("UnquoteString(%q) = %q, %v; Parse %v, %v", s, str, ok, v, err)
		}
		var std any
		stdErr := json.Unmarshal([]byte(s), &std)
		if stdErr != nil {
			var rangeErr *json.UnmarshalTypeError
			if err == nil && !errors.As(stdErr, &rangeErr) && json.Valid([]byte(s)) {
				t.Fatalf("accepted %q that encoding/json rejects: %v", s, stdErr)
			}
			if err == nil && !json.Valid([]byte(s)) && utf8.ValidString(s) {
				t.Fatalf("accepted invalid JSON %q", s)
			}
			return
		}
		if err != nil {
			if errors.Is(err, ErrTruncated) {
				t.Fatalf("valid JSON %q reported truncated", s)
			}
			t.Fatalf("rejected valid JSON %q: %v", s, err)
		}
		if !utf8.ValidString(s) {
			return // encoding/json replaces invalid bytes with U+FFFD; Parse keeps them
		}
		want, verr := ValueOf(std)
		if verr != nil {
			return // ±Inf from an out-of-range number
		}
		if v.Unread() {
			return // nested too deep: read in part
		}
		if !Equal(v, want) {
			t.Fatalf("%q decoded to %s, encoding/json gives %s", s, v.JSON(), want.JSON())
		}
	})
}

// TestObjectRepeatedKeys checks that Object, which builds objects from
// untrusted Python literals too, treats repeated keys like Parse at every
// size: first position, last value.
func TestObjectRepeatedKeys(t *testing.T) {
	for _, n := range []int{3, dupScanLimit + 1, 4 * dupScanLimit} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			var ms []Member
			var text strings.Builder
			text.WriteString("{")
			for i := 0; i < n; i++ {
				ms = append(ms, Member{Key: "k" + strconv.Itoa(i), Value: Int(int64(i))})
				fmt.Fprintf(&text, `"k%d":%d,`, i, i)
			}
			ms = append(ms, Member{Key: "k1", Value: String("last")})
			text.WriteString(`"k1":"last"}`)
			want, err := Parse(text.String())
			require.NoError(t, err)
			got := Object(ms...)
			assert.Equal(t, n, got.Len())
			assert.Equal(t, want.JSON(), got.JSON())
		})
	}
}

// TestValid checks that Valid agrees with Parse and allocates nothing.
func TestValid(t *testing.T) {
	deep := strings.Repeat("[", 300) + strings.Repeat("]", 300)
	for _, s := range []string{`{"a":[1,2]}`, ` "x" `, `1e400`, `[1,]`, `{"a"}`, `"\ud800"`, `"x`, ``, `{} {}`, deep[:599]} {
		_, err := Parse(s)
		if got := Valid(s); got != (err == nil) {
			t.Errorf("Valid(%q) = %v, Parse error %v", s, got, err)
		}
	}
	doc := `{"lc":1,"id":["a","b"],"kwargs":{"content":"{\"city\":\"Paris\"}","name":"get_weather"}}`
	if n := testing.AllocsPerRun(100, func() { Valid(doc) }); n != 0 {
		t.Errorf("Valid allocates %v times, want 0", n)
	}
}

// TestParseEscapedStrings checks that the escaped strings of a document,
// keys and values, decode as written and take one allocation between them
// beside the arena.
func TestParseEscapedStrings(t *testing.T) {
	doc := `{"a\"":"x\ny","b":["\u00e9\ud83d\ude00","\ud800","q\\\/"],"c":"plain","d\t":"\"\"\""}`
	v, err := Parse(doc)
	require.NoError(t, err)
	var want any
	require.NoError(t, json.Unmarshal([]byte(strings.Replace(doc, `\ud800`, `\ufffd`, 1)), &want))
	wv, err := ValueOf(want)
	require.NoError(t, err)
	assert.True(t, Equal(v, wv), "%s", v.JSON())
	a, _ := v.Get(`a"`)
	assert.Equal(t, "x\ny", a.StringValue())
	if n := testing.AllocsPerRun(100, func() { _, _ = Parse(doc) }); n != 2 {
		t.Errorf("Parse allocates %v times, want 2", n)
	}
}

// TestSmallDecimalIsParseFloat checks the parser's fast path for short
// decimals against strconv.ParseFloat, bit for bit, on literals of every
// length it takes and the lengths around them.
func TestSmallDecimalIsParseFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	fast := 0
	for n := 0; n < 200_000; n++ {
		intDigits, fracDigits := 1+rng.IntN(9), 1+rng.IntN(10)
		var b []byte
		if rng.IntN(2) == 0 {
			b = append(b, '-')
		}
		for i := range intDigits {
			d := byte('0' + rng.IntN(10))
			if i == 0 && intDigits > 1 && d == '0' {
				d = '1' // JSON has no leading zeros
			}
			b = append(b, d)
		}
		b = append(b, '.')
		for range fracDigits {
			b = append(b, byte('0'+rng.IntN(10)))
		}
		lit := string(b)
		v, ok := numberValue(lit, false)
		want, err := strconv.ParseFloat(lit, 64)
		if !ok || err != nil || math.Float64bits(v.num) != math.Float64bits(want) {
			t.Fatalf("%s: got %v (%v), ParseFloat %v (%v)", lit, v.num, ok, want, err)
		}
		if _, took := smallDecimal(lit); took {
			fast++
		}
	}
	for _, lit := range []string{"-0.0", "0.0", "0.000000000000001", "999999999999999.0", "1.5e3", "123456789012345.6", "0.1", "-2.5"} {
		v, ok := numberValue(lit, false)
		want, _ := strconv.ParseFloat(lit, 64)
		if !ok || math.Float64bits(v.num) != math.Float64bits(want) {
			t.Errorf("%s: got %v, ParseFloat %v", lit, v.num, want)
		}
	}
	if fast == 0 {
		t.Fatal("the fast path took no literal")
	}
}
