package extract

import (
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// toolMessageKeys are the members of a ToolMessage's kwargs that
// langChainToolMessage reads.
var toolMessageKeys = []string{"name", "tool_call_id"}

// langChainToolMessage reads kwargs.name and kwargs.tool_call_id of a
// serialized LangChain ToolMessage, as the string values jsonv.Parse
// would give them ("" for a member absent or not a string), without
// building the document: one pass through the text checks it and finds
// both members. ok is false when out is not JSON.
func langChainToolMessage(out string) (name, id string, ok bool) {
	var texts [2]string
	if jsonv.NestedMemberTexts(out, "kwargs", toolMessageKeys, texts[:]) {
		return jsonv.StringText(texts[0]), jsonv.StringText(texts[1]), true
	}
	return langChainToolMessageTree(out)
}

// langChainToolMessageTree is langChainToolMessage for a text the scanner
// did not read (not an object, not JSON or nested deeper than it follows):
// it checks the text, then reads the parsed tree. Not inlined: its values
// would take room in the frame of the common case.
// Out of line for the stack budget (docs/architecture.md, "A batch").
//
//go:noinline
func langChainToolMessageTree(out string) (name, id string, ok bool) {
	if !jsonv.Valid(out) {
		return "", "", false
	}
	msg, _ := jsonv.Parse(out)
	kw, _ := msg.Get("kwargs")
	n, _ := kw.Get("name")
	i, _ := kw.Get("tool_call_id")
	return n.StringValue(), i.StringValue(), true
}
