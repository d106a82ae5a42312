package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// runStandin serves a stand-in LLM judge: the chat-completions protocol on
// loopback with deterministic answers, so that judge rules can be shown and
// tested without a model. It is not a judge: it calls a run wrong when the
// request mentions an error, and right otherwise.
func runStandin(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("judge-standin", stderr)
	listen := fs.String("listen", "127.0.0.1:0", "`address` to serve on (loopback)")
	delay := fs.Duration("delay", 0, "wait this long before each answer")
	addrFile := fs.String("addr-file", "", "write the endpoint URL to `file` once serving")
	if _, err := parseArgs(fs, args); err != nil {
		return 0, err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return 0, err
	}
	s := &standin{delay: *delay}
	endpoint := "http://" + ln.Addr().String() + "/v1"
	fmt.Fprintln(stdout, endpoint)
	if *addrFile != "" {
		if err := os.WriteFile(*addrFile, []byte(endpoint+"\n"), 0o644); err != nil {
			return 0, err
		}
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return 0, err
	}
	fmt.Fprintf(stderr, "judge-standin: answered %d requests\n", s.answered.Load())
	return exitOK, nil
}

// standin answers chat-completions requests.
type standin struct {
	delay    time.Duration
	answered atomic.Int64
}

type standinRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
}

func (s *standin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	var req standinRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-r.Context().Done():
			return
		}
	}
	prompt := ""
	for _, m := range req.Messages {
		prompt += m.Content + "\n"
	}
	content := standinAnswer(prompt, req.ResponseFormat != nil && req.ResponseFormat.Type == "json_object")
	s.answered.Add(1)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id":      fmt.Sprintf("standin-%d", s.answered.Load()),
		"object":  "chat.completion",
		"model":   req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
		"usage":   map[string]any{"prompt_tokens": len(prompt) / 4, "completion_tokens": len(content) / 4, "total_tokens": (len(prompt) + len(content)) / 4},
	})
}

// standinAnswer is the stand-in's verdict in every answer format the judge
// profiles parse: the <S0>/<S1>/<S2> tags, or one JSON object with the
// fields of each JSON profile. A prompt that mentions an error is judged
// wrong.
func standinAnswer(prompt string, jsonObject bool) string {
	wrong := strings.Contains(strings.ToLower(prompt), "error")
	reason := "stand-in judge: no call result mentions an error"
	if wrong {
		reason = "stand-in judge: a call result mentions an error"
	}
	if !jsonObject {
		return fmt.Sprintf("<S0>%s</S0>\n<S1>%s</S1>\n<S2>%t</S2>", reason, reason, !wrong)
	}
	level := 5
	if wrong {
		level = 2
	}
	answer := map[string]any{
		// Azure ToolCallAccuracy.
		"chain_of_thought":          reason,
		"tool_calls_success_level":  level,
		"tool_calls_success_result": map[bool]string{true: "fail", false: "pass"}[wrong],
		"excess_tool_calls":         map[string]any{"total": 0, "details": []any{}},
		"missing_tool_calls":        map[string]any{"total": 0, "details": []any{}},
		// Mastra's LLM scorers: no per-call evaluations (their empty branch).
		"evaluations":       []any{},
		"missingTools":      []any{},
		"stepEvaluations":   []any{},
		"missingSteps":      []any{},
		"extraSteps":        []any{},
		"overallAssessment": reason,
		// DeepEval's tool selection.
		"score":  map[bool]float64{true: 0.25, false: 1}[wrong],
		"reason": reason,
	}
	b, _ := json.Marshal(answer)
	return string(b)
}
