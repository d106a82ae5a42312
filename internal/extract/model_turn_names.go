package extract

import "strings"

// mayName reports whether the turn's recorded text s (its response or
// request) may record what a turn reads: any text of another form than
// GenAI, a GenAI text that genaiNamesTools takes.
func (t *ModelTurn) mayName(s string) bool {
	return t.form != formGenAI || genaiNamesTools(s)
}

// genaiNamesTools reports whether a GenAI messages text may record what a
// turn reads of it, whether or not it is JSON: every such thing is a part
// whose type is "tool_call", "tool_call_response", "tool_use" or
// "tool_result", a text part whose text starts with such blocks (written
// with the type inside), a Gemini "functionCall" member or a message whose
// role is "tool", and a text without a \u escape spells each of these
// names as it is (no other escape writes a letter, a digit or '_'), the
// role as "tool" between quotes (a quote inside a string is escaped). A
// text it does not take reads as nothing, however it parses, and is not
// parsed: a run's first request (the user's message) and its last response
// (the answer) are such texts.
func genaiNamesTools(s string) bool {
	// The names are looked for by their rarer bytes, each by a search of
	// many bytes at a time: '_', 'C' (prose has few), the quote of "tool"
	// and '\\' (prose has none).
	return holdsAround(s, '_', "tool", "_call", "_use", "_result") || holdsAround(s, 'C', "function", "Call") ||
		strings.Contains(s, `"tool"`) || strings.Contains(s, `\u`)
}

// holdsAround reports whether s holds before+after, after starting with
// the byte b, for any of afters.
func holdsAround(s string, b byte, before string, afters ...string) bool {
	for i := 0; ; i++ {
		j := strings.IndexByte(s[i:], b)
		if j < 0 {
			return false
		}
		i += j
		if i < len(before) || s[i-len(before):i] != before {
			continue
		}
		for _, a := range afters {
			if strings.HasPrefix(s[i:], a) {
				return true
			}
		}
	}
}
