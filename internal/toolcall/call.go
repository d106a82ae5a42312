package toolcall

import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/jsonv"

// CallStatus says whether a tool call succeeded.
type CallStatus uint8

// The call statuses. StatusUnset means the source did not say. A call
// that did not succeed failed (StatusError), was refused before it ran, by
// the user or a policy (StatusRefused), or named a tool the agent does not
// have (StatusUnknownTool).
const (
	StatusUnset CallStatus = iota
	StatusOK
	StatusError
	StatusRefused
	StatusUnknownTool
)

// String returns "unset", "ok", "error", "refused" or "unknown_tool".
func (s CallStatus) String() string {
	switch s {
	case StatusOK:
		return "ok"
	case StatusError:
		return "error"
	case StatusRefused:
		return "refused"
	case StatusUnknownTool:
		return "unknown_tool"
	}
	return "unset"
}

// Unsuccessful reports a call that failed, was refused or named no tool.
func (s CallStatus) Unsuccessful() bool { return s >= StatusError }

// Call is one tool call an agent made: one step of its trajectory.
//
// Only Name is required. Args is the parsed argument value; when the source did
// not record arguments (content capture off, a "{}" placeholder, truncated JSON)
// set ArgsUnknown, and scorers then judge the call by name and position only.
type Call struct {
	// Name is the tool name as the model saw it.
	Name string
	// Args holds the parsed arguments, usually an object.
	Args jsonv.Value
	// ArgsDoc, when set, holds the arguments instead of Args: parsed JSON
	// that the native scorer checks in place, without building a Value
	// tree. Other scorers read it as the tree [Document.Value] returns.
	ArgsDoc *jsonv.Document
	// ArgsUnknown reports that the arguments were not available. It is
	// different from a call made without arguments.
	ArgsUnknown bool
	// Witnesses are the records of the call that were seen: the model's
	// request, the tool span, MCP client and server spans, a later request
	// carrying its outcome. Zero when the source does not say (calls built
	// by hand): every scorer then takes the call as made.
	Witnesses Witnesses
	// FailedWitnesses are the witnesses that reported the call failed.
	FailedWitnesses Witnesses
	// ArgsEmpty reports unknown arguments recorded as "{}" in a convention
	// that writes "{}" for arguments it did not capture: a call made
	// without arguments, or a placeholder. [EmptyArguments] reads them as
	// an empty object where they cannot be a placeholder.
	ArgsEmpty bool
	// ArgsNote says why unknown arguments are unknown when a limit caused
	// it ("arguments larger than the 1 MiB limit"); scorers repeat it in
	// their explanation.
	ArgsNote string
	// Result holds the parsed tool result when it was recorded.
	Result jsonv.Value
	// Status says whether the call succeeded.
	Status CallStatus
	// ID is the call id the model assigned, when known.
	ID string
	// Position is the call's 0-based index in its trajectory.
	Position int
	// Turn is the 1-based model turn that requested the call; calls
	// requested together share a turn. 0 when unknown.
	Turn int
	// Type is the tool type: "" or "function" for client-side functions,
	// "mcp" for MCP tools, or a framework's own type name.
	Type string
	// StepType is the trajectory step kind for trajectory scorers:
	// "" or "tool_call" for tool calls; "mcp_tool_call", "model_generation",
	// "agent_run", "workflow_step", ... for other steps.
	StepType string
	// Fields holds other step data by the trajectory-scorer field name
	// ("durationMs", "promptTokens", "completionTokens", "modelId",
	// "agentId", ...). Nil for plain tool calls.
	Fields map[string]jsonv.Value
	// Children holds nested steps (a sub-agent's or workflow's calls).
	Children []Call
	// RequestedArgs is the arguments' JSON text as the model requested
	// them, when a tool span executed the call with other arguments ("" when
	// they agree or one side is unknown).
	RequestedArgs string
	// Note is what a witness recorded beyond the call, for explanations:
	// the result the app sent back for a requested call that no tool span
	// executed (its refusal, an error).
	Note string
}

// Witnesses is a set of the records that saw one call.
type Witnesses uint8

// The witnesses of a call.
const (
	// WitnessRequested is the model's response that asked for the call.
	WitnessRequested Witnesses = 1 << iota
	// WitnessExecuted is a framework's or SDK's tool span that recorded
	// its execution.
	WitnessExecuted
	// WitnessMCPClient is an MCP tools/call client span.
	WitnessMCPClient
	// WitnessMCPServer is an MCP tools/call server span.
	WitnessMCPServer
	// WitnessOutcome is a later model request carrying the call's result.
	WitnessOutcome
	// WitnessLogRecord is a log record of the call's execution or of a
	// decision on it (a coding agent's tool_result, tool_decision).
	WitnessLogRecord
)

var witnessNames = [...]string{"requested", "executed", "mcp_client", "mcp_server", "outcome", "log_record"}

// executions are the witnesses that record a call's execution.
const executions = WitnessExecuted | WitnessMCPClient | WitnessMCPServer

// String lists the witnesses, "requested+executed", or "" for none.
func (w Witnesses) String() string {
	var b []byte
	for i, n := range witnessNames {
		if w&(1<<i) != 0 {
			if len(b) > 0 {
				b = append(b, '+')
			}
			b = append(b, n...)
		}
	}
	return string(b)
}

// Executed reports a call a span executed (a tool span, an MCP client or
// server span), or one whose source does not say (no witnesses recorded).
func (c *Call) Executed() bool { return c.Witnesses == 0 || c.Witnesses&executions != 0 }

// Requested reports a call the model's request witnessed, or one whose
// source does not say.
func (c *Call) Requested() bool { return c.Witnesses == 0 || c.Witnesses&WitnessRequested != 0 }

// IsToolCall reports whether the step is a tool call (plain or MCP).
func (c *Call) IsToolCall() bool {
	return c.StepType == "" || c.StepType == StepToolCall || c.StepType == StepMCPToolCall
}

// Failed reports whether the call is known not to have succeeded: it
// failed, was refused or named no tool (Status says which).
func (c *Call) Failed() bool { return c.Status.Unsuccessful() }

// Step types used by the trajectory scorers.
const (
	StepToolCall        = "tool_call"
	StepMCPToolCall     = "mcp_tool_call"
	StepModelGeneration = "model_generation"
	StepAgentRun        = "agent_run"
)

// NumberCalls sets each call's Position to its index, so calls built by hand
// need not number themselves. It returns calls.
func NumberCalls(calls []Call) []Call {
	for i := range calls {
		calls[i].Position = i
	}
	return calls
}

// Arguments returns the call's arguments as a Value, reading ArgsDoc when
// it is set.
func (c *Call) Arguments() jsonv.Value {
	if c.ArgsDoc != nil {
		return c.ArgsDoc.Value()
	}
	return c.Args
}

// WithArguments returns calls with every ArgsDoc (children's included) read
// into Args, for scorers that work on Value trees. Calls without documents
// are returned as they are, without copying.
func WithArguments(calls []Call) []Call {
	if !hasDocuments(calls) {
		return calls
	}
	out := make([]Call, len(calls))
	for i := range calls {
		out[i] = calls[i]
		out[i].Args, out[i].ArgsDoc = out[i].Arguments(), nil
		out[i].Children = WithArguments(out[i].Children)
	}
	return out
}

func hasDocuments(calls []Call) bool {
	for i := range calls {
		// Most calls have no children: test before calling.
		if c := &calls[i]; c.ArgsDoc != nil || (len(c.Children) > 0 && hasDocuments(c.Children)) {
			return true
		}
	}
	return false
}
