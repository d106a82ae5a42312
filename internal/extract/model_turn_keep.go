package extract

import (
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// MaxOutcomeText bounds the text a turn keeps of an outcome's result: what a
// call's note shows of the app's answer to a call nobody ran (a note is cut
// shorter than this, so the notes are those of the whole text).
const MaxOutcomeText = 256

// TurnParser is the memory model turns are parsed with: the index of the
// text being read and the element lists read from it, reused from turn to
// turn, so that a batch's turns take a few allocations between them. The
// zero TurnParser is ready to use; it is not safe for concurrent use.
type TurnParser struct {
	dp   jsonv.DocumentParser
	docs [2]jsonv.Document
	// elems holds the element lists jnode.elems returned for the turn
	// being parsed; each is a full slice of it, never appended to.
	elems []jnode
	// requested, history and outcomes are the turn's lists as they are
	// read; the turn keeps copies of their exact size.
	requested, history []RequestedCall
	outcomes           []Outcome
	// requests are the latest GenAI requests read whole, with their
	// turns, oldest first (see readRequestTail); kept until trim, which
	// ends a batch's parse.
	requests []readRequest
	// taken counts the first entries of the turn's history and outcomes
	// that are another turn's (see readRequestTail).
	taken takenLists
}

// doc parses text as the turn's document k (0 or 1), read through the
// parser's memory.
func (p *TurnParser) doc(k int, text string) (jnode, bool) {
	d, err := p.dp.Parse(text)
	if err != nil {
		return jnode{}, false
	}
	p.docs[k] = d
	root := rootNode(&p.docs[k])
	root.a = p
	return root, true
}

// room returns an empty list with room for n elements in p's memory.
func (p *TurnParser) room(n int) []jnode {
	if cap(p.elems)-len(p.elems) < n {
		// A new array; the lists already returned keep the old one.
		p.elems = make([]jnode, 0, max(2*cap(p.elems), n, 64))
	}
	return p.elems[len(p.elems):len(p.elems)]
}

// keep records that list, returned by room and filled, is in use.
func (p *TurnParser) keep(list []jnode) {
	p.elems = p.elems[:len(p.elems)+len(list)]
}

// reset makes the parser's memory free for the next turn.
func (p *TurnParser) reset() {
	p.dp.Reset()
	p.docs = [2]jsonv.Document{}
	p.taken = takenLists{}
	clear(p.elems)
	p.elems = p.elems[:0]
	clear(p.requested)
	clear(p.history)
	clear(p.outcomes)
	p.requested, p.history, p.outcomes = p.requested[:0], p.history[:0], p.outcomes[:0]
}

// Parse reads the turn's recorded response and request once, with p (nil:
// a parser of its own), and keeps of them what rules and holding read, in
// one allocation of the turn's own: the requested calls (ids, names,
// arguments), the ids and names of the calls the request lists as history,
// the outcomes (ids, names, whether they failed, the first MaxOutcomeText
// bytes of the result) and whether the request ends with tool results.
// From then on the turn references no string of the span: a stored turn
// keeps its span's attribute values (often many kilobytes of instructions
// and conversation) alive no longer than the batch. Later calls do nothing.
func (t *ModelTurn) Parse(p *TurnParser) {
	if t.parsed {
		return
	}
	t.parsed = true
	if p == nil {
		p = new(TurnParser)
	}
	t.requested, t.history, t.outcomes = p.requested[:0], p.history[:0], p.outcomes[:0]
	t.parse(p)
	p.requested, p.history, p.outcomes = t.requested, t.history, t.outcomes
	t.requested, t.history, t.outcomes = exact(t.requested), exact(t.history), exact(t.outcomes)
	taken := p.taken
	p.reset()
	t.keepOwn(taken)
}

// exact returns a copy of list of its length, nil when it is empty.
func exact[T any](list []T) []T {
	if len(list) == 0 {
		return nil
	}
	return append(make([]T, 0, len(list)), list...)
}

// ParseTurns parses each of turns (see [ModelTurn.Parse]) with p (nil: a
// parser of its own), so that a batch's turns share its memory, and a
// parser kept from batch to batch (the processor's pooled batch) its
// memory of earlier batches: then it keeps no text of any turn, and no
// more memory than maxKeptParser allows (see TurnParser.trim). A turn's
// request that begins with an earlier turn's is read from where that one
// ends (see readRequestTail).
func ParseTurns(turns []ModelTurn, p *TurnParser) {
	if p == nil {
		p = new(TurnParser)
	}
	for i := range turns {
		turns[i].Parse(p)
	}
	p.trim()
}

// maxKeptParser bounds the entries of each list a TurnParser keeps room
// for between ParseTurns calls: the index tokens of a request of a few
// hundred kilobytes, the element lists and calls of hundreds of turns.
const maxKeptParser = 16 << 10

// trim forgets the requests read (texts of the batch's spans) and lets go
// of the lists that grew past maxKeptParser entries (a huge request's), so
// that a parser kept between batches stays small.
func (p *TurnParser) trim() {
	clear(p.requests)
	p.requests = p.requests[:0]
	p.dp.Trim(maxKeptParser)
	if cap(p.elems) > maxKeptParser {
		p.elems = nil
	}
	if cap(p.requested) > maxKeptParser || cap(p.history) > maxKeptParser || cap(p.outcomes) > maxKeptParser {
		p.requested, p.history, p.outcomes = nil, nil, nil
	}
}

// reread reads again the sides of a turn a record replaced (its response
// when output, its request when input), keeping what the turn read of the
// other side: a parsed turn no longer has the texts to read it again. A
// turn not parsed yet reads both when first asked.
func (t *ModelTurn) reread(output, input bool) {
	if !t.parsed {
		return
	}
	if output {
		t.requested = nil
	}
	if input {
		t.history, t.outcomes, t.followsTools = nil, nil, false
	}
	var p TurnParser
	t.parse(&p) // only the texts just set are left to read
	t.keepOwn(p.taken)
}

// keepOwn copies the strings the turn keeps into one string of its own,
// cutting outcome texts to MaxOutcomeText and leaving out the history's
// arguments (nothing reads them), and lets go of the recorded texts. The
// history and outcomes taken from another turn (see readRequestTail) are
// that turn's own already, and kept as they are.
func (t *ModelTurn) keepOwn(taken takenLists) {
	t.output, t.input = "", ""
	t.events, t.flatCalls, t.flatMessages = nil, nil, nil
	history, outcomes := t.history[taken.history:], t.outcomes[taken.outcomes:]
	n := 0
	for i := range t.requested {
		r := &t.requested[i]
		n += len(r.ID) + len(r.Name) + len(r.Args)
	}
	for i := range history {
		h := &history[i]
		h.Args = ""
		n += len(h.ID) + len(h.Name)
	}
	for i := range outcomes {
		o := &outcomes[i]
		o.Result = cutText(o.Result, MaxOutcomeText)
		n += len(o.ID) + len(o.Name) + len(o.Result)
	}
	if n == 0 {
		return
	}
	var b strings.Builder
	b.Grow(n)
	for _, r := range t.requested {
		b.WriteString(r.ID)
		b.WriteString(r.Name)
		b.WriteString(r.Args)
	}
	for _, h := range history {
		b.WriteString(h.ID)
		b.WriteString(h.Name)
	}
	for _, o := range outcomes {
		b.WriteString(o.ID)
		b.WriteString(o.Name)
		b.WriteString(o.Result)
	}
	// The same walk, pointing each string at its copy.
	own, at := b.String(), 0
	next := func(s string) string {
		at += len(s)
		return own[at-len(s) : at]
	}
	for i := range t.requested {
		r := &t.requested[i]
		r.ID, r.Name, r.Args = next(r.ID), next(r.Name), next(r.Args)
	}
	for i := range history {
		h := &history[i]
		h.ID, h.Name = next(h.ID), next(h.Name)
	}
	for i := range outcomes {
		o := &outcomes[i]
		o.ID, o.Name, o.Result = next(o.ID), next(o.Name), next(o.Result)
	}
}

// cutText returns the first n bytes of s at most, cut at a character
// boundary.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
