# The user's path: `make run` (build a collector with ocb and watch it score
# the demo agent runs) and `make test` (everything CI runs).
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

GO ?= go
# Pinned tools. ocb must match the collector versions in builder-config.yaml.
OCB_VERSION := v0.161.0
OCB_MODULE := go.opentelemetry.io/collector/cmd/builder
# Tier 1 of the scale-out test: the newest release whose load_balancing
# exporter resolves here (tools/scaleout/builder-config.yaml).
SCALEOUT_OCB_VERSION := v0.160.0
# promtool of Prometheus 3.16.0 (Go module versions are v0.<minor><patch>),
# for the alert rule tests, and the Prometheus server of the same release,
# for the end-to-end test of the evaluations connector's metrics.
PROMETHEUS_VERSION := v0.316.0
PROMTOOL_MODULE := github.com/prometheus/prometheus/cmd/promtool
PROMETHEUS_MODULE := github.com/prometheus/prometheus/cmd/prometheus

BIN := $(CURDIR)/bin
OCB := $(BIN)/ocb-$(OCB_VERSION)
PROMTOOL := $(BIN)/promtool-$(PROMETHEUS_VERSION)
PROMETHEUS := $(BIN)/prometheus-$(PROMETHEUS_VERSION)
COLLECTOR := _build/otelcol-toolcallaccuracy
TOOLSCORE := $(BIN)/toolscore
# The collector a user builds from README's manifest fragments (readme-check).
README_COLLECTOR := _build/readme/otelcol-readme

# Everything the collector is built from: the processor's non-test sources.
PROCESSOR_SRC := $(shell find . \( -path ./_build -o -path ./bin -o -path ./cmd -o -path ./e2e -o -path ./tools -o -path ./.git \) -prune -o -name '*.go' ! -name '*_test.go' -print) go.mod go.sum

SOAK_DURATION ?= 10m
SOAK_ORDER ?= in_order
FUZZ_TIME ?= 10m

BENCH_COLLECTOR := _build/bench/otelcol-bench
TIER1 := _build/scaleout/otelcol-tier1
SCALEOUT_OCB := $(BIN)/ocb-$(SCALEOUT_OCB_VERSION)

# ocb compiles the collector with -trimpath and cgo off. toolscore and the e2e
# test are compiled the same way, so the packages they share with the collector
# (the processor's dependencies) come from the build cache instead of being
# compiled again.
GO_LIKE_OCB := CGO_ENABLED=0 $(GO)

# Progress lines; the times are for empty Go caches on 2 quiet cores (a busy
# machine takes 2-4 times as long; docs/performance.md).
say = @printf '==> %s\n' $(1)

.PHONY: help run serve demo-binaries build toolscore ocb test unit alerts-test readme-check e2e e2e-prometheus e2e-scaleout soak fuzz bench-e2e bench-instructions clean

help:
	@echo 'make run     build the collector (ocb $(OCB_VERSION)), score the demo agent runs, print the table, stop'
	@echo 'make serve   the same, then keep the collector serving on 127.0.0.1 until Ctrl-C'
	@echo 'make test    go test -race ./..., ocb build, the README manifest fragments built and the README configurations validated (readme-check), promtool rule tests, end-to-end, Prometheus and scale-out tests on the binary'
	@echo 'make build   only build $(COLLECTOR)'
	@echo 'make readme-check  build a collector from README'"'"'s manifest fragments in a fresh directory and validate README'"'"'s configurations with it'
	@echo 'make e2e-scaleout  three instances behind a load_balancing collector (ocb $(SCALEOUT_OCB_VERSION)): runs scored once, an instance killed, one added'
	@echo 'make soak    $(SOAK_DURATION) of steady mixed traffic through the processor, heap sampled (SOAK_DURATION=..., SOAK_ORDER=agent_first)'
	@echo 'make fuzz    every fuzz target for $(FUZZ_TIME) each (FUZZ_TIME=...)'
	@echo 'make bench-e2e  collector CPU per 100k spans and RSS: no processor vs tool_call_accuracy vs tail_sampling'
	@echo 'make bench-instructions  instructions per span of the whole collector with and without the processor, by where they go (valgrind)'
	@echo 'make clean   remove _build/, bin/ and testdata/demo/out/'

