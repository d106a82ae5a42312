package extract

import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"

// A GenAI turn (gen_ai.output.messages / gen_ai.input.messages) is the form
// most spans record, and its messages' parts are what a turn's parse spends
// its time on. Where the document is an index (its keys unescaped and
// unique in each object, see jsonv.Document), these readers go over each
// message's and each part's members once, noting the members they read,
// and take the same values the jnode readers (readGenAIRequest,
// appendCalls) take, which read tree documents and are the reference the
// fuzz test holds these to. A part that may hold Anthropic blocks, or is
// one, is handed to those readers.

// genaiPart is the token of each member of a GenAI message part the readers
// look at, -1 for a member absent.
type genaiPart struct {
	typ, callID, id, name, arguments, response, content, functionCall int32
}

// readGenAIPart notes the members of the part at token i (all absent for
// another value than an object).
func readGenAIPart(d *jsonv.Document, i int32) genaiPart {
	p := genaiPart{-1, -1, -1, -1, -1, -1, -1, -1}
	toks, text := d.Toks(), d.Text()
	if toks[i].Kind != jsonv.KindObject {
		return p
	}
	for k := i + 1; k < toks[i].Next; k = toks[k+1].Next {
		v := k + 1
		switch toks[k].Inner(text) {
		case "type":
			p.typ = v
		case "call_id":
			p.callID = v
		case "id":
			p.id = v
		case "name":
			p.name = v
		case "arguments":
			p.arguments = v
		case "response":
			p.response = v
		case "content":
			p.content = v
		case "functionCall":
			p.functionCall = v
		}
	}
	return p
}

// tokStr is jnode.str of the member whose value is token i (-1: absent):
// a string's value or a number's literal, "" otherwise.
func tokStr(d *jsonv.Document, i int32) string {
	if i < 0 {
		return ""
	}
	switch d.Toks()[i].Kind {
	case jsonv.KindString:
		return d.StringAt(i)
	case jsonv.KindNumber:
		t := &d.Toks()[i]
		return d.Text()[t.Start:t.End]
	}
	return ""
}

// tokNode is the jnode of token i of n's document (the zero jnode for -1).
func (n jnode) tokNode(i int32) jnode {
	if i < 0 {
		return jnode{}
	}
	return jnode{d: n.d, i: i, a: n.a}
}

// callIDIn is partCallID: the part's call_id when it has one, else its id.
func (p *genaiPart) callIDIn(d *jsonv.Document) string {
	if id := tokStr(d, p.callID); id != "" {
		return id
	}
	return tokStr(d, p.id)
}

// mayHoldBlocks reports whether a part of type typ may be, or hold as its
// text, Anthropic blocks (see blockText): the readers leave it to
// appendAnthropicUses and appendPartOutcomes.
func (p *genaiPart) mayHoldBlocks(root jnode, typ string) bool {
	switch typ {
	case "tool_use", "tool_result":
		return true
	case "text":
		return p.content >= 0 && root.d.Toks()[p.content].Kind == jsonv.KindString && root.tokNode(p.content).mayStartWith('[')
	}
	return false
}

// eachIndexedMessage calls f with each message of a GenAI messages
// document's index (see messages) and whether it is the last.
func eachIndexedMessage(root jnode, f func(m int32, last bool)) {
	toks := root.d.Toks()
	list := root.i
	if toks[list].Kind == jsonv.KindObject {
		list = -1
		text := root.d.Text()
		for k := root.i + 1; k < toks[root.i].Next; k = toks[k+1].Next {
			if toks[k].Inner(text) == "messages" {
				list = k + 1
				break
			}
		}
		if list < 0 {
			return
		}
	}
	if toks[list].Kind != jsonv.KindArray {
		return
	}
	end := toks[list].Next
	for m := list + 1; m < end; {
		next := toks[m].Next
		f(m, next >= end)
		m = next
	}
}

// eachIndexedPart calls f with each part of the message at token m (none
// when it is no object or its parts no list), and returns the message's
// role (as jnode.str reads it).
func eachIndexedPart(d *jsonv.Document, m int32, f func(role string, part int32)) string {
	toks, text := d.Toks(), d.Text()
	if toks[m].Kind != jsonv.KindObject {
		return ""
	}
	role, parts := int32(-1), int32(-1)
	for k := m + 1; k < toks[m].Next; k = toks[k+1].Next {
		switch toks[k].Inner(text) {
		case "role":
			role = k + 1
		case "parts":
			parts = k + 1
		}
	}
	r := tokStr(d, role)
	if parts >= 0 && toks[parts].Kind == jsonv.KindArray {
		for p := parts + 1; p < toks[parts].Next; p = toks[p].Next {
			f(r, p)
		}
	}
	return r
}

// readIndexedGenAIRequest is readGenAIRequest on an index. The history's
// arguments are not read: the turn keeps none (see keepOwn).
func (t *ModelTurn) readIndexedGenAIRequest(root jnode) {
	d := root.d
	follows := false
	eachIndexedMessage(root, func(m int32, last bool) {
		role := eachIndexedPart(d, m, func(role string, i int32) {
			p := readGenAIPart(d, i)
			typ := tokStr(d, p.typ)
			if p.mayHoldBlocks(root, typ) {
				part := root.tokNode(i)
				if role == "assistant" {
					t.history = appendAnthropicUses(t.history, part, typ)
				}
				t.outcomes = appendPartOutcomes(t.outcomes, part, typ)
				return
			}
			switch typ {
			case "tool_call":
				if role == "assistant" {
					t.history = append(t.history, RequestedCall{ID: p.callIDIn(d), Name: tokStr(d, p.name)})
				}
			case "tool_call_response":
				r := root.tokNode(p.response)
				t.outcomes = append(t.outcomes, Outcome{ID: p.callIDIn(d), Result: r.asText(), Failed: r.failed()})
				follows = follows || last
			}
		})
		follows = follows || last && role == "tool"
	})
	t.followsTools = follows
}

// appendIndexedGenAICalls is appendCalls of a GenAI response on an index.
func appendIndexedGenAICalls(out []RequestedCall, root jnode) []RequestedCall {
	d := root.d
	eachIndexedMessage(root, func(m int32, _ bool) {
		eachIndexedPart(d, m, func(_ string, i int32) {
			p := readGenAIPart(d, i)
			typ := tokStr(d, p.typ)
			switch {
			case typ == "tool_call":
				out = append(out, RequestedCall{ID: p.callIDIn(d), Name: tokStr(d, p.name), Args: root.tokNode(p.arguments).asText()})
			case p.functionCall >= 0:
				fc := root.tokNode(p.functionCall)
				out = append(out, RequestedCall{Name: fc.str("name"), Args: fc.jsonText("args")})
			case p.mayHoldBlocks(root, typ):
				out = appendAnthropicUses(out, root.tokNode(i), typ)
			}
		})
	})
	return out
}
