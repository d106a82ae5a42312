#!/usr/bin/env bash
# End-to-end CPU and memory of the processor: one collector binary
# (tools/bench/builder-config.yaml) runs the same OTLP/gRPC → batch → debug
# pipeline with no processor, with tool_call_accuracy, and with
# tail_sampling in its place, under the same replayed traffic
# (`toolscore load`: the demo captures under fresh ids, mixed with ordinary
# HTTP spans). For each mix and variant, alternating, ROUNDS times: the
# collector's own CPU seconds (user+system, from /proc, from the moment it
# listens to the moment the load is accepted and flushed) per 100k spans,
# and its peak RSS. Prints the medians and the ratios to the pipeline
# without a processor.
#
# Usage: make bench-e2e   (or ROUNDS=5 SPANS=200000 MIXES="0.1 1" tools/bench/e2e.sh)
#
# BASE_COLLECTOR=<a benchmark collector built from another commit> adds the
# variant "base" (that binary with tool_call_accuracy), alternating with the
# others, so that a change is measured before and after in the same run;
# BUILDS="name=path ..." adds one such variant per binary, for a series of
# changes. VARIANTS="none tool_call_accuracy base" leaves tail_sampling out.
#
# SHAPE=ends_on_tools|agents_alone replays the runs reshaped (toolscore load
# -shape): runs that end on a tool call, agent spans alone. The variant
# "tca_no_wait" is tool_call_accuracy with wait_for_missing: 0s, to
# compare holding against none. "tca_events_only" (output.attributes:
# false) and "tca_attributes_only" (output.events: false) price each of the
# processor's outputs; "tca_no_output" (both false) is what scoring costs
# with nothing written on the span (the metrics alone);
# "tca_rule_attributes_on_failure" writes the rule attributes of failing
# rules only. WARMUP=1 first sends each variant a few
# runs of every capture and waits past wait_for_missing, so that the
# processor has learned what the services' runs look like when complete
# (not counted).
#
# TRAFFIC="<OTLP JSON files>" replays other runs than the demo captures:
# tools/bench/runs/ holds complete five-span runs without content, with
# content (2 KiB per model call) and with 20 KiB of instructions and tool
# definitions per model call (make bench-e2e-content runs each).
#
# EXPORT=otlp makes every variant export as a production collector does,
# OTLP/gRPC with gzip to a sink on loopback (another instance of the same
# binary, tools/bench/sink.yaml, not counted), instead of the debug exporter,
# which does almost nothing: the same added CPU then weighs less against a
# pipeline that serializes and compresses what it sends.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${BENCH_COLLECTOR:-_build/bench/otelcol-bench}
toolscore=${TOOLSCORE:-bin/toolscore}
rounds=${ROUNDS:-5}
spans=${SPANS:-200000}
mixes=${MIXES:-0.1 1}
read -r -a traffic <<<"${TRAFFIC:-$(echo testdata/demo/traces/*.otlp.jsonl)}"
shape=${SHAPE:-full}
warmup=${WARMUP:-0}
port=${BENCH_GRPC_PORT:-14317}
export BENCH_GRPC_PORT=$port
export_to=${EXPORT:-debug}
export BENCH_SINK_PORT=${BENCH_SINK_PORT:-14318}
builds=${BUILDS:-}
if [ -n "${BASE_COLLECTOR:-}" ]; then builds="base=$BASE_COLLECTOR $builds"; fi
declare -A exe_of
for b in $builds; do exe_of[${b%%=*}]=${b#*=}; done
variants=${VARIANTS:-none tool_call_accuracy tail_sampling ${!exe_of[*]}}
tmp=$(mktemp -d)
sink=
trap 'rm -rf "$tmp"; [ -z "$sink" ] || kill "$sink" 2>/dev/null' EXIT
overlays=()
case $export_to in
debug) ;;
otlp)
	overlays=(--config tools/bench/export-otlp.yaml)
	"$bin" --config tools/bench/sink.yaml >"$tmp/sink.log" 2>&1 &
	sink=$!
	;;
*) echo "EXPORT=$export_to: debug or otlp" >&2; exit 2 ;;
esac
for v in $variants; do
	case $v in
	none) procs="[batch]" ;;
	tool_call_accuracy | tail_sampling) procs="[$v, batch]" ;;
	*) procs="[tool_call_accuracy, batch]" ;; # a tca_ variant, or another build
	esac
	printf 'service:\n  pipelines:\n    traces:\n      processors: %s\n' "$procs" >"$tmp/$v.yaml"
	case $v in
	tca_no_wait) settings='wait_for_missing: 0s' ;;
	tca_events_only) settings='output: {attributes: false}' ;;
	tca_attributes_only) settings='output: {events: false}' ;;
	tca_no_output) settings='output: {attributes: false, events: false}' ;;
	tca_rule_attributes_on_failure) settings='output: {rule_attributes: on_failure}' ;;
	*) settings= ;;
	esac
	[ -z "$settings" ] || printf 'processors:\n  tool_call_accuracy:\n    %s\n' "$settings" >>"$tmp/$v.yaml"
