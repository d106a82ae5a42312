package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"sync"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Kept annotations are packed into one byte slice: a pdata copy of a run's
// attributes and events costs about 40 allocations and 1.7 KiB, paid for
// every scored run since every run's span may come again; the packed form is
// its values' text and a byte for each key the processor writes (about
// 0.5 KiB in all per kept run, BenchmarkScoredReplayEntry). Unpacking is
// paid only when a span does come again.
//
// The format (values as pdata types them, so the copy is exact):
//
//	annotations := attrs:uvarint (key value)* events:uvarint event*
//	event       := time:uvarint dropped:uvarint attrs:uvarint (key value)*
//	key         := code:byte [rule:str | key:str]
//	value       := type:byte payload
//	payload     := str | int:varint | double:8 bytes | bool:byte | bytes
//	             | n:uvarint value*  (slice) | n:uvarint (key value)*  (map)
//	str         := len:uvarint bytes
//
// Every event is a gen_ai.evaluation.result event. A key's code is its index
// in packedKeys, or a rule's key tool_call_accuracy.<rule>.<field> followed
// by the rule's name (ruleKeyCode), or literalKey followed by the key.

// packedKeys are the keys the processor writes whatever its rules, each
// packed as its index.
var packedKeys = append([]string{attrRules, attrScore, attrPassed, attrFailedRules, attrToolCalls,
	attrEvalName, attrEvalScore, attrEvalLabel, attrEvalExplain, attrErrorType, attrEventRule, attrEventScorer},
	callStatusNames[:]...)

// packedKeyCodes indexes packedKeys.
var packedKeyCodes = func() map[string]byte {
	m := make(map[string]byte, len(packedKeys))
	for i, k := range packedKeys {
		m[k] = byte(i)
	}
	return m
}()

// The fields of a rule's keys, by their index in ruleKeyFields.
const (
	fieldScorer = iota
	fieldOutcome
	fieldPassed
	fieldScore
	fieldMissingTools
	fieldUnexpectedTools
	fieldExplanation
	fieldCallStatuses
)

// ruleKeyFields are the fields of a rule's keys, in the order of their
// codes (ruleKeyCode).
var ruleKeyFields = [...]string{fieldScorer: "scorer", fieldOutcome: "outcome", fieldPassed: "passed", fieldScore: "score",
	fieldMissingTools: "missing_tools", fieldUnexpectedTools: "unexpected_tools", fieldExplanation: "explanation", fieldCallStatuses: "call_statuses"}

// literalKey is the code of a key packed as its text.
const literalKey = 255

// ruleKeyCode is the code of a rule's key with field f of ruleKeyFields.
func ruleKeyCode(f int) byte { return byte(len(packedKeys) + f) }

// annotationKey is a key the processor writes: its name, and how the packed
// form names it (a code of literalKey: by its name).
type annotationKey struct {
	name string
	code byte
	// rule is the rule's name, for a rule's key.
	rule string
	// packed is the key as packed (packKeyOf), made once.
	packed string
}

// fixedKey is the annotationKey of one of packedKeys.
func fixedKey(name string) annotationKey {
	code, ok := packedKeyCodes[name]
	if !ok {
		panic("tool_call_accuracy: " + name + " is not one of packedKeys")
	}
	return withPacked(annotationKey{name: name, code: code})
}

// ruleKey is the annotationKey of a rule's key with field f of
// ruleKeyFields.
func ruleKey(rule string, f int) annotationKey {
	return withPacked(annotationKey{name: attrPrefix + rule + "." + ruleKeyFields[f], code: ruleKeyCode(f), rule: rule})
}

// withPacked returns k with its packed form.
func withPacked(k annotationKey) annotationKey {
	k.packed = string(packKeyOf(nil, k))
	return k
}

// packKeyOf appends how the packed form names k.
func packKeyOf(buf []byte, k annotationKey) []byte {
	buf = append(buf, k.code)
	switch {
	case k.code == literalKey:
		buf = packString(buf, k.name)
	case k.code >= ruleKeyCode(0):
		buf = packString(buf, k.rule)
	}
	return buf
}

// packKey appends how the packed form names the key k read from a span:
// as annotationKey names it when it is one (so that a span read back packs
// as it was written), else as its text.
func packKey(buf []byte, k string) []byte {
	if code, ok := packedKeyCodes[k]; ok {
		return append(buf, code)
	}
	if rule, f, ok := ruleKeyOf(k); ok {
		return packString(append(buf, ruleKeyCode(f)), rule)
	}
	return packString(append(buf, literalKey), k)
}

// ruleKeyOf splits tool_call_accuracy.<rule>.<field> into rule and field.
func ruleKeyOf(k string) (rule string, field int, ok bool) {
	if !hasAttrPrefix(k) {
		return "", 0, false
	}
	rest := k[len(attrPrefix):]
	dot := strings.LastIndexByte(rest, '.')
	if dot <= 0 {
		return "", 0, false
	}
	for f, name := range ruleKeyFields {
		if rest[dot+1:] == name {
			return rest[:dot], f, true
		}
	}
	return "", 0, false
}

// packScratch holds buffers packAnnotations writes into before the packed
// annotations are copied out at their size.
var packScratch = sync.Pool{New: func() any { return new([]byte) }}

