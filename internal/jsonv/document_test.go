package jsonv

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDocumentParseAgreesWithParse(t *testing.T) {
	texts := []string{
		`{"city":"Paris","days":3,"filters":{"unit":"celsius","tags":["a","b"]}}`,
		` [1, -0, 2.5e3, 12345678901234567890, true, false, null, "x\u00e9\n", {}, []] `,
		`{"a":1,"a":2}`,          // repeated key: read as a tree
		`{"k\u0065y":1,"key":2}`, // escaped key, repeated once decoded
		`{"a":{"b":{"c":[{"d":"\ud83d\ude00"}]}}}`,
		`"just a string"`, `42`, `null`,
		`{"a":1`, `{"a":`, `[1,2`, `"abc`, `tru`, `{"a" 1}`, `[1 2]`, `{"a":1}x`, `{1:2}`, `-`, `01`, ``,
		`{"a":"\x01"}`, `{"a":"\q"}`, `{"a":1,}`, `[,]`,
		strings.Repeat("[", MaxParseDepth+2) + strings.Repeat("]", MaxParseDepth+2),
		`{"m0":0,"m1":1,"m2":2,"m3":3,"m4":4,"m5":5,"m6":6,"m7":7,"m8":8,"m9":9,"m10":10,"m11":11,"m12":12,"m13":13,"m14":14,"m15":15,"m16":16,"m0":"last"}`,
	}
	for _, s := range texts {
		checkDocumentAgrees(t, s)
	}
}

// checkDocumentAgrees checks that a document of s gives what Parse gives:
// the same error, or the same value with its members in the same order.
func checkDocumentAgrees(t *testing.T, s string) {
	t.Helper()
	var dp DocumentParser
	want, werr := Parse(s)
	doc, err := dp.Parse(s)
	if werr != nil {
		require.Error(t, err, "%q", s)
		require.Equal(t, werr.Error(), err.Error(), "%q", s)
		require.Equal(t, errors.Is(werr, ErrTruncated), errors.Is(err, ErrTruncated))
		return
	}
	require.NoError(t, err, "%q", s)
	checkScanAgrees(t, s)
	got := doc.Value()
	// A value read in part (nested too deep) equals nothing, itself
	// included; its JSON and its parts still agree.
	require.Equal(t, want.Unread(), got.Unread(), "%q", s)
	require.True(t, want.Unread() || Equal(want, got), "%q: %s vs %s", s, want.JSON(), got.JSON())
	require.Equal(t, want.JSON(), got.JSON(), "%q", s)
	require.Equal(t, want.Kind(), doc.Kind())
	require.Equal(t, want.Len(), doc.Len())
	for i, tok := range doc.Toks() {
		if tok.Kind == KindString {
			v := doc.ScalarAt(int32(i))
			require.Equal(t, v.Literal(), doc.StringAt(int32(i)), "%q", s)
		}
	}
}

// checkScanAgrees checks that, when the one-pass scan covers s, it indexes
// s exactly as the checking parser does.
func checkScanAgrees(t *testing.T, s string) {
	t.Helper()
	toks, ok := scanDocument(s, nil)
	if !ok {
		return
	}
	p := docParser{parser: parser{s: s}}
	end, err := p.value(SkipSpace(s, 0), 0)
	require.NoError(t, err, "%q: the scan accepted text the parser rejects", s)
	require.Equal(t, len(s), SkipSpace(s, end), "%q: the scan accepted text after the value", s)
	require.False(t, p.needTree, "%q: the scan covered text the index does not", s)
	require.Equal(t, p.toks, toks, "%q", s)
}