done
hz=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# settle waits until the collector has finished the load's work (the batch
# processor's last flush, the exporter's queue): its CPU time grows by at
# most one tick in half a second.
settle() {
	local prev cur
	sleep 0.5
	cur=$(cpu_ticks "$1")
	while :; do
		prev=$cur
		sleep 0.5
		cur=$(cpu_ticks "$1")
		[ $((cur - prev)) -gt 1 ] || break
	done
}
if [ -n "$sink" ]; then
	for _ in $(seq 300); do port_open "$BENCH_SINK_PORT" && break; sleep 0.05; done
fi

echo "mix variant round cpu_s_per_100k_spans peak_rss_mib spans_per_s" >"$tmp/results"
for round in $(seq "$rounds"); do
	for mix in $mixes; do
		for v in $variants; do
			exe=${exe_of[$v]:-$bin}
			"$exe" --config tools/bench/pipelines.yaml "${overlays[@]}" --config "$tmp/$v.yaml" >"$tmp/collector.log" 2>&1 &
			pid=$!
			for _ in $(seq 300); do port_open "$port" && break; sleep 0.05; done
			if [ "$warmup" = 1 ]; then
				"$toolscore" load -endpoint "127.0.0.1:$port" -protocol grpc -rate 0 -spans 600 -genai-share 1 -shape "$shape" -format json \
					"${traffic[@]}" >/dev/null
				sleep 6.5
			fi
			t0=$(cpu_ticks "$pid")
			"$toolscore" load -endpoint "127.0.0.1:$port" -protocol grpc -rate 0 -spans "$spans" -genai-share "$mix" -shape "$shape" -format json \
				"${traffic[@]}" >"$tmp/load.json"
			# tail_sampling sends a trace on after its decision wait (10 s in
			# pipelines.yaml): its export is counted only past that.
			[ "$v" != tail_sampling ] || sleep 10
			settle "$pid"
			t1=$(cpu_ticks "$pid")
			rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
			kill -TERM "$pid"
			wait "$pid" || true
			rate=$(sed -n 's/.*"spans_per_second": *\([0-9.]*\).*/\1/p' "$tmp/load.json")
			awk -v m="$mix" -v v="$v" -v r="$round" -v t="$((t1 - t0))" -v hz="$hz" -v s="$spans" -v rss="$rss" -v rate="$rate" \
				'BEGIN { printf "%s %s %d %.3f %.1f %.0f\n", m, v, r, t / hz * 100000 / s, rss / 1024, rate }' | tee -a "$tmp/results"
		done
	done
done

echo
echo "Medians over $rounds rounds ($spans spans per run, exporter: $export_to):"
awk 'NR > 1 { key = $1 " " $2; cpu[key] = cpu[key] " " $4; rss[key] = rss[key] " " $5 }
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	printf "%-6s %-30s %18s %8s %16s %14s\n", "genai", "pipeline", "CPU s / 100k spans", "ratio", "spans / CPU-s", "peak RSS MiB"
	for (key in cpu) { split(key, k, " "); base[k[1]] = median(cpu[k[1] " none"]) }
	n = 0
	for (key in cpu) keys[++n] = key
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (keys[j] < keys[i]) { t = keys[i]; keys[i] = keys[j]; keys[j] = t }
	for (i = 1; i <= n; i++) { split(keys[i], k, " "); c = median(cpu[keys[i]])
		printf "%-6s %-30s %18.3f %8.2f %16.0f %14.1f\n", k[1], k[2], c, c / base[k[1]], 100000 / c, median(rss[keys[i]]) }
}' "$tmp/results"

# The machine's speed drifts over minutes (other tenants), moving every
# variant of a round together: the ratio within each round, then its median
# across rounds, is steadier than the ratio of the medians.
echo
echo "Median of the per-round ratios to the pipeline without a processor (each round's ratios in brackets):"
awk 'NR > 1 { cpu[$1 " " $2 " " $3] = $4; mix[$1] = 1; variant[$2] = 1; if ($3 > rounds) rounds = $3 }
function median(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	for (m in mix) for (v in variant) {
		if (v == "none") continue
		n = 0; list = ""
		for (r = 1; r <= rounds; r++) {
			k = m " " v " " r; b = m " none " r
			if ((k in cpu) && (b in cpu) && cpu[b] > 0) { n++; a[n] = cpu[k] / cpu[b]; list = list sprintf(" %.2f", a[n]) }
		}
		if (n > 0) printf "%-6s %-30s %6.2f  [%s ]\n", m, v, median(a, n), list
	}
}' "$tmp/results" | sort
