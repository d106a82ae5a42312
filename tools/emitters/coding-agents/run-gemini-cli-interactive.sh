#!/usr/bin/env bash
# Captures Gemini CLI (npm @google/gemini-cli, version in VERSIONS) in its
# interactive mode: three prompts typed into one session on a pseudo-terminal
# (gemini_interactive.py), tool approvals answered by keystroke (one refused),
# traces and log events exported to receiver.mjs, the model mocked on loopback.
#   GEMINI=/path/to/node_modules/.bin/gemini ./run-gemini-cli-interactive.sh OUTPREFIX
# Writes OUTPREFIX.otlp.jsonl, OUTPREFIX.logs.otlp.jsonl and (the screen, to
# debug) OUTPREFIX.screen.log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
script=$here/scripts/gemini-cli-interactive.json
. "$here/gemini-cli-setup.sh"
cd "$W"
exec timeout -k 10 300 python3 "$here/gemini_interactive.py" --script "$script" --log "$out.screen.log" -- \
  node "$here/receiver.mjs" --out "$out" --mock "$script" -- bash -c "$GEMINI_CHILD" gemini
