package judgeclient

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.uber.org/zap/zaptest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judgeclient/judgetest"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

const testKey = "sk-test-SECRETKEY-0123456789abcdef"

// testConfig is an OpenAI-style config for srv with millisecond backoffs.
func testConfig(srv *judgetest.Server) Config {
	cfg := NewDefaultConfig()
	cfg.ClientConfig.Endpoint = srv.OpenAIEndpoint()
	cfg.Model = "judge-model"
	cfg.APIKey = testKey
	cfg.InitialBackoff = time.Millisecond
	cfg.MaxBackoff = 4 * time.Millisecond
	return cfg
}

func newTestClient(t *testing.T, srv *judgetest.Server, edit func(*Config)) *Client {
	t.Helper()
	cfg := testConfig(srv)
	if edit != nil {
		edit(&cfg)
	}
	c, err := NewClient(&cfg, srv.Client(), zaptest.NewLogger(t))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

func ptr[T any](v T) *T { return &v }

// judgeRequest is a typical judge request: deterministic sampling, bounded,
// JSON out.
func judgeRequest() toolcall.ChatRequest {
	return toolcall.ChatRequest{
		Messages: []toolcall.ChatMessage{
			{Role: "system", Content: "You grade tool calls. Answer JSON."},
			{Role: "user", Content: `call: get_weather({"city":"Paris"})`},
		},
		Temperature: ptr(0.0),
		TopP:        ptr(1.0),
		MaxTokens:   256,
		JSONObject:  true,
	}
}

func TestCompleteSendsTheRequestAndReadsTheAnswer(t *testing.T) {
	srv := judgetest.NewServer(t)
	srv.Enqueue(judgetest.Reply{
		Content:          `{"score": 1}`,
		Model:            "judge-model-2026-01-01",
		FinishReason:     "stop",
		PromptTokens:     42,
		CompletionTokens: 7,
	})
	c := newTestClient(t, srv, nil)

	got, err := c.Complete(t.Context(), judgeRequest())
	require.NoError(t, err)
	assert.Equal(t, toolcall.ChatResponse{
		Content:      `{"score": 1}`,
		Model:        "judge-model-2026-01-01",
		FinishReason: "stop",
		InputTokens:  42,
		OutputTokens: 7,
	}, got)

	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, http.MethodPost, r.Method)
	assert.Equal(t, "/v1/chat/completions", r.Path)
	assert.Empty(t, r.Query)
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	assert.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"))
	assert.Empty(t, r.Header.Get("api-key"))
	// Exactly these keys, with these values: temperature 0 is sent, not
	// dropped as a zero value.
	assert.Equal(t, map[string]any{
		"model": "judge-model",
		"messages": []any{
			map[string]any{"role": "system", "content": "You grade tool calls. Answer JSON."},
			map[string]any{"role": "user", "content": `call: get_weather({"city":"Paris"})`},
		},
		"temperature":     0.0,
		"top_p":           1.0,
		"max_tokens":      256.0,
		"response_format": map[string]any{"type": "json_object"},
	}, r.Fields)
}

func TestCompleteLeavesUnsetParametersToTheServer(t *testing.T) {
	srv := judgetest.NewServer(t)
	srv.Enqueue(judgetest.OK("fine"))
	c := newTestClient(t, srv, nil)

	got, err := c.Complete(t.Context(), toolcall.ChatRequest{
		Messages: []toolcall.ChatMessage{{Role: "user", Content: "hi"}},
	})
	require.NoError(t, err)
	assert.Equal(t, "fine", got.Content)
	assert.Equal(t, "judge-model", got.Model, "the server's model echo")
	assert.Equal(t, map[string]any{
		"model":    "judge-model",
		"messages": []any{map[string]any{"role": "user", "content": "hi"}},
	}, srv.Requests()[0].Fields)
}

