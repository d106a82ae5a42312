package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// ArgumentSchema is a compiled JSON Schema of a tool's parameters.
//
// Schemas are compiled with github.com/santhosh-tekuri/jsonschema/v6 (drafts
// 4 to 2020-12, the draft a schema names or 2020-12; formats asserted).
// References must stay inside the schema: nothing is loaded from files or
// the network, since recorded schemas come from untrusted spans.
type ArgumentSchema struct {
	schema *jsonschema.Schema
	// fast proves the common valid arguments valid without the library;
	// nil when the schema has a shape it does not handle.
	fast *fastSchema
}

// MaxSchemaBytes bounds the JSON text of one schema.
const MaxSchemaBytes = 256 << 10

// maxViolations bounds the violations reported for one call.
const maxViolations = 8

// refuseLoader loads nothing: a $ref outside the schema fails to compile.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema reference %q is outside the schema; nothing is loaded", url)
}

const schemaURL = "mem:///parameters.json"

// CompileArgumentSchema compiles a parameters schema.
func CompileArgumentSchema(schema jsonv.Value) (*ArgumentSchema, error) {
	text := schema.JSON()
	if len(text) > MaxSchemaBytes {
		return nil, fmt.Errorf("schema of %d bytes is over the %d-byte limit", len(text), MaxSchemaBytes)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("schema does not compile: %s", strings.ReplaceAll(err.Error(), schemaURL, "parameters"))
	}
	fast, _ := compileFast(&schema)
	return &ArgumentSchema{schema: sch, fast: fast}, nil
}

var englishPrinter = message.NewPrinter(language.English)

// Violations validates arguments against the schema and returns what breaks
// it, one line per violated keyword at the deepest location, as
// "/path: message" (at most maxViolations, sorted); nil when they conform.
func (s *ArgumentSchema) Violations(args jsonv.Value) []string {
	if s.fast != nil && s.fast.valid(&args) {
		return nil
	}
	return s.slowViolations(args)
}

// slowViolations is Violations by the library alone.
func (s *ArgumentSchema) slowViolations(args jsonv.Value) []string {
	inst, ok := schemaInstance(&args, 0)
	if !ok {
		// What the JSON text path reports (undefined arguments, nesting
		// past the decoder's limit).
		var err error
		if inst, err = jsonschema.UnmarshalJSON(strings.NewReader(args.JSON())); err != nil {
			return []string{"arguments: " + err.Error()}
		}
	}
	return s.violationsOf(inst)
}

// violationsOf validates a decoded instance (see Violations).
func (s *ArgumentSchema) violationsOf(inst any) []string {
	err := s.schema.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{err.Error()}
	}
	var out []string
	collectViolations(ve, &out)
	sort.Strings(out)
	out = compactStrings(out)
	if len(out) > maxViolations {
		out = append(out[:maxViolations], fmt.Sprintf("and %d more", len(out)-maxViolations))
	}
	return out
}

// maxInstanceDepth bounds the nesting schemaInstance converts; deeper values
// take the JSON text path, whose decoder reports its own limit (10,000).
const maxInstanceDepth = 1000

// schemaInstance converts v into exactly what jsonschema.UnmarshalJSON makes
// of v.JSON(), without writing and decoding the text: objects as
// map[string]any (undefined members left out, a later duplicate key
// winning), arrays as []any (undefined items as nil), numbers as the
// json.Number of their JSON text (NaN and infinities, written as null, as
// nil), strings with each invalid UTF-8 byte replaced by U+FFFD as
// encoding/json decodes them. ok is false for a value the text path would
// not decode (undefined at the top) or that is nested past
// maxInstanceDepth.
func schemaInstance(v *jsonv.Value, depth int) (inst any, ok bool) {
	switch v.Kind() {
	case jsonv.KindNull:
		return nil, true
	case jsonv.KindBool:
		return v.BoolValue(), true
	case jsonv.KindNumber:
		return jsonNumber(v), true
	case jsonv.KindString:
		return decodedString(v.Literal()), true
	case jsonv.KindArray:
		if depth >= maxInstanceDepth {
			return nil, false
		}
		out := make([]any, len(v.Items()))
		for i := range v.Items() {
			if v.Items()[i].Kind() == jsonv.KindUndefined {
				continue // written as null
			}
			if out[i], ok = schemaInstance(&v.Items()[i], depth+1); !ok {
				return nil, false
			}
		}
		return out, true
	case jsonv.KindObject:
		if depth >= maxInstanceDepth {
			return nil, false
		}
		out := make(map[string]any, len(v.Items())/2)
		for i := 0; i < len(v.Items()); i += 2 {
			m := &v.Items()[i+1]
			if m.Kind() == jsonv.KindUndefined {
				continue // left out of the text
			}
			if out[decodedString(v.Items()[i].Literal())], ok = schemaInstance(m, depth+1); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

// jsonNumber returns a number as encoding/json decodes its JSON text with
// UseNumber: the json.Number of the text, nil when the text is null.
func jsonNumber(v *jsonv.Value) any {
	if math.IsNaN(v.NumberValue()) || math.IsInf(v.NumberValue(), 0) {
		return nil
	}
	var buf [32]byte
	text := jsonv.AppendJSNumber(buf[:0], v.NumberValue())
	if string(text) == v.Literal() {
		return json.Number(v.Literal()) // the literal as written, no copy
	}
	return json.Number(text)
}

// decodedString returns s as encoding/json decodes its JSON string: each
// byte that is not part of valid UTF-8 becomes U+FFFD.
func decodedString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		i += size
	}
	return b.String()
}

// collectViolations gathers the leaves of a validation error tree.
func collectViolations(e *jsonschema.ValidationError, out *[]string) {
	if len(*out) > 4*maxViolations {
		return
	}
	if len(e.Causes) == 0 {
		if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
			// Gathered from a map by the library: in order, so that a
			// run is explained the same way every time.
			slices.Sort(ap.Properties)
		}
		*out = append(*out, "/"+strings.Join(e.InstanceLocation, "/")+": "+e.ErrorKind.LocalizedString(englishPrinter))
		return
	}
	for _, c := range e.Causes {
		collectViolations(c, out)
	}
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// schemaCache holds compiled schemas by their JSON text, so that a schema
// recorded on every run is compiled once. It is bounded: when full it is
// emptied.
var schemaCache = struct {
	sync.Mutex
	byText map[string]schemaEntry
}{byText: map[string]schemaEntry{}}

type schemaEntry struct {
	schema *ArgumentSchema
	err    error
}

const maxCachedSchemas = 512

// CachedArgumentSchema compiles a schema, or returns it compiled before.
func CachedArgumentSchema(schema jsonv.Value) (*ArgumentSchema, error) {
	text := schema.JSON()
	schemaCache.Lock()
	e, ok := schemaCache.byText[text]
	schemaCache.Unlock()
	if ok {
		return e.schema, e.err
	}
	sch, err := CompileArgumentSchema(schema)
	schemaCache.Lock()
	if len(schemaCache.byText) >= maxCachedSchemas {
		clear(schemaCache.byText)
	}
	schemaCache.byText[text] = schemaEntry{schema: sch, err: err}
	schemaCache.Unlock()
	return sch, err
}
