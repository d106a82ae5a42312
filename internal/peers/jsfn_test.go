package peers

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// This file translates the JavaScript predicates that the peer test vectors
// carry as {"$fn": "<js>"} into this library's matchers. It understands the
// small subset of JavaScript those predicates use (arrow functions, if/return,
// &&, ||, !, ??, comparisons, typeof, optional chaining, and the string
// methods includes/startsWith/endsWith) and fails clearly on anything else.

type jsNode struct {
	op   string // ident, num, str, bool, null, undefined, member, call, unary, binary
	name string
	num  float64
	str  string
	b    bool
	x, y *jsNode
	args []*jsNode
}

type jsFunc struct {
	params []string
	body   *jsStmt
}

// jsStmt is a function body: a list of (condition, result) rules ending in
// a default result.
type jsStmt struct {
	rules []jsRule
	def   *jsNode
}

type jsRule struct {
	cond, ret *jsNode
}

type jsLexer struct {
	toks []string
	i    int
}

func jsTokenize(src string) ([]string, error) {
	var toks []string
	r := []rune(src)
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case unicode.IsLetter(c) || c == '_' || c == '$':
			j := i
			for j < len(r) && (unicode.IsLetter(r[j]) || unicode.IsDigit(r[j]) || r[j] == '_' || r[j] == '$') {
				j++
			}
			toks = append(toks, string(r[i:j]))
			i = j
		case unicode.IsDigit(c):
			j := i
			for j < len(r) && (unicode.IsDigit(r[j]) || r[j] == '.') {
				j++
			}
			toks = append(toks, string(r[i:j]))
			i = j
		case c == '"' || c == '\'':
			j := i + 1
			var sb strings.Builder
			for j < len(r) && r[j] != c {
				if r[j] == '\\' && j+1 < len(r) {
					j++
				}
				sb.WriteRune(r[j])
				j++
			}
			if j >= len(r) {
				return nil, fmt.Errorf("unterminated string in %q", src)
			}
			toks = append(toks, "\x00"+sb.String())
			i = j + 1
		default:
			ops := []string{"===", "!==", "=>", "==", "!=", ">=", "<=", "&&", "||", "??", "?.", "(", ")", "{", "}", ".", ",", ";", "!", ">", "<"}
			found := false
			for _, op := range ops {
				if strings.HasPrefix(string(r[i:]), op) {
					toks = append(toks, op)
					i += len([]rune(op))
					found = true
					break
				}
			}
			if !found {
				return nil, fmt.Errorf("unsupported character %q in %q", c, src)
			}
		}
	}
	return toks, nil
}

func (l *jsLexer) peek() string {
	if l.i < len(l.toks) {
		return l.toks[l.i]
	}
	return ""
}

func (l *jsLexer) next() string {
	t := l.peek()
	l.i++
	return t
}

func (l *jsLexer) expect(t string) error {
	if got := l.next(); got != t {
		return fmt.Errorf("expected %q, got %q", t, got)
	}
	return nil
}

// parseJSFunc parses an arrow function.
func parseJSFunc(src string) (*jsFunc, error) {
	toks, err := jsTokenize(src)
	if err != nil {
		return nil, err
	}
	l := &jsLexer{toks: toks}
	f := &jsFunc{}
	if l.peek() == "(" {
		l.next()
		for l.peek() != ")" {
			p := l.next()
			if p == "" {
				return nil, fmt.Errorf("unterminated parameter list in %q", src)
			}
			f.params = append(f.params, p)
			if l.peek() == "," {
				l.next()
			}
		}
		l.next()
	} else {
		f.params = []string{l.next()}
	}
	if err := l.expect("=>"); err != nil {
		return nil, fmt.Errorf("%v in %q", err, src)
	}
	if l.peek() == "{" {
		l.next()
		st, err := l.stmts()
		if err != nil {
			return nil, fmt.Errorf("%v in %q", err, src)
		}
		if err := l.expect("}"); err != nil {
			return nil, fmt.Errorf("%v in %q", err, src)
		}
		f.body = st
	} else {
		e, err := l.expr()
		if err != nil {
			return nil, fmt.Errorf("%v in %q", err, src)
		}
		f.body = &jsStmt{def: e}
	}
	if l.i != len(l.toks) {
		return nil, fmt.Errorf("unexpected %q in %q", l.peek(), src)
	}
	return f, nil
}

