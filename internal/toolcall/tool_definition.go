package toolcall

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
)

// ToolDefinition is a tool the model was offered: its name, description and
// the JSON Schema of its parameters (undefined when none was recorded).
type ToolDefinition struct {
	Name        string
	Description string
	// EmptyDescription reports a description given as "" (Description ""
	// otherwise means none was given; Mastra's judge prompt tells them
	// apart).
	EmptyDescription bool
	// Parameters is the parameters' JSON Schema, usually an object schema.
	Parameters jsonv.Value
	// Schema is Parameters compiled, when the caller compiled it (a
	// processor that reads the same definitions on every run compiles
	// them once); nil leaves compiling to the checks, which cache it.
	Schema *ArgumentSchema
}

// MaxToolDefinitions bounds the definitions read from one list; more are
// ignored and ParseToolDefinitions says so.
const MaxToolDefinitions = 512

// ErrTooManyDefinitions reports a list with more than MaxToolDefinitions
// entries; the first MaxToolDefinitions are returned with it.
var ErrTooManyDefinitions = fmt.Errorf("more than %d tool definitions", MaxToolDefinitions)

// ParseToolDefinitions reads the tool definitions a model was offered, in
// the shapes instrumentations record them:
//
//   - OTel GenAI gen_ai.tool.definitions: [{"type":"function","name":…,
//     "description":…,"parameters":{…}}];
//   - OpenAI chat tools: [{"type":"function","function":{"name":…,
//     "parameters":{…}}}] (OpenInference llm.tools.N.tool.json_schema
//     holds one such item, OpenLLMetry llm.request.functions the inner
//     object);
//   - AI SDK ai.prompt.tools: a list of JSON texts, each {"type":"function",
//     "name":…,"inputSchema"|"parameters":{…}};
//   - Anthropic {"name":…,"input_schema":{…}}; Bedrock {"toolSpec":{"name":…,
//     "inputSchema":{"json":{…}}}}; Gemini {"function_declarations":[…]};
//   - a list of names.
//
// A single object is one definition; an object with "tools" lists them.
// Entries with no name are skipped; what cannot be read is returned as an
// error beside the definitions that could.
func ParseToolDefinitions(text string) ([]ToolDefinition, error) {
	v, err := jsonv.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("tool definitions: %w", err)
	}
	var defs []ToolDefinition
	var errs []error
	collectDefinitions(v, &defs, &errs, 0)
	if len(defs) > MaxToolDefinitions {
		defs = defs[:MaxToolDefinitions]
		errs = append(errs, ErrTooManyDefinitions)
	}
	return defs, errors.Join(errs...)
}

// DefinitionFromValue reads one definition (any shape ParseToolDefinitions
// accepts for an item); ok is false when it names no tool.
func DefinitionFromValue(v jsonv.Value) (ToolDefinition, bool) {
	if v.Kind() == jsonv.KindString {
		return ToolDefinition{Name: v.StringValue()}, v.StringValue() != ""
	}
	if v.Kind() != jsonv.KindObject {
		return ToolDefinition{}, false
	}
	for _, wrapper := range []string{"function", "toolSpec"} {
		if inner, ok := v.Get(wrapper); ok && inner.Kind() == jsonv.KindObject {
			v = inner
			break
		}
	}
	name, _ := v.Get("name")
	if name.Kind() != jsonv.KindString || name.StringValue() == "" {
		return ToolDefinition{}, false
	}
	d := ToolDefinition{Name: name.StringValue()}
	if desc, ok := v.Get("description"); ok && desc.Kind() == jsonv.KindString {
		d.Description = desc.StringValue()
		d.EmptyDescription = d.Description == ""
	}
	for _, key := range []string{"parameters", "inputSchema", "input_schema", "parametersJsonSchema", "parameters_json_schema"} {
		p, ok := v.Get(key)
		if !ok {
			continue
		}
		if p.Kind() == jsonv.KindString { // a schema recorded as JSON text
			if parsed, err := jsonv.Parse(p.StringValue()); err == nil {
				p = parsed
			}
		}
		if j, ok := p.Get("json"); ok && p.Kind() == jsonv.KindObject && p.Len() == 1 { // Bedrock
			p = j
		}
		if p.Kind() == jsonv.KindObject {
			d.Parameters = lowerSchemaTypes(p, 0)
		}
		break
	}
	return d, true
}

