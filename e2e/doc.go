// Package e2e tests the collector built by ocb (make build) end to end: it
// starts the real binary with the demo configuration, sends captured agent
// traces over OTLP/gRPC and OTLP/HTTP, and checks the scores in the file
// exporter's output, the internal metrics the alert rules use, config
// validation and a clean shutdown. The tests need the binary, so they are
// behind the e2e build tag:
//
//	make e2e    # go test -tags e2e -count=1 ./e2e/ -collector=$PWD/_build/otelcol-toolcallaccuracy
//
// TestScaleOut (build tag scaleout) runs the two-tier deployment: a stock
// collector with the load_balancing exporter (tools/scaleout, ocb
// v0.160.0) routing by trace id to instances of ours, fed by toolscore
// load -split. It checks that every run is scored once, on one instance,
// as one collector scores it, and measures what a SIGKILLed instance and
// an added one cost:
//
//	make e2e-scaleout
//
// TestPrometheus (build tag prometheus) runs the collector's evaluations
// connector under a real Prometheus server (bin/prometheus-<version>, which
// make installs): the per-agent alert rules of alerts/evaluations.rules.yaml
// fire for the failing agent only, and the stored exemplars name traces
// that failed:
//
//	make e2e-prometheus
package e2e