func (l *jsLexer) stmts() (*jsStmt, error) {
	st := &jsStmt{}
	for l.peek() != "}" && l.peek() != "" {
		switch l.peek() {
		case "if":
			l.next()
			if err := l.expect("("); err != nil {
				return nil, err
			}
			cond, err := l.expr()
			if err != nil {
				return nil, err
			}
			if err := l.expect(")"); err != nil {
				return nil, err
			}
			braced := l.peek() == "{"
			if braced {
				l.next()
			}
			if err := l.expect("return"); err != nil {
				return nil, err
			}
			ret, err := l.expr()
			if err != nil {
				return nil, err
			}
			if l.peek() == ";" {
				l.next()
			}
			if braced {
				if err := l.expect("}"); err != nil {
					return nil, err
				}
			}
			st.rules = append(st.rules, jsRule{cond: cond, ret: ret})
		case "return":
			l.next()
			e, err := l.expr()
			if err != nil {
				return nil, err
			}
			if l.peek() == ";" {
				l.next()
			}
			st.def = e
		default:
			return nil, fmt.Errorf("unsupported statement starting with %q", l.peek())
		}
	}
	if st.def == nil {
		st.def = &jsNode{op: "undefined"}
	}
	return st, nil
}

func (l *jsLexer) expr() (*jsNode, error) { return l.binary(0) }

var jsPrec = [][]string{{"??"}, {"||"}, {"&&"}, {"===", "!==", "==", "!="}, {">", "<", ">=", "<="}}

func (l *jsLexer) binary(level int) (*jsNode, error) {
	if level == len(jsPrec) {
		return l.unary()
	}
	x, err := l.binary(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		op := l.peek()
		ok := false
		for _, o := range jsPrec[level] {
			if op == o {
				ok = true
			}
		}
		if !ok {
			return x, nil
		}
		l.next()
		y, err := l.binary(level + 1)
		if err != nil {
			return nil, err
		}
		x = &jsNode{op: "binary", name: op, x: x, y: y}
	}
}

func (l *jsLexer) unary() (*jsNode, error) {
	switch l.peek() {
	case "!", "typeof":
		op := l.next()
		x, err := l.unary()
		if err != nil {
			return nil, err
		}
		return &jsNode{op: "unary", name: op, x: x}, nil
	}
	return l.postfix()
}

func (l *jsLexer) postfix() (*jsNode, error) {
	x, err := l.primary()
	if err != nil {
		return nil, err
	}
	for {
		switch l.peek() {
		case ".", "?.":
			l.next()
			if l.peek() == "(" {
				return nil, fmt.Errorf("optional call is not supported")
			}
			x = &jsNode{op: "member", name: l.next(), x: x}
		case "(":
			l.next()
			var args []*jsNode
			for l.peek() != ")" {
				a, err := l.expr()
				if err != nil {
					return nil, err
				}
				args = append(args, a)
				if l.peek() == "," {
					l.next()
				}
			}
			l.next()
			x = &jsNode{op: "call", x: x, args: args}
		default:
			return x, nil
		}
	}
}

func (l *jsLexer) primary() (*jsNode, error) {
	t := l.next()
	switch {
	case t == "(":
		x, err := l.expr()
		if err != nil {
			return nil, err
		}
		return x, l.expect(")")
	case t == "true" || t == "false":
		return &jsNode{op: "bool", b: t == "true"}, nil
	case t == "null":
		return &jsNode{op: "null"}, nil
	case t == "undefined":
		return &jsNode{op: "undefined"}, nil
	case strings.HasPrefix(t, "\x00"):
		return &jsNode{op: "str", str: t[1:]}, nil
	case t != "" && unicode.IsDigit(rune(t[0])):
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return nil, err
		}
		return &jsNode{op: "num", num: f}, nil
	case t != "" && (unicode.IsLetter(rune(t[0])) || t[0] == '_' || t[0] == '$'):
		return &jsNode{op: "ident", name: t}, nil
	}
	return nil, fmt.Errorf("unexpected %q", t)
}

