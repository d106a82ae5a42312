// Package toolcalltest builds calls and expectations from JSON text for the
// tests of the packages that score them (toolcall's own tests keep copies,
// since they cannot import this package).
package toolcalltest // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall/toolcalltest"

import (
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// Call builds an actual call with JSON arguments ("" means no arguments).
func Call(name, args string) toolcall.Call {
	c := toolcall.Call{Name: name}
	if args != "" {
		c.Args = MustParse(args)
	}
	return c
}

// Want builds an expected call with literal JSON arguments ("" means none).
func Want(name, args string) toolcall.ExpectedCall {
	e := toolcall.ExpectedCall{Name: name}
	if args != "" {
		e.Args = MustParse(args)
	}
	return e
}

// MustParse parses JSON text, panicking on invalid input.
func MustParse(s string) jsonv.Value {
	v, err := jsonv.Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

// Optional marks an expected call optional.
func Optional(e toolcall.ExpectedCall) toolcall.ExpectedCall { e.Optional = true; return e }

// WithMatcher adds the matcher of spec (its configuration form) at path.
func WithMatcher(e toolcall.ExpectedCall, path string, spec any) toolcall.ExpectedCall {
	m, err := toolcall.ParseMatcher(spec, toolcall.MatcherOptions{})
	if err != nil {
		panic(err)
	}
	e.Matchers = append(e.Matchers, toolcall.PathMatcher{Path: path, Matcher: m})
	return e
}
