package jsonv

import "strings"

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

// UnquoteString returns the string s holds when s is exactly one JSON
// string (white space around it allowed): what [Parse] returns for it, and
// false where Parse fails or returns another kind of value. It builds no
// Value, and its frame is a fraction of Parse's.
func UnquoteString(s string) (string, bool) {
	p := parser{s: s}
	i := SkipSpace(s, 0)
	if i >= len(s) || s[i] != '"' {
		return "", false
	}
	end, err := p.checkStr(i)
	if err != nil || SkipSpace(s, end) != len(s) {
		return "", false
	}
	v, _, err := p.str(i)
	return v, err == nil
}

// NestedMemberTexts reads s, an object, in one pass, checking it as [Valid]
// does, and stores in texts[k] the text of the member named keys[k] of the
// object that is the value of s's member named outer: a repeated key's last
// value, as [Parse] reads it, and "" for a member absent or an outer value
// that is no object. texts must be as long as keys. ok is false, with texts
// unspecified, when s is not an object, is not JSON or nests deeper than
// the scanner follows (64 levels); the caller then reads s another way.
func NestedMemberTexts(s, outer string, keys, texts []string) (ok bool) {
	clear(texts)
	i := SkipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return false
	}
	end, ok := scanMembers(s, i, outer, keys, texts, true)
	return ok && SkipSpace(s, end) == len(s)
}

// scanMembers reads the object whose opening brace is at i, checking it,
// and returns the index after it. At the top (top set), the value of the
// member named outer, when an object, is read by scanMembers in turn, for
// the members named keys; below it, the texts of those are stored in
// texts.
func scanMembers(s string, i int, outer string, keys, texts []string, top bool) (end int, ok bool) {
	if i = SkipSpace(s, i+1); i < len(s) && s[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return i, false
		}
		k := DocToken{Start: int32(i)}
		if !ScalarToken(s, i, &k) {
			return i, false
		}
		name := k.Inner(s)
		if k.flags&tokEscaped != 0 {
			name = StringText(s[i:k.End])
		}
		if i = SkipSpace(s, int(k.End)); i >= len(s) || s[i] != ':' {
			return i, false
		}
		i = SkipSpace(s, i+1)
		switch {
		case top && name == outer:
			clear(texts)
			if i < len(s) && s[i] == '{' {
				end, ok = scanMembers(s, i, "", keys, texts, false)
				break
			}
			end, ok = SkipValue(s, i)
		default:
			end, ok = SkipValue(s, i)
			if !top && ok {
				for n, key := range keys {
					if name == key {
						texts[n] = s[i:end]
					}
				}
			}
		}
		if !ok {
			return end, false
		}
		if i = SkipSpace(s, end); i >= len(s) {
			return i, false
		}
		switch s[i] {
		case ',':
			i = SkipSpace(s, i+1)
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}