// packAnnotations appends the tool_call_accuracy.* attributes and evaluation
// events of span to buf, in one pass over each.
func packAnnotations(buf []byte, span ptrace.Span) []byte {
	at, n := len(buf), uint64(0)
	buf = append(buf, 0) // the count, written when known
	for k, v := range span.Attributes().All() {
		if hasAttrPrefix(k) {
			buf = packValue(packKey(buf, k), v)
			n++
		}
	}
	buf = putCount(buf, at, n)
	at, n = len(buf), 0
	buf = append(buf, 0)
	for _, e := range span.Events().All() {
		if e.Name() != eventEvaluation {
			continue
		}
		buf = binary.AppendUvarint(buf, uint64(e.Timestamp()))
		buf = binary.AppendUvarint(buf, uint64(e.DroppedAttributesCount()))
		buf = packMap(buf, e.Attributes())
		n++
	}
	return putCount(buf, at, n)
}

// putCount writes n, as a uvarint, at buf[at], where one byte was kept for
// it, moving what follows when n needs more.
func putCount(buf []byte, at int, n uint64) []byte {
	if n < 0x80 {
		buf[at] = byte(n)
		return buf
	}
	var count [binary.MaxVarintLen64]byte
	w := binary.PutUvarint(count[:], n)
	buf = slices.Insert(buf, at+1, count[1:w]...)
	copy(buf[at:], count[:w])
	return buf
}

func hasAttrPrefix(k string) bool {
	return len(k) > len(attrPrefix) && k[:len(attrPrefix)] == attrPrefix
}

func packString(buf []byte, s string) []byte {
	return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
}

func packMap(buf []byte, m pcommon.Map) []byte {
	buf = binary.AppendUvarint(buf, uint64(m.Len()))
	for k, v := range m.All() {
		buf = packValue(packKey(buf, k), v)
	}
	return buf
}

func packValue(buf []byte, v pcommon.Value) []byte {
	t := v.Type()
	buf = append(buf, byte(t))
	switch t {
	case pcommon.ValueTypeStr:
		buf = packString(buf, v.Str())
	case pcommon.ValueTypeInt:
		buf = binary.AppendVarint(buf, v.Int())
	case pcommon.ValueTypeDouble:
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v.Double()))
	case pcommon.ValueTypeBool:
		b := byte(0)
		if v.Bool() {
			b = 1
		}
		buf = append(buf, b)
	case pcommon.ValueTypeBytes:
		buf = packString(buf, string(v.Bytes().AsRaw()))
	case pcommon.ValueTypeSlice:
		s := v.Slice()
		buf = binary.AppendUvarint(buf, uint64(s.Len()))
		for _, e := range s.All() {
			buf = packValue(buf, e)
		}
	case pcommon.ValueTypeMap:
		buf = packMap(buf, v.Map())
	}
	return buf
}

// unpacker reads what packAnnotations wrote. The input is the processor's
// own, so a malformed one is a bug: it panics rather than guess.
type unpacker struct{ b []byte }

func (u *unpacker) uvarint() uint64 {
	v, n := binary.Uvarint(u.b)
	if n <= 0 {
		panic("tool_call_accuracy: malformed packed annotations")
	}
	u.b = u.b[n:]
	return v
}

// key reads a key as packKey wrote it.
func (u *unpacker) key() string {
	code := u.b[0]
	u.b = u.b[1:]
	switch {
	case code == literalKey:
		return u.str()
	case code >= ruleKeyCode(0):
		return attrPrefix + u.str() + "." + ruleKeyFields[code-ruleKeyCode(0)]
	}
	return packedKeys[code]
}

func (u *unpacker) str() string {
	n := u.uvarint()
	s := string(u.b[:n])
	u.b = u.b[n:]
	return s
}

// unpackTo writes packed annotations onto span.
func unpackTo(packed []byte, span ptrace.Span) {
	u := &unpacker{b: packed}
	attrs := span.Attributes()
	n := int(u.uvarint())
	attrs.EnsureCapacity(attrs.Len() + n)
	for range n {
		k := u.key()
		u.value(attrs.PutEmpty(k))
	}
	n = int(u.uvarint())
	events := span.Events()
	events.EnsureCapacity(events.Len() + n)
	for range n {
		e := events.AppendEmpty()
		e.SetName(eventEvaluation)
		e.SetTimestamp(pcommon.Timestamp(u.uvarint()))
		e.SetDroppedAttributesCount(uint32(u.uvarint()))
		u.mapInto(e.Attributes())
	}
}

func (u *unpacker) mapInto(m pcommon.Map) {
	n := int(u.uvarint())
	m.EnsureCapacity(n)
	for range n {
		k := u.key()
		u.value(m.PutEmpty(k))
	}
}

func (u *unpacker) value(v pcommon.Value) {
	t := pcommon.ValueType(u.b[0])
	u.b = u.b[1:]
	switch t {
	case pcommon.ValueTypeStr:
		v.SetStr(u.str())
	case pcommon.ValueTypeInt:
		i, n := binary.Varint(u.b)
		if n <= 0 {
			panic("tool_call_accuracy: malformed packed annotations")
		}
		u.b = u.b[n:]
		v.SetInt(i)
	case pcommon.ValueTypeDouble:
		v.SetDouble(math.Float64frombits(binary.LittleEndian.Uint64(u.b)))
		u.b = u.b[8:]
	case pcommon.ValueTypeBool:
		v.SetBool(u.b[0] == 1)
		u.b = u.b[1:]
	case pcommon.ValueTypeBytes:
		v.SetEmptyBytes().FromRaw([]byte(u.str()))
	case pcommon.ValueTypeSlice:
		s := v.SetEmptySlice()
		n := int(u.uvarint())
		s.EnsureCapacity(n)
		for range n {
			u.value(s.AppendEmpty())
		}
	case pcommon.ValueTypeMap:
		u.mapInto(v.SetEmptyMap())
	}
}
