// Package judgetest is a scripted LLM judge for tests: an httptest server
// that speaks the chat-completions API in both URL forms, answers what the
// test queued (or what a function decides), and records every request it
// received.
//
//	srv := judgetest.NewServer(t)
//	srv.Enqueue(judgetest.TooManyRequests("1"), judgetest.OK(`{"score": 1}`))
//	cfg.ClientConfig.Endpoint = srv.OpenAIEndpoint() // or srv.AzureEndpoint() with api_version
//	... client.Complete(ctx, req) ...
//	got := srv.Requests() // parsed bodies and headers, in arrival order
//
// Paths served: any path ending in /chat/completions with method POST, so
// {endpoint}/chat/completions (endpoint ending in /v1 or not) and Azure's
// /openai/deployments/{deployment}/chat/completions?api-version=X (which, as
// on Azure, needs api-version: without it the answer is 404). Anything else
// is 404 or 405 and is still recorded.
package judgetest // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judgeclient/judgetest"

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Reply is one scripted answer. The zero Reply is a 200 whose content is
// empty; use the constructors ([OK], [Status], [TooManyRequests], [Raw],
// [NoChoices]) and [Reply.After] for the usual cases.
type Reply struct {
	// Status is the HTTP status (0: 200).
	Status int
	// Content is the first choice's message content on a 2xx; on an error
	// status it is the error message in an OpenAI error body.
	Content string
	// FinishReason is the first choice's finish_reason (default "stop").
	FinishReason string
	// Model is the answer's model (default: the request's model).
	Model string
	// PromptTokens and CompletionTokens are reported as usage.
	PromptTokens, CompletionTokens int
	// RetryAfter, when not empty, is sent as the Retry-After header
	// (delay-seconds or an HTTP-date).
	RetryAfter string
	// Header holds more answer headers.
	Header http.Header
	// Body, when not nil, is sent verbatim instead of a generated body
	// (malformed JSON, wrong shapes).
	Body []byte
	// NoChoices answers a 2xx with an empty choices array.
	NoChoices bool
	// Delay is waited before answering; the wait ends early when the client
	// goes away or the server closes.
	Delay time.Duration
}

// OK is a 200 whose first choice says content.
func OK(content string) Reply { return Reply{Content: content} }

// Status is an error answer with an OpenAI-style error body.
func Status(code int, message string) Reply { return Reply{Status: code, Content: message} }

// TooManyRequests is a 429 with the given Retry-After value (empty: none).
func TooManyRequests(retryAfter string) Reply {
	return Reply{Status: http.StatusTooManyRequests, Content: "Rate limit reached", RetryAfter: retryAfter}
}

// Raw is a 200 with a verbatim body.
func Raw(body string) Reply { return Reply{Body: []byte(body)} }

// NoChoices is a 200 with an empty choices array.
func NoChoices() Reply { return Reply{NoChoices: true} }

// After returns r answered after d.
func (r Reply) After(d time.Duration) Reply {
	r.Delay = d
	return r
}

// Request is one request the server received.
type Request struct {
	// Received is when the request arrived.
	Received time.Time
	Method   string
	// Path is the URL path; Query its query parameters.
	Path  string
	Query url.Values
	// Deployment is the Azure deployment in the path ("" for the OpenAI form).
	Deployment string
	Header     http.Header
	// RawBody is the body as received; Body is it parsed (zero when it is not
	// JSON, then BodyError says why) and Fields its top-level keys as
	// generic JSON, to check which keys were sent at all.
	RawBody   []byte
	Body      ChatBody
	Fields    map[string]any
	BodyError string
}

// ChatBody is the chat-completions request body, as sent.
type ChatBody struct {
	Model               string          `json:"model"`
	Messages            []Message       `json:"messages"`
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"top_p"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	ResponseFormat      *ResponseFormat `json:"response_format"`
}

// Message is one chat message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ResponseFormat is the request's response_format.
type ResponseFormat struct {
	Type string `json:"type"`
}

// Server is a scripted judge. Its methods are safe for concurrent use.
type Server struct {
	srv  *httptest.Server
	done chan struct{}

	mu       sync.Mutex
	queue    []Reply
	handler  func(Request) Reply
	requests []Request
}

