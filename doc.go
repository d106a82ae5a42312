// Package toolcallaccuracyprocessor is an OpenTelemetry Collector processor
// that extracts GenAI tool calls from spans of every common instrumentation
// convention, assembles each agent run's trajectory as its spans stream by,
// scores it against expectation rules from the configuration, and attaches
// the scores to the agent span and to metrics.
//
// The root package is collector glue: configuration, factory, the
// ConsumeTraces path and telemetry. Extraction lives in internal/extract,
// trajectory state in internal/trajectory, compiled rules in internal/rules
// and scoring in the pure-Go scoring package.
package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

//go:generate go tool mdatagen metadata.yaml
