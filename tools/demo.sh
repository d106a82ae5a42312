#!/usr/bin/env bash
# The demo behind `make run` and `make serve`:
#   1. starts the stand-in LLM judge (toolscore judge-standin) and the
#      collector built by ocb with testdata/demo/config.yaml, on loopback;
#   2. sends the bundled demo traces (real framework captures) over OTLP/HTTP;
#   3. waits until the file exporter has written every span, then prints the
#      scores the collector attached (toolscore report), and what the
#      evaluations connector made of them: its log records (toolscore
#      evaluations) and an excerpt of its metrics as Prometheus scrapes them;
#   4. run: stops the collector (SIGTERM) and checks it exited cleanly;
#      serve: keeps it serving until Ctrl-C.
#
# Usage: tools/demo.sh run|serve
# Environment: COLLECTOR, TOOLSCORE (binaries), TCA_GRPC_PORT (4317),
# TCA_HTTP_PORT (4318), TCA_METRICS_PORT (8888), TCA_PROMETHEUS_PORT (8889),
# TCA_JUDGE_PORT (4319), TCA_OUT_DIR (testdata/demo/out), DEMO_TIMEOUT
# (seconds, 60).
set -euo pipefail

mode=${1:-run}
case "$mode" in run | serve) ;; *)
	echo "usage: $0 run|serve" >&2
	exit 2
	;;
esac

cd "$(dirname "$0")/.."
collector=${COLLECTOR:-_build/otelcol-toolcallaccuracy}
toolscore=${TOOLSCORE:-bin/toolscore}
config=testdata/demo/config.yaml
export TCA_GRPC_PORT=${TCA_GRPC_PORT:-4317}
export TCA_HTTP_PORT=${TCA_HTTP_PORT:-4318}
export TCA_METRICS_PORT=${TCA_METRICS_PORT:-8888}
export TCA_PROMETHEUS_PORT=${TCA_PROMETHEUS_PORT:-8889}
export TCA_JUDGE_PORT=${TCA_JUDGE_PORT:-4319}
export TCA_JUDGE_ENDPOINT=http://127.0.0.1:$TCA_JUDGE_PORT/v1
export TCA_OUT_DIR=${TCA_OUT_DIR:-testdata/demo/out}
timeout=${DEMO_TIMEOUT:-60}
out=$TCA_OUT_DIR
log=$out/collector.log

for bin in "$collector" "$toolscore"; do
	[ -x "$bin" ] || {
		echo "demo: $bin is missing; run it through make (make run / make serve)" >&2
		exit 2
	}
done

# port_open PORT: true when something accepts connections on 127.0.0.1:PORT.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# http_get PORT PATH [ACCEPT]: a minimal HTTP/1.0 GET on loopback (no curl
# needed).
http_get() {
	exec 3<>"/dev/tcp/127.0.0.1/$1"
	printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: %s\r\n\r\n' "$2" "${3:-*/*}" >&3
	sed '1,/^\r\{0,1\}$/d' <&3
	exec 3<&-
}

for p in "$TCA_GRPC_PORT" "$TCA_HTTP_PORT" "$TCA_METRICS_PORT" "$TCA_PROMETHEUS_PORT" "$TCA_JUDGE_PORT"; do
	if port_open "$p"; then
		echo "demo: port $p on 127.0.0.1 is in use (another collector?)." >&2
		echo "      Stop it, or pick other ports: TCA_GRPC_PORT, TCA_HTTP_PORT, TCA_METRICS_PORT, TCA_PROMETHEUS_PORT, TCA_JUDGE_PORT." >&2
		exit 2
	fi
done

rm -rf "$out"
mkdir -p "$out"

echo "==> Starting the stand-in LLM judge on $TCA_JUDGE_ENDPOINT (deterministic answers; not a model)"
"$toolscore" judge-standin -listen "127.0.0.1:$TCA_JUDGE_PORT" >"$out/judge.log" 2>&1 &
judge_pid=$!
echo "==> Starting $collector (OTLP gRPC 127.0.0.1:$TCA_GRPC_PORT, HTTP 127.0.0.1:$TCA_HTTP_PORT, metrics 127.0.0.1:$TCA_METRICS_PORT); log: $log"
"$collector" --config "$config" >"$log" 2>&1 &
pid=$!
stop_collector() {
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid"
		rc=0
		wait "$pid" || rc=$?
		return "$rc"
	fi
}
stop_judge() { kill -TERM "$judge_pid" 2>/dev/null || true; }
trap 'stop_collector || true; stop_judge' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