func TestCompleteURLAndKeyForms(t *testing.T) {
	tests := []struct {
		name           string
		endpoint       func(*judgetest.Server) string
		apiVersion     string
		apiKey         configopaque.String
		wantPath       string
		wantAPIVersion string
		wantDeployment string
		wantAuth       string
		wantAPIKey     string
	}{
		{
			name:     "openai",
			endpoint: (*judgetest.Server).OpenAIEndpoint,
			apiKey:   testKey,
			wantPath: "/v1/chat/completions",
			wantAuth: "Bearer " + testKey,
		},
		{
			name:     "openai endpoint with trailing slash",
			endpoint: func(s *judgetest.Server) string { return s.OpenAIEndpoint() + "/" },
			apiKey:   testKey,
			wantPath: "/v1/chat/completions",
			wantAuth: "Bearer " + testKey,
		},
		{
			name:     "openai-compatible server without /v1 and without key",
			endpoint: (*judgetest.Server).URL,
			wantPath: "/chat/completions",
		},
		{
			name:           "azure",
			endpoint:       (*judgetest.Server).AzureEndpoint,
			apiVersion:     "2024-10-21",
			apiKey:         testKey,
			wantPath:       "/openai/deployments/judge-model/chat/completions",
			wantAPIVersion: "2024-10-21",
			wantDeployment: "judge-model",
			wantAPIKey:     testKey,
		},
		{
			name:           "azure with Entra ID through an auth extension: no key",
			endpoint:       func(s *judgetest.Server) string { return s.AzureEndpoint() + "/" },
			apiVersion:     "2025-01-01-preview",
			wantPath:       "/openai/deployments/judge-model/chat/completions",
			wantAPIVersion: "2025-01-01-preview",
			wantDeployment: "judge-model",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := judgetest.NewServer(t)
			srv.Enqueue(judgetest.OK("ok"))
			c := newTestClient(t, srv, func(cfg *Config) {
				cfg.ClientConfig.Endpoint = tt.endpoint(srv)
				cfg.APIVersion = tt.apiVersion
				cfg.APIKey = tt.apiKey
			})

			_, err := c.Complete(t.Context(), judgeRequest())
			require.NoError(t, err)
			r := srv.Requests()[0]
			assert.Equal(t, tt.wantPath, r.Path)
			assert.Equal(t, tt.wantAPIVersion, r.Query.Get("api-version"))
			assert.Equal(t, tt.wantDeployment, r.Deployment)
			assert.Equal(t, tt.wantAuth, r.Header.Get("Authorization"))
			assert.Equal(t, tt.wantAPIKey, r.Header.Get("api-key"))
			assert.Equal(t, "judge-model", r.Body.Model)
		})
	}
}

