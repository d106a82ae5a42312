package judgeclient

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.uber.org/zap"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// maxAnswerBytes bounds the answer body read into memory.
const maxAnswerBytes = 8 << 20

// userAgent identifies the judge's requests in the server's logs.
const userAgent = "toolcallaccuracyprocessor-judge"

// Client sends chat-completions requests to an OpenAI-compatible judge. It
// is immutable once built and safe for concurrent use.
type Client struct {
	http   *http.Client
	logger *zap.Logger

	model      string
	url        *url.URL
	display    string // url for messages: no userinfo, no query
	azure      bool
	apiKey     configopaque.String // prints as [REDACTED]
	timeout    time.Duration
	maxRetries int
	initial    time.Duration
	maxBackoff time.Duration
	redact     redactor
	sanitize   *sanitizer

	// now is the clock for Retry-After dates.
	now func() time.Time
}

var _ toolcall.Completer = (*Client)(nil)

// NewClient builds a Client that sends with httpClient (nil:
// http.DefaultClient). It validates cfg. Use it in tests and wherever an
// *http.Client already exists; inside the collector use
// [NewClientFromHost], which builds httpClient from cfg.ClientConfig.
// A nil logger logs nothing.
func NewClient(cfg *Config, httpClient *http.Client, logger *zap.Logger) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	redact, err := compileRedact(cfg.Redact)
	if err != nil {
		return nil, err
	}
	u, err := requestURL(cfg)
	if err != nil {
		return nil, err
	}
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	if logger == nil {
		logger = zap.NewNop()
	}
	c := &Client{
		http:       httpClient,
		logger:     logger,
		model:      cfg.Model,
		url:        u,
		display:    displayURL(u),
		azure:      cfg.APIVersion != "",
		apiKey:     cfg.APIKey,
		timeout:    cmp.Or(cfg.RequestTimeout, DefaultRequestTimeout),
		maxRetries: cfg.MaxRetries,
		initial:    cmp.Or(cfg.InitialBackoff, DefaultInitialBackoff),
		maxBackoff: cmp.Or(cfg.MaxBackoff, DefaultMaxBackoff),
		redact:     redact,
		sanitize:   newSanitizer(cfg),
		now:        time.Now,
	}
	c.maxBackoff = max(c.maxBackoff, c.initial)
	return c, nil
}

// NewClientFromHost builds the HTTP client from cfg.ClientConfig the way
// collector components do (TLS, proxy, headers, auth and middleware
// extensions found through host, otelhttp telemetry from settings), then the
// Client. Call it from a component's Start, where host is known. host may be
// nil when no extension is configured.
func NewClientFromHost(ctx context.Context, cfg *Config, host component.Host, settings component.TelemetrySettings) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var extensions map[component.ID]component.Component
	if host != nil {
		extensions = host.GetExtensions()
	}
	httpClient, err := cfg.ClientConfig.ToClient(ctx, extensions, settings)
	if err != nil {
		return nil, fmt.Errorf("judge http client: %s", newSanitizer(cfg).clean(err.Error()))
	}
	return NewClient(cfg, httpClient, settings.Logger)
}

// String describes the Client without its secrets, for %v and %+v.
func (c *Client) String() string {
	return fmt.Sprintf("judgeclient.Client{model: %q, url: %q}", c.model, c.display)
}

// GoString is String, so %#v cannot print the key either.
func (c *Client) GoString() string { return c.String() }

// Close releases the idle connections of the Client's HTTP client. The
// Client must not be used afterwards.
func (c *Client) Close() {
	c.http.CloseIdleConnections()
}

// requestURL builds the chat-completions URL: OpenAI style
// {endpoint}/chat/completions, or Azure OpenAI
// {endpoint}/openai/deployments/{model}/chat/completions?api-version=X.
// Query parameters already on the endpoint are kept.
func requestURL(cfg *Config) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(cfg.ClientConfig.Endpoint, "/"))
	if err != nil {
		return nil, errors.New("endpoint: not a valid URL")
	}
	if cfg.APIVersion == "" {
		return u.JoinPath("chat", "completions"), nil
	}
	u = u.JoinPath("openai", "deployments", cfg.Model, "chat", "completions")
	q := u.Query()
	q.Set("api-version", cfg.APIVersion)
	u.RawQuery = q.Encode()
	return u, nil
}

