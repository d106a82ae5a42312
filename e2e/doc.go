// Package e2e tests the collector built by ocb (make build) end to end: it
// starts the real binary with the demo configuration, sends captured agent
// traces over OTLP/gRPC and OTLP/HTTP, and checks the scores in the file
// exporter's output, the internal metrics the alert rules use, config
// validation and a clean shutdown. The tests need the binary, so they are
// behind the e2e build tag:
//
//	make e2e    # go test -tags e2e -count=1 ./e2e/ -collector=$PWD/_build/otelcol-toolcallaccuracy
package e2e
