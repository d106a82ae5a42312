package extract

import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"

// jnode is a value of a parsed document: a token of its index, or, for
// text the index does not cover (an escaped or repeated key), a node of
// the tree read instead. The zero jnode is undefined.
type jnode struct {
	d *jsonv.Document
	i int32
	v *jsonv.Value
	// a, when set, holds the element lists elems returns (see TurnParser).
	a *TurnParser
}

// rootNode returns the document's value.
func rootNode(d *jsonv.Document) jnode {
	if t := d.Tree(); t != nil {
		return jnode{v: t}
	}
	if len(d.Toks()) == 0 {
		return jnode{}
	}
	return jnode{d: d}
}

func (n jnode) kind() jsonv.Kind {
	switch {
	case n.v != nil:
		return n.v.Kind()
	case n.d != nil:
		return n.d.Toks()[n.i].Kind
	}
	return jsonv.KindUndefined
}

// get returns the member key of an object.
func (n jnode) get(key string) (jnode, bool) {
	if n.kind() != jsonv.KindObject {
		return jnode{}, false
	}
	if n.v != nil {
		m := n.v.GetPtr(key)
		return jnode{v: m, a: n.a}, m != nil
	}
	var cursor int32
	if i := n.d.Member(n.i, key, &cursor); i >= 0 {
		return jnode{d: n.d, i: i, a: n.a}, true
	}
	return jnode{}, false
}

// elems returns the elements of an array (nil for other values).
func (n jnode) elems() []jnode {
	if n.kind() != jsonv.KindArray {
		return nil
	}
	var out []jnode
	if n.a != nil {
		out = n.a.room(n.count())
	}
	if n.v != nil {
		items := n.v.Items()
		for i := range items {
			out = append(out, jnode{v: &items[i], a: n.a})
		}
	} else {
		toks := n.d.Toks()
		for k := n.i + 1; k < toks[n.i].Next; k = toks[k].Next {
			out = append(out, jnode{d: n.d, i: k, a: n.a})
		}
	}
	if n.a != nil {
		n.a.keep(out)
	}
	return out[:len(out):len(out)]
}

// count returns the number of elements of an array.
func (n jnode) count() int {
	if n.v != nil {
		return len(n.v.Items())
	}
	toks := n.d.Toks()
	c := 0
	for k := n.i + 1; k < toks[n.i].Next; k = toks[k].Next {
		c++
	}
	return c
}

// items returns the elements of the array member key of an object.
func (n jnode) items(key string) []jnode {
	m, ok := n.get(key)
	if !ok {
		return nil
	}
	return m.elems()
}

// mayStartWith reports whether a string value may start with byte c (not
// a quote or a backslash): false when the first character, as written in
// the text, is another and not an escape, which tells without decoding.
func (n jnode) mayStartWith(c byte) bool {
	if n.d == nil {
		return true
	}
	t := &n.d.Toks()[n.i]
	raw := n.d.Text()[t.Start:t.End]
	return len(raw) < 2 || raw[1] == c || raw[1] == '\\'
}

// scalar returns a scalar's value.
func (n jnode) scalar() jsonv.Value {
	switch {
	case n.v != nil:
		return *n.v
	case n.d != nil:
		return n.d.ScalarAt(n.i)
	}
	return jsonv.Value{}
}

// raw returns the value's JSON text.
func (n jnode) raw() string {
	switch {
	case n.v != nil:
		return n.v.JSON()
	case n.d != nil:
		t := &n.d.Toks()[n.i]
		return n.d.Text()[t.Start:t.End]
	}
	return ""
}

// asText returns the value as text: a string as it is, a number's literal,
// other values as JSON.
func (n jnode) asText() string {
	switch n.kind() {
	case jsonv.KindUndefined, jsonv.KindNull:
		return ""
	case jsonv.KindString:
		v := n.scalar()
		return v.Literal()
	}
	return n.raw()
}

// str returns the string (or number) member key, "" otherwise.
func (n jnode) str(key string) string {
	m, ok := n.get(key)
	if !ok {
		return ""
	}
	switch m.kind() {
	case jsonv.KindString, jsonv.KindNumber:
		return m.asText()
	}
	return ""
}

// text returns member key as text (see asText).
func (n jnode) text(key string) string {
	m, _ := n.get(key)
	return m.asText()
}

// jsonText returns member key as JSON text: a string is taken to hold JSON
// already (arguments recorded as a JSON string), other values are their
// JSON text.
func (n jnode) jsonText(key string) string {
	m, _ := n.get(key)
	return m.asText()
}

func (n jnode) firstJSON(keys ...string) string {
	for _, k := range keys {
		if s := n.jsonText(k); s != "" {
			return s
		}
	}
	return ""
}

func (n jnode) firstText(keys ...string) string {
	for _, k := range keys {
		if s := n.text(k); s != "" {
			return s
		}
	}
	return ""
}

// boolean reports whether member key is true.
func (n jnode) boolean(key string) bool {
	m, ok := n.get(key)
	if !ok || m.kind() != jsonv.KindBool {
		return false
	}
	v := m.scalar()
	return v.BoolValue()
}

// failed reports a result value that reports a failure: an object with an
// "error" member that is not null or false, or a text failedText takes.
func (n jnode) failed() bool {
	switch n.kind() {
	case jsonv.KindString:
		return failedText(n.asText())
	case jsonv.KindObject:
		e, ok := n.get("error")
		if !ok {
			return false
		}
		switch e.kind() {
		case jsonv.KindNull:
			return false
		case jsonv.KindBool:
			v := e.scalar()
			return v.BoolValue()
		}
		return true
	}
	return false
}
