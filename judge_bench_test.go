package toolcallaccuracyprocessor

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judgeclient"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/memtest"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// withJudgeRule adds a rule judged by MEAI's ToolCallAccuracy at the given
// sampling ratio, with a judge that is never reached (its endpoint is
// closed) unless a test replaces the client.
// benchDescription is the description of the benchmark's tools.
var benchDescription = "a tool of the benchmark runs"

func withJudgeRule(cfg *Config, ratio float64) *Config {
	jc := &JudgeConfig{client: judgeclient.NewDefaultConfig(), SampleRatio: &ratio, QueueSize: 1 << 20}
	jc.client.ClientConfig.Endpoint = "http://127.0.0.1:1/v1"
	jc.client.Model = "bench"
	var tools []ToolConfig
	for i := 0; i < 5; i++ {
		tools = append(tools, ToolConfig{Name: fmt.Sprintf("tool_%d", i), Description: &benchDescription})
	}
	cfg.Rules = append(cfg.Rules, RuleConfig{Name: "judged", Scorers: []ScorerConfig{{Name: "meai_tool_call_accuracy"}}, Judge: jc, Tools: tools})
	return cfg
}

// BenchmarkAgentSpanJudgeSampledOut: the agent span's cost with a judge
// rule configured whose sampling leaves the run out, beside the same
// processor without the judge rule.
func BenchmarkAgentSpanJudgeSampledOut(b *testing.B) {
	for _, mode := range []string{"no_judge_rule", "judge_rule_sampled_out"} {
		b.Run(mode, func(b *testing.B) {
			cfg := benchConfig()
			if mode == "judge_rule_sampled_out" {
				cfg = withJudgeRule(cfg, 0)
			}
			p := newBenchProcessor(b, cfg, false)
			requirePassed(b, timeAgentSpans(b, p))
		})
	}
}

// blockedJudge never answers until the context ends.
type blockedJudge struct{}

func (blockedJudge) Complete(ctx context.Context, _ toolcall.ChatRequest) (toolcall.ChatResponse, error) {
	<-ctx.Done()
	return toolcall.ChatResponse{}, ctx.Err()
}

// BenchmarkRetainedHeldForJudge measures the heap one agent span held for
// its judge keeps (runs of five calls with a recorded request), beside a
// span held by wait and one held by wait_for_missing (its agent span
// arrived first, the calls are still on their way: they never come).
func BenchmarkRetainedHeldForJudge(b *testing.B) {
	const runs = 2000
	for _, mode := range []string{"held_by_wait", "held_for_judge", "held_for_missing"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				cfg := benchConfig()
				cfg.ScoreTimeout = time.Hour
				switch mode {
				case "held_by_wait":
					cfg.Wait = time.Hour
				case "held_for_missing":
					cfg.WaitForMissing = time.Hour
				default:
					cfg = withJudgeRule(cfg, 1)
				}
				var tp *tcaProcessor
				f := newFactory(func(p *tcaProcessor) {
					p.makeJudge = func(context.Context, *JudgeConfig, component.Host, component.TelemetrySettings) (toolcall.Completer, error) {
						return blockedJudge{}, nil
					}
					tp = p
				})
				p, err := f.CreateTraces(context.Background(), processortest.NewNopSettings(NewFactory().Type()), cfg, consumertest.NewNop())
				if err != nil {
					b.Fatal(err)
				}
				if err := p.Start(context.Background(), componenttest.NewNopHost()); err != nil {
					b.Fatal(err)
				}
				tools, agent := runBatches()
				agent.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().PutStr("gen_ai.input.messages",
					`[{"role":"user","parts":[{"type":"text","content":"What is the weather in Paris, and the price of ZZZZ?"}]}]`)
				retained := memtest.RetainedBytes(func() {
					for i := uint64(1); i <= runs; i++ {
						if mode != "held_for_missing" {
							setTrace(tools, traceID(i))
							_ = p.ConsumeTraces(context.Background(), tools)
						}
						a := ptrace.NewTraces()
						agent.CopyTo(a)
						setTrace(a, traceID(i))
						_ = p.ConsumeTraces(context.Background(), a)
					}
				})
				if held := tp.tel.held.Load(); held != runs {
					b.Fatalf("%d spans held, want %d", held, runs)
				}
				b.ReportMetric(float64(retained)/runs, "B/held_run")
				_ = p.Shutdown(context.Background())
			}
		})
	}
}
