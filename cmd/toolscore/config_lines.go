package main

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Errors in a configuration file name the file and the line, as input errors
// do: a YAML slip by the line where the indentation goes wrong (the parser
// names the line where the enclosing mapping began), a decoding error (a
// misspelt key, a value of the wrong type) by the line of its key.

// checkYAML reports a file that is not valid YAML by the line to look at.
func checkYAML(path string, data []byte) error {
	var v any
	err := yaml.Unmarshal(data, &v)
	if err == nil {
		return nil
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = strings.TrimPrefix(msg, m[0])
	}
	if slip := indentationSlip(data); slip > 0 && slip >= line {
		return locatedf("%s:%d: not valid YAML: the indentation matches no enclosing level (the parser: %s at line %d)", path, slip, msg, line)
	}
	if line > 0 {
		return locatedf("%s:%d: not valid YAML: %s", path, line, msg)
	}
	return locatedf("%s: not valid YAML: %s", path, msg)
}

// locatedError is an error that names its file and line: it is reported as
// it is, without the resolver's wrapping.
type locatedError struct{ msg string }

func (e *locatedError) Error() string { return e.msg }

func locatedf(format string, args ...any) error {
	return &locatedError{fmt.Sprintf(format, args...)}
}

// locateDecodeError rewrites the processor's decoding error (one problem a
// line, each "'rules[0]' rule "weather": expect.calls[0] has invalid keys:
// arg" or "... expected type ...") to name the file and line of the key at
// fault, found after the rule's name in the first file that has it; a
// problem whose key is not found keeps its text.
func locateDecodeError(files []string, where string, err error) error {
	text := strings.TrimPrefix(err.Error(), "decoding failed due to the following error(s):\n\n")
	texts := make([][]string, len(files))
	for i, f := range files {
		if data, err := os.ReadFile(f); err == nil {
			texts[i] = strings.Split(string(data), "\n")
		}
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		line = quotedField.ReplaceAllString(line, "$1: ")
		loc := where
		if rule, key := faultKey(line); key != "" {
			for i, lines := range texts {
				if n := keyLine(lines, rule, key); n > 0 {
					loc = fmt.Sprintf("%s:%d", files[i], n)
					break
				}
			}
		}
		if loc == where {
			loc = strings.Join(files, " + ") + ": " + where
		}
		out = append(out, loc+": "+line)
	}
	return &locatedError{strings.Join(out, "\n")}
}

// quotedField is the field the decoder quotes at the start of a problem.
var quotedField = regexp.MustCompile(`^'([^']*)' `)

var (
	ruleName    = regexp.MustCompile(`rule "([^"]*)": `)
	invalidKeys = regexp.MustCompile(`has invalid keys: ([^,\s]+)`)
	typedField  = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)(\[\d+\])? expected type `)
)

// faultKey returns the rule a problem names and the key at fault.
func faultKey(problem string) (rule, key string) {
	if m := ruleName.FindStringSubmatch(problem); m != nil {
		rule = m[1]
	}
	if m := invalidKeys.FindStringSubmatch(problem); m != nil {
		return rule, m[1]
	}
	if m := typedField.FindStringSubmatch(problem); m != nil {
		return rule, m[1]
	}
	return rule, ""
}

// keyLine returns the 1-based line where key is written as a key, after the
// line naming rule when rule is given, or 0.
func keyLine(lines []string, rule, key string) int {
	start := 0
	if rule != "" {
		start = -1
		name := regexp.MustCompile(`(^|[\s{,-])name:\s*["']?` + regexp.QuoteMeta(rule) + `["']?\s*($|[,}#])`)
		for i, l := range lines {
			if name.MatchString(l) {
				start = i
				break
			}
		}
		if start < 0 {
			return 0
		}
	}
	asKey := regexp.MustCompile(`(^|[\s{,-])` + regexp.QuoteMeta(key) + `\s*:`)
	for i := start; i < len(lines); i++ {
		if asKey.MatchString(lines[i]) {
			return i + 1
		}
	}
	return 0
}

var yamlLine = regexp.MustCompile(`^line (\d+): `)

// indentationSlip returns the first line (1-based) that goes back to an
// indentation no earlier line opened, or 0: in block YAML a line less
// indented than the one before it must line up with an enclosing level.
func indentationSlip(data []byte) int {
	var levels []int // the indentations open, innermost last
	for i, line := range strings.Split(string(data), "\n") {
		body := strings.TrimLeft(line, " ")
		if body == "" || body[0] == '#' {
			continue
		}
		indent := len(line) - len(body)
		popped := false
		for len(levels) > 0 && levels[len(levels)-1] > indent {
			levels, popped = levels[:len(levels)-1], true
		}
		if popped && (len(levels) == 0 || levels[len(levels)-1] != indent) {
			return i + 1
		}
		if len(levels) == 0 || levels[len(levels)-1] < indent {
			levels = append(levels, indent)
		}
		// A list item's content is a level of its own: "- name: x" opens
		// the level of "name".
		for rest := body; strings.HasPrefix(rest, "- "); {
			trimmed := strings.TrimLeft(rest[2:], " ")
			indent += len(rest) - len(trimmed)
			levels = append(levels, indent)
			rest = trimmed
		}
	}
	return 0
}