deadline=$((SECONDS + timeout))
until port_open "$TCA_HTTP_PORT" && port_open "$TCA_METRICS_PORT" && port_open "$TCA_PROMETHEUS_PORT"; do
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "demo: the collector exited during start-up:" >&2
		tail -n 20 "$log" >&2
		exit 1
	fi
	if [ "$SECONDS" -ge "$deadline" ]; then
		echo "demo: the collector did not open its ports within ${timeout}s; see $log" >&2
		exit 1
	fi
	sleep 0.1
done

traces=(testdata/demo/traces/*.otlp.jsonl)
echo "==> Sending ${#traces[@]} captured agent runs over OTLP/HTTP"
spans=$("$toolscore" send -endpoint "http://127.0.0.1:$TCA_HTTP_PORT" "${traces[@]}")

echo "==> Scores the collector attached to the agent spans"
echo
rc=0
"$toolscore" report -config "$config" -wait-spans "$spans" -timeout "${timeout}s" "$out/spans.jsonl" || rc=$?
if [ "$rc" -gt 1 ]; then
	exit "$rc"
fi
http_get "$TCA_METRICS_PORT" /metrics >"$out/metrics.txt"

echo
echo "==> The evaluations connector: a gen_ai.evaluation.result log record per evaluation ($out/evaluations.jsonl)"
echo
"$toolscore" evaluations -wait-for "$out/spans.jsonl" -timeout "${timeout}s" "$out/evaluations.jsonl"

# The connector flushes its metrics every second (metrics_flush_interval).
deadline=$((SECONDS + timeout))
openmetrics='application/openmetrics-text;version=1.0.0'
until grep -q '^gen_ai_evaluation_results_total' "$out/evaluation-metrics.txt" 2>/dev/null; do
	if [ "$SECONDS" -ge "$deadline" ]; then
		echo "demo: the connector's metrics did not appear on 127.0.0.1:$TCA_PROMETHEUS_PORT within ${timeout}s" >&2
		exit 1
	fi
	sleep 0.2
	http_get "$TCA_PROMETHEUS_PORT" /metrics "$openmetrics" >"$out/evaluation-metrics.txt"
done
echo
echo "==> ... and its metrics, as Prometheus scrapes them (excerpt; exemplars after '#' name a run's trace)"
echo
# Labels the excerpt leaves out, for width.
trim() { sed -E 's/,?otel_scope_[a-z_]+="[^"]*"//g; s/\{,/{/'; }
grep -E '^gen_ai_evaluation_results_total\{.*gen_ai_evaluation_name="paris_trip/native"' "$out/evaluation-metrics.txt" | trim | head -n 4 || true
grep -E '^gen_ai_evaluation_score_bucket\{.*gen_ai_evaluation_name="paris_trip/native".*# \{' "$out/evaluation-metrics.txt" | trim | head -n 2 || true
grep -E '^tool_call_accuracy_tool_calls_total\{.*tool_call_accuracy_call_status="missing"' "$out/evaluation-metrics.txt" | trim | head -n 2 || true

cat <<EOF

Where to look next:
  Annotated spans  $out/spans.jsonl (OTLP JSON; attributes tool_call_accuracy.*, events gen_ai.evaluation.result)
                   bin/toolscore report -format json $out/spans.jsonl
  Metrics          $out/metrics.txt (snapshot), e.g. grep '^otelcol_processor_tool_call_accuracy_evaluations' $out/metrics.txt
                   live at http://127.0.0.1:$TCA_METRICS_PORT/metrics while the collector runs (make serve)
  Connector        $out/evaluations.jsonl (log records; bin/toolscore evaluations -records $out/evaluations.jsonl)
                   $out/evaluation-metrics.txt (snapshot); live at http://127.0.0.1:$TCA_PROMETHEUS_PORT/metrics
  Collector log    $log
  Offline scoring  bin/toolscore score -config $config testdata/demo/traces/*.otlp.jsonl
  Rules            $config (processors: tool_call_accuracy)
EOF
if [ "$rc" -eq 1 ]; then
	echo "(toolscore exits 1 when a run fails a rule, as several demo runs do on purpose; use that exit code as a CI gate.)"
fi

if [ "$mode" = serve ]; then
	echo
	echo "==> Serving. Send more traces with: bin/toolscore send -endpoint http://127.0.0.1:$TCA_HTTP_PORT FILE..."
	echo "    (or any OTLP exporter to 127.0.0.1:$TCA_GRPC_PORT / http://127.0.0.1:$TCA_HTTP_PORT). Ctrl-C stops the collector."
	trap 'echo; echo "==> Stopping the collector"; stop_collector; stop_judge; exit 0' INT TERM
	wait "$pid"
	exit 0
fi

echo
echo "==> Stopping the collector (SIGTERM)"
trap stop_judge EXIT
crc=0
stop_collector || crc=$?
if [ "$crc" -ne 0 ]; then
	echo "demo: the collector exited with status $crc; see $log" >&2
	exit 1
fi
echo "    stopped cleanly."
