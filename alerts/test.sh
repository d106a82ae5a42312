#!/usr/bin/env bash
# Checks and unit-tests the Prometheus rules, then checks that a file of
# deliberately wrong expectations makes `promtool test rules` fail.
# `make alerts-test` (part of `make test`) installs the pinned promtool into
# bin/ and runs this with it; by hand:
#   PROMTOOL=/path/to/promtool alerts/test.sh   (Prometheus >= 3.5, for fuzzy_compare)
set -euo pipefail
cd "$(dirname "$0")"

promtool=${PROMTOOL:-promtool}
if ! command -v "$promtool" >/dev/null; then
	echo "alerts/test.sh: promtool not found; run \`make alerts-test\`, which installs the pinned one into bin/, or set PROMTOOL" >&2
	exit 1
fi

"$promtool" check rules tool-call-accuracy.rules.yaml evaluations.rules.yaml coding-agents.rules.yaml
"$promtool" test rules tool-call-accuracy.test.yaml evaluations.test.yaml coding-agents.test.yaml

echo "Wrong expectations must fail:"
rc=0
out=$("$promtool" test rules testdata/wrong-expectations.test.yaml 2>&1) || rc=$?
if [ "$rc" -eq 0 ]; then
	echo "$out"
	echo "alerts/test.sh: promtool accepted testdata/wrong-expectations.test.yaml; the rule tests cannot catch errors" >&2
	exit 1
fi
for want in FAILED ToolCallAccuracyLow ToolCallAccuracyFailingRuns mean_rate10m; do
	if ! grep -q "$want" <<<"$out"; then
		echo "$out"
		echo "alerts/test.sh: promtool failed, but its output does not mention $want" >&2
		exit 1
	fi
done
echo "  OK: promtool exited $rc and reported every wrong expectation"

rc=0
out=$("$promtool" test rules testdata/wrong-evaluations.test.yaml 2>&1) || rc=$?
if [ "$rc" -eq 0 ]; then
	echo "$out"
	echo "alerts/test.sh: promtool accepted testdata/wrong-evaluations.test.yaml; the rule tests cannot catch errors" >&2
	exit 1
fi
for want in FAILED AgentEvaluationsFailing fail_ratio_rate10m; do
	if ! grep -q "$want" <<<"$out"; then
		echo "$out"
		echo "alerts/test.sh: promtool failed, but its output does not mention $want" >&2
		exit 1
	fi
done
echo "  OK: promtool exited $rc and reported every wrong expectation of the evaluations rules"
