package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commandFlags lists the flags of each toolscore command, as -h prints them.
func commandFlags(t *testing.T) map[string][]string {
	t.Helper()
	flagLine := regexp.MustCompile(`(?m)^  -([a-z][a-z-]*)`)
	out := map[string][]string{}
	for _, cmd := range []string{"score", "report", "send", "load", "judge-standin"} {
		code, _, help := toolscore(t, cmd, "-h")
		require.Equal(t, exitOK, code, cmd)
		for _, m := range flagLine.FindAllStringSubmatch(help, -1) {
			out[cmd] = append(out[cmd], m[1])
		}
		require.NotEmpty(t, out[cmd], cmd)
	}
	return out
}

// TestREADMEFlags: README names every flag of every toolscore command, and
// every flag it gives a toolscore command is one of that command's.
func TestREADMEFlags(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	text := string(data)
	flags := commandFlags(t)
	for cmd, names := range flags {
		for _, name := range names {
			named := regexp.MustCompile(`(^|[\s` + "`" + `(])-` + regexp.QuoteMeta(name) + `\b`).MatchString(text)
			assert.True(t, named, "README.md does not name toolscore %s's -%s", cmd, name)
		}
	}
	use := regexp.MustCompile(`toolscore (score|report|send|load|judge-standin)\b([^#|\n]*)`)
	given := regexp.MustCompile(`(?:^|\s)-([a-z][a-z-]*)`)
	n := 0
	for _, m := range use.FindAllStringSubmatch(text, -1) {
		for _, f := range given.FindAllStringSubmatch(m[2], -1) {
			n++
			assert.Contains(t, flags[m[1]], f[1], "README.md gives toolscore %s a flag it does not have: -%s (in %q)", m[1], f[1], strings.TrimSpace(m[0]))
		}
	}
	assert.Greater(t, n, 10)
}

// TestREADMECallsExample: README's -calls example is what toolscore prints
// for the capture it names, line for line (it lacked the "seen by …" suffix
// every call has).
func TestREADMECallsExample(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	text := string(data)
	i := strings.Index(text, "\nCalls of each run:\n")
	require.GreaterOrEqual(t, i, 0, "README.md has no -calls example")
	example := text[i+1:]
	example = example[:strings.Index(example, "```")]
	_, out, _ := toolscore(t, "score", "-calls", "-no-judges", "-config", demoConfig, demoTrace("langchain-openinference-mock"))
	lines := strings.Split(strings.TrimSpace(example), "\n")
	require.Len(t, lines, 4)
	for _, line := range lines {
		assert.Contains(t, out, line+"\n", "README's -calls example line is not what toolscore prints")
	}
}
