#!/bin/sh
# Interesting (exit 0) when the harness overflows its stack, as in the report (no panic location:
# the process aborts). Usage: test.sh [FILE]; without FILE, ./input.ron (as cvise runs it). Each
# run appends a line to $BENCH_COUNTER if set, so every reducer's oracle calls are counted alike.
f=${1:-input.ron}
[ -n "$BENCH_COUNTER" ] && echo . >>"$BENCH_COUNTER"
bin=${BENCH_HARNESS_DIR:-$HOME/.cache/hellfuzz-bench/target/debug}/harness-ron-ron
out=$(RUST_BACKTRACE=0 timeout 10 "$bin" "$f" 2>&1 >/dev/null)
case $out in
*"has overflowed its stack"*) exit 0 ;;
esac
exit 1
