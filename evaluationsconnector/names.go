package evaluationsconnector // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector"

import (
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/aggregate"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector/internal/evaluation"
)

// Metrics the connector writes. The semantic conventions define no
// evaluation metric; these are named after the evaluation event, and the
// per-tool counter after the processor that records the statuses.
const (
	metricScore     = "gen_ai.evaluation.score"
	metricResults   = "gen_ai.evaluation.results"
	metricToolCalls = "tool_call_accuracy.tool_calls"

	unitScore     = "1"
	unitResults   = "{evaluation}"
	unitToolCalls = "{call}"

	descScore     = "Scores of the evaluations recorded on spans, by evaluation and evaluator."
	descResults   = "Evaluations recorded on spans, by evaluation, evaluator and outcome (score label, or error.type)."
	descToolCalls = "Tool calls judged by the tool_call_accuracy processor's rules, by tool and what became of the call."
)

// Attributes of the metrics besides the dimensions.
const (
	attrToolName   = string(semconv.GenAIToolNameKey)
	attrCallStatus = evaluation.ProcessorPrefix + "call_status"
)

// reservedDimensions are the attributes the connector sets itself, which a
// dimension must not name.
var reservedDimensions = map[string]bool{
	evaluation.AttrName:      true,
	evaluation.AttrLabel:     true,
	evaluation.AttrScore:     true,
	evaluation.AttrErrorType: true,
	evaluation.AttrRule:      true,
	evaluation.AttrScorer:    true,
	attrToolName:             true,
	attrCallStatus:           true,
	aggregate.OverflowKey:    true,
}
