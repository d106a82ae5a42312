#!/usr/bin/env bash
# Captures Gemini CLI (npm @google/gemini-cli, version in VERSIONS) with traces
# and log events, against the mock on loopback, in non-interactive mode (-p).
#   GEMINI=/path/to/node_modules/.bin/gemini ./run-gemini-cli.sh OUTPREFIX
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
W=/tmp/coding-agent-work H=/tmp/coding-agent-home
rm -rf "$W" "$H" && mkdir -p "$W/build" "$H/.gemini"
printf 'meeting at 10\n' >"$W/notes.txt"; printf 'alpha\n' >"$W/a.txt"; printf 'beta\n' >"$W/b.txt"
cat >"$H/.gemini/settings.json" <<'JSON'
{
  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": true, "target": "local", "otlpProtocol": "http", "logPrompts": true}
}
JSON
cd "$W"
exec node "$here/receiver.mjs" --out "$out" --mock "$here/scripts/gemini-cli.json" -- bash -c '
  export HOME='"$H"' GOOGLE_GEMINI_BASE_URL=$RECEIVER_URL GEMINI_API_KEY=mock-key
  export GEMINI_TELEMETRY_ENABLED=true GEMINI_TELEMETRY_TRACES_ENABLED=true GEMINI_TELEMETRY_TARGET=local
  export GEMINI_TELEMETRY_OTLP_ENDPOINT=$RECEIVER_URL GEMINI_TELEMETRY_OTLP_PROTOCOL=http GEMINI_TELEMETRY_LOG_PROMPTS=true
  exec "$GEMINI" -m gemini-2.5-flash --allowed-tools "run_shell_command(ls)" --allowed-tools write_file \
    -p "Summarise notes.txt into summary.txt, list the files, read a.txt and b.txt, clean the build, deploy."
'