// TestDocumentScanCoverage lists texts the one-pass scan must cover and
// texts it must leave to the checking parser.
func TestDocumentScanCoverage(t *testing.T) {
	covered := []string{
		`{"city":"Paris","days":3,"filters":{"unit":"celsius","tags":["a","b"]}}`,
		" {\n\t\"a\" : [ 1 , -2.5e-3 , true , false , null , { } , [ ] ] } ",
		`[]`, `{}`, `"x"`, `0`, `[[[[1]]]]`, `{"a":{"b":{"c":{}}}}`,
		"{\"é\":\"ü\",\"k\":\"\x7f\xff\"}", // DEL and invalid UTF-8 are not escapes
		`{"body":"a\nb \"q\" \\ \/ \b\f\r\t","u":"\u00e9\ud83d\ude00\ud83d\uDFFF"}`,
	}
	// Two different keys that hash to the same bit are compared, not
	// taken for a repeat.
	var a, b string
	seen := map[uint64]string{}
	for k := 0; a == ""; k++ {
		key := fmt.Sprintf("k%d", k)
		if other, ok := seen[keyBit(key)]; ok {
			a, b = other, key
		}
		seen[keyBit(key)] = key
	}
	covered = append(covered, fmt.Sprintf(`{%q:1,%q:2}`, a, b))
	for _, s := range covered {
		_, ok := scanDocument(s, nil)
		require.True(t, ok, "%q", s)
		checkScanAgrees(t, s)
	}
	left := []string{
		`{"a\n":1}`,                                   // an escaped key
		`{"a":1,"a":2}`,                               // a repeated key
		`"\x"`, `"\u12"`, `"\u00e9`, `"\ud83d`, `"a\`, // bad or unended escapes
		`{"a":1`, `[1,]`, `{"a" 1}`, `{"a":1}}`, `01`, `-`, `tru`, `nul`, `{1:2}`, `[1 2]`, ``, ` `,
		strings.Repeat("[", ScanDepth+1) + strings.Repeat("]", ScanDepth+1), // deeper than the scan goes
		`{"m0":0,"m1":1,"m2":2,"m3":3,"m4":4,"m5":5,"m6":6,"m7":7,"m8":8,"m9":9,"m10":10,"m11":11,"m12":12,"m13":13,"m14":14,"m15":15,"m16":16}`,
	}
	for _, s := range left {
		_, ok := scanDocument(s, nil)
		require.False(t, ok, "%q", s)
		checkDocumentAgrees(t, s)
	}
}

// TestDocumentStoreIsShared parses several documents into one store and
// checks each still reads back whole, including when the store grows.
func TestDocumentStoreIsShared(t *testing.T) {
	var dp DocumentParser
	dp.Grow(4)
	parseAllAgree(t, &dp, []string{`{"a":[1,2,3]}`, `{"b":{"c":"d"}}`, `[true]`, `{"e":1,"e":2}`, `{"f":"g"}`})
}

// parseAllAgree parses every text with dp, then checks that each document,
// once all share the store, reads back as Parse reads its text.
func parseAllAgree(t *testing.T, dp *DocumentParser, texts []string) {
	t.Helper()
	docs := make([]Document, len(texts))
	for i, s := range texts {
		var err error
		docs[i], err = dp.Parse(s)
		require.NoError(t, err)
	}
	for i, s := range texts {
		require.Equal(t, mustParse(s).JSON(), docs[i].Value().JSON(), s)
	}
}

// TestDocumentParserResetReusesStore checks that documents read back whole
// however the store grew, and that after Reset a set of documents Grow was
// told the size of is indexed in the same memory, whichever parse (the
// scan, the checking parser) indexed them.
func TestDocumentParserResetReusesStore(t *testing.T) {
	var dp DocumentParser
	texts := []string{`{"a":[1,2,3],"b":{"c":"d"}}`, `{"e":"\u0066","g":[true,null]}`, `{"h":1,"h":2}`}
	const tokens = 11 + 7
	dp.Grow(2)
	parseAllAgree(t, &dp, texts) // outgrows the store of 2 tokens
	dp.Reset()
	parseAllAgree(t, &dp, texts)
	allocs := testing.AllocsPerRun(20, func() {
		dp.Reset()
		dp.Grow(tokens)
		for _, s := range texts[:2] {
			if _, err := dp.Parse(s); err != nil {
				t.Fatal(err)
			}
		}
	})
	require.Zero(t, allocs)
}

// FuzzDocumentParse checks, for any text, that a document agrees with
// Parse: the same error, or the same value.
func FuzzDocumentParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":null}],"c":"\u00e9"}`, `{"a":1,"a":2}`, `[1,2`, `"x"`, `{"k\"":true}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkDocumentAgrees(t, s)
	})
}

// FuzzSkipValue checks that skipValue, which skips members the one-pass
// argument check does not read, accepts a whole text exactly when Parse
// does, except text nested skipDepth deep, which it leaves to the index.
func FuzzSkipValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":null}],"c":"\u00e9"}`, `{"a":1,"a":2}`, `[1,2`, `"x"`, `{"k\"":true}`,
		` {"a" : [ ] , "b":{ }} `, `[1,]`, `{"a":1,}`, `{"a" 1}`, `01`, `-`, `1.e3`, `"\ud800"`, `"a` + "\x01" + `"`, `{}}`, `[[[[]]]]`, `nul`, `truex`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := Parse(s)
		end, ok := SkipValue(s, SkipSpace(s, 0))
		whole := ok && SkipSpace(s, end) == len(s)
		if whole && err != nil {
			t.Fatalf("skipValue accepts %q, which Parse rejects: %v", s, err)
		}
		if !whole && err == nil && nesting(s) < skipDepth {
			t.Fatalf("skipValue rejects %q, which parses", s)
		}
	})
}

