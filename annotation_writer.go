package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"encoding/binary"
	"math"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// annotationWriter writes a run's annotations on its span and, when they
// are kept, packs each value as it writes it (annotations_packed.go's
// format), so that the kept copy is what the span got without reading the
// span back: the same bytes packAnnotations would make of it.
//
// That holds when the span carried none of the processor's annotations
// before (see packs): every attribute written is then a new key of the
// span, in the order written, and every event written is one of the span's
// evaluation events. Each count in the packed form is the length pdata
// reports once its list is written, so the two never disagree.
type annotationWriter struct {
	buf []byte
	// pack is false when nothing is kept: the writer only writes.
	pack bool
}

// packs reports whether the annotations written on span now can be packed
// as written: span carries no tool_call_accuracy.* attribute and no
// evaluation event yet (a span annotated before, or by a sender, is read
// back instead: copyAnnotations).
func packs(span ptrace.Span) bool {
	for k := range span.Attributes().All() {
		if hasAttrPrefix(k) {
			return false
		}
	}
	for _, e := range span.Events().All() {
		if e.Name() == eventEvaluation {
			return false
		}
	}
	return true
}

// begin keeps room for a count written later by end; it returns where.
func (w *annotationWriter) begin() int {
	if !w.pack {
		return 0
	}
	w.buf = append(w.buf, 0)
	return len(w.buf) - 1
}

// end writes n, the length of the list begun at at.
func (w *annotationWriter) end(at, n int) {
	if w.pack {
		w.buf = putCount(w.buf, at, uint64(n))
	}
}

// key packs a map key and the type of its value.
func (w *annotationWriter) key(k *annotationKey, t pcommon.ValueType) {
	if w.pack {
		w.buf = append(append(w.buf, k.packed...), byte(t))
	}
}

func (w *annotationWriter) putStr(m pcommon.Map, k *annotationKey, v string) {
	m.PutStr(k.name, v)
	if w.pack {
		w.key(k, pcommon.ValueTypeStr)
		w.buf = packString(w.buf, v)
	}
}

func (w *annotationWriter) putBool(m pcommon.Map, k *annotationKey, v bool) {
	m.PutBool(k.name, v)
	if w.pack {
		w.key(k, pcommon.ValueTypeBool)
		b := byte(0)
		if v {
			b = 1
		}
		w.buf = append(w.buf, b)
	}
}

func (w *annotationWriter) putDouble(m pcommon.Map, k *annotationKey, v float64) {
	m.PutDouble(k.name, v)
	if w.pack {
		w.key(k, pcommon.ValueTypeDouble)
		w.buf = binary.LittleEndian.AppendUint64(w.buf, math.Float64bits(v))
	}
}

// putEmptySlice puts an empty list of room n under k; the caller appends
// its strings with appendStr, then calls end(at, s.Len()).
func (w *annotationWriter) putEmptySlice(m pcommon.Map, k *annotationKey, n int) (s pcommon.Slice, at int) {
	s = m.PutEmptySlice(k.name)
	s.EnsureCapacity(n)
	w.key(k, pcommon.ValueTypeSlice)
	return s, w.begin()
}

// putEmptyMap puts an empty map of room n under k; the caller fills it
// with the put methods, then calls end(at, m.Len()).
func (w *annotationWriter) putEmptyMap(m pcommon.Map, k *annotationKey, n int) (inner pcommon.Map, at int) {
	inner = m.PutEmptyMap(k.name)
	inner.EnsureCapacity(n)
	w.key(k, pcommon.ValueTypeMap)
	return inner, w.begin()
}

func (w *annotationWriter) appendStr(s pcommon.Slice, v string) {
	s.AppendEmpty().SetStr(v)
	if w.pack {
		w.buf = packString(append(w.buf, byte(pcommon.ValueTypeStr)), v)
	}
}

// appendEvent appends an evaluation event at ts, with room for n
// attributes; the caller fills them with the put methods, then calls
// end(at, attrs.Len()).
func (w *annotationWriter) appendEvent(events ptrace.SpanEventSlice, ts pcommon.Timestamp, n int) (attrs pcommon.Map, at int) {
	e := events.AppendEmpty()
	e.SetName(eventEvaluation)
	e.SetTimestamp(ts)
	attrs = e.Attributes()
	attrs.EnsureCapacity(n)
	if w.pack {
		w.buf = binary.AppendUvarint(w.buf, uint64(ts))
		w.buf = append(w.buf, 0) // dropped attributes
	}
	return attrs, w.begin()
}
