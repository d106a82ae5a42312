#!/usr/bin/env bash
# Captures Claude Code (npm @anthropic-ai/claude-code, version in VERSIONS) with
# traces (enhanced telemetry beta) and log events, against the mock on loopback.
#   CLAUDE=/path/to/node_modules/.bin/claude ./run-claude-code.sh OUTPREFIX
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
W=/tmp/coding-agent-work H=/tmp/coding-agent-home
rm -rf "$W" "$H" && mkdir -p "$W/build" "$H"
printf 'meeting at 10\n' >"$W/notes.txt"; printf 'alpha\n' >"$W/a.txt"; printf 'beta\n' >"$W/b.txt"
cd "$W"
exec node "$here/receiver.mjs" --out "$out" --mock "$here/scripts/claude-code.json" -- bash -c '
  export HOME='"$H"' ANTHROPIC_BASE_URL=$RECEIVER_URL ANTHROPIC_API_KEY=sk-ant-mock
  export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 DISABLE_TELEMETRY=1
  export CLAUDE_CODE_ENABLE_TELEMETRY=1 CLAUDE_CODE_ENHANCED_TELEMETRY_BETA=1 OTEL_LOG_TOOL_DETAILS=1 OTEL_LOG_USER_PROMPTS=1
  export OTEL_TRACES_EXPORTER=otlp OTEL_LOGS_EXPORTER=otlp OTEL_METRICS_EXPORTER=otlp
  export OTEL_EXPORTER_OTLP_PROTOCOL=http/json OTEL_EXPORTER_OTLP_ENDPOINT=$RECEIVER_URL
  export OTEL_LOGS_EXPORT_INTERVAL=500 OTEL_METRIC_EXPORT_INTERVAL=1000 OTEL_TRACES_EXPORT_INTERVAL=500
  exec "$CLAUDE" -p "Summarise notes.txt into summary.txt, list the files, read a.txt and b.txt, clean the build, deploy." \
    --model claude-sonnet-4-5 --allowedTools "Read" "Write" "Bash(ls:*)" --disallowedTools "Bash(rm:*)" --output-format json
'
