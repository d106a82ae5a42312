package scoring

import (
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judges"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/peers"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// Calls.
type (
	// Call is one tool call an agent made: one step of its trajectory. Only
	// Name is required; Args holds the parsed arguments, ArgsUnknown marks
	// arguments the source did not record (scorers then judge the call by
	// name and position).
	Call = toolcall.Call
	// CallStatus says whether a call succeeded: StatusUnset, StatusOK,
	// StatusError or StatusRefused.
	CallStatus = toolcall.CallStatus
)

// The call statuses. StatusUnset means the source did not say.
const (
	StatusUnset = toolcall.StatusUnset
	StatusOK    = toolcall.StatusOK
	StatusError = toolcall.StatusError
	// StatusRefused is a call the user or a policy refused.
	StatusRefused = toolcall.StatusRefused
)

// Expectations.
type (
	// Expectation is what a run should look like: expected calls, order,
	// policies for extra calls and arguments, forbidden tools and sequences.
	// Expectation.Validate names the offending field of an invalid one.
	Expectation = toolcall.Expectation
	// ExpectedCall is one call an Expectation expects: the tool, literal
	// arguments compared by typed deep equality, and path matchers.
	ExpectedCall = toolcall.ExpectedCall
	// OrderMode is OrderAny, OrderInOrder or OrderExact.
	OrderMode = toolcall.OrderMode
	// ExtraPolicy says what an unexpected call or argument costs:
	// ExtraAllow, ExtraPenalize or ExtraFail.
	ExtraPolicy = toolcall.ExtraPolicy
	// CreditMode says how argument checks add up to a call's score:
	// CreditPartial or CreditAllOrNothing.
	CreditMode = toolcall.CreditMode
)

// The order modes, extra policies and credit modes of an [Expectation].
const (
	OrderAny           = toolcall.OrderAny
	OrderInOrder       = toolcall.OrderInOrder
	OrderExact         = toolcall.OrderExact
	ExtraAllow         = toolcall.ExtraAllow
	ExtraPenalize      = toolcall.ExtraPenalize
	ExtraFail          = toolcall.ExtraFail
	CreditPartial      = toolcall.CreditPartial
	CreditAllOrNothing = toolcall.CreditAllOrNothing
)

// Matchers.
type (
	// Matcher checks one argument value.
	Matcher = toolcall.Matcher
	// PathMatcher is a Matcher at an argument path ("filters.tags[*]").
	PathMatcher = toolcall.PathMatcher
	// MatcherOptions are what ParseMatcher needs beside the specification.
	MatcherOptions = toolcall.MatcherOptions
)

// ParseMatcher builds a matcher from its configuration form, for example
// map[string]any{"one_of": []any{"celsius", "fahrenheit"}} (the package
// documentation lists the forms).
func ParseMatcher(spec any, opts MatcherOptions) (Matcher, error) {
	return toolcall.ParseMatcher(spec, opts)
}

// Results.
type (
	// Result is a scorer's verdict: a score in [0, 1], an Outcome, a short
	// explanation, a call-by-call Breakdown and, for peer profiles, the
	// peer's own result fields in Details.
	Result = toolcall.Result
	// Outcome is OutcomePass, OutcomeFail, OutcomeError or
	// OutcomeNotEvaluated.
	Outcome = toolcall.Outcome
	// Breakdown explains a Result call by call.
	Breakdown = toolcall.Breakdown
	// Pair is an expected call paired with the actual call that met it.
	Pair = toolcall.Pair
	// ArgMismatch is an argument check that failed or could not be
	// evaluated.
	ArgMismatch = toolcall.ArgMismatch
	// Finding is one problem the checks scorer found with a call.
	Finding = toolcall.Finding
)

// The outcomes. OutcomeNotEvaluated results carry no score.
const (
	OutcomeFail         = toolcall.OutcomeFail
	OutcomePass         = toolcall.OutcomePass
	OutcomeError        = toolcall.OutcomeError
	OutcomeNotEvaluated = toolcall.OutcomeNotEvaluated
)

// Scorers.
type (
	// Scorer judges a run's calls against the expectation it was built
	// with. Scorers are immutable and safe for concurrent use.
	Scorer = toolcall.Scorer
	// Settings are what every scorer is built with: the expectation, the
	// pass threshold, tool definitions, a judge and the scorer's own
	// options.
	Settings = toolcall.Settings
	// Factory builds a scorer from Settings, validating its options.
	Factory = toolcall.Factory
	// ContextScorer is a Scorer that also reads the run's context: the tool
	// definitions offered to the model, its request and response.
	ContextScorer = toolcall.ContextScorer
	// RunContext is what a ContextScorer reads besides the calls.
	RunContext = toolcall.RunContext
	// ToolDefinition is a tool offered to the model: its name, description
	// and parameter schema.
	ToolDefinition = toolcall.ToolDefinition
	// Deferred marks a Scorer that may take long (an LLM judge): run it off
	// any hot path, with a deadline.
	Deferred = toolcall.Deferred
)

// New builds the named scorer (see [ScorerNames]). Unknown names and
// invalid options return an error naming the scorer and the option.
func New(name string, s Settings) (Scorer, error) { return toolcall.New(name, s) }

// Register makes a scorer of your own available to [New] by name. It
// panics if the name is taken.
func Register(name string, f Factory) { toolcall.Register(name, f) }

// ScorerNames lists the registered scorer names, sorted.
func ScorerNames() []string { return toolcall.ScorerNames() }

// ParseToolDefinitions reads the tool definitions a model was offered, from
// JSON text in the shapes instrumentations record them (OTel GenAI
// gen_ai.tool.definitions, OpenAI chat tools, the AI SDK's ai.prompt.tools,
// Anthropic, Bedrock, Gemini, or a list of names). What cannot be read is
// returned as an error beside the definitions that could.
func ParseToolDefinitions(text string) ([]ToolDefinition, error) {
	return toolcall.ParseToolDefinitions(text)
}

// The registered scorer names.
const (
	NativeName                = toolcall.NativeName
	ChecksName                = toolcall.ChecksName
	MongoDBName               = peers.MongoDBName
	MastraToolCallName        = peers.MastraToolCallName
	MastraTrajectoryName      = peers.MastraTrajectoryName
	MastraTrajectoryFullName  = peers.MastraTrajectoryFullName
	DeepEvalName              = peers.DeepEvalName
	AgentEvalsName            = peers.AgentEvalsName
	ADKName                   = peers.ADKName
	RagasName                 = peers.RagasName
	DeepEvalLLMName           = peers.DeepEvalLLMName
	MastraToolCallLLMName     = judges.MastraToolCallLLMName
	MastraTrajectoryLLMName   = judges.MastraTrajectoryLLMName
	MEAIToolCallAccuracyName  = judges.MEAIToolCallAccuracyName
	AzureToolCallAccuracyName = judges.AzureToolCallAccuracyName
)

// The judge protocol: an LLM-judged scorer sends a ChatRequest through the
// Completer in Settings.Judge (an OpenAI-compatible chat completion).
type (
	Completer    = toolcall.Completer
	ChatRequest  = toolcall.ChatRequest
	ChatResponse = toolcall.ChatResponse
	ChatMessage  = toolcall.ChatMessage
)

// JSON values.
type (
	// Value is an immutable JSON value: arguments, results and expected
	// literals. Objects keep their written key order.
	Value = jsonv.Value
	// Kind is a Value's JSON type.
	Kind = jsonv.Kind
)

// The kinds a [Value] can have. KindUndefined is the zero value: an absent
// argument.
const (
	KindUndefined = jsonv.KindUndefined
	KindNull      = jsonv.KindNull
	KindBool      = jsonv.KindBool
	KindNumber    = jsonv.KindNumber
	KindString    = jsonv.KindString
	KindArray     = jsonv.KindArray
	KindObject    = jsonv.KindObject
)

// Parse reads JSON text into a [Value], keeping the members' written order.
func Parse(s string) (Value, error) { return jsonv.Parse(s) }

// ValueOf converts a Go value (maps, slices, strings, numbers, booleans,
// nil) into a [Value].
func ValueOf(x any) (Value, error) { return jsonv.ValueOf(x) }
