#!/bin/sh
# icount.sh WORKLOAD VARIANT [LAYOUT]: instructions per unit of a runtime
# workload, counted by callgrind (see main.go). Needs valgrind. Go's runtime
# reads the time stamp counter with RDTSCP, which valgrind 3.19 does not
# decode, and preempts with signals, which callgrind may trip over: both are
# switched off, and a run that crashes anyway is retried.
set -e
cd "$(dirname "$0")"
go build -o /tmp/icount.bin .
count() {
	for try in 1 2 3 4 5; do
		if GOGC=off GODEBUG=cpu.rdtscp=off,asyncpreemptoff=1 valgrind --tool=callgrind \
			--callgrind-out-file=/tmp/icount.out /tmp/icount.bin "$@" >/tmp/icount.log 2>&1; then
			grep '^totals:' /tmp/icount.out | awk '{print $2}'
			return
		fi
	done
	echo "icount: callgrind failed: $*" >&2
	tail -5 /tmp/icount.log >&2
	exit 1
}
w=$1 v=$2 layout=${3:-parent}
base=$(count -w "$w" -v none -layout "$layout")
total=$(count -w "$w" -v "$v" -layout "$layout")
units=$(GOGC=off /tmp/icount.bin -w "$w" -v none -layout "$layout")
echo "$w $v $layout $total $base $units" | awk '{ printf "%s %s %s: %.2f instructions per unit (%d - %d over %d units)\n", $1, $2, $3, ($4-$5)/$6, $4, $5, $6 }'
