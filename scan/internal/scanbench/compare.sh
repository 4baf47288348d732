#!/usr/bin/env bash
# compare.sh: the scanner against gitleaks, as BENCHMARKS.md reports it.
# Runs the two tools alternately (interleaved, so that drift in the machine's
# state hits both alike) and prints each run's wall time, CPU time and peak
# RSS, then the medians. Run it with nothing else on the machine.
#
#   scan/internal/scanbench/compare.sh dir  PATH   [RUNS]   # gitleaks dir  vs spindle scan (archives closed)
#   scan/internal/scanbench/compare.sh git  REPO   [RUNS]   # gitleaks git  vs spindle git
#   scan/internal/scanbench/compare.sh staged WORKTREE [RUNS] # gitleaks git --pre-commit --staged vs spindle git --pre-commit --staged
#   scan/internal/scanbench/compare.sh self PATH   [RUNS]   # spindle at a base commit vs now (BASE=<commit>)
#
# Both tools use gitleaks' default config (from the module cache, where
# `go install -tags gore2regex github.com/zricethezav/gitleaks/v8@v8.30.1`
# leaves it) and decode to depth 5, gitleaks' default.
set -euo pipefail
mode=${1:?dir, git, staged or self}
target=${2:?path}
runs=${3:-7}
cd "$(dirname "$0")/../../.."
GLC=${GLC:-$(go env GOMODCACHE)/github.com/zricethezav/gitleaks/v8@v8.30.1/config/gitleaks.toml}
GITLEAKS=${GITLEAKS:-$(command -v gitleaks || echo "$(go env GOPATH)/bin/gitleaks")}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/spindle" ./cmd/spindle

case $mode in
dir)
	a=("$GITLEAKS" dir "$target" -c "$GLC" --no-banner -l error --exit-code 0 -r "$out/a.json" -f json)
	b=("$out/spindle" scan -c "$GLC" --archive-depth 0 -q --exit-code 0 -f json -o "$out/b.json" "$target")
	;;
git)
	a=("$GITLEAKS" git "$target" -c "$GLC" --no-banner -l error --exit-code 0 -r "$out/a.json" -f json)
	# --no-cache: every run scans every commit, as gitleaks does (with the
	# history store, the runs after the first would read it instead).
	b=("$out/spindle" git --no-cache -c "$GLC" -q --exit-code 0 -r "$out/b.json" -f json "$target")
	;;
staged)
	a=("$GITLEAKS" git --pre-commit --staged "$target" -c "$GLC" --no-banner -l error --exit-code 0 -r "$out/a.json" -f json)
	b=("$out/spindle" git --pre-commit --staged -c "$GLC" --no-banner --exit-code 0 -r "$out/b.json" "$target")
	;;
self)
	git worktree add -q "$out/base" "${BASE:?BASE=<commit> to compare with}"
	(cd "$out/base" && go build -o "$out/spindle-base" ./cmd/spindle)
	git worktree remove --force "$out/base"
	a=("$out/spindle-base" scan -q --exit-code 0 -f json -o "$out/a.json" "$target")
	b=("$out/spindle" scan -q --exit-code 0 -f json -o "$out/b.json" "$target")
	;;
*)
	echo "mode: dir, git, staged or self" >&2
	exit 2
	;;
esac

for i in $(seq "$runs"); do
	for which in a b; do
		if [ $which = a ]; then cmd=("${a[@]}"); else cmd=("${b[@]}"); fi
		/usr/bin/time -f "$which %e %U %S %M" -o "$out/t" "${cmd[@]}" >/dev/null 2>&1 || true
		cat "$out/t" | tee -a "$out/times"
	done
done
echo "median wall s, CPU s, peak RSS KB (a = ${a[0]##*/}, b = ${b[0]##*/}):"
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
for which in a b; do
	t=$(grep "^$which " "$out/times")
	printf '%s %s %s %s\n' "$which" \
		"$(awk '{print $2}' <<<"$t" | median)" \
		"$(awk '{print $3+$4}' <<<"$t" | median)" \
		"$(awk '{print $5}' <<<"$t" | median)"
done
echo "findings: a $(grep -c '"RuleID"\|"rule_id"' "$out/a.json" || true), b $(grep -c '"RuleID"\|"rule_id"' "$out/b.json" || true)"