func TestCompleteRetries(t *testing.T) {
	tests := []struct {
		name       string
		replies    []judgetest.Reply
		always     *judgetest.Reply
		maxRetries int
		// wantErr is the exact error; "" means success.
		wantErr      string
		wantStatus   int
		wantRequests int
		// minGap is the least time between the first two requests.
		minGap time.Duration
	}{
		{
			name:         "429 with Retry-After in seconds, then success",
			replies:      []judgetest.Reply{judgetest.TooManyRequests("1"), judgetest.OK("ok")},
			maxRetries:   3,
			wantRequests: 2,
			minGap:       900 * time.Millisecond, // the jittered backoff alone is at most 1ms
		},
		{
			name: "429 with retry-after-ms, then success",
			replies: []judgetest.Reply{
				{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After-Ms": {"150"}}},
				judgetest.OK("ok"),
			},
			maxRetries:   3,
			wantRequests: 2,
			minGap:       140 * time.Millisecond,
		},
		{
			name:         "500 then success",
			replies:      []judgetest.Reply{judgetest.Status(500, "boom"), judgetest.OK("ok")},
			maxRetries:   3,
			wantRequests: 2,
		},
		{
			name:         "502, 503, 504 then success",
			replies:      []judgetest.Reply{judgetest.Status(502, ""), judgetest.Status(503, ""), judgetest.Status(504, ""), judgetest.OK("ok")},
			maxRetries:   3,
			wantRequests: 4,
		},
		{
			name:         "500 every time: gives up after max_retries",
			always:       ptr(judgetest.Status(500, "boom")),
			maxRetries:   2,
			wantErr:      "judge: gave up after 3 attempt(s): POST {url}: 500 Internal Server Error: boom",
			wantStatus:   500,
			wantRequests: 3,
		},
		{
			name:         "max_retries 0 sends once",
			always:       ptr(judgetest.TooManyRequests("0")),
			maxRetries:   0,
			wantErr:      "judge: gave up after 1 attempt(s): POST {url}: 429 Too Many Requests: Rate limit reached",
			wantStatus:   429,
			wantRequests: 1,
		},
		{
			name:         "400 is not retried",
			replies:      []judgetest.Reply{judgetest.Status(400, "context_length_exceeded")},
			maxRetries:   3,
			wantErr:      "judge: POST {url}: 400 Bad Request: context_length_exceeded",
			wantStatus:   400,
			wantRequests: 1,
		},
		{
			name:         "404 (unknown model) is not retried",
			replies:      []judgetest.Reply{judgetest.Status(404, "The model `x` does not exist")},
			maxRetries:   3,
			wantErr:      "judge: POST {url}: 404 Not Found: The model `x` does not exist",
			wantStatus:   404,
			wantRequests: 1,
		},
		{
			name:         "malformed JSON is not retried",
			replies:      []judgetest.Reply{judgetest.Raw(`{"choices": [`)},
			maxRetries:   3,
			wantErr:      "judge: POST {url}: the answer is not chat-completions JSON: unexpected end of JSON input",
			wantStatus:   200,
			wantRequests: 1,
		},
		{
			name:         "wrong JSON shape",
			replies:      []judgetest.Reply{judgetest.Raw(`{"choices": "none"}`)},
			maxRetries:   3,
			wantErr:      "judge: POST {url}: the answer is not chat-completions JSON: choices is a JSON string",
			wantStatus:   200,
			wantRequests: 1,
		},
		{
			name:         "empty choices",
			replies:      []judgetest.Reply{judgetest.NoChoices()},
			maxRetries:   3,
			wantErr:      "judge: POST {url}: the answer has no choices",
			wantStatus:   200,
			wantRequests: 1,
		},
		{
			name:         "refusal",
			replies:      []judgetest.Reply{judgetest.Raw(`{"choices":[{"message":{"content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`)},
			maxRetries:   3,
			wantErr:      "judge: POST {url}: the judge refused: I can't help with that.",
			wantStatus:   200,
			wantRequests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := judgetest.NewServer(t)
			srv.Enqueue(tt.replies...)
			if tt.always != nil {
				srv.Always(*tt.always)
			}
			c := newTestClient(t, srv, func(cfg *Config) { cfg.MaxRetries = tt.maxRetries })

			got, err := c.Complete(t.Context(), judgeRequest())
			reqs := srv.Requests()
			assert.Len(t, reqs, tt.wantRequests)
			if tt.minGap > 0 && len(reqs) >= 2 {
				assert.GreaterOrEqual(t, reqs[1].Received.Sub(reqs[0].Received), tt.minGap)
			}
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, "ok", got.Content)
				return
			}
			want := strings.ReplaceAll(tt.wantErr, "{url}", srv.OpenAIEndpoint()+"/chat/completions")
			require.EqualError(t, err, want)
			var jerr *Error
			require.ErrorAs(t, err, &jerr)
			assert.Equal(t, tt.wantStatus, jerr.StatusCode)
			assert.Equal(t, tt.wantRequests, jerr.Attempts)
			assert.False(t, errors.Is(err, toolcall.ErrJudgeSkipped))
		})
	}
}

func TestCompleteRequestTimeout(t *testing.T) {
	t.Run("a slow answer fails the attempt", func(t *testing.T) {
		srv := judgetest.NewServer(t)
		srv.Always(judgetest.OK("late").After(5 * time.Second))
		c := newTestClient(t, srv, func(cfg *Config) {
			cfg.RequestTimeout = 50 * time.Millisecond
			cfg.MaxRetries = 0
		})
		_, err := c.Complete(t.Context(), judgeRequest())
		require.EqualError(t, err, "judge: gave up after 1 attempt(s): POST "+srv.OpenAIEndpoint()+"/chat/completions: no answer within request_timeout (50ms)")
		assert.False(t, errors.Is(err, context.DeadlineExceeded), "the caller's context did not end")
		assert.Equal(t, 1, srv.Count())
	})
	t.Run("a slow answer is retried", func(t *testing.T) {
		srv := judgetest.NewServer(t)
		srv.Enqueue(judgetest.OK("late").After(5*time.Second), judgetest.OK("ok"))
		c := newTestClient(t, srv, func(cfg *Config) { cfg.RequestTimeout = 50 * time.Millisecond })
		got, err := c.Complete(t.Context(), judgeRequest())
		require.NoError(t, err)
		assert.Equal(t, "ok", got.Content)
		assert.Equal(t, 2, srv.Count())
	})
}