// jsAtom is a predicate on one parameter at one path.
type jsAtom struct {
	param string
	path  string // "$" for the whole value
	m     toolcall.Matcher
}

// jsPred is a predicate tree over atoms.
type jsPred struct {
	op   string // atom, and, or, not, true, false
	atom jsAtom
	a, b *jsPred
}

// jsRef resolves an expression to (param, path) when it reads a parameter.
func jsRef(n *jsNode, params []string) (string, []string, bool) {
	switch n.op {
	case "ident":
		for _, p := range params {
			if p == n.name {
				return p, nil, true
			}
		}
	case "member":
		p, path, ok := jsRef(n.x, params)
		if ok {
			return p, append(append([]string(nil), path...), n.name), true
		}
	}
	return "", nil, false
}

func jsPathString(path []string) string {
	if len(path) == 0 {
		return "$"
	}
	var sb strings.Builder
	sb.WriteString("$")
	for _, p := range path {
		sb.WriteString(`["`)
		sb.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(p))
		sb.WriteString(`"]`)
	}
	return sb.String()
}

func jsLiteral(n *jsNode) (jsonv.Value, bool) {
	switch n.op {
	case "num":
		return jsonv.Number(n.num), true
	case "str":
		return jsonv.String(n.str), true
	case "bool":
		return jsonv.Bool(n.b), true
	case "null":
		return jsonv.Null(), true
	}
	return jsonv.Value{}, false
}

// jsTruthy is a matcher for JavaScript truthiness.
func jsTruthyMatcher() toolcall.Matcher {
	return toolcall.Not(toolcall.AnyOf(toolcall.Absent(), toolcall.IsNull(), toolcall.Equals(jsonv.Bool(false), false), toolcall.Equals(jsonv.Int(0), false), toolcall.Equals(jsonv.String(""), false)))
}

func atom(param string, path []string, m toolcall.Matcher) *jsPred {
	return &jsPred{op: "atom", atom: jsAtom{param: param, path: jsPathString(path), m: m}}
}

// jsToPred translates a boolean-valued expression into a predicate.
func jsToPred(n *jsNode, params []string) (*jsPred, error) {
	switch n.op {
	case "bool":
		if n.b {
			return &jsPred{op: "true"}, nil
		}
		return &jsPred{op: "false"}, nil
	case "ident", "member":
		if p, path, ok := jsRef(n, params); ok {
			return atom(p, path, jsTruthyMatcher()), nil
		}
	case "unary":
		if n.name == "!" {
			x, err := jsToPred(n.x, params)
			if err != nil {
				return nil, err
			}
			return &jsPred{op: "not", a: x}, nil
		}
	case "call":
		if n.x.op == "member" {
			method := n.x.name
			p, path, ok := jsRef(n.x.x, params)
			if ok && len(n.args) == 1 && n.args[0].op == "str" {
				s := n.args[0].str
				switch method {
				case "includes":
					return atom(p, path, toolcall.Contains(s)), nil
				case "startsWith":
					return atom(p, path, toolcall.HasPrefix(s)), nil
				case "endsWith":
					return atom(p, path, toolcall.HasSuffix(s)), nil
				}
			}
		}
	case "binary":
		switch n.name {
		case "&&", "||":
			x, err := jsToPred(n.x, params)
			if err != nil {
				return nil, err
			}
			y, err := jsToPred(n.y, params)
			if err != nil {
				return nil, err
			}
			op := "and"
			if n.name == "||" {
				op = "or"
			}
			return &jsPred{op: op, a: x, b: y}, nil
		case "??":
			// X ?? false: an undefined X is false, which the matchers already give.
			if lit, ok := jsLiteral(n.y); ok && lit.Kind() == jsonv.KindBool && !lit.BoolValue() {
				return jsToPred(n.x, params)
			}
		case "===", "!==", "==", "!=", ">", "<", ">=", "<=":
			return jsCompare(n, params)
		}
	}
	return nil, fmt.Errorf("unsupported expression (%s %s)", n.op, n.name)
}

