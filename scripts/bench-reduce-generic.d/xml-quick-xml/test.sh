#!/bin/sh
# Interesting (exit 0) when the harness panics where the report says, with its message.
# Usage: test.sh [FILE]; without FILE, ./input.xml (as cvise runs it). Each run appends a line to
# $BENCH_COUNTER if set, so every reducer's oracle calls are counted the same way.
f=${1:-input.xml}
[ -n "$BENCH_COUNTER" ] && echo . >>"$BENCH_COUNTER"
bin=${BENCH_HARNESS_DIR:-$HOME/.cache/hellfuzz-bench/target/debug}/harness-xml-quick-xml
out=$(RUST_BACKTRACE=0 timeout 10 "$bin" "$f" 2>&1 >/dev/null)
case $out in
*'quick-xml-0.28.2/src/reader/parser.rs:104:'*'slice index starts at 3 but ends at 1'*) exit 0 ;;
esac
exit 1
