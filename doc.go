// Package toolcallaccuracyprocessor is an OpenTelemetry Collector processor
// that extracts GenAI tool calls from spans of every common instrumentation
// convention, assembles each agent run's trajectory as its spans stream by,
// scores it against expectation rules from the configuration, and attaches
// the scores to the agent span and to metrics.
//
// The root package is the collector component: configuration, factory, the
// batch path, the holder of agent spans taken out of their batch, and
// telemetry. Extraction lives in internal/extract, run assembly in
// internal/trajectory, compiled rules in internal/rules, and scoring in the
// pure-Go internal/toolcall, internal/peers and internal/judges, whose
// public face is package scoring (docs/architecture.md has the picture).
package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

//go:generate go tool mdatagen metadata.yaml