func jsCompare(n *jsNode, params []string) (*jsPred, error) {
	op := n.name
	ref, lit := n.x, n.y
	isTypeof := func(x *jsNode) bool { return x.op == "unary" && x.name == "typeof" }
	if _, _, ok := jsRef(ref, params); !ok && !isTypeof(ref) {
		ref, lit = n.y, n.x
		op = map[string]string{">": "<", "<": ">", ">=": "<=", "<=": ">="}[op]
		if op == "" {
			op = n.name
		}
	}
	// typeof x === "type"
	if ref.op == "unary" && ref.name == "typeof" {
		if p, path, ok := jsRef(ref.x, params); ok && lit.op == "str" {
			var m toolcall.Matcher
			switch lit.str {
			case "undefined":
				m = toolcall.Absent()
			case "object":
				m = toolcall.OfType("object", "array", "null")
			default:
				m = toolcall.OfType(lit.str)
			}
			if op == "!==" || op == "!=" {
				m = toolcall.Not(m)
			}
			return atom(p, path, m), nil
		}
	}
	p, path, ok := jsRef(ref, params)
	v, isLit := jsLiteral(lit)
	if !ok || !isLit {
		return nil, fmt.Errorf("unsupported comparison %s (compares two parameters or non-literals)", n.name)
	}
	var m toolcall.Matcher
	switch op {
	case "===", "==":
		m = toolcall.Equals(v, false)
	case "!==", "!=":
		m = toolcall.Not(toolcall.Equals(v, false))
	case ">":
		m = toolcall.InRange(toolcall.RangeBounds{GT: ptrF(v.NumberValue())})
	case "<":
		m = toolcall.InRange(toolcall.RangeBounds{LT: ptrF(v.NumberValue())})
	case ">=":
		m = toolcall.InRange(toolcall.RangeBounds{GTE: ptrF(v.NumberValue())})
	case "<=":
		m = toolcall.InRange(toolcall.RangeBounds{LTE: ptrF(v.NumberValue())})
	}
	return atom(p, path, m), nil
}

func ptrF(f float64) *float64 { return &f }

// predMatcherOn turns a predicate over one parameter's single path into a
// matcher at that path.
func predMatcherOn(pr *jsPred) (path string, m toolcall.Matcher, err error) {
	switch pr.op {
	case "true":
		return "", toolcall.Any(), nil
	case "false":
		return "", toolcall.Not(toolcall.Any()), nil
	case "atom":
		return pr.atom.path, pr.atom.m, nil
	case "not":
		p, m, err := predMatcherOn(pr.a)
		return p, toolcall.Not(m), err
	case "and", "or":
		pa, ma, err := predMatcherOn(pr.a)
		if err != nil {
			return "", nil, err
		}
		pb, mb, err := predMatcherOn(pr.b)
		if err != nil {
			return "", nil, err
		}
		if pa != "" && pb != "" && pa != pb {
			return "", nil, fmt.Errorf("%s across different paths (%s, %s) is not expressible", pr.op, pa, pb)
		}
		if pa == "" {
			pa = pb
		}
		if pr.op == "and" {
			return pa, toolcall.AllOf(ma, mb), nil
		}
		return pa, toolcall.AnyOf(ma, mb), nil
	}
	return "", nil, fmt.Errorf("unsupported predicate %s", pr.op)
}

// conjuncts splits a predicate into its top-level AND terms.
func conjuncts(pr *jsPred) []*jsPred {
	if pr.op == "and" {
		return append(conjuncts(pr.a), conjuncts(pr.b)...)
	}
	if pr.op == "true" {
		return nil
	}
	return []*jsPred{pr}
}

