package judgeclient

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judgeclient/judgetest"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// Secrets a failing judge must never repeat, in errors or logs.
var secrets = []string{
	testKey,
	"endpoint-password-77",  // endpoint userinfo
	"query-key-secret-88",   // endpoint query parameter
	"proxy-password-99",     // proxy_url userinfo
	"gateway-header-secret", // a configured header value
}

// closedAddr is an address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// TestFailingJudgeNeverLeaksSecrets drives every failure path with servers
// that echo the secrets back, and checks every returned error text and
// every log entry (debug level, all fields) for them.
func TestFailingJudgeNeverLeaksSecrets(t *testing.T) {
	echo := func(r judgetest.Request) string {
		// A server (or a proxy in front of it) that quotes the credentials
		// it received, as some do in 401 bodies.
		return fmt.Sprintf("Incorrect API key provided: %s (api-key %s, header %s)",
			strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "),
			r.Header.Get("api-key"), r.Header.Get("X-Gateway-Key"))
	}

	tests := []struct {
		name string
		// setup returns the config edit and, optionally, an http.Client; it
		// may script srv.
		setup func(t *testing.T, srv *judgetest.Server, cfg *Config)
		// fromHost builds the client with NewClientFromHost (confighttp).
		fromHost bool
		// wantSent: the server must have seen the key (the test is not
		// vacuous); wantScrubbed: an echo had to be replaced.
		wantSent, wantScrubbed bool
	}{
		{
			name: "401 echoing the key, OpenAI form",
			setup: func(_ *testing.T, srv *judgetest.Server, _ *Config) {
				srv.Handle(func(r judgetest.Request) judgetest.Reply { return judgetest.Status(401, echo(r)) })
			},
			wantSent: true, wantScrubbed: true,
		},
		{
			name: "401 echoing the key, Azure form",
			setup: func(_ *testing.T, srv *judgetest.Server, cfg *Config) {
				cfg.ClientConfig.Endpoint = srv.AzureEndpoint()
				cfg.APIVersion = "2024-10-21"
				srv.Handle(func(r judgetest.Request) judgetest.Reply { return judgetest.Status(401, echo(r)) })
			},
			wantSent: true, wantScrubbed: true,
		},
		{
			name: "500 echoing the key, retried until giving up",
			setup: func(_ *testing.T, srv *judgetest.Server, cfg *Config) {
				cfg.MaxRetries = 2
				srv.Handle(func(r judgetest.Request) judgetest.Reply {
					return judgetest.Reply{Status: 500, Body: []byte(echo(r)), Header: http.Header{"X-Echo": {testKey}}}
				})
			},
			wantSent: true, wantScrubbed: true,
		},
		{
			name: "a configured header echoed in a 403 through confighttp",
			setup: func(_ *testing.T, srv *judgetest.Server, cfg *Config) {
				cfg.ClientConfig.Headers.Set("X-Gateway-Key", "gateway-header-secret")
				srv.Handle(func(r judgetest.Request) judgetest.Reply { return judgetest.Status(403, echo(r)) })
			},
			fromHost: true,
			wantSent: true, wantScrubbed: true,
		},
		{
			name: "refusal and malformed answers quoting the key",
			setup: func(_ *testing.T, srv *judgetest.Server, cfg *Config) {
				cfg.MaxRetries = 0
				srv.Handle(func(judgetest.Request) judgetest.Reply {
					return judgetest.Raw(`{"choices":[{"message":{"content":null,"refusal":"not with key ` + testKey + `"}}]}`)
				})
			},
			wantSent: true, wantScrubbed: true,
		},
		{
			name: "slow answer: request_timeout, then the context deadline",
			setup: func(_ *testing.T, srv *judgetest.Server, cfg *Config) {
				cfg.RequestTimeout = 20 * time.Millisecond
				cfg.MaxRetries = 50
				srv.Always(judgetest.OK("late").After(time.Second))
			},
			wantSent: true,
		},
		{
			name: "transport error: credentials in the endpoint's userinfo and query",
			setup: func(t *testing.T, _ *judgetest.Server, cfg *Config) {
				cfg.ClientConfig.Endpoint = "http://judge:endpoint-password-77@" + closedAddr(t) + "/v1?key=query-key-secret-88"
				cfg.MaxRetries = 1
			},
		},
		{
			name: "transport error: credentials in proxy_url, through confighttp",
			setup: func(t *testing.T, _ *judgetest.Server, cfg *Config) {
				cfg.ClientConfig.ProxyURL = "http://proxy:proxy-password-99@" + closedAddr(t)
				cfg.ClientConfig.Endpoint = "http://judge.invalid/v1?key=query-key-secret-88"
				cfg.MaxRetries = 1
			},
			fromHost: true,
		},
		{
			name: "redirect to a dead host with the key in the query",
			setup: func(t *testing.T, _ *judgetest.Server, cfg *Config) {
				dead := closedAddr(t)
				redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, "http://"+dead+"/v1/chat/completions?api_key="+testKey, http.StatusTemporaryRedirect)
				}))
				t.Cleanup(redirector.Close)
				cfg.ClientConfig.Endpoint = redirector.URL + "/v1"
				cfg.MaxRetries = 1
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := judgetest.NewServer(t)
			cfg := testConfig(srv)
			tt.setup(t, srv, &cfg)
			core, logs := observer.New(zapcore.DebugLevel)
			logger := zap.New(core)

			var c *Client
			var err error
			if tt.fromHost {
				set := componenttest.NewNopTelemetrySettings()
				set.Logger = logger
				c, err = NewClientFromHost(t.Context(), &cfg, componenttest.NewNopHost(), set)
			} else {
				c, err = NewClient(&cfg, nil, logger)
			}
			require.NoError(t, err)
			t.Cleanup(c.Close)

			ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
			defer cancel()
			_, err = c.Complete(ctx, judgeRequest())
			require.Error(t, err)

			texts := []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), fmt.Sprintf("%#v", c), fmt.Sprintf("%+v", c)}
			for _, e := range logs.All() {
				texts = append(texts, e.Message, fmt.Sprint(e.ContextMap()))
			}
			require.NotEmpty(t, logs.All(), "the failure was logged at debug level")
			for _, text := range texts {
				for _, secret := range secrets {
					assert.NotContains(t, text, secret)
				}
			}
			// The Config prints api_key as [REDACTED] (configopaque); endpoint
			// and proxy_url are confighttp's plain strings, so credentials
			// put in them are the user's to keep out of printed configs.
			assert.NotContains(t, fmt.Sprintf("%#v %+v", cfg, cfg), testKey)
			if tt.wantSent {
				sawKey := false
				for _, r := range srv.Requests() {
					sawKey = sawKey || strings.Contains(r.Header.Get("Authorization")+r.Header.Get("api-key"), testKey)
				}
				assert.True(t, sawKey, "the key was sent, so the servers could echo it")
			}
			if tt.wantScrubbed {
				assert.Contains(t, err.Error(), redacted, "the echo was scrubbed")
			}
			t.Log(err)
		})
	}
}

func TestFailingJudgeLogsNothingAboveDebug(t *testing.T) {
	srv := judgetest.NewServer(t)
	srv.Always(judgetest.Status(500, "boom"))
	core, logs := observer.New(zapcore.DebugLevel)
	cfg := testConfig(srv)
	c, err := NewClient(&cfg, nil, zap.New(core))
	require.NoError(t, err)
	t.Cleanup(c.Close)

	_, err = c.Complete(t.Context(), judgeRequest())
	require.Error(t, err)
	require.Len(t, logs.All(), cfg.MaxRetries+1, "one line per retry and one for the failure")
	for _, e := range logs.All() {
		assert.Equal(t, zapcore.DebugLevel, e.Level)
		for k := range e.ContextMap() {
			assert.NotContains(t, []string{"headers", "header", "body", "request", "response"}, k)
		}
	}
}

func TestSkippedCompletionSaysSo(t *testing.T) {
	srv := judgetest.NewServer(t)
	c := newTestClient(t, srv, nil)
	ctx, cancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel()
	_, err := c.Complete(ctx, judgeRequest())
	assert.ErrorIs(t, err, toolcall.ErrJudgeSkipped)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}
