package toolcall

import (
	"math"
	"unicode/utf8"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// fastSchema is a parameters schema in the shapes tool schemas usually take
// (type, properties, required, additionalProperties, items, enum, const,
// minimum/maximum, min/maxLength, min/maxItems, annotations), read again
// from the schema's JSON so that arguments can be proved valid without the
// schema library: no instance conversion, no validator.
//
// It answers one question only, "certainly valid?": valid returns true
// only when the library would find no violation, and false whenever it
// has any doubt (an invalid value, or one outside what it handles), in
// which case the library validates as before. A schema using any other
// keyword gets no fastSchema at all. Violations are therefore always the
// library's.
type fastSchema struct {
	// never is the false schema: nothing is valid.
	never bool
	// types is the set of types allowed (typeAny: any).
	types fastTypes
	// enum lists the allowed values when hasEnum (const is a one-value
	// enum); only null, boolean and string members are kept: an instance
	// equal to no kept member is doubted.
	hasEnum bool
	enum    []jsonv.Value
	// consts are further one-value enums (const), each to be matched.
	consts [][]jsonv.Value

	// Numbers: inclusive bounds, exact when the bound's JSON text is an
	// integer the float holds exactly.
	hasMin, hasMax     bool
	minExact, maxExact bool
	min, max           float64
	// Strings (runes) and arrays (items): -1 when unbounded.
	minLength, maxLength int
	minItems, maxItems   int
	items                *fastSchema

	// Objects.
	props []fastProp
	// required has bit i set when props[i] is required.
	required uint64
	// additional validates members not in props; nil allows any, and
	// noAdditional forbids them.
	additional   *fastSchema
	noAdditional bool
}

// fastProp is one property of an object schema.
type fastProp struct {
	name   string
	schema *fastSchema // nil: any value
	// undeclared marks a name only required, not among the properties:
	// its value is an additional property.
	undeclared bool
}

// fastTypes is a set of JSON Schema types, one bit each.
type fastTypes uint8

const (
	typeNull fastTypes = 1 << iota
	typeBoolean
	typeNumber
	typeInteger
	typeString
	typeArray
	typeObject

	typeAny fastTypes = 0
)

var fastTypeNames = map[string]fastTypes{
	"null": typeNull, "boolean": typeBoolean, "number": typeNumber, "integer": typeInteger,
	"string": typeString, "array": typeArray, "object": typeObject,
}

const (
	// maxFastProps bounds the properties of one object schema (the
	// required set is a 64-bit mask).
	maxFastProps = 64
	// maxFastDepth bounds the nesting the fast path reads, in schemas and
	// in instances; deeper is left to the library.
	maxFastDepth = 64
	// maxExactInt is 2^53: integers below it in magnitude are exact floats.
	maxExactInt = 1 << 53
)

// annotationKeywords never assert anything, in any draft.
var annotationKeywords = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true, "$comment": true,
	"deprecated": true, "readOnly": true, "writeOnly": true,
}

// compileFast reads a compiled schema's JSON value as a fastSchema; ok is
// false when it uses anything the fast path does not handle.
func compileFast(v *jsonv.Value) (*fastSchema, bool) {
	return compileFastAt(v, 0)
}

