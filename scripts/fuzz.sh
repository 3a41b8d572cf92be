#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME each (default 60s),
# one after the other (the fuzzer uses every core), and reports each
# target's result. A failing input is written by Go to the package's
# testdata/fuzz/<Target>/ directory: commit it, and `make test` replays it
# from then on. Usage: scripts/fuzz.sh [package-pattern-regexp]
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME="${FUZZTIME:-60s}"
only="${1:-.}"
failed=()
ran=0
while IFS= read -r line; do
	file="${line%%:*}"
	name="${line##*func }"
	name="${name%%(*}"
	pkg="./$(dirname "$file")"
	[[ "$pkg" =~ $only ]] || continue
	echo "== $pkg $name ($FUZZTIME)"
	if go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "$pkg" >"/tmp/fuzz-$name.log" 2>&1; then
		tail -n 3 "/tmp/fuzz-$name.log" | grep -E 'elapsed|ok' | tail -n 2 || true
	else
		cat "/tmp/fuzz-$name.log"
		failed+=("$pkg $name")
	fi
	ran=$((ran + 1))
done < <(git grep -n '^func Fuzz' -- '*_test.go' | grep -v '^bench/')
echo "fuzz: $ran targets, ${#failed[@]} failed"
for f in "${failed[@]}"; do echo "  FAIL $f"; done
[ "${#failed[@]}" -eq 0 ]