func TestCompleteContextBoundsTheAttempts(t *testing.T) {
	t.Run("deadline during the wait for an answer", func(t *testing.T) {
		srv := judgetest.NewServer(t)
		srv.Always(judgetest.OK("late").After(5 * time.Second))
		c := newTestClient(t, srv, nil)
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		_, err := c.Complete(ctx, judgeRequest())
		require.EqualError(t, err, "judge: stopped after 1 attempt(s), context deadline exceeded: POST "+srv.OpenAIEndpoint()+"/chat/completions: no answer before the context ended")
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, 1, srv.Count())
	})
	t.Run("deadline stops retries", func(t *testing.T) {
		srv := judgetest.NewServer(t)
		srv.Always(judgetest.Status(500, "boom"))
		c := newTestClient(t, srv, func(cfg *Config) {
			cfg.MaxRetries = 1000
			cfg.InitialBackoff = 10 * time.Millisecond
			cfg.MaxBackoff = 20 * time.Millisecond
		})
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		defer cancel()
		_, err := c.Complete(ctx, judgeRequest())
		require.ErrorIs(t, err, context.DeadlineExceeded)
		var jerr *Error
		require.ErrorAs(t, err, &jerr)
		assert.Less(t, jerr.Attempts, 1001)
		// The attempt the deadline cut may not have reached the server.
		assert.InDelta(t, jerr.Attempts, srv.Count(), 1)
		assert.Equal(t, 500, jerr.StatusCode, "the last failure, not the attempt the deadline cut")
		assert.Contains(t, err.Error(), "500 Internal Server Error: boom")
	})
	t.Run("a Retry-After past the deadline ends the attempts at once", func(t *testing.T) {
		srv := judgetest.NewServer(t)
		srv.Enqueue(judgetest.TooManyRequests("30"), judgetest.OK("never asked"))
		c := newTestClient(t, srv, nil)
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		_, err := c.Complete(ctx, judgeRequest())
		require.EqualError(t, err, "judge: stopped after 1 attempt(s), the next one (in 30s) would start past the context deadline: POST "+srv.OpenAIEndpoint()+"/chat/completions: 429 Too Many Requests: Rate limit reached")
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.NoError(t, ctx.Err(), "returned without waiting for the deadline")
		assert.Equal(t, 1, srv.Count())
	})
	t.Run("a Retry-After too long without a deadline ends the attempts", func(t *testing.T) {
		srv := judgetest.NewServer(t)
		srv.Enqueue(judgetest.TooManyRequests("3600"))
		c := newTestClient(t, srv, nil)
		_, err := c.Complete(t.Context(), judgeRequest())
		require.EqualError(t, err, "judge: stopped after 1 attempt(s), the server asked to wait 1h0m0s (more than 1m0s): POST "+srv.OpenAIEndpoint()+"/chat/completions: 429 Too Many Requests: Rate limit reached")
		assert.Equal(t, 1, srv.Count())
	})
	t.Run("cancel during the wait between attempts", func(t *testing.T) {
		srv := judgetest.NewServer(t)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		srv.Handle(func(judgetest.Request) judgetest.Reply {
			cancel()
			return judgetest.TooManyRequests("20")
		})
		c := newTestClient(t, srv, nil)
		_, err := c.Complete(ctx, judgeRequest())
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, 1, srv.Count())
	})
	t.Run("a context already done: the judge is not asked", func(t *testing.T) {
		srv := judgetest.NewServer(t)
		c := newTestClient(t, srv, nil)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := c.Complete(ctx, judgeRequest())
		require.EqualError(t, err, "judge: judge not asked: context canceled before the first request")
		assert.ErrorIs(t, err, toolcall.ErrJudgeSkipped)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, 0, srv.Count())
	})
}

