package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestConfigErrorsNameTheLine: a misspelt key was reported as
// "processor configuration: decoding failed ... 'rules[0].expect.calls[0]'
// has invalid keys: must_succed", naming neither the rule nor the line; a
// YAML indentation slip on line 7 was reported on line 4, where the mapping
// around it began.
func TestConfigErrorsNameTheLine(t *testing.T) {
	allok := demoTrace("adk-go-mock-allok")
	for _, tt := range []struct{ file, err string }{
		{"testdata/unknown-key.yaml", `testdata/unknown-key.yaml:7: rules[0]: rule "weather": expect.calls[0] has invalid keys: must_succed`},
		{"testdata/yaml-indent.yaml", `testdata/yaml-indent.yaml:7: not valid YAML: the indentation matches no enclosing level (the parser: did not find expected key at line 4)`},
	} {
		code, out, errOut := toolscore(t, "score", "-config", tt.file, allok)
		assert.Equal(t, exitFailure, code, out)
		assert.Equal(t, "toolscore score: "+tt.err+"\n", errOut)
	}
}

func TestIndentationSlip(t *testing.T) {
	for _, tt := range []struct {
		text string
		line int
	}{
		{"a:\n  b: 1\n  c: 2\n", 0},
		{"a:\n  - x: 1\n    y: 2\n  - x: 3\n", 0},
		{"a:\n    b: 1\n  c: 2\n", 3},
		{"a:\n  - x: 1\n   y: 2\n", 3},
		{"# c\n\na:\n  b: |\n    text\n      more\n    end\n  c: 1\n", 0},
	} {
		assert.Equal(t, tt.line, indentationSlip([]byte(tt.text)), tt.text)
	}
}
