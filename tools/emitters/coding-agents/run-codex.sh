#!/usr/bin/env bash
# Captures Codex (npm @openai/codex, version in VERSIONS) with its OTel log
# events and trace exporter, against the mock (Responses API) on loopback.
#   CODEX=/path/to/node_modules/.bin/codex ./run-codex.sh OUTPREFIX [SCRIPT]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1 script=${2:-$here/scripts/codex.json}
W=/tmp/coding-agent-work H=/tmp/coding-agent-home
rm -rf "$W" "$H" && mkdir -p "$W/build" "$H/.codex/rules"
printf 'meeting at 10\n' >"$W/notes.txt"; printf 'alpha\n' >"$W/a.txt"; printf 'beta\n' >"$W/b.txt"
(cd "$W" && git init -q . 2>/dev/null || true)
# The policy: rm is forbidden (execpolicy), everything else runs without asking.
cat >"$H/.codex/rules/default.rules" <<'RULES'
prefix_rule(pattern = ["rm"], decision = "forbidden", justification = "destructive commands are not allowed in CI")
RULES
cd "$W"
exec node "$here/receiver.mjs" --out "$out" --mock "$script" -- bash -c '
  export HOME='"$H"' CODEX_HOME='"$H"'/.codex MOCK_API_KEY=sk-mock
  cat >"$CODEX_HOME/config.toml" <<TOML
model = "gpt-5.1-codex"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false
[model_providers.mock]
name = "mock"
base_url = "$RECEIVER_URL/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
[analytics]
enabled = false
[features]
plugins = false
remote_plugin = false
apps = false
[otel]
environment = "ci"
log_user_prompt = true
exporter = { otlp-http = { endpoint = "$RECEIVER_URL/v1/logs", protocol = "json" } }
trace_exporter = { otlp-http = { endpoint = "$RECEIVER_URL/v1/traces", protocol = "json" } }
TOML
  exec "$CODEX" exec --skip-git-repo-check "Summarise notes.txt into summary.txt, list the files, read a.txt and b.txt, clean the build, deploy."
'