// collectDefinitions walks a definitions value: lists, JSON texts of items,
// {"tools": […]} and Gemini's {"function_declarations": […]} wrappers.
func collectDefinitions(v jsonv.Value, defs *[]ToolDefinition, errs *[]error, depth int) {
	if depth > 4 || len(*defs) > MaxToolDefinitions {
		return
	}
	switch v.Kind() {
	case jsonv.KindArray:
		for i := 0; i < v.Len(); i++ {
			item := v.Index(i)
			if item.Kind() == jsonv.KindString {
				if parsed, err := jsonv.Parse(item.StringValue()); err == nil && (parsed.Kind() == jsonv.KindObject || parsed.Kind() == jsonv.KindArray) {
					collectDefinitions(parsed, defs, errs, depth+1)
					continue
				}
			}
			collectDefinitions(item, defs, errs, depth+1)
		}
	case jsonv.KindObject:
		for _, key := range []string{"tools", "function_declarations", "functionDeclarations"} {
			if list, ok := v.Get(key); ok && list.Kind() == jsonv.KindArray {
				collectDefinitions(list, defs, errs, depth+1)
				return
			}
		}
		if cfg, ok := v.Get("config"); ok && cfg.Kind() == jsonv.KindObject {
			// An ADK / Gemini request: {"model", "config": {"tools": […]}, "contents"}.
			if list, ok := cfg.Get("tools"); ok {
				collectDefinitions(list, defs, errs, depth+1)
			}
			return
		}
		if d, ok := DefinitionFromValue(v); ok {
			*defs = append(*defs, d)
		} else {
			*errs = append(*errs, fmt.Errorf("tool definition without a name: %.80s", v.JSON()))
		}
	case jsonv.KindString:
		if d, ok := DefinitionFromValue(v); ok {
			*defs = append(*defs, d)
		}
	default:
		*errs = append(*errs, fmt.Errorf("tool definitions: unexpected %s", v.Kind()))
	}
}

// ToolDefinitions are the tools a run was offered, one per name: a later
// definition of a name already held is dropped (definitions repeat on every
// model call of a run).
type ToolDefinitions struct {
	list   []ToolDefinition
	byName map[string]int
}

// Add adds definitions whose names are new; it reports how many were added.
func (t *ToolDefinitions) Add(defs ...ToolDefinition) int {
	added := 0
	for _, d := range defs {
		if d.Name == "" || len(t.list) >= MaxToolDefinitions {
			continue
		}
		if t.byName == nil {
			t.byName = make(map[string]int)
		}
		if _, dup := t.byName[d.Name]; dup {
			continue
		}
		t.byName[d.Name] = len(t.list)
		t.list = append(t.list, d)
		added++
	}
	return added
}

// Clone returns a copy that can be added to without changing t.
func (t *ToolDefinitions) Clone() ToolDefinitions {
	return ToolDefinitions{list: slices.Clone(t.list), byName: maps.Clone(t.byName)}
}

// Get returns the definition of a tool.
func (t *ToolDefinitions) Get(name string) (ToolDefinition, bool) {
	if d := t.find(name); d != nil {
		return *d, true
	}
	return ToolDefinition{}, false
}

// maxScannedDefinitions is the number of definitions up to which find
// compares names in turn rather than hashing: the list holds each name
// once, so the first equal name is the one byName indexes.
const maxScannedDefinitions = 8

// find returns the definition of a tool, nil when it has none.
func (t *ToolDefinitions) find(name string) *ToolDefinition {
	if len(t.list) <= maxScannedDefinitions {
		for i := range t.list {
			if t.list[i].Name == name {
				return &t.list[i]
			}
		}
		return nil
	}
	if i, ok := t.byName[name]; ok {
		return &t.list[i]
	}
	return nil
}

// Len returns how many tools are defined.
func (t *ToolDefinitions) Len() int { return len(t.list) }

// All returns the definitions in the order they were added.
func (t *ToolDefinitions) All() []ToolDefinition { return t.list }

// lowerSchemaTypes rewrites Gemini's upper-case schema types ("OBJECT",
// "STRING", as ADK and the Gemini API record function declarations) to the
// JSON Schema names, at every level; other schemas are returned unchanged.
func lowerSchemaTypes(v jsonv.Value, depth int) jsonv.Value {
	if depth > 64 || !hasUpperType(v, depth) {
		return v
	}
	switch v.Kind() {
	case jsonv.KindObject:
		members := make([]jsonv.Member, 0, v.Len())
		for i := 0; i < v.Len(); i++ {
			k, m := v.MemberAt(i)
			if k == "type" && m.Kind() == jsonv.KindString {
				m = jsonv.String(strings.ToLower(m.StringValue()))
			} else {
				m = lowerSchemaTypes(m, depth+1)
			}
			members = append(members, jsonv.Member{Key: k, Value: m})
		}
		return jsonv.Object(members...)
	case jsonv.KindArray:
		items := make([]jsonv.Value, v.Len())
		for i := range items {
			items[i] = lowerSchemaTypes(v.Index(i), depth+1)
		}
		return jsonv.Array(items...)
	}
	return v
}

// hasUpperType reports a "type" written in upper case anywhere in v.
func hasUpperType(v jsonv.Value, depth int) bool {
	if depth > 64 {
		return false
	}
	switch v.Kind() {
	case jsonv.KindObject:
		for i := 0; i < v.Len(); i++ {
			k, m := v.MemberAt(i)
			if k == "type" && m.Kind() == jsonv.KindString && m.StringValue() != "" && m.StringValue() == strings.ToUpper(m.StringValue()) && m.StringValue() != strings.ToLower(m.StringValue()) {
				return true
			}
			if hasUpperType(m, depth+1) {
				return true
			}
		}
	case jsonv.KindArray:
		for i := 0; i < v.Len(); i++ {
			if hasUpperType(v.Index(i), depth+1) {
				return true
			}
		}
	}
	return false
}
