package scoring

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// ArgumentSchema is a compiled JSON Schema of a tool's parameters.
//
// Schemas are compiled with github.com/santhosh-tekuri/jsonschema/v6 (drafts
// 4 to 2020-12, the draft a schema names or 2020-12; formats asserted).
// References must stay inside the schema: nothing is loaded from files or
// the network, since recorded schemas come from untrusted spans.
type ArgumentSchema struct {
	schema *jsonschema.Schema
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
func CompileArgumentSchema(schema Value) (*ArgumentSchema, error) {
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
	return &ArgumentSchema{schema: sch}, nil
}

var englishPrinter = message.NewPrinter(language.English)

// Violations validates arguments against the schema and returns what breaks
// it, one line per violated keyword at the deepest location, as
// "/path: message" (at most maxViolations, sorted); nil when they conform.
func (s *ArgumentSchema) Violations(args Value) []string {
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(args.JSON()))
	if err != nil {
		return []string{"arguments: " + err.Error()}
	}
	err = s.schema.Validate(inst)
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

// collectViolations gathers the leaves of a validation error tree.
func collectViolations(e *jsonschema.ValidationError, out *[]string) {
	if len(*out) > 4*maxViolations {
		return
	}
	if len(e.Causes) == 0 {
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
func CachedArgumentSchema(schema Value) (*ArgumentSchema, error) {
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
