package extract

import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"

// A model's request repeats the conversation before it: each turn's
// request is the turn before it's, its closing bracket replaced by a comma,
// followed by that turn's response and the tool results sent back. Read
// whole, a run's requests cost the square of its length. The GenAI requests
// a TurnParser read whole by the index readers are remembered while a
// batch's turns are parsed (ParseTurns), and a later request that begins
// with one of them is read from where it ends: the messages they share are
// the same text, and the readers take a message's calls and outcomes from
// it alone, so the turn takes the remembered turn's and reads only the
// messages after them (whether it follows tools is a matter of its last
// message, which is among those).

// maxReadRequests is how many of the latest requests a TurnParser
// remembers: a run's turns in one batch come one after another, and each
// later request is compared with each remembered one.
const maxReadRequests = 8

// takenLists counts the first entries of a turn's history and outcomes
// taken from another turn's: strings of that turn's own memory.
type takenLists struct{ history, outcomes int }

// readRequest is a GenAI request a turn's parse read whole: a non-empty
// list of messages that closes at the text's end, whose list opens at
// start.
type readRequest struct {
	text  string
	start int32
	turn  *ModelTurn
}

// rememberRequest notes that t's request, indexed as root, was read whole
// by the index readers, when it is a list a later request may begin with.
func (p *TurnParser) rememberRequest(t *ModelTurn, root jnode) {
	top := &root.d.Toks()[0]
	if top.Kind != jsonv.KindArray || top.Next < 2 || int(top.End) != len(t.input) {
		return // not a non-empty list, or text after it
	}
	if len(p.requests) == maxReadRequests {
		copy(p.requests, p.requests[1:])
		p.requests = p.requests[:maxReadRequests-1]
	}
	p.requests = append(p.requests, readRequest{text: t.input, start: top.Start, turn: t})
}

// readRequestTail reads t's GenAI request as readIndexedGenAIRequest would
// read it whole, when it begins with a remembered request (the longest
// one): the remembered turn's history and outcomes, then those of the
// messages after them. It reports false, having read nothing, when no
// remembered request begins it or the rest is not indexed by the scan.
func (t *ModelTurn) readRequestTail(p *TurnParser) bool {
	from := p.longestBeginning(t.input)
	if from == nil {
		return false
	}
	d, ok := p.dp.ParseArrayTail(t.input, int(from.start), len(from.text))
	if !ok {
		return false
	}
	p.docs[1] = d
	root := rootNode(&p.docs[1])
	root.a = p
	t.history = append(t.history, from.turn.history...)
	t.outcomes = append(t.outcomes, from.turn.outcomes...)
	p.taken = takenLists{len(from.turn.history), len(from.turn.outcomes)}
	t.readIndexedGenAIRequest(root)
	p.rememberRequest(t, root)
	return true
}

// longestBeginning returns the longest remembered request that begins
// text, its closing bracket replaced by a comma (nil for none). The
// requests are compared longest first, so that a run's turns, each of
// which begins with every earlier one, take one comparison of text.
func (p *TurnParser) longestBeginning(text string) *readRequest {
	var tried uint32 // bit k: requests[k] compared
	for {
		var next *readRequest
		at := -1
		for k := range p.requests {
			r := &p.requests[k]
			if tried&(1<<k) == 0 && len(r.text) < len(text) && text[len(r.text)-1] == ',' && (next == nil || len(r.text) > len(next.text)) {
				next, at = r, k
			}
		}
		if next == nil {
			return nil
		}
		if n := len(next.text); text[:n-1] == next.text[:n-1] {
			return next
		}
		tried |= 1 << at
	}
}
