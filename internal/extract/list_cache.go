package extract

import (
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// renderedList is a string list and its JSON text, as stringListJSON
// writes it. It is never changed once stored.
type renderedList struct {
	// items are the list's string items, in order (the only ones the
	// text holds), cloned so as not to keep the span's memory.
	items []string
	text  string
}

// listCacheSize is how many rendered lists are kept: one per agent (tool
// set) sending model calls at the same time, for a few.
const listCacheSize = 4

// listCache keeps the last lists stringListJSON rendered. A list of
// strings on a model-call span is AI SDK's ai.prompt.tools, the same tool
// definitions on every model call of an agent: comparing the items with
// a kept list costs a fraction of escaping them again, and the text is
// shared instead of allocated. Entries are replaced round-robin; reads
// and writes are atomic, since batches are classified concurrently.
var listCache struct {
	slot [listCacheSize]atomic.Pointer[renderedList]
	next atomic.Uint32
}

// cachedStringListJSON returns stringListJSON(list), from listCache when
// it holds a list with the same string items.
func cachedStringListJSON(list pcommon.Slice) string {
	for i := range listCache.slot {
		if r := listCache.slot[i].Load(); r != nil && r.matches(list) {
			return r.text
		}
	}
	r := &renderedList{text: stringListJSON(list)}
	for _, it := range list.All() {
		if it.Type() == pcommon.ValueTypeStr {
			r.items = append(r.items, strings.Clone(it.Str()))
		}
	}
	listCache.slot[listCache.next.Add(1)%listCacheSize].Store(r)
	return r.text
}

// matches reports whether list's string items are r's, in order.
func (r *renderedList) matches(list pcommon.Slice) bool {
	n := 0
	for _, it := range list.All() {
		if it.Type() != pcommon.ValueTypeStr {
			continue
		}
		if n == len(r.items) || r.items[n] != it.Str() {
			return false
		}
		n++
	}
	return n == len(r.items)
}
