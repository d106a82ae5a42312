package toolcallaccuracyprocessor

import (
	"sync"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// maxCachedDefinitions bounds definitionsCache. Each key is a definitions
// text of at most limits.max_context_bytes, so the cache keeps at most that
// many times the cap (4 MiB at the 16 KiB default) besides what it read.
const maxCachedDefinitions = 256

// definitionsCache keeps the tool definitions read from a recorded text, by
// the text: an agent offers its model the same definitions on every run, so
// each distinct text is parsed and its schemas compiled once, not once per
// run. When full it is emptied. Safe for concurrent use.
type definitionsCache struct {
	mu     sync.Mutex
	byText map[string]*definitionsRead
}

// definitionsRead is what one definitions text gave: the definitions (their
// schemas compiled; read-only once cached) and what could not be used.
type definitionsRead struct {
	tools toolcall.ToolDefinitions
	notes []contextNote
}

// contextNote is a note on a run's context and the issue it counts as.
type contextNote struct {
	issue contextIssue
	text  string
}

// get returns what text gives, reading it on a miss.
func (c *definitionsCache) get(text string) *definitionsRead {
	c.mu.Lock()
	read, ok := c.byText[text]
	c.mu.Unlock()
	if ok {
		return read
	}
	r := readDefinitions(text)
	read = &r
	c.mu.Lock()
	if c.byText == nil || len(c.byText) >= maxCachedDefinitions {
		c.byText = make(map[string]*definitionsRead)
	}
	c.byText[text] = read
	c.mu.Unlock()
	return read
}
