#!/usr/bin/env bash
# Captures Gemini CLI (npm @google/gemini-cli, version in VERSIONS) with traces
# and log events, against the mock on loopback, in non-interactive mode (-p).
#   GEMINI=/path/to/node_modules/.bin/gemini ./run-gemini-cli.sh OUTPREFIX
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
. "$here/gemini-cli-setup.sh"
cd "$W"
exec node "$here/receiver.mjs" --out "$out" --mock "$here/scripts/gemini-cli.json" -- bash -c "$GEMINI_CHILD" gemini \
  --allowed-tools "run_shell_command(ls)" --allowed-tools write_file \
  -p "Summarise notes.txt into summary.txt, list the files, read a.txt and b.txt, clean the build, deploy."
