#!/usr/bin/env bash
# Instructions the whole benchmark collector executes per span, with and
# without tool_call_accuracy, counted by valgrind's callgrind: unlike CPU
# time, the count does not drift with the machine, so a change of one or two
# percent of the collector's work shows in one run (the garbage collector's
# share still varies by a few percent from run to run). It also says where
# the processor's added work goes, our code or what the collector does
# because of it (garbage collection, allocation, stack growth, pdata):
#
#   tools/bench/instructions.sh               # 10% GenAI, 100,000 spans
#   MIX=1 SPANS=50000 tools/bench/instructions.sh
#
# CONFIG=<file> adds a collector configuration file to the variant with the
# processor (other limits, rules or output settings). TRAFFIC="<OTLP JSON
# files>" replays other runs than the demo captures, as in tools/bench/e2e.sh
# (MIX=1 TRAFFIC=tools/bench/runs/five-span-content.otlp.jsonl).
# SYMBOLS=<collector built with its symbols> counts another build (for one of
# another commit: cd _build/bench && go build -trimpath -o <file> . there).
#
# ROUNDS=3 runs both variants three times and averages (the collector's
# share moves by up to ±10% of the added instructions from run to run).
#
# Each variant runs the collector of tools/bench/builder-config.yaml (built
# again with its symbols, which ocb strips) under callgrind, sends SPANS
# spans with `toolscore load` as tools/bench/e2e.sh does, and dumps the
# counts; an idle run (no spans) is subtracted as the start-up's cost. Takes
# about a minute a round at the defaults. Now and then a run spends far more
# in the Go scheduler (threads spinning under valgrind, which runs one at a
# time): the script says so, and that run is to be repeated. On some hosts
# most runs do; PROCS=1 runs the collector with GOMAXPROCS=1 (default 2),
# which stops the spinning and leaves the counts of everything but the
# garbage collector as they are. KEEP=1 keeps the callgrind files and says
# where.
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in valgrind callgrind_annotate callgrind_control; do
	command -v "$tool" >/dev/null || { echo "$tool not found: install valgrind (apt-get install valgrind)" >&2; exit 2; }
done
mix=${MIX:-0.1}
spans=${SPANS:-100000}
top=${TOP:-25}
rounds=${ROUNDS:-1}
toolscore=${TOOLSCORE:-bin/toolscore}
port=${BENCH_GRPC_PORT:-14337}
export BENCH_GRPC_PORT=$port
read -r -a traffic <<<"${TRAFFIC:-$(echo testdata/demo/traces/*.otlp.jsonl)}"
exe=${SYMBOLS:-_build/bench/otelcol-bench-symbols}
if [ -n "${SYMBOLS:-}" ]; then
	:
elif [ ! -x "$exe" ] || [ -n "$(find _build/bench -maxdepth 1 -name '*.go' -newer "$exe")" ] ||
	[ _build/bench/otelcol-bench -nt "$exe" ]; then
	(cd _build/bench && go build -trimpath -o otelcol-bench-symbols .)
fi
tmp=$(mktemp -d)
collector=
trap '[ -z "$collector" ] || kill "$collector" 2>/dev/null; if [ -n "${KEEP:-}" ]; then echo "callgrind files kept in $tmp" >&2; else rm -rf "$tmp"; fi' EXIT
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if port_open "$port"; then
	echo "port $port is in use (BENCH_GRPC_PORT=... picks another)" >&2
	exit 2
fi

# run VARIANT PROCESSORS SPANS [CONFIG]: callgrind's output in $tmp/VARIANT.cg.1.
run() {
	printf 'service:\n  pipelines:\n    traces:\n      processors: %s\n' "$2" >"$tmp/$1.yaml"
	local extra=()
	[ -z "${4:-}" ] || extra=(--config "$4")
	GOMAXPROCS=${PROCS:-2} GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/$1.cg" \
		"$exe" --config tools/bench/pipelines.yaml --config "$tmp/$1.yaml" "${extra[@]}" >"$tmp/$1.log" 2>&1 &
	local pid=$!
	collector=$pid
	for _ in $(seq 600); do port_open "$port" && break; sleep 0.1; done
	if [ "$3" -gt 0 ]; then
		# The collector runs some 50 times slower under valgrind: long
		# request timeouts, and every span must be accepted.
		"$toolscore" load -endpoint "127.0.0.1:$port" -protocol grpc -rate 0 -duration 0 -spans "$3" \
			-timeout 5m -format json -genai-share "$mix" "${traffic[@]}" >"$tmp/$1.load" || true
		grep -q "\"spans_accepted\": *$3," "$tmp/$1.load" || { echo "$1: not every span accepted:" >&2; cat "$tmp/$1.load" >&2; exit 1; }
	fi
	sleep 2 # the batch processor's last flush
	callgrind_control -d "$pid" >/dev/null 2>&1
	sleep 1
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	collector=
	[ -s "$tmp/$1.cg.1" ] || { echo "no callgrind dump for $1 (see $tmp/$1.log)" >&2; exit 1; }
}