func predParams(pr *jsPred, into map[string]bool) {
	switch pr.op {
	case "atom":
		into[pr.atom.param] = true
	case "not":
		predParams(pr.a, into)
	case "and", "or":
		predParams(pr.a, into)
		predParams(pr.b, into)
	}
}

// predToPathMap turns a predicate over one parameter into {path: matcher}.
func predToPathMap(pr *jsPred) (map[string]any, error) {
	out := map[string]any{}
	for _, c := range conjuncts(pr) {
		path, m, err := predMatcherOn(c)
		if err != nil {
			return nil, err
		}
		if path == "" {
			path = "$"
		}
		if prev, ok := out[path]; ok {
			m = toolcall.AllOf(prev.(toolcall.Matcher), m)
		}
		out[path] = m
	}
	return out, nil
}

// jsPredicateMatcher translates a one-parameter predicate (x) => bool into a
// matcher on the value itself (nil for a predicate that is always true).
func jsPredicateMatcher(src string) (toolcall.Matcher, error) {
	f, err := parseJSFunc(src)
	if err != nil {
		return nil, err
	}
	if len(f.body.rules) > 0 {
		return nil, fmt.Errorf("if statements are not supported in a predicate: %q", src)
	}
	if len(f.params) == 0 {
		if lit, ok := jsLiteral(f.body.def); ok && lit.Kind() == jsonv.KindBool && lit.BoolValue() {
			return nil, nil
		}
		return nil, fmt.Errorf("unsupported predicate %q", src)
	}
	pr, err := jsToPred(f.body.def, f.params[:1])
	if err != nil {
		return nil, fmt.Errorf("%v in %q", err, src)
	}
	if pr.op == "true" {
		return nil, nil
	}
	path, m, err := predMatcherOn(pr)
	if err != nil {
		return nil, fmt.Errorf("%v in %q", err, src)
	}
	if path != "" && path != "$" {
		return nil, fmt.Errorf("predicate reads a member of its argument: %q", src)
	}
	return m, nil
}

// jsComparatorSpec translates an agentevals comparator (x, y) => bool into
// the comparator override {when_reference: ..., actual: ...}: the form
// `if (P(y)) return Q(x); return true` or a bare `Q(x)`.
func jsComparatorSpec(src string) (map[string]any, error) {
	f, err := parseJSFunc(src)
	if err != nil {
		return nil, err
	}
	if len(f.params) != 2 {
		return nil, fmt.Errorf("a comparator takes two parameters: %q", src)
	}
	first, second := f.params[:1], f.params[1:]
	spec := map[string]any{}
	var cond, ret *jsNode
	switch {
	case len(f.body.rules) == 0:
		ret = f.body.def
	case len(f.body.rules) == 1:
		if lit, ok := jsLiteral(f.body.def); !ok || lit.Kind() != jsonv.KindBool || !lit.BoolValue() {
			return nil, fmt.Errorf("comparator must end in `return true`: %q", src)
		}
		cond, ret = f.body.rules[0].cond, f.body.rules[0].ret
	default:
		return nil, fmt.Errorf("comparator with several if statements: %q", src)
	}
	if cond != nil {
		pc, err := jsToPred(cond, second)
		if err != nil {
			return nil, fmt.Errorf("condition: %v in %q", err, src)
		}
		when, err := predToPathMap(pc)
		if err != nil {
			return nil, fmt.Errorf("condition: %v in %q", err, src)
		}
		spec["when_reference"] = when
	}
	pr, err := jsToPred(ret, first)
	if err != nil {
		return nil, fmt.Errorf("result: %v in %q", err, src)
	}
	ps := map[string]bool{}
	predParams(pr, ps)
	if len(ps) > 1 {
		return nil, fmt.Errorf("result compares both arguments: %q", src)
	}
	actual, err := predToPathMap(pr)
	if err != nil {
		return nil, fmt.Errorf("result: %v in %q", err, src)
	}
	spec["actual"] = actual
	return spec, nil
}
