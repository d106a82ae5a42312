// Package evaluationsconnector is an OpenTelemetry Collector connector that
// turns the GenAI evaluations recorded on spans into the signals the
// semantic conventions define for them: one gen_ai.evaluation.result log
// record per evaluation (traces to logs), and a score histogram, a results
// counter and a per-tool call counter with exemplars (traces to metrics).
//
// It reads gen_ai.evaluation.result span events from any producer (the
// tool_call_accuracy processor, or an SDK evaluator) and, when configured,
// the tool_call_accuracy processor's per-rule span attributes, for a
// processor that writes no events. Reading lives in internal/evaluation and
// the metric series in internal/aggregate; this package is the glue.
package evaluationsconnector // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/evaluationsconnector"

//go:generate go tool mdatagen metadata.yaml
