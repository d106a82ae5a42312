package judgetest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(raw, &out), string(raw))
	return resp.StatusCode, out
}

func TestServerRoutes(t *testing.T) {
	tests := []struct {
		name       string
		path       string
		wantStatus int
	}{
		{name: "openai with /v1", path: "/v1/chat/completions", wantStatus: 200},
		{name: "openai without /v1", path: "/chat/completions", wantStatus: 200},
		{name: "azure", path: "/openai/deployments/d1/chat/completions?api-version=2024-10-21", wantStatus: 200},
		{name: "azure without api-version", path: "/openai/deployments/d1/chat/completions", wantStatus: 404},
		{name: "another endpoint", path: "/v1/completions", wantStatus: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(t)
			srv.Always(OK("yes"))
			status, _ := post(t, srv.URL()+tt.path, `{"model":"m","messages":[{"role":"user","content":"q"}]}`)
			assert.Equal(t, tt.wantStatus, status)
			require.Equal(t, 1, srv.Count(), "every request is recorded")
		})
	}
}

func TestServerAnswersAndRecords(t *testing.T) {
	srv := NewServer(t)
	srv.Enqueue(Reply{Content: "first", PromptTokens: 5, CompletionTokens: 2}, Status(503, "busy"))
	srv.Handle(func(r Request) Reply { return OK("echo " + r.Body.Messages[0].Content) })

	status, body := post(t, srv.AzureEndpoint()+"/openai/deployments/dep/chat/completions?api-version=v", `{"model":"m","messages":[{"role":"user","content":"q"}],"temperature":0,"max_tokens":9}`)
	assert.Equal(t, 200, status)
	assert.Equal(t, "first", body["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"])
	assert.Equal(t, map[string]any{"prompt_tokens": 5.0, "completion_tokens": 2.0, "total_tokens": 7.0}, body["usage"])
	assert.Equal(t, "m", body["model"])

	status, body = post(t, srv.OpenAIEndpoint()+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"q"}]}`)
	assert.Equal(t, 503, status)
	assert.Equal(t, "busy", body["error"].(map[string]any)["message"])

	_, body = post(t, srv.OpenAIEndpoint()+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"again"}]}`)
	assert.Equal(t, "echo again", body["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"])

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, "dep", reqs[0].Deployment)
	assert.Equal(t, "v", reqs[0].Query.Get("api-version"))
	require.NotNil(t, reqs[0].Body.Temperature)
	assert.Equal(t, 0.0, *reqs[0].Body.Temperature)
	require.NotNil(t, reqs[0].Body.MaxTokens)
	assert.Equal(t, 9, *reqs[0].Body.MaxTokens)
	assert.Nil(t, reqs[0].Body.TopP)
	assert.Empty(t, reqs[1].Deployment)
}

func TestServerWithoutAScriptSaysSo(t *testing.T) {
	srv := NewServer(t)
	status, body := post(t, srv.OpenAIEndpoint()+"/chat/completions", `{}`)
	assert.Equal(t, 500, status)
	assert.Equal(t, "judgetest: no scripted reply", body["error"].(map[string]any)["message"])
}

func TestServerRecordsBodiesThatAreNotJSON(t *testing.T) {
	srv := NewServer(t)
	srv.Always(OK("x"))
	resp, err := http.Post(srv.OpenAIEndpoint()+"/chat/completions", "text/plain", strings.NewReader("not json"))
	require.NoError(t, err)
	resp.Body.Close()
	r := srv.Requests()[0]
	assert.Equal(t, "not json", string(r.RawBody))
	assert.NotEmpty(t, r.BodyError)
}

func TestCloseEndsDelayedAnswers(t *testing.T) {
	srv := NewServer(t)
	srv.Always(OK("late").After(time.Hour))
	done := make(chan error, 1)
	go func() {
		resp, err := http.Post(srv.OpenAIEndpoint()+"/chat/completions", "application/json", strings.NewReader(`{}`))
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	require.Eventually(t, func() bool { return srv.Count() == 1 }, 5*time.Second, time.Millisecond)
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for the delayed answer")
	}
	<-done
	srv.Close() // twice is fine
}