run: demo-binaries
	COLLECTOR=$(COLLECTOR) TOOLSCORE=$(TOOLSCORE) tools/demo.sh run

serve: demo-binaries
	COLLECTOR=$(COLLECTOR) TOOLSCORE=$(TOOLSCORE) tools/demo.sh serve

# ocb's install and toolscore side by side (downloads overlap compiles), then
# the collector, whose build finds toolscore's packages compiled.
# (The `@:` recipes keep make from saying "is up to date" when nothing is built.)
demo-binaries:
	@$(MAKE) --no-print-directory -j2 ocb toolscore
	@$(MAKE) --no-print-directory build

build: $(COLLECTOR)
	@:

toolscore: $(TOOLSCORE)
	@:

ocb: $(OCB)
	@:

test: unit build alerts-test readme-check e2e e2e-prometheus e2e-scaleout

unit:
	$(call say,'go test -race ./... (about 1.5 min on empty caches)')
	$(GO) test -race ./...
	$(call say,'stack budget on the production build (without -race)')
	$(GO) test -count=1 -run '^TestStackBudget$$' .

alerts-test: $(PROMTOOL)
	$(call say,'promtool rule tests (alerts/)')
	PROMTOOL=$(PROMTOOL) alerts/test.sh

# README's quick start and connector section followed as a new user would:
# a collector built from README's own manifest fragments in a fresh
# directory, and otelcol validate on README's configurations.
readme-check: $(README_COLLECTOR)
	$(call say,'README configurations validated by a collector built from its manifest fragments')
	tools/readme-collector.sh validate $(README_COLLECTOR)

$(README_COLLECTOR): README.md $(PROCESSOR_SRC) | $(OCB)
	$(call say,'building README'"'"'s manifest fragments with ocb $(OCB_VERSION) in a fresh directory (about 1 min after make build)')
	OCB=$(OCB) COLLECTOR=$(COLLECTOR) tools/readme-collector.sh build $@

e2e: $(COLLECTOR) $(TOOLSCORE)
	$(call say,'end-to-end test on $(COLLECTOR) and bin/toolscore (about 20 s)')
	$(GO_LIKE_OCB) test -trimpath -tags e2e -count=1 -v ./e2e/ -collector=$(CURDIR)/$(COLLECTOR) -toolscore=$(TOOLSCORE)

# The evaluations connector's metrics scraped by a real Prometheus server
# (exemplar storage on), which evaluates alerts/evaluations.rules.yaml; see
# e2e/prometheus_test.go.
e2e-prometheus: $(COLLECTOR) $(TOOLSCORE) $(PROMETHEUS)
	$(call say,'end-to-end test with a Prometheus server: a per-agent alert and exemplars (about 20 s)')
	$(GO_LIKE_OCB) test -trimpath -tags prometheus -run '^(TestPrometheus|TestShortenRules)$$' -count=1 -v -timeout 5m ./e2e/ -collector=$(CURDIR)/$(COLLECTOR) -toolscore=$(TOOLSCORE) -prometheus=$(PROMETHEUS)

# Tier 1 (the load_balancing exporter) in front of instances of
# $(COLLECTOR); see e2e/scaleout_test.go.
e2e-scaleout: $(COLLECTOR) $(TIER1) $(TOOLSCORE)
	$(call say,'scale-out test: load_balancing in front of three collectors (about 40 s)')
	$(GO_LIKE_OCB) test -trimpath -tags scaleout -run '^TestScaleOut$$' -count=1 -v -timeout 10m ./e2e/ -collector=$(CURDIR)/$(COLLECTOR) -tier1=$(CURDIR)/$(TIER1) -toolscore=$(TOOLSCORE)