# functions FILE: "instructions function" per function, self cost.
functions() {
	callgrind_annotate --threshold=100 "$1" | awk '
		/file:function/ { inside = 1; next }
		inside && /^-+$/ { if (++dashes == 2) inside = 0; next }
		inside && match($0, /^ *[0-9,]+ \( *[0-9.]+%\)  /) {
			n = $1; gsub(/,/, "", n)
			f = substr($0, RLENGTH + 1); sub(/ \[.*\]$/, "", f)
			i = index(f, ":"); if (i > 0) f = substr(f, i + 1)
			sub(/'"'"'[0-9]+$/, "", f)
			print n, f
		}'
}

run idle "[batch]" 0
functions "$tmp/idle.cg.1" >"$tmp/idle.fn"
for r in $(seq "$rounds"); do
	rm -f "$tmp/"*.cg*
	run none "[batch]" "$spans"
	run tool_call_accuracy "[tool_call_accuracy, batch]" "$spans" "${CONFIG:-}"
	for v in none tool_call_accuracy; do functions "$tmp/$v.cg.1" >>"$tmp/$v.fn"; done
done

awk -v spans="$((spans * rounds))" -v mix="$mix" -v top="$top" -v rounds="$rounds" '
function category(f) {
	if (f ~ /toolcallaccuracy/) return "the processor'"'"'s code"
	if (f ~ /^runtime\.(copystack|newstack|adjust|pcvalue|step$|funcInfo|findfunc|getStackMap|textAddr)|^runtime\.\(\*(stkframe|unwinder|moduledata)\)/) return "stack growth"
	if (f ~ /^runtime\.(gc|scan|mark|greyobject|findObject|typePointers|spanOf|wbBuf|bulkBarrier|sweep|tryDeferToSpanScan|scanSpan|scanblock|extractHeapBits)|^internal\/runtime\/gc|^gcWriteBarrier|spanSet|scavenge|pageAlloc|^runtime\.\(\*(gcWork|gcBits|spanInlineMarkBits|sweepLocked)\)|^runtime\.\(\*mspan\)\.(moveInline|typePointersOf|mark|refillAllocCache|sweep|countAlloc)/) return "garbage collection"
	if (f ~ /^runtime\.(malloc|nextFree|memclr|heapSetType|growslice|makeslice|newobject|roundupsize|makemap|slicebytetostring|rawstring|concatstring|deductAssistCredit|gcAssist)|^runtime\.\(\*(mcache|mcentral|mheap|mspan)\)/) return "allocation"
	if (f ~ /pdata/) return "pdata"
	return "other (gRPC, batch, runtime)"
}
FILENAME ~ /idle/ { idle[$2] += $1 * rounds; next }
FILENAME ~ /none/ { a[$2] += $1; seen[$2] = 1; next }
{ b[$2] += $1; seen[$2] = 1 }
END {
	for (f in seen) {
		base = a[f] - idle[f]; with = b[f] - idle[f]
		ta += base; tb += with
		c = category(f); ca[c] += base; cb[c] += with
		d[f] = with - base
	}
	printf "%d spans, %.0f%% GenAI, %d round(s): instructions per span\n\n", spans / rounds, mix * 100, rounds
	printf "%-30s %12s %12s %12s %8s\n", "", "no processor", "with it", "added", "share"
	m = 0
	for (c in ca) cats[++m] = c
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (cb[cats[j]] - ca[cats[j]] > cb[cats[i]] - ca[cats[i]]) { t = cats[i]; cats[i] = cats[j]; cats[j] = t }
	for (i = 1; i <= m; i++) { c = cats[i]
		printf "%-30s %12.0f %12.0f %12.0f %7.1f%%\n", c, ca[c] / spans, cb[c] / spans, (cb[c] - ca[c]) / spans, 100 * (cb[c] - ca[c]) / (tb - ta) }
	printf "%-30s %12.0f %12.0f %12.0f %8s\n", "total", ta / spans, tb / spans, (tb - ta) / spans, ""
	printf "\nratio: %.3f\n", tb / ta
	o = "other (gRPC, batch, runtime)"
	if (ca[o] > 2 * cb[o] || cb[o] > 2 * ca[o])
		printf "warning: one run spent far more in the runtime than the other (a collector spinning idle under valgrind); run again\n"
	printf "\nfunctions adding the most (instructions per span):\n"
	fflush()
	order = "sort -rn | head -n " top
	for (f in d) printf "%8.1f  %s\n", d[f] / spans, substr(f, 1, 140) | order
	close(order)
}' "$tmp/idle.fn" "$tmp/none.fn" "$tmp/tool_call_accuracy.fn"