func TestCompleteRedactsBeforeSending(t *testing.T) {
	srv := judgetest.NewServer(t)
	srv.Enqueue(judgetest.OK("ok"))
	c := newTestClient(t, srv, func(cfg *Config) {
		cfg.Redact = []RedactConfig{
			{Pattern: `\b\d{4}-\d{4}-\d{4}-\d{4}\b`, Replacement: "[card]"},
			{Pattern: `(?i)(password=)\S+`, Replacement: "${1}***"},
			{Pattern: `secret-project`},
		}
	})
	req := judgeRequest()
	req.Messages = []toolcall.ChatMessage{
		{Role: "system", Content: "Judge secret-project calls."},
		{Role: "user", Content: `pay({"card":"4111-1111-1111-1111"}) login({"q":"PASSWORD=hunter2 user=bob"})`},
		{Role: "assistant", Content: "nothing to hide"},
	}
	_, err := c.Complete(t.Context(), req)
	require.NoError(t, err)
	assert.Equal(t, []judgetest.Message{
		{Role: "system", Content: "Judge  calls."},
		{Role: "user", Content: `pay({"card":"[card]"}) login({"q":"PASSWORD=*** user=bob"})`},
		{Role: "assistant", Content: "nothing to hide"},
	}, srv.Requests()[0].Body.Messages)
	assert.NotContains(t, string(srv.Requests()[0].RawBody), "4111")
	assert.NotContains(t, string(srv.Requests()[0].RawBody), "hunter2")
}

func TestCompleteRejectsARequestWithoutMessages(t *testing.T) {
	srv := judgetest.NewServer(t)
	c := newTestClient(t, srv, nil)
	_, err := c.Complete(t.Context(), toolcall.ChatRequest{})
	require.EqualError(t, err, "judge: the request has no messages")
	assert.Equal(t, 0, srv.Count())
}

func TestCompleteIsSafeForConcurrentUse(t *testing.T) {
	srv := judgetest.NewServer(t)
	srv.Handle(func(r judgetest.Request) judgetest.Reply {
		return judgetest.Reply{Content: r.Body.Messages[0].Content, PromptTokens: 3, CompletionTokens: 1}
	})
	c := newTestClient(t, srv, func(cfg *Config) {
		cfg.Redact = []RedactConfig{{Pattern: `x`, Replacement: "y"}}
	})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			req := toolcall.ChatRequest{Messages: []toolcall.ChatMessage{{Role: "user", Content: "x" + string(rune('a'+i))}}}
			got, err := c.Complete(t.Context(), req)
			if assert.NoError(t, err) {
				assert.Equal(t, "y"+string(rune('a'+i)), got.Content)
				assert.Equal(t, 3, got.InputTokens)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 16, srv.Count())
}

func TestNewClientFromHostUsesTheHTTPClientSettings(t *testing.T) {
	srv := judgetest.NewServer(t)
	srv.Enqueue(judgetest.OK("ok"))
	cfg := testConfig(srv)
	cfg.ClientConfig.Headers.Set("X-Tenant", "team-a")
	cfg.ClientConfig.Timeout = 10 * time.Second

	c, err := NewClientFromHost(t.Context(), &cfg, componenttest.NewNopHost(), componenttest.NewNopTelemetrySettings())
	require.NoError(t, err)
	t.Cleanup(c.Close)

	_, err = c.Complete(t.Context(), judgeRequest())
	require.NoError(t, err)
	r := srv.Requests()[0]
	assert.Equal(t, "team-a", r.Header.Get("X-Tenant"))
	assert.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"))
}

func TestNewClientFromHostWithoutHost(t *testing.T) {
	srv := judgetest.NewServer(t)
	cfg := testConfig(srv)
	c, err := NewClientFromHost(t.Context(), &cfg, nil, componenttest.NewNopTelemetrySettings())
	require.NoError(t, err)
	c.Close()
}

func TestNewClientValidates(t *testing.T) {
	cfg := NewDefaultConfig()
	_, err := NewClient(&cfg, nil, nil)
	require.EqualError(t, err, "endpoint: must not be empty\nmodel: must not be empty")
	_, err = NewClientFromHost(t.Context(), &cfg, nil, componenttest.NewNopTelemetrySettings())
	require.EqualError(t, err, "endpoint: must not be empty\nmodel: must not be empty")
}