// NewServer starts a judge and closes it when the test ends. With nothing
// queued and no handler it answers 500 "judgetest: no scripted reply", so a
// test that sends more than it scripted fails visibly.
func NewServer(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{done: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.Close)
	return s
}

// Close stops the server; waits still in progress end at once. It is safe
// to call more than once.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.done:
		s.mu.Unlock()
		return
	default:
		close(s.done)
	}
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// URL is the server's base URL (http://127.0.0.1:PORT).
func (s *Server) URL() string { return s.srv.URL }

// OpenAIEndpoint is an OpenAI-style endpoint: URL()+"/v1".
func (s *Server) OpenAIEndpoint() string { return s.srv.URL + "/v1" }

// AzureEndpoint is an Azure OpenAI resource endpoint: URL().
func (s *Server) AzureEndpoint() string { return s.srv.URL }

// Client is an *http.Client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Enqueue adds replies, answered in order, one per request.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Handle answers every request the queue does not with f (the queue is
// used first). f runs on the server's goroutines and must be safe for
// concurrent use.
func (s *Server) Handle(f func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = f
}

// Always answers every request the queue does not with r.
func (s *Server) Always(r Reply) { s.Handle(func(Request) Reply { return r }) }

// Requests returns a copy of the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	copy(out, s.requests)
	return out
}

// Count is the number of requests received so far.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	req := record(r)

	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	if !strings.HasSuffix(req.Path, "/chat/completions") || strings.HasPrefix(req.Path, "/openai/") && (req.Deployment == "" || req.Query.Get("api-version") == "") {
		writeError(w, http.StatusNotFound, "judgetest: no chat-completions endpoint at "+req.Path)
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "judgetest: use POST")
		return
	}

	reply, ok := s.next(req)
	if !ok {
		writeError(w, http.StatusInternalServerError, "judgetest: no scripted reply")
		return
	}
	if reply.Delay > 0 {
		t := time.NewTimer(reply.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		case <-s.done:
			t.Stop()
			return
		}
	}
	s.write(w, req, reply)
}

// next takes the reply to req: the queue's head, else the handler's.
func (s *Server) next(req Request) (Reply, bool) {
	s.mu.Lock()
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return r, true
	}
	h := s.handler
	s.mu.Unlock()
	if h == nil {
		return Reply{}, false
	}
	return h(req), true
}

func (s *Server) write(w http.ResponseWriter, req Request, reply Reply) {
	for k, vs := range reply.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if reply.RetryAfter != "" {
		w.Header().Set("Retry-After", reply.RetryAfter)
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	if reply.Body != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(reply.Body)
		return
	}
	if status < 200 || status > 299 {
		writeError(w, status, reply.Content)
		return
	}
	model := reply.Model
	if model == "" {
		model = req.Body.Model
	}
	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
	}
	choices := []map[string]any{}
	if !reply.NoChoices {
		choices = append(choices, map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": reply.Content},
			"finish_reason": finish,
		})
	}
	writeJSON(w, status, map[string]any{
		"id":      "chatcmpl-judgetest",
		"object":  "chat.completion",
		"created": 0,
		"model":   model,
		"choices": choices,
		"usage": map[string]any{
			"prompt_tokens":     reply.PromptTokens,
			"completion_tokens": reply.CompletionTokens,
			"total_tokens":      reply.PromptTokens + reply.CompletionTokens,
		},
	})
}

func record(r *http.Request) Request {
	raw, _ := io.ReadAll(r.Body)
	req := Request{
		Received: time.Now(),
		Method:   r.Method,
		Path:     r.URL.Path,
		Query:    r.URL.Query(),
		Header:   r.Header.Clone(),
		RawBody:  raw,
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, "/openai/deployments/"); ok {
		if dep, ok := strings.CutSuffix(rest, "/chat/completions"); ok && !strings.Contains(dep, "/") {
			req.Deployment = dep
		}
	}
	if err := json.Unmarshal(raw, &req.Body); err != nil {
		req.BodyError = err.Error()
	} else if err := json.Unmarshal(raw, &req.Fields); err != nil {
		req.BodyError = err.Error()
	}
	return req
}

func writeError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"message": message,
		"type":    "judgetest_error",
		"code":    strconv.Itoa(status),
	}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
