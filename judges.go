package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/component"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judgelimits"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/rules"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// ruleJudge is one rule's LLM judge: the client (made at Start, when the
// host's extensions are there), behind the rule's limits, and the rule's
// sampling decision.
type ruleJudge struct {
	cfg    *JudgeConfig
	client atomic.Pointer[completerBox]
	guard  *judgelimits.Guard
	// sampleBelow is the sampling ratio as a bound on the trace-id hash.
	sampleBelow uint64
	all         bool
}

type completerBox struct{ toolcall.Completer }

// errJudgeNotStarted answers requests made before Start made the client.
var errJudgeNotStarted = errors.New("the judge client is not started")

func newRuleJudge(cfg *JudgeConfig) *ruleJudge {
	j := &ruleJudge{cfg: cfg}
	ratio := cfg.sampleRatio()
	j.all = ratio >= 1
	j.sampleBelow = uint64(ratio * math.MaxUint64)
	if ratio >= 1 {
		j.sampleBelow = math.MaxUint64
	}
	j.guard = judgelimits.NewGuard(j, cfg.limits())
	return j
}

// Complete sends a request with the client made at Start.
func (j *ruleJudge) Complete(ctx context.Context, req toolcall.ChatRequest) (toolcall.ChatResponse, error) {
	c := j.client.Load()
	if c == nil {
		return toolcall.ChatResponse{}, errJudgeNotStarted
	}
	return c.Complete(ctx, req)
}

// samples reports whether the run of a trace is judged. The decision is a
// hash of the trace id, so every collector (and toolscore) decides alike.
func (j *ruleJudge) samples(trace [16]byte) bool {
	if j.all {
		return true
	}
	return traceHash(trace) < j.sampleBelow
}

// traceHash mixes a trace id into 64 well-spread bits (splitmix64 of the
// two halves).
func traceHash(t [16]byte) uint64 {
	x := binary.BigEndian.Uint64(t[:8]) ^ mix64(binary.BigEndian.Uint64(t[8:]))
	return mix64(x)
}

func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// judgeObserver records one scorer's judge requests in the processor's
// metrics (set once the telemetry exists).
type judgeObserver struct {
	p            *tcaProcessor
	rule, scorer int
}

func (o *judgeObserver) observe(outcome judgelimits.Outcome, took time.Duration, resp *toolcall.ChatResponse) {
	if o.p == nil || o.p.tel == nil {
		return
	}
	o.p.tel.recordJudge(o.rule, o.scorer, outcome, took, resp)
}

// startJudges makes each judge rule's client, now that the host's
// extensions (authenticators) are there.
func (p *tcaProcessor) startJudges(ctx context.Context, host component.Host) error {
	for i, j := range p.judges {
		if j == nil {
			continue
		}
		c, err := p.makeJudge(ctx, j.cfg, host, p.host)
		if err != nil {
			return fmt.Errorf("rules[%d]: rule %q: judge: %w", i, p.rules[i].Name, err)
		}
		j.client.Store(&completerBox{c})
	}
	return nil
}

// wantsContext reports whether runs of a trace need their context: a
// scorer reads it on every run, or a judge samples the trace.
func (p *tcaProcessor) wantsContext(trace [16]byte) bool {
	return p.contextAlways || p.judgeSamples(trace)
}

// judgeSamples reports whether some rule's judge samples the trace.
func (p *tcaProcessor) judgeSamples(trace [16]byte) bool {
	for _, j := range p.judges {
		if j != nil && j.samples(trace) {
			return true
		}
	}
	return false
}

// judged reports whether rule ri's deferred (judge) scorers run on a run
// of the trace.
func (p *tcaProcessor) judged(ri int, trace [16]byte) bool {
	if p.judges == nil {
		return true
	}
	j := p.judges[ri]
	return j == nil || j.samples(trace)
}

// dropUnjudged removes from selected the rules whose scorers are all
// judges that do not sample the trace: nothing of theirs runs, so they
// must not make the run's calls more expensive to prepare.
func (p *tcaProcessor) dropUnjudged(selected []int, trace [16]byte) []int {
	kept := selected[:0]
	for _, ri := range selected {
		if j := p.judges[ri]; j != nil && !j.samples(trace) && allDeferred(p.rules[ri]) {
			continue
		}
		kept = append(kept, ri)
	}
	return kept
}

func allDeferred(r *rules.Rule) bool {
	for _, s := range r.Scorers {
		if !s.Deferred {
			return false
		}
	}
	return true
}

// keepsResults reports whether the calls of a trace's runs keep their
// results: a scorer always reads them, or a judge samples the trace.
func (p *tcaProcessor) keepsResults(trace [16]byte) bool {
	return p.keepResultsAlways || (p.keepResults && p.judgeSamples(trace))
}
