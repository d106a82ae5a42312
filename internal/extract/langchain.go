package extract

import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/scoring"

// langChainToolMessage reads kwargs.name and kwargs.tool_call_id of a
// serialized LangChain ToolMessage, as the string values scoring.Parse
// would give them ("" for a member absent or not a string), without
// building the document: one check of the text, then a walk through the
// members of two objects. ok is false when out is not JSON.
func langChainToolMessage(out string) (name, id string, ok bool) {
	if !scoring.Valid(out) {
		return "", "", false
	}
	kwargs, scanned := scoring.MemberText(out, "kwargs")
	nameText, nameScanned := scoring.MemberText(kwargs, "name")
	idText, idScanned := scoring.MemberText(kwargs, "tool_call_id")
	if !scanned || !nameScanned || !idScanned {
		// Nested deeper than the scanner follows: read the parsed tree.
		msg, _ := scoring.Parse(out)
		kw, _ := msg.Get("kwargs")
		n, _ := kw.Get("name")
		i, _ := kw.Get("tool_call_id")
		return n.StringValue(), i.StringValue(), true
	}
	return scoring.StringText(nameText), scoring.StringText(idText), true
}