// nesting returns the deepest bracket nesting of s, counting brackets
// outside strings.
func nesting(s string) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

func mustParse(s string) Value {
	v, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

// checkArrayTailAgrees indexes the text first would be with its last byte
// replaced by a comma and rest after it, from that comma, when first is
// a non-empty array Parse accepts that closes at its end, and requires,
// when the tail is indexed, that the whole text parses and that the tail's
// elements are the whole index's elements after those of first.
func checkArrayTailAgrees(t *testing.T, first, rest string) {
	var dp DocumentParser
	d, err := dp.Parse(first)
	if err != nil || d.Tree() != nil || d.toks[0].Kind != KindArray || d.toks[0].Next < 2 || int(d.toks[0].End) != len(first) {
		return
	}
	shared := 0
	for k := int32(1); k < d.toks[0].Next; k = d.toks[k].Next {
		shared++
	}
	s := first[:len(first)-1] + "," + rest
	var tp DocumentParser
	tail, ok := tp.ParseArrayTail(s, int(d.toks[0].Start), len(first))
	whole, err := new(DocumentParser).Parse(s)
	if !ok {
		return
	}
	require.NoError(t, err, "tail of %q indexed, the whole rejected", s)
	require.Nil(t, whole.Tree(), "tail of %q indexed, the whole read as a tree", s)
	// The whole index's elements after the shared ones, their Next
	// counted from the tail's array token.
	skip := int32(1)
	for range shared {
		skip = whole.toks[skip].Next
	}
	want := []DocToken{whole.toks[0]}
	for _, tok := range whole.toks[skip:] {
		tok.Next -= skip - 1
		want = append(want, tok)
	}
	want[0].Next = int32(len(want))
	require.Equal(t, want, tail.toks, "tail of %q", s)
}

// FuzzParseArrayTail holds an array's tail, indexed from where an array
// it begins with ends, to the whole array's index.
func FuzzParseArrayTail(f *testing.F) {
	for _, s := range [][2]string{{`[1]`, `2]`}, {`[{"a":1}]`, `{"a":[2,{"b":"\u00e9"}]}]`}, {`[1]`, `]`}, {`[1]`, `2,]`},
		{`[]`, `1]`}, {` [ 1 ]`, ` 2 ] `}, {`[1] `, `2]`}, {`[1]`, `{"a":1,"a":2}]`}, {`[1]`, `{"\u0061":1}]`}, {`[1]`, `2]x`}, {`[1]`, `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(checkArrayTailAgrees)
}

// TestParseArrayTail checks that a tail is indexed when it completes the
// array and not when the whole would not parse or begins inside an empty
// array.
func TestParseArrayTail(t *testing.T) {
	var dp DocumentParser
	d, ok := dp.ParseArrayTail(`[1,{"a":[2]}]`, 0, 3)
	require.True(t, ok)
	require.Equal(t, []DocToken{{Start: 0, End: 13, Next: 5, Kind: KindArray}, {Start: 3, End: 12, Next: 5, Kind: KindObject},
		{Start: 4, End: 7, Next: 3, Kind: KindString}, {Start: 8, End: 11, Next: 5, Kind: KindArray}, {Start: 9, End: 10, Next: 5, Kind: KindNumber, flags: tokInt}}, d.Toks())
	for _, s := range []string{`[1,]`, `[1,2,]`, `[1,2]x`, `[1,{"a":1,"a":2}]`, `[1,{"\u0061":1}]`, `[1,2`} {
		_, ok := dp.ParseArrayTail(s, 0, 3)
		require.False(t, ok, s)
	}
	_, ok = dp.ParseArrayTail(`[,1]`, 0, 2) // "[]" is no array an element ends
	require.True(t, ok, "the caller's to check: the text before at is not read")
	checkArrayTailAgrees(t, `[]`, `1]`)
}
