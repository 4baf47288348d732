#!/bin/sh
# build-scaling.sh BINDIR: builds the test binaries scaling.sh runs.
set -eu
bin=${1:?usage: build-scaling.sh BINDIR}
mkdir -p "$bin"
bin=$(cd "$bin" && pwd)
cd "$(dirname "$0")"
go test -c -o "$bin/bench.test" .
cd ..
go test -c -o "$bin/fork.test" ./fork
go test -c -o "$bin/spindle.test" .
cp bench/scaling.sh "$bin/"
echo "built in $bin: copy it over and run sh $bin/scaling.sh $bin OUTDIR"
