package scoring

import "strings"

// MemberText returns the text of the value of the member named key in s,
// JSON text that [Valid] accepts: "" when s is not an object or has no such
// member, and a repeated key's last value, as [Parse] reads it. It reads s
// with the document scanner and builds nothing unless a key is escaped. ok
// is false when a member's value nests deeper than the scanner follows
// (64 levels); the caller then parses s.
func MemberText(s, key string) (text string, ok bool) {
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return "", true
	}
	for i = skipSpace(s, i+1); i < len(s) && s[i] == '"'; i = skipSpace(s, i+1) {
		k := docToken{start: int32(i)}
		if !scalarToken(s, i, &k) {
			return "", false // not valid JSON after all
		}
		name := k.inner(s)
		if k.flags&tokEscaped != 0 {
			name = StringText(s[i:k.end])
		}
		i = skipSpace(s, skipSpace(s, int(k.end))+1) // past the colon
		end, scanned := skipValue(s, i)
		if !scanned {
			return "", false
		}
		if name == key {
			text = s[i:end]
		}
		if i = skipSpace(s, end); i >= len(s) || s[i] != ',' {
			break
		}
	}
	return text, true
}

// StringText returns the string a JSON value's text holds, as [Parse]
// decodes it: "" for another kind of value, the text between its quotes
// when it has no escapes (no copy is made).
func StringText(v string) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	if inner := v[1 : len(v)-1]; strings.IndexByte(inner, '\\') < 0 {
		return inner
	}
	s, _ := Parse(v)
	return s.StringValue()
}
