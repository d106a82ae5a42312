#!/usr/bin/env bash
# README's path for a new user, run by `make test`: an own ocb manifest made
# of README's two manifest fragments (the quick start's, the connector
# section's), built in a fresh directory as a user would, and `otelcol
# validate` on README's quick-start configuration and on it merged with the
# connector section's configuration.
#
#   tools/readme-collector.sh build OUT     build (or reuse) the collector into OUT
#   tools/readme-collector.sh validate BIN  validate README's configurations with BIN
#
# Environment: OCB (the ocb binary), COLLECTOR (make build's collector, reused
# when its manifest has the same components as README's).
set -euo pipefail

cd "$(dirname "$0")/.."
checkout=$PWD
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# block MARKER: the YAML block that follows the line MARKER in README.md.
block() {
	awk -v m="$1" '$0 == m { f = 1; next } f == 1 && /^```yaml$/ { f = 2; next } f == 2 && /^```$/ { exit } f == 2 { print }' README.md
}

# components FILE: the manifest's components, one "kind module" a line, sorted.
components() {
	awk '/^[a-z]+:$/ { kind = $1 } /^  - gomod:/ { print kind, $3, $4 } /^    import:/ { print kind, $2 }' "$1" | sort -u
}

case "${1:-}" in
build)
	out=${2:?usage: $0 build OUT}
	qs=$(block '<!-- quick-start-ocb -->')
	conn=$(block '<!-- connector-ocb -->')
	[[ -n $qs && -n $conn ]] || { echo "README.md lacks a manifest fragment" >&2; exit 1; }
	# One manifest from the two fragments: each kind's entries together.
	{
		echo 'dist:'
		echo '  module: example.com/otelcol-readme'
		echo '  name: otelcol-readme'
		echo "  output_path: $dir/dist"
		printf '%s\n%s\n' "$qs" "$conn" | awk '
			/^[a-z]+:$/ { kind = $1; if (!(kind in seen)) { seen[kind] = 1; order[++n] = kind } next }
			{ body[kind] = body[kind] $0 "\n" }
			END { for (i = 1; i <= n; i++) printf "%s\n%s", order[i], body[order[i]] }'
	} | sed "s|path: ./path/to/this/checkout.*|path: $checkout|" >"$dir/manifest.yaml"
	mkdir -p "$(dirname "$out")"
	if [[ -n ${COLLECTOR:-} && -x ${COLLECTOR} ]] &&
		cmp -s <(components "$dir/manifest.yaml") <(components builder-config.yaml); then
		echo "README's manifest has make build's components: reusing $COLLECTOR"
		cp "$COLLECTOR" "$out"
		exit 0
	fi
	echo "building README's manifest (quick start + connector fragments) with ocb in $dir"
	(cd "$dir" && "${OCB:?OCB is the ocb binary}" --config=manifest.yaml >ocb.log 2>&1) || {
		cat "$dir/ocb.log" >&2
		cat "$dir/manifest.yaml" >&2
		exit 1
	}
	cp "$dir/dist/otelcol-readme" "$out"
	;;
validate)
	bin=${2:?usage: $0 validate BIN}
	block '<!-- quick-start-config -->' >"$dir/quick-start.yaml"
	block '<!-- connector-config -->' >"$dir/evaluations.yaml"
	"$bin" validate --config "$dir/quick-start.yaml"
	echo "README's quick-start configuration: valid"
	"$bin" validate --config "$dir/quick-start.yaml" --config "$dir/evaluations.yaml"
	echo "README's quick-start + connector configurations: valid"
	;;
*)
	echo "usage: $0 build OUT | validate BIN" >&2
	exit 2
	;;
esac