soak:
	$(GO) test -tags soak -run TestSoak -v -count=1 -timeout 0 . -soak.duration=$(SOAK_DURATION) -soak.order=$(SOAK_ORDER)

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzConsumeTraces$$' -fuzztime $(FUZZ_TIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZ_TIME) ./internal/jsonv/
	$(GO) test -run '^$$' -fuzz '^FuzzScore$$' -fuzztime $(FUZZ_TIME) ./scoring/
	$(GO) test -run '^$$' -fuzz '^FuzzDocumentParse$$' -fuzztime $(FUZZ_TIME) ./internal/jsonv/
	$(GO) test -run '^$$' -fuzz '^FuzzSkipValue$$' -fuzztime $(FUZZ_TIME) ./internal/jsonv/
	$(GO) test -run '^$$' -fuzz '^FuzzFieldTable$$' -fuzztime $(FUZZ_TIME) ./internal/extract/
	$(GO) test -run '^$$' -fuzz '^FuzzRead$$' -fuzztime $(FUZZ_TIME) ./evaluationsconnector/internal/evaluation/

bench-e2e: $(BENCH_COLLECTOR) $(TOOLSCORE)
	BENCH_COLLECTOR=$(BENCH_COLLECTOR) TOOLSCORE=$(TOOLSCORE) tools/bench/e2e.sh

bench-instructions: $(BENCH_COLLECTOR) $(TOOLSCORE)
	TOOLSCORE=$(TOOLSCORE) tools/bench/instructions.sh

$(BENCH_COLLECTOR): tools/bench/builder-config.yaml $(PROCESSOR_SRC) | $(OCB)
	mkdir -p $(dir $@)
	cd tools/bench && $(OCB) --config=builder-config.yaml

# bin/ocb-vX.Y.Z: ocb of that release.
$(BIN)/ocb-%:
	$(call say,'installing ocb $* into bin/ (about 30 s on empty caches)')
	mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install $(OCB_MODULE)@$*
	mv $(BIN)/builder $@

$(TIER1): tools/scaleout/builder-config.yaml | $(SCALEOUT_OCB)
	$(call say,'building the scale-out test tier-1 collector with ocb $(SCALEOUT_OCB_VERSION) (about 3 min on empty caches)')
	mkdir -p $(dir $@)
	cd tools/scaleout && $(SCALEOUT_OCB) --config=builder-config.yaml

# remove_all_sd (Prometheus's own build tag) leaves out the service discovery
# plugins (AWS, Azure, Kubernetes...), which rule tests never use: about half
# the modules and 40% of the compile time on empty caches.
$(PROMTOOL):
	$(call say,'installing promtool (github.com/prometheus/prometheus $(PROMETHEUS_VERSION)) into bin/ (about 1 min on empty caches)')
	mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install -tags remove_all_sd -ldflags='-s -w' $(PROMTOOL_MODULE)@$(PROMETHEUS_VERSION)
	mv $(BIN)/promtool $@

# The server, built the same way (no service discovery: the test scrapes
# static loopback targets; no web UI assets: the test uses the HTTP API).
$(PROMETHEUS):
	$(call say,'installing the Prometheus server (github.com/prometheus/prometheus $(PROMETHEUS_VERSION)) into bin/ (3.5-6 min on empty build caches on 2 busy cores; promtool, built first, shares part of it)')
	mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install -tags remove_all_sd -ldflags='-s -w' $(PROMETHEUS_MODULE)@$(PROMETHEUS_VERSION)
	mv $(BIN)/prometheus $@

$(COLLECTOR): builder-config.yaml $(PROCESSOR_SRC) | $(OCB)
	$(call say,'building the collector with ocb $(OCB_VERSION): sources then go mod tidy then compile (about 1.5 min on empty caches; 30 s after toolscore)')
	$(OCB) --config=builder-config.yaml

$(TOOLSCORE): $(PROCESSOR_SRC) $(wildcard cmd/toolscore/*.go)
	$(call say,'building bin/toolscore (about 1 min on empty caches)')
	$(GO_LIKE_OCB) build -trimpath -o $@ ./cmd/toolscore

clean:
	rm -rf _build bin testdata/demo/out
