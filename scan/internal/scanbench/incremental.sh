#!/usr/bin/env bash
# incremental.sh REPO: the history store's re-scans, as BENCHMARKS.md reports
# them. On a --shared mirror clone of REPO (REPO itself is not changed):
# a first scan that writes the store, five re-scans with nothing new (each
# report compared with the first), five re-scans each after one new commit
# on HEAD, then a full scan without the store, whose findings must equal
# the last re-scan's; and the store's size. Each step prints its wall
# time, CPU (user, sys) and peak RSS in KiB. Run it with nothing else on
# the machine; SP names a spindle binary (default: built from this tree).
set -euo pipefail
src=$(cd "${1:?a repository (a bare mirror) to scan}" && pwd)
cd "$(dirname "$0")/../../.."
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
SP=${SP:-}
if [ -z "$SP" ]; then
  go build -o "$w/spindle" ./cmd/spindle
  SP=$w/spindle
fi
git clone -q --mirror --shared $src $w/prom.git
cache=$w/cache
/usr/bin/time -f "first %e %U %S %M" -o $w/t $SP git $w/prom.git --cache $cache -f json -r $w/first.json --exit-code 0 >/dev/null 2>$w/first.err; cat $w/t
for i in 1 2 3 4 5; do
  /usr/bin/time -f "nothing-new %e %U %S %M" -o $w/t $SP git $w/prom.git --cache $cache -f json -r $w/again.json --exit-code 0 >/dev/null 2>$w/again.err; cat $w/t
  cmp $w/first.json $w/again.json && echo same-report
done
tail -3 $w/again.err
export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@b
for i in 1 2 3 4 5; do
  head=$(git -C $w/prom.git rev-parse HEAD)
  idx=$w/index; rm -f $idx
  GIT_INDEX_FILE=$idx git -C $w/prom.git read-tree $head
  blob=$(printf 'line %d\npassword = "%016x"\n' $i $((i*7919+123456789)) | git -C $w/prom.git hash-object -w --stdin)
  GIT_INDEX_FILE=$idx git -C $w/prom.git update-index --add --cacheinfo 100644,$blob,bench/new$i.env
  tree=$(GIT_INDEX_FILE=$idx git -C $w/prom.git write-tree)
  c=$(git -C $w/prom.git commit-tree $tree -p $head -m "new $i")
  git -C $w/prom.git update-ref HEAD $c
  /usr/bin/time -f "one-new %e %U %S %M" -o $w/t $SP git $w/prom.git --cache $cache -f json -r $w/new.json --exit-code 0 >/dev/null 2>$w/new.err; cat $w/t
  tail -2 $w/new.err
done
# the same history scanned in full (no store): same report as the last re-scan
/usr/bin/time -f "full-now %e %U %S %M" -o $w/t $SP git $w/prom.git --no-cache -f json -r $w/full.json --exit-code 0 >/dev/null 2>/dev/null; cat $w/t
python3 - $w/new.json $w/full.json <<'PY'
import json,sys
a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
print("findings", len(a), len(b), "same" if a==b else "DIFFER")
PY
du -sh $cache
