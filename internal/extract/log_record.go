package extract

import (
	"maps"
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// This file is the contract between the processor and the readers of log
// records and span events: a Record is what a reader is given, a Witness is
// what it says the record saw, and a RecordReader turns one into the other.
//
// A run is assembled from witnesses of any signal (docs/architecture.md,
// "Every witness of a call"): spans, and the log records and span events
// that refer to them. A reader knows one source (an event name and the
// instrumentation that writes it) and nothing of runs: it does not look up
// spans, keep state or allocate beyond the Witness it fills. The processor
// joins the Witness to its run: by TraceID and SpanID when the record
// carries them (the OTel Logs API writes the active span's ids), else by
// the RunIDs the agent writes (ConversationID, SessionID, PromptID).
//
// Writing a reader (coding agents, a framework's own events):
//
//   - Register it in an init function of its own file, under every event
//     name it reads: RegisterRecordReader("codex.tool_result", readCodexToolResult).
//     Names are matched exactly against Record.Name; one name has one
//     reader (registering a name twice panics, at init).
//   - Fill w and return true when the record witnesses something, else
//     return false (w may then hold partial data; the processor drops it).
//     w comes zeroed but for TraceID, SpanID, Time and Name, which the
//     processor has set from the record.
//   - Strings may reference the record's own memory (Str() of an
//     attribute); the processor copies what it keeps. Do not keep r.
//   - Put what the record says, not what you infer: a result the record
//     reports as failed is Failed with its ErrorType; a decision is
//     Accepted or Rejected with who decided; arguments are JSON text as
//     recorded ("" when the record has none).
//   - The input is untrusted: a reader never panics whatever the record
//     holds (FuzzRecordReaders feeds every registered name hostile bodies
//     and attributes).
//
// Joining today: what a record says of a model call (Turn) joins that
// call's turn by TraceID and SpanID; a turn awaits a record with
// Turn.Response set, so a reader of a model's response sets it. Results and
// Decisions are carried but not joined yet: records without trace context
// are counted (log_records{outcome=no_trace_context}) until joining by
// RunIDs is built. A Rejected decision is meant to give its call the status
// toolcall.StatusRefused ("refused"), which must_succeed already fails.
//
// Readers in this package: gen_ai.client.inference.operation.details and
// the per-message events gen_ai.system.message, gen_ai.user.message,
// gen_ai.assistant.message, gen_ai.tool.message and gen_ai.choice
// (log_record_semconv.go).

// Record is one log record or span event as a reader sees it.
type Record struct {
	// Name is the event name: a log record's EventName, else its
	// event.name attribute; a span event's name.
	Name string
	// Attributes are the record's (or span event's) attributes.
	Attributes pcommon.Map
	// Body is a log record's body; an empty Value for a span event.
	Body pcommon.Value
	// Resource is the record's resource attributes (service.name ...); an
	// empty Map when not known.
	Resource pcommon.Map
	// TraceID and SpanID are the record's trace context: a log record's
	// own, a span event's span's. Empty when the record has none (coding
	// agents' log records usually have none).
	TraceID pcommon.TraceID
	SpanID  pcommon.SpanID
	// Time is the record's timestamp (Unix nanoseconds; a log record's
	// observed time when it has no timestamp).
	Time uint64
	// SpanEvent is set when the record is a span event, not a log record.
	SpanEvent bool
}

// Witness is what one log record or span event witnesses of a run. A
// record may witness several things at once (an inference event records a
// turn's request, its response and the tools offered).
type Witness struct {
	// Name is the record's event name; Source names the reader's source
	// for -calls and debug logs ("gen_ai.choice", "claude_code").
	Name, Source string
	// TraceID and SpanID are the record's trace context (see Record).
	TraceID pcommon.TraceID
	SpanID  pcommon.SpanID
	// RunIDs are the ids the agent writes that tie records of one run (or
	// conversation) together where no trace context does.
	RunIDs RunIDs
	// Time is the record's timestamp (Unix nanoseconds).
	Time uint64

	// Turn is what the record says of a model call (the span SpanID is,
	// when it is a model-call span): its response's requested calls, its
	// request's history and outcomes. Zero when the record says nothing
	// of a model call.
	Turn TurnWitness

	// Results are tool executions the record reports (a coding agent's
	// tool_result: the tool ran, with this outcome).
	Results []ToolResult
	// Decisions are permission decisions on requested calls (accepted or
	// refused, by the user or by policy).
	Decisions []ToolDecision

	// Definitions is the JSON text of the tools offered to the model
	// (gen_ai.tool.definitions form: a list of {type, name, description,
	// parameters}), "" when not recorded.
	Definitions string
	// System, Request and Response are the texts judges read: the system
	// instructions, the request's messages and the response's, as
	// recorded ("" when not).
	System, Request, Response string
}

// RunIDs are the ids an agent writes on its records: a conversation (a
// chat, gen_ai.conversation.id, Codex conversation.id), a session (Claude
// Code session.id, Gemini CLI session.id) and a prompt (one user prompt
// and the agent's work on it: Claude Code prompt.id). Empty when not
// recorded.
type RunIDs struct {
	Conversation, Session, Prompt string
}

// IsZero reports whether no id is recorded.
func (r RunIDs) IsZero() bool { return r == RunIDs{} }

// TurnWitness is what a record says of one model call. The semconv
// inference event gives the request and response messages whole (Input,
// Output: gen_ai.input.messages / gen_ai.output.messages JSON, parsed when
// the run is scored); the per-message events give one message each, read
// into Requested, History and Outcomes.
type TurnWitness struct {
	// Input and Output are gen_ai.input.messages and gen_ai.output.messages
	// JSON text (semconv message-parts form).
	Input, Output string
	// Requested are the calls the response asked for; History the calls of
	// earlier turns the request lists; Outcomes the tool results the
	// request carries.
	Requested []RequestedCall
	History   []RequestedCall
	Outcomes  []Outcome
	// InputMessage is set for a record that is one message of the request
	// (a per-message event); ToolMessage when that message is a tool
	// result. The last request message recorded tells whether the request
	// ends with tool results.
	InputMessage, ToolMessage bool
	// FinishTools is set when the response's finish reason asks for tools.
	FinishTools bool
	// Response is set for a record of the model's response (gen_ai.choice,
	// an inference event with output messages): a turn whose response no
	// record gave yet awaits one.
	Response bool
}

// IsZero reports whether the record says nothing of a model call.
func (t *TurnWitness) IsZero() bool {
	return t.Input == "" && t.Output == "" && len(t.Requested) == 0 && len(t.History) == 0 &&
		len(t.Outcomes) == 0 && !t.InputMessage && !t.FinishTools && !t.Response
}

// ToolResult is a tool execution a record reports.
type ToolResult struct {
	// ID is the call id when recorded (Claude Code tool_use_id, Codex
	// call_id); Name the tool's name.
	ID, Name string
	// Args is the arguments' JSON text as recorded ("" when none).
	Args string
	// Result is the result's text ("" when not recorded).
	Result string
	// Failed reports a result the record marks as failed (success=false,
	// an error, a non-zero exit); ErrorType is what it names the error
	// ("" when none).
	Failed    bool
	ErrorType string
	// Duration is the execution time in nanoseconds, 0 when not recorded.
	Duration uint64
}

// DecisionVerdict is a permission decision.
type DecisionVerdict uint8

// The decisions a user or policy makes on a requested call.
const (
	DecisionUnknown DecisionVerdict = iota
	DecisionAccepted
	DecisionRejected
)

// ToolDecision is a permission decision a record reports on a call.
type ToolDecision struct {
	ID, Name string
	Verdict  DecisionVerdict
	// By is who decided, as recorded: "user", "config", "hook", "policy"
	// ... ("" when not recorded).
	By string
}

// RecordReader reads what r witnesses into w and reports whether it
// witnesses anything. See the contract at the top of this file.
type RecordReader func(r *Record, w *Witness) bool

// recordReaders are the readers by event name, written by init functions
// only.
var recordReaders = map[string]RecordReader{}

// RegisterRecordReader registers read for records named name. It is called
// from init functions; a name registered twice panics.
func RegisterRecordReader(name string, read RecordReader) {
	if _, ok := recordReaders[name]; ok {
		panic("extract: record reader registered twice for " + name)
	}
	recordReaders[name] = read
}

// ReadsRecord reports whether some reader reads records named name.
func ReadsRecord(name string) bool {
	_, ok := recordReaders[name]
	return ok
}

// RecordNames returns the event names readers are registered for (for
// documentation and fuzzing), sorted.
func RecordNames() []string {
	return slices.Sorted(maps.Keys(recordReaders))
}

// ReadRecord reads r with the reader registered for its name, into w
// (zeroed first, then given r's ids, time and name), and reports whether
// r witnesses anything. A record no reader is registered for costs a map
// miss.
func ReadRecord(r *Record, w *Witness) bool {
	if r.Name == "" {
		return false
	}
	read, ok := recordReaders[r.Name]
	if !ok {
		return false
	}
	*w = Witness{Name: r.Name, TraceID: r.TraceID, SpanID: r.SpanID, Time: r.Time}
	return read(r, w)
}
