package toolcall

import (
	"context"
	"errors"
)

// ChatMessage is one message of a request to an LLM judge.
type ChatMessage struct {
	// Role is "system", "user" or "assistant".
	Role    string
	Content string
}

// ChatRequest is one request to an LLM judge, with OpenAI chat-completions
// semantics. Nil parameters are left to the server.
type ChatRequest struct {
	Messages    []ChatMessage
	Temperature *float64
	TopP        *float64
	// MaxTokens bounds the answer (0: the server's default).
	MaxTokens int
	// JSONObject asks for an answer that is one JSON object.
	JSONObject bool
}

// ChatResponse is a judge's answer.
type ChatResponse struct {
	Content      string
	Model        string
	FinishReason string
	// InputTokens and OutputTokens are the usage the server reported.
	InputTokens, OutputTokens int
}

// Completer sends requests to an LLM judge. Implementations are safe for
// concurrent use; they bound every request by ctx.
type Completer interface {
	Complete(ctx context.Context, req ChatRequest) (ChatResponse, error)
}

// ErrJudgeSkipped is wrapped by a Completer's error when the judge was not
// asked at all (a budget or the queue was full): judge scorers then report
// not_evaluated with the reason, not an error.
var ErrJudgeSkipped = errors.New("judge not asked")

// ErrNoJudge is returned by judge scorers built without a Completer.
var ErrNoJudge = errors.New("this scorer needs a judge: configure the rule's judge section")
