#!/usr/bin/env bash
# compare-gitleaks.sh git|dir TARGET [FLAG ...]: run gitleaks and spindle's
# drop-in with the same command line (no config unless TARGET has one, or
# a FLAG names one) and compare what a switch from one to the other would
# meet: the exit status, and the findings by rule id, file, line, commit,
# secret and fingerprint. Then run spindle with gitleaks' report as the
# baseline, which must exit 0 with nothing new. Prints one line per check;
# exits 1 if any differs.
#
#   GITLEAKS=~/go/bin/gitleaks SPINDLE=./spindle scripts/compare-gitleaks.sh git /tmp/repo.git
#
# A history with no work tree (a bare clone) is scanned with no config:
# neither tool finds a .gitleaks.toml in it.
set -euo pipefail
mode=${1:?usage: compare-gitleaks.sh git|dir TARGET [FLAG ...]}
target=${2:?usage: compare-gitleaks.sh git|dir TARGET [FLAG ...]}
shift 2
gitleaks=${GITLEAKS:-gitleaks}
spindle=${SPINDLE:-spindle}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run BIN REPORT [FLAG ...]: the scan's exit status on standard output.
run() {
  local bin=$1 report=$2
  shift 2
  local code=0
  "$bin" "$mode" --no-banner -l error -f json -r "$report" "$@" "$target" > /dev/null 2>&1 || code=$?
  echo "$code"
}
keys() {
  jq -r '.[] | [.RuleID, .File, (.StartLine | tostring), .Commit, .Secret, .Fingerprint] | join("|")' "$1" | LC_ALL=C sort
}

start=$(date +%s)
gl_code=$(run "$gitleaks" "$work/gl.json" "$@")
mid=$(date +%s)
sp_code=$(run "$spindle" "$work/sp.json" "$@")
end=$(date +%s)
keys "$work/gl.json" > "$work/gl.keys"
keys "$work/sp.json" > "$work/sp.keys"
gl_n=$(wc -l < "$work/gl.keys")
sp_n=$(wc -l < "$work/sp.keys")
status=0
echo "$mode $target: gitleaks exit $gl_code, $gl_n findings ($((mid - start)) s); spindle exit $sp_code, $sp_n findings ($((end - mid)) s)"
if [ "$gl_code" != "$sp_code" ]; then
  echo "DIFFERENT exit status"
  status=1
fi
if cmp -s "$work/gl.keys" "$work/sp.keys"; then
  echo "same findings: rule ids, files, lines, commits, secrets, fingerprints"
else
  echo "DIFFERENT findings (< gitleaks only, > spindle only):"
  diff "$work/gl.keys" "$work/sp.keys" | grep '^[<>]' | head -40 || true
  status=1
fi
bl_code=$(run "$spindle" "$work/bl.json" -b "$work/gl.json" "$@")
bl_n=$(jq length "$work/bl.json")
if [ "$bl_code" = 0 ] && [ "$bl_n" = 0 ]; then
  echo "with gitleaks' report as the baseline: exit 0, nothing new"
else
  echo "DIFFERENT with gitleaks' report as the baseline: exit $bl_code, $bl_n new"
  status=1
fi
exit "$status"
