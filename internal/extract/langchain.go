package extract

import (
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/scoring"
)

// langChainToolMessage reads kwargs.name and kwargs.tool_call_id of a
// serialized LangChain ToolMessage, as the string values scoring.Parse
// would give them ("" for a member absent or not a string), without
// building the document: one check of the text, then a walk through the
// members of two objects. ok is false when out is not JSON.
func langChainToolMessage(out string) (name, id string, ok bool) {
	if !scoring.Valid(out) {
		return "", "", false
	}
	kwargs := memberText(out, "kwargs")
	return stringText(memberText(kwargs, "name")), stringText(memberText(kwargs, "tool_call_id")), true
}

// memberText returns the text of the value of the member named key in s, a
// valid JSON value, or "" when s is not an object or has no such member. A
// repeated key gives its last value, as scoring.Parse reads it.
func memberText(s, key string) string {
	i := skipJSONSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return ""
	}
	i = skipJSONSpace(s, i+1)
	if s[i] == '}' {
		return ""
	}
	found := ""
	for {
		end := jsonStringEnd(s, i)
		k := s[i+1 : end-1]
		if strings.IndexByte(k, '\\') >= 0 {
			k = stringText(s[i:end])
		}
		i = skipJSONSpace(s, skipJSONSpace(s, end)+1) // past the colon
		end = jsonValueEnd(s, i)
		if k == key {
			found = s[i:end]
		}
		i = skipJSONSpace(s, end)
		if s[i] == '}' {
			return found
		}
		i = skipJSONSpace(s, i+1) // past the comma
	}
}

// stringText returns the string a JSON value's text holds: "" for another
// kind of value, the text between its quotes when written without escapes.
func stringText(v string) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	if inner := v[1 : len(v)-1]; strings.IndexByte(inner, '\\') < 0 {
		return inner
	}
	s, _ := scoring.Parse(v)
	return s.StringValue()
}

// skipJSONSpace returns the index of the first byte at or after i that is
// not JSON whitespace.
func skipJSONSpace(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// jsonStringEnd returns the index after the closing quote of the string
// whose opening quote is at i, in valid JSON text.
func jsonStringEnd(s string, i int) int {
	j := i + 1
	for {
		q := j + strings.IndexByte(s[j:], '"')
		// The quote closes the string unless an odd run of backslashes
		// escapes it.
		b := q
		for b > j && s[b-1] == '\\' {
			b--
		}
		if (q-b)%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// jsonValueEnd returns the index after the value that starts at i, in
// valid JSON text. Containers are skipped by counting their brackets, so
// nesting however deep takes no stack.
func jsonValueEnd(s string, i int) int {
	switch s[i] {
	case '"':
		return jsonStringEnd(s, i)
	case '{', '[':
		depth := 0
		for j := i; ; {
			switch s[j] {
			case '"':
				j = jsonStringEnd(s, j)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
			j++
		}
	}
	j := i
	for j < len(s) {
		switch s[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
}
