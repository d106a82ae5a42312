# Sourced by run-gemini-cli*.sh: a fresh HOME and work dir (stable paths in
# the captures) and the settings that keep Gemini CLI on loopback: API-key
# auth against the mock, auto-update and usage statistics off, telemetry to
# the receiver. GEMINI_CHILD is the command receiver.mjs runs (as
# `bash -c "$GEMINI_CHILD" gemini ARGS...`): gemini with its telemetry
# pointed at RECEIVER_URL.
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
GEMINI_CHILD='
  export HOME='"$H"' GOOGLE_GEMINI_BASE_URL=$RECEIVER_URL GEMINI_API_KEY=mock-key
  export GEMINI_TELEMETRY_ENABLED=true GEMINI_TELEMETRY_TRACES_ENABLED=true GEMINI_TELEMETRY_TARGET=local
  export GEMINI_TELEMETRY_OTLP_ENDPOINT=$RECEIVER_URL GEMINI_TELEMETRY_OTLP_PROTOCOL=http GEMINI_TELEMETRY_LOG_PROMPTS=true
  exec "$GEMINI" -m gemini-2.5-flash "$@"
'
