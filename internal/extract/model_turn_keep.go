package extract

import (
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// MaxOutcomeText bounds the text a turn keeps of an outcome's result: what a
// call's note shows of the app's answer to a call nobody ran (a note is cut
// shorter than this, so the notes are those of the whole text).
const MaxOutcomeText = 256

// Parse reads the turn's recorded response and request once, with dp (nil:
// a parser of its own; a caller parsing many turns passes one, Reset
// between turns, so that their indexes share its memory), and keeps of them
// what rules and holding read, in one allocation of the turn's own: the
// requested calls (ids, names, arguments), the ids and names of the calls
// the request lists as history, the outcomes (ids, names, whether they
// failed, the first MaxOutcomeText bytes of the result) and whether the
// request ends with tool results. From then on the turn references no
// string of the span: a stored turn keeps its span's attribute values
// (often many kilobytes of instructions and conversation) alive no longer
// than the batch. Later calls do nothing.
func (t *ModelTurn) Parse(dp *jsonv.DocumentParser) {
	if t.parsed {
		return
	}
	t.parsed = true
	if dp == nil {
		dp = new(jsonv.DocumentParser)
	}
	t.parse(dp)
	t.keepOwn()
}

// ParseTurns parses each of turns (see [ModelTurn.Parse]) with one parser,
// so that a batch's turns share its index memory.
func ParseTurns(turns []ModelTurn) {
	var dp jsonv.DocumentParser
	for i := range turns {
		turns[i].Parse(&dp)
		dp.Reset()
	}
}

// keepOwn copies the strings the turn keeps into one string of its own,
// cutting outcome texts to MaxOutcomeText and leaving out the history's
// arguments (nothing reads them), and lets go of the recorded texts.
func (t *ModelTurn) keepOwn() {
	t.output, t.input = "", ""
	t.events, t.flatCalls, t.flatMessages = nil, nil, nil
	n := 0
	for i := range t.requested {
		r := &t.requested[i]
		n += len(r.ID) + len(r.Name) + len(r.Args)
	}
	for i := range t.history {
		h := &t.history[i]
		h.Args = ""
		n += len(h.ID) + len(h.Name)
	}
	for i := range t.outcomes {
		o := &t.outcomes[i]
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
	for _, h := range t.history {
		b.WriteString(h.ID)
		b.WriteString(h.Name)
	}
	for _, o := range t.outcomes {
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
	for i := range t.history {
		h := &t.history[i]
		h.ID, h.Name = next(h.ID), next(h.Name)
	}
	for i := range t.outcomes {
		o := &t.outcomes[i]
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