// The wire types of the chat-completions API: only the fields we send or read.
type (
	chatRequestBody struct {
		Model          string          `json:"model"`
		Messages       []chatMessage   `json:"messages"`
		Temperature    *float64        `json:"temperature,omitempty"`
		TopP           *float64        `json:"top_p,omitempty"`
		MaxTokens      int             `json:"max_tokens,omitempty"`
		ResponseFormat *responseFormat `json:"response_format,omitempty"`
	}
	chatMessage struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	responseFormat struct {
		Type string `json:"type"`
	}
	chatResponseBody struct {
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Content *string `json:"content"`
				Refusal *string `json:"refusal"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage *struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	errorBody struct {
		Error *struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		} `json:"error"`
	}
)

// Complete sends req and returns the first choice. Every message's content is
// redacted first. Failed attempts are retried as [Config] describes; ctx
// bounds everything, and no wait runs past its deadline. When ctx is done
// before the first request, the error wraps toolcall.ErrJudgeSkipped. Errors
// are *Error and never contain a secret.
func (c *Client) Complete(ctx context.Context, req toolcall.ChatRequest) (toolcall.ChatResponse, error) {
	if len(req.Messages) == 0 {
		return toolcall.ChatResponse{}, &Error{msg: "judge: the request has no messages"}
	}
	if err := ctx.Err(); err != nil {
		return toolcall.ChatResponse{}, &Error{
			msg:   fmt.Sprintf("judge: %v: %v before the first request", toolcall.ErrJudgeSkipped, err),
			kinds: []error{toolcall.ErrJudgeSkipped, err},
		}
	}
	body, err := json.Marshal(c.body(req))
	if err != nil {
		return toolcall.ChatResponse{}, &Error{msg: "judge: encoding the request: " + c.sanitize.clean(err.Error())}
	}

	var last attemptError
	for attempt := 0; ; attempt++ {
		resp, aerr := c.attempt(ctx, body)
		if aerr == nil {
			return resp, nil
		}
		// An attempt cut short by the caller's context says less than the
		// failure that led to it: report that one.
		if !aerr.interrupted || attempt == 0 {
			last = *aerr
		}
		sent := attempt + 1
		if ctx.Err() != nil {
			return toolcall.ChatResponse{}, c.fail(last, sent, fmt.Sprintf("judge: stopped after %d attempt(s), %v", sent, ctx.Err()), ctx.Err())
		}
		if !last.retryable {
			return toolcall.ChatResponse{}, c.fail(last, sent, "judge", nil)
		}
		if attempt >= c.maxRetries {
			return toolcall.ChatResponse{}, c.fail(last, sent, fmt.Sprintf("judge: gave up after %d attempt(s)", sent), nil)
		}
		wait := backoff(attempt, c.initial, c.maxBackoff)
		if last.retryAfterSet {
			wait = last.retryAfter
		}
		if deadline, ok := ctx.Deadline(); ok {
			if remaining := time.Until(deadline); wait >= remaining {
				return toolcall.ChatResponse{}, c.fail(last, sent, fmt.Sprintf("judge: stopped after %d attempt(s), the next one (in %s) would start past the context deadline", sent, wait.Round(time.Millisecond)), context.DeadlineExceeded)
			}
		} else if wait > maxUnboundedWait {
			return toolcall.ChatResponse{}, c.fail(last, sent, fmt.Sprintf("judge: stopped after %d attempt(s), the server asked to wait %s (more than %s)", sent, wait, maxUnboundedWait), nil)
		}
		if c.logger.Core().Enabled(zap.DebugLevel) {
			c.logger.Debug("judge attempt failed, retrying",
				zap.String("model", c.model),
				zap.Int("attempt", sent),
				zap.Int("status", last.status),
				zap.Duration("wait", wait),
				zap.String("error", c.sanitize.clean(last.msg)))
		}
		if err := sleep(ctx, wait); err != nil {
			return toolcall.ChatResponse{}, c.fail(last, sent, fmt.Sprintf("judge: stopped after %d attempt(s), %v", sent, err), err)
		}
	}
}

// body builds the request body, redacting every message's content.
func (c *Client) body(req toolcall.ChatRequest) chatRequestBody {
	b := chatRequestBody{
		Model:       c.model,
		Messages:    make([]chatMessage, len(req.Messages)),
		Temperature: req.Temperature,
		TopP:        req.TopP,
		MaxTokens:   max(req.MaxTokens, 0),
	}
	for i, m := range req.Messages {
		b.Messages[i] = chatMessage{Role: m.Role, Content: c.redact.apply(m.Content)}
	}
	if req.JSONObject {
		b.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	return b
}

// fail builds the returned error from the last attempt's; prefix says why
// the attempts ended, kind (if any) is wrapped for errors.Is.
func (c *Client) fail(last attemptError, attempts int, prefix string, kind error) *Error {
	e := &Error{
		StatusCode: last.status,
		Attempts:   attempts,
		msg:        c.sanitize.clean(prefix + ": " + last.msg),
	}
	if kind != nil {
		e.kinds = append(e.kinds, kind)
	}
	if c.logger.Core().Enabled(zap.DebugLevel) {
		c.logger.Debug("judge request failed",
			zap.String("model", c.model),
			zap.Int("attempts", attempts),
			zap.Int("status", last.status),
			zap.String("error", e.msg))
	}
	return e
}

// attemptError is one attempt's failure. msg is built from safe parts only
// and is sanitized again before it leaves the package.
type attemptError struct {
	msg           string
	status        int
	retryable     bool
	interrupted   bool // the caller's context ended during the attempt
	retryAfter    time.Duration
	retryAfterSet bool
}

// attempt sends one request, bounded by the request timeout.
func (c *Client) attempt(ctx context.Context, body []byte) (toolcall.ChatResponse, *attemptError) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	where := "POST " + c.display
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, c.url.String(), bytes.NewReader(body))
	if err != nil {
		return toolcall.ChatResponse{}, &attemptError{msg: where + ": building the request failed"}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("User-Agent", userAgent)
	if c.apiKey != "" {
		if c.azure {
			hreq.Header.Set("api-key", string(c.apiKey))
		} else {
			hreq.Header.Set("Authorization", "Bearer "+string(c.apiKey))
		}
	}

	resp, err := c.http.Do(hreq)
	if err != nil {
		return toolcall.ChatResponse{}, c.transportError(ctx, actx, where, err)
	}
	defer resp.Body.Close()

	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		ae := c.transportError(ctx, actx, where+": reading the answer", err)
		ae.status = resp.StatusCode
		return toolcall.ChatResponse{}, ae
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		ae := &attemptError{
			msg:       fmt.Sprintf("%s: %s%s", where, statusText(resp.StatusCode), c.serverMessage(raw)),
			status:    resp.StatusCode,
			retryable: retryableStatus(resp.StatusCode),
		}
		if ae.retryable {
			ae.retryAfter, ae.retryAfterSet = retryAfter(resp.Header, c.now())
		}
		return toolcall.ChatResponse{}, ae
	}
	if len(raw) > maxAnswerBytes {
		return toolcall.ChatResponse{}, &attemptError{msg: fmt.Sprintf("%s: the answer is larger than %d bytes", where, maxAnswerBytes), status: resp.StatusCode}
	}
	out, err := c.decode(raw)
	if err != nil {
		return toolcall.ChatResponse{}, &attemptError{msg: where + ": " + err.Error(), status: resp.StatusCode}
	}
	return out, nil
}

// transportError describes a failed exchange without the *url.Error text
// (which holds the full URL). An attempt that ran out of request_timeout, or
// any transport failure, is retryable; one whose caller's ctx ended is not
// (the loop stops on ctx anyway).
func (c *Client) transportError(ctx, actx context.Context, where string, err error) *attemptError {
	if ctx.Err() != nil {
		return &attemptError{msg: where + ": no answer before the context ended", interrupted: true}
	}
	if actx.Err() != nil {
		return &attemptError{msg: fmt.Sprintf("%s: no answer within request_timeout (%s)", where, c.timeout), retryable: true}
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	return &attemptError{msg: where + ": " + c.sanitize.clean(err.Error()), retryable: true}
}

// serverMessage quotes an error answer: the OpenAI-style error.message when
// present, else the start of the body.
func (c *Client) serverMessage(raw []byte) string {
	var eb errorBody
	text := string(raw)
	if json.Unmarshal(raw, &eb) == nil && eb.Error != nil && eb.Error.Message != "" {
		text = eb.Error.Message
	}
	text = c.sanitize.serverText(text)
	if text == "" {
		return ""
	}
	return ": " + text
}

// decode reads a successful answer's first choice.
func (c *Client) decode(raw []byte) (toolcall.ChatResponse, error) {
	var rb chatResponseBody
	if err := json.Unmarshal(raw, &rb); err != nil {
		msg := err.Error()
		var terr *json.UnmarshalTypeError
		if errors.As(err, &terr) {
			msg = fmt.Sprintf("%s is a JSON %s", terr.Field, terr.Value)
		}
		return toolcall.ChatResponse{}, fmt.Errorf("the answer is not chat-completions JSON: %s", c.sanitize.serverText(msg))
	}
	if len(rb.Choices) == 0 {
		return toolcall.ChatResponse{}, errors.New("the answer has no choices")
	}
	ch := rb.Choices[0]
	if ch.Message.Content == nil {
		if ch.Message.Refusal != nil && *ch.Message.Refusal != "" {
			return toolcall.ChatResponse{}, fmt.Errorf("the judge refused: %s", c.sanitize.serverText(*ch.Message.Refusal))
		}
		return toolcall.ChatResponse{}, fmt.Errorf("the answer's first choice has no content (finish_reason %q)", c.sanitize.serverText(ch.FinishReason))
	}
	out := toolcall.ChatResponse{
		Content:      *ch.Message.Content,
		Model:        cmp.Or(rb.Model, c.model),
		FinishReason: ch.FinishReason,
	}
	if rb.Usage != nil {
		out.InputTokens = rb.Usage.PromptTokens
		out.OutputTokens = rb.Usage.CompletionTokens
	}
	return out, nil
}

func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return fmt.Sprintf("%d %s", code, t)
	}
	return fmt.Sprintf("status %d", code)
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
