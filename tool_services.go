package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
)

// maxToolServices bounds the services remembered; past it, services not
// remembered are treated as unknown.
const maxToolServices = 4096

// toolServices remembers, by service.name, what a service's runs record.
// Whether they leave tool spans: once one of its tool spans arrived
// (toolSpans), or once a run of it whose model requested calls reached
// wait_for_missing without any (toolsByHand: an app that runs its tools
// itself and records only its model calls). A run whose model requested
// calls and that has no tool span yet waits for them unless its service is
// known to run tools by hand: a service seen for the first time waits
// once. And whether its model calls record the calls the model requested
// (requests): then a run's executed call that no turn requested waits for
// that turn. Guarded by the processor's mutex.
type toolServices map[string]serviceTools

// serviceTools is what a service's runs were seen to record.
type serviceTools uint8

const (
	toolsByHand serviceTools = 1 << iota
	toolSpans
	requests
	// recordsSent: log records of its model calls reached the processor
	// (logs.go); callRecordsSent: log records of its tool calls, named by
	// id (log_call_records.go).
	recordsSent
	callRecordsSent
)

// saw records what a service's span showed: a tool span, a model turn
// that requested calls.
func (s toolServices) saw(service string, what serviceTools) {
	if st, ok := s[service]; st&what != what && (ok || len(s) < maxToolServices) {
		s[service] = (st | what) &^ ifSpans(what)
	}
}

// ifSpans is what a service's tool span unlearns: that it runs its tools
// by hand.
func ifSpans(what serviceTools) serviceTools {
	if what&toolSpans != 0 {
		return toolsByHand
	}
	return 0
}

// released records what a run held while its trace showed spans missing
// says of its service: one released at its deadline still waiting for the
// tool spans of its requested calls, without any, ran them by hand.
func (s toolServices) released(service string, traj *trajectory.Trajectory) {
	if traj == nil || traj.ReleasedEarly || traj.Missing != trajectory.MissingExecution || len(traj.Calls) > 0 {
		return
	}
	if st, ok := s[service]; st&toolSpans == 0 && (ok || len(s) < maxToolServices) {
		s[service] = st | toolsByHand
	}
}

// awaitsTools reports whether runs of a service wait for the tool spans of
// the calls their model requested.
func (s toolServices) awaitsTools(service string) bool { return s[service]&toolsByHand == 0 }

// sendsRecords reports whether a service's model calls are witnessed by
// log records.
func (s toolServices) sendsRecords(service string) bool { return s[service]&recordsSent != 0 }

// sendsCallRecords reports whether a service's tool calls are witnessed by
// log records that name them by id.
func (s toolServices) sendsCallRecords(service string) bool { return s[service]&callRecordsSent != 0 }

// recordsRequests reports whether a service's model calls record the calls
// the model requested.
func (s toolServices) recordsRequests(service string) bool { return s[service]&requests != 0 }

// serviceOf returns the service.name of the batch's resource ri, read once
// per resource.
func (b *batch) serviceOf(ri int) string {
	if b.serviceRS != ri+1 {
		b.serviceRS, b.service = ri+1, serviceName(b.td.ResourceSpans().At(ri).Resource())
	}
	return b.service
}

// serviceOfSpan returns the service.name of a held run's span.
func serviceOfSpan(r *heldRun) string { return serviceName(r.td.ResourceSpans().At(0).Resource()) }

// serviceName returns a resource's service.name ("" when it has none).
func serviceName(res pcommon.Resource) string {
	if v, ok := res.Attributes().Get("service.name"); ok {
		return v.AsString()
	}
	return ""
}