func compileFastAt(v *jsonv.Value, depth int) (*fastSchema, bool) {
	if depth > maxFastDepth {
		return nil, false
	}
	switch v.Kind() {
	case jsonv.KindBool:
		return &fastSchema{never: !v.BoolValue(), minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}, true
	case jsonv.KindObject:
	default:
		return nil, false
	}
	f := &fastSchema{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
	var required *jsonv.Value
	for i := 0; i < len(v.Items()); i += 2 {
		key, m := v.Items()[i].Literal(), &v.Items()[i+1]
		if m.Kind() == jsonv.KindUndefined || duplicateKey(v, i) {
			return nil, false
		}
		ok := true
		switch key {
		case "type":
			f.types, ok = fastTypesOf(m)
		case "properties":
			ok = f.compileProperties(m, depth)
		case "required":
			required = m
		case "additionalProperties":
			if m.Kind() == jsonv.KindBool {
				f.noAdditional = !m.BoolValue()
			} else {
				f.additional, ok = compileFastAt(m, depth+1)
			}
		case "items":
			f.items, ok = compileFastAt(m, depth+1)
		case "enum":
			if m.Kind() != jsonv.KindArray {
				return nil, false
			}
			f.hasEnum, f.enum = true, scalarMembers(m.Items())
		case "const":
			f.consts = append(f.consts, scalarMembers([]jsonv.Value{*m}))
		case "minimum":
			f.hasMin = true
			f.min, f.minExact, ok = fastBound(m)
		case "maximum":
			f.hasMax = true
			f.max, f.maxExact, ok = fastBound(m)
		case "minLength":
			f.minLength, ok = fastCount(m)
		case "maxLength":
			f.maxLength, ok = fastCount(m)
		case "minItems":
			f.minItems, ok = fastCount(m)
		case "maxItems":
			f.maxItems, ok = fastCount(m)
		case "$schema":
			// The draft: the keywords above mean the same in every draft
			// the library compiles (const, unknown to draft 4, is only
			// stricter here). Only at the root.
			ok = depth == 0 && m.Kind() == jsonv.KindString
		default:
			ok = annotationKeywords[key]
		}
		if !ok {
			return nil, false
		}
	}
	if required != nil && !f.compileRequired(required) {
		return nil, false
	}
	return f, true
}

// duplicateKey reports whether the object member at i has a key written
// before it.
func duplicateKey(v *jsonv.Value, i int) bool {
	for j := 0; j < i; j += 2 {
		if v.Items()[j].Literal() == v.Items()[i].Literal() {
			return true
		}
	}
	return false
}

// fastTypesOf reads the type keyword: a type name or a non-empty list.
func fastTypesOf(v *jsonv.Value) (fastTypes, bool) {
	if v.Kind() == jsonv.KindString {
		t, ok := fastTypeNames[v.Literal()]
		return t, ok
	}
	if v.Kind() != jsonv.KindArray || len(v.Items()) == 0 {
		return 0, false
	}
	var set fastTypes
	for i := range v.Items() {
		if v.Items()[i].Kind() != jsonv.KindString {
			return 0, false
		}
		t, ok := fastTypeNames[v.Items()[i].Literal()]
		if !ok {
			return 0, false
		}
		set |= t
	}
	return set, true
}

func (f *fastSchema) compileProperties(v *jsonv.Value, depth int) bool {
	if v.Kind() != jsonv.KindObject || len(v.Items())/2 > maxFastProps {
		return false
	}
	for i := 0; i < len(v.Items()); i += 2 {
		name, m := v.Items()[i].Literal(), &v.Items()[i+1]
		if m.Kind() == jsonv.KindUndefined || !utf8.ValidString(name) || duplicateKey(v, i) {
			return false
		}
		sch, ok := compileFastAt(m, depth+1)
		if !ok {
			return false
		}
		f.props = append(f.props, fastProp{name: name, schema: sch})
	}
	return true
}

// compileRequired sets the required bits, adding a property that allows
// any value for a required name the properties do not list.
func (f *fastSchema) compileRequired(v *jsonv.Value) bool {
	if v.Kind() != jsonv.KindArray {
		return false
	}
	for i := range v.Items() {
		name := &v.Items()[i]
		if name.Kind() != jsonv.KindString || !utf8.ValidString(name.Literal()) {
			return false
		}
		at := f.prop(name.Literal())
		if at < 0 {
			if len(f.props) == maxFastProps {
				return false
			}
			at = len(f.props)
			f.props = append(f.props, fastProp{name: name.Literal(), undeclared: true})
		}
		f.required |= 1 << at
	}
	return true
}

// prop returns the index of the named property, or -1.
func (f *fastSchema) prop(name string) int {
	for i := range f.props {
		if f.props[i].name == name {
			return i
		}
	}
	return -1
}

// scalarMembers keeps the null, boolean and valid UTF-8 string values of an
// enum: those an instance can be compared with exactly here.
func scalarMembers(vs []jsonv.Value) []jsonv.Value {
	out := []jsonv.Value{}
	for _, v := range vs {
		switch v.Kind() {
		case jsonv.KindNull, jsonv.KindBool:
			out = append(out, v)
		case jsonv.KindString:
			if utf8.ValidString(v.Literal()) {
				out = append(out, v)
			}
		}
	}
	return out
}

// fastBound reads minimum or maximum: a finite number, exact when an
// integer the float holds exactly (then its JSON text, as the library reads
// it, is that integer).
func fastBound(v *jsonv.Value) (bound float64, exact, ok bool) {
	if v.Kind() != jsonv.KindNumber || math.IsNaN(v.NumberValue()) || math.IsInf(v.NumberValue(), 0) {
		return 0, false, false
	}
	return v.NumberValue(), v.NumberValue() == math.Trunc(v.NumberValue()) && math.Abs(v.NumberValue()) < maxExactInt, true
}

// fastCount reads a non-negative integer keyword (minLength, maxItems...).
func fastCount(v *jsonv.Value) (int, bool) {
	if v.Kind() != jsonv.KindNumber || v.NumberValue() != math.Trunc(v.NumberValue()) || v.NumberValue() < 0 || v.NumberValue() > math.MaxInt32 {
		return 0, false
	}
	return int(v.NumberValue()), true
}

// valid reports whether v certainly conforms (see fastSchema): v as
// schemaInstance converts it, undefined at the top being doubted.
func (f *fastSchema) valid(v *jsonv.Value) bool {
	return v.Kind() != jsonv.KindUndefined && f.validAt(v, 0)
}

func (f *fastSchema) validAt(v *jsonv.Value, depth int) bool {
	if f == nil {
		return shallow(v, depth)
	}
	if f.never || depth > maxFastDepth {
		return false
	}
	kind := instanceKind(v)
	if f.types != typeAny && !f.types.allows(kind, v) {
		return false
	}
	if f.hasEnum && !inScalars(f.enum, kind, v) {
		return false
	}
	for _, c := range f.consts {
		if !inScalars(c, kind, v) {
			return false
		}
	}
	switch kind {
	case jsonv.KindNumber:
		return f.validNumber(v.NumberValue())
	case jsonv.KindString:
		return f.validString(v.Literal())
	case jsonv.KindArray:
		return f.validArray(v, depth)
	case jsonv.KindObject:
		return f.validObject(v, depth)
	}
	return true
}

// instanceKind is the kind v has as a schema instance: an undefined array
// item and a number that is not finite are null there.
func instanceKind(v *jsonv.Value) jsonv.Kind {
	switch v.Kind() {
	case jsonv.KindUndefined:
		return jsonv.KindNull
	case jsonv.KindNumber:
		if math.IsNaN(v.NumberValue()) || math.IsInf(v.NumberValue(), 0) {
			return jsonv.KindNull
		}
	}
	return v.Kind()
}

func (t fastTypes) allows(kind jsonv.Kind, v *jsonv.Value) bool {
	switch kind {
	case jsonv.KindNull:
		return t&typeNull != 0
	case jsonv.KindBool:
		return t&typeBoolean != 0
	case jsonv.KindNumber:
		// The library tests the exact value of the number's JSON text; a
		// float is integral exactly when its shortest text is.
		return t&typeNumber != 0 || t&typeInteger != 0 && v.NumberValue() == math.Trunc(v.NumberValue())
	case jsonv.KindString:
		return t&typeString != 0
	case jsonv.KindArray:
		return t&typeArray != 0
	case jsonv.KindObject:
		return t&typeObject != 0
	}
	return false
}

// inScalars reports whether v equals one of the members exactly; numbers
// and containers never do (the library compares those; here they are
// doubted).
func inScalars(members []jsonv.Value, kind jsonv.Kind, v *jsonv.Value) bool {
	for i := range members {
		m := &members[i]
		if m.Kind() != kind {
			continue
		}
		switch kind {
		case jsonv.KindNull:
			return true
		case jsonv.KindBool:
			if m.BoolValue() == v.BoolValue() {
				return true
			}
		case jsonv.KindString:
			if m.Literal() == v.Literal() && validUTF8(v.Literal()) {
				return true
			}
		}
	}
	return false
}

// validNumber checks the bounds. A float above a bound has an exact value
// above the bound's (rounding is monotonic); one equal to it is valid only
// when the bound is an exact integer (then so is the number).
func (f *fastSchema) validNumber(n float64) bool {
	if f.hasMin && !(n > f.min || n == f.min && f.minExact) {
		return false
	}
	if f.hasMax && !(n < f.max || n == f.max && f.maxExact) {
		return false
	}
	return true
}

// maxASCIILoop is the length up to which validUTF8 looks for a byte
// outside ASCII itself.
const maxASCIILoop = 16

// validUTF8 is utf8.ValidString, where a short text of ASCII (most keys and
// enum values) is found valid without the call.
func validUTF8(s string) bool {
	if len(s) > maxASCIILoop {
		return utf8.ValidString(s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return utf8.ValidString(s)
		}
	}
	return true
}

// validString checks the lengths, in runes of the decoded string.
func (f *fastSchema) validString(s string) bool {
	if f.minLength < 0 && f.maxLength < 0 {
		return true
	}
	if !utf8.ValidString(s) {
		return false
	}
	n := utf8.RuneCountInString(s)
	return (f.minLength < 0 || n >= f.minLength) && (f.maxLength < 0 || n <= f.maxLength)
}

func (f *fastSchema) validArray(v *jsonv.Value, depth int) bool {
	n := len(v.Items())
	if f.minItems >= 0 && n < f.minItems || f.maxItems >= 0 && n > f.maxItems {
		return false
	}
	for i := range v.Items() {
		if !f.items.validAt(&v.Items()[i], depth+1) {
			return false
		}
	}
	return true
}

// validObject checks the members, undefined ones left out as schemaInstance
// leaves them out. A duplicate key (the later member wins there) is
// checked every time it appears, which is only stricter.
func (f *fastSchema) validObject(v *jsonv.Value, depth int) bool {
	var seen uint64
	for i := 0; i < len(v.Items()); i += 2 {
		m := &v.Items()[i+1]
		if m.Kind() == jsonv.KindUndefined {
			continue
		}
		key := v.Items()[i].Literal()
		if !validUTF8(key) {
			return false // decoded, it could be any property's name
		}
		at := f.prop(key)
		if at >= 0 {
			seen |= 1 << at
			if !f.props[at].undeclared {
				if !f.props[at].schema.validAt(m, depth+1) {
					return false
				}
				continue
			}
		}
		if f.noAdditional || !f.additional.validAt(m, depth+1) {
			return false
		}
	}
	return seen&f.required == f.required
}

// shallow reports whether v, allowed whatever it holds, is nested little
// enough for the fast path (the library's text decoder has a depth limit).
func shallow(v *jsonv.Value, depth int) bool {
	if v.Kind() != jsonv.KindArray && v.Kind() != jsonv.KindObject {
		return true
	}
	if depth > maxFastDepth {
		return false
	}
	for i := range v.Items() {
		if !shallow(&v.Items()[i], depth+1) {
			return false
		}
	}
	return true
}
