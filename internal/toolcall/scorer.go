package toolcall

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Scorer judges one trajectory against the expectation it was built with.
// Scorers are immutable after construction and safe for concurrent use.
//
// Scoring is synchronous from the scorer's point of view; callers that must
// not block (the collector processor) run slow scorers, the ones that
// implement [Deferred], off their hot path and pass a context with a deadline.
type Scorer interface {
	// Name returns the registered scorer name ("native", "mongodb", ...).
	Name() string
	// Score judges the actual calls. It never panics on any input; problems
	// are reported as a Result with Outcome error.
	Score(ctx context.Context, calls []Call) Result
}

// ResultReader is implemented by scorers that compare tool results or step
// durations. Callers keep results and durations only for runs such a
// scorer (or an expected result) reads, and drop them otherwise to save
// memory.
type ResultReader interface {
	Scorer
	// ReadsResults reports whether the scorer, as configured, reads them.
	ReadsResults() bool
}

// Deferred is implemented by scorers that may take long (LLM judges): callers
// run them asynchronously and bound them with a context deadline.
type Deferred interface {
	Scorer
	// Deferred is a marker method.
	Deferred()
}

// Settings are the scorer-independent inputs every scorer is built with.
type Settings struct {
	// Expectation is what the trajectory should look like.
	Expectation Expectation
	// Threshold is the pass threshold in [0, 1]: a result passes when its
	// score is at least Threshold. A profile whose peer decides pass or
	// fail by a rule of its own follows that rule instead, unless
	// ThresholdSet: DeepEval's threshold option (default 0.5; strict_mode
	// makes it 1) for deepeval and deepeval_llm, ADK's threshold option
	// (default 1) for adk. (The Azure and Microsoft.Extensions.AI judges
	// always decide as their peers do: see their docs.)
	Threshold float64
	// ThresholdSet reports that the caller chose Threshold (a rule's own
	// threshold): it then decides every scorer's pass or fail.
	ThresholdSet bool
	// Tools are tool definitions given in configuration, for scorers that
	// check calls against the tools offered (checks).
	Tools []ToolDefinition
	// Judge sends the requests of LLM-judged scorers (nil when the rule
	// configures no judge).
	Judge Completer
	// Options are the scorer's own options, with the peer's option names in
	// snake_case (MongoDB has none; Mastra's expectedToolOrder is
	// expected_tool_order).
	Options map[string]any
	// OmitDetails tells the scorer that its caller never reads
	// Result.Details (the collector processor writes the score, outcome,
	// breakdown and explanation, not the peers' native fields): the peer
	// profiles then leave Details nil instead of building it, which is up
	// to half of their work. Everything else in the Result is the same.
	// LLM judges ignore it (they record their token usage there).
	OmitDetails bool
}

// Factory builds a scorer from settings, validating its options.
type Factory func(Settings) (Scorer, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]Factory{}
)

// Register makes a scorer available by name. It panics if the name is taken,
// since registration happens in init functions.
func Register(name string, f Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("scoring: scorer " + strconv.Quote(name) + " registered twice")
	}
	registry[name] = f
}

// New builds the named scorer. Unknown names and invalid options return an
// error that names the scorer and the option.
func New(name string, s Settings) (Scorer, error) {
	registryMu.RLock()
	f, ok := registry[name]
	registryMu.RUnlock()
	if !ok {
		if lower := strings.ToLower(name); lower != name && slices.Contains(ScorerNames(), lower) {
			return nil, fmt.Errorf("unknown scorer %q: scorer names are lowercase, write %q", name, lower)
		}
		return nil, fmt.Errorf("unknown scorer %q, expected one of %q", name, ScorerNames())
	}
	if !(s.Threshold >= 0 && s.Threshold <= 1) { // NaN too
		return nil, fmt.Errorf("threshold %v is outside [0, 1]", s.Threshold)
	}
	return f(s)
}

// ScorerNames lists the registered scorer names, sorted.
func ScorerNames() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// PassThreshold returns the threshold a profile whose peer has a pass rule
// of its own (peer) decides pass or fail with: the caller's when it chose
// one, else the peer's.
func (s *Settings) PassThreshold(peer float64) float64 {
	if s.ThresholdSet {
		return s.Threshold
	}
	return peer
}

func Itoa(i int) string { return strconv.Itoa(i) }
