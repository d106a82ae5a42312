#!/bin/sh
# Records the differential data (see README.md): generates cases with
# gen.mjs, runs each peer's real code on them with the drivers beside this
# file, and writes testdata/differential/<peer>-<version>.json.gz.
#
#   PEERS_SCRATCH=/path/to/scratch tools/peers/record.sh
#
# PEERS_SCRATCH holds the peers' code, outside the project:
#   mongodb/packages/accuracy-tests/src/sdk   mongodb-mcp-server at MONGODB_COMMIT
#   node/node_modules                         @mastra/evals 1.10.2, mastra-evals-120 (= @mastra/evals 1.2.0),
#                                             @mastra/core, zod, tsx
#   deepeval-src                              confident-ai/deepeval at DEEPEVAL_COMMIT (the deepeval package)
#   deepeval-stubs                            written by deepeval/record.py
#   core118/node_modules                      @mastra/core 1.18.0 (record_judges.mjs)
set -eu
: "${PEERS_SCRATCH:?set PEERS_SCRATCH}"
MONGODB_COMMIT=${MONGODB_COMMIT:-36a405e33817577f0c5a34d6d9479c0285fac5e4}
DEEPEVAL_COMMIT=${DEEPEVAL_COMMIT:-a2e0d4cfd3118352d321c1c84bdeba17d4a201bc}
SEED=${SEED:-20260901}
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "$here/../.." && pwd)/testdata/differential
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
nm=$PEERS_SCRATCH/node/node_modules

# header <file> <peer> <version> <source>: adds the recording's provenance.
header() {
	node -e '
		const fs = require("fs");
		const [file, peer, version, source] = process.argv.slice(1);
		const d = JSON.parse(fs.readFileSync(file, "utf8"));
		const { cases, ...rest } = d;
		const out = { schema: "toolcall-differential/v1", ...rest, peer, peer_version: version, peer_source: source,
			recorded_with: `node ${process.version}; python ${process.env.PYVER || "-"}`, cases };
		fs.writeFileSync(file, JSON.stringify(out) + "\n");
	' "$@"
}

node "$here/gen.mjs" mongodb "$SEED" "${MONGODB_CASES:-4000}" > "$work/mongodb.cases.json"
MONGODB_SDK=$PEERS_SCRATCH/mongodb/packages/accuracy-tests/src/sdk "$nm/.bin/tsx" "$here/mongodb/record.mts" "$work/mongodb.cases.json" > "$work/mongodb.json"
header "$work/mongodb.json" mongodb-mcp-server "git $MONGODB_COMMIT" \
	"github.com/mongodb-js/mongodb-mcp-server packages/accuracy-tests/src/sdk/{accuracyScorer,matcher}.ts, run with tsx"
gzip -9n < "$work/mongodb.json" > "$out/mongodb-mcp-server-$(echo "$MONGODB_COMMIT" | cut -c1-8).json.gz"

node "$here/gen.mjs" mastra "$SEED" "${MASTRA_CASES:-9000}" > "$work/mastra.cases.json"
for pkg in @mastra/evals mastra-evals-120; do
	v=$(node -p "require('$nm/$pkg/package.json').version")
	core=$(node -p "require('$nm/@mastra/core/package.json').version")
	MASTRA_NODE_MODULES=$nm node "$here/mastra/record.mjs" "$work/mastra.cases.json" "$pkg" > "$work/mastra-$v.json"
	header "$work/mastra-$v.json" mastra "$v" "npm @mastra/evals@$v (with @mastra/core@$core): createToolCallAccuracyScorerCode, createTrajectoryAccuracyScorerCode, createTrajectoryScorerCode"
	gzip -9n < "$work/mastra-$v.json" > "$out/mastra-$v.json.gz"
done

node "$here/gen.mjs" deepeval "$SEED" "${DEEPEVAL_CASES:-4000}" > "$work/deepeval.cases.json"
dv=$(sed -n 's/^version = "\(.*\)"/\1/p' "$PEERS_SCRATCH/deepeval-src/pyproject.toml" 2>/dev/null || true)
PYVER=$(python3 -c 'import sys; print(sys.version.split()[0])')
export PYVER
DEEPEVAL_SRC=$PEERS_SCRATCH/deepeval-src DEEPEVAL_STUBS=$PEERS_SCRATCH/deepeval-stubs PYTHONHASHSEED=0 \
	python3 "$here/deepeval/record.py" "$work/deepeval.cases.json" > "$work/deepeval.json"
header "$work/deepeval.json" deepeval "${dv:-4.1.10} (git $DEEPEVAL_COMMIT)" \
	"github.com/confident-ai/deepeval deepeval/metrics/tool_correctness/tool_correctness.py, run from the checkout with infrastructure stubbed (deepeval/record.py)"
gzip -9n < "$work/deepeval.json" > "$out/deepeval-${dv:-4.1.10}.json.gz"
MASTRA_NODE_MODULES=$nm CORE118_NODE_MODULES=$PEERS_SCRATCH/core118/node_modules \
	node "$here/mastra/record_judges.mjs" > "$out/../judge/mastra-judge-inputs.json"
ls -l "$out"
