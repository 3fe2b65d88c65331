#!/bin/sh
# Interesting (exit 0) when the harness panics where the report says, with its message (whatever
# the lengths in it: they are those of the content attribute).
# Usage: test.sh [FILE]; without FILE, ./input.html (as cvise runs it). Each run appends a line to
# $BENCH_COUNTER if set, so every reducer's oracle calls are counted the same way.
f=${1:-input.html}
[ -n "$BENCH_COUNTER" ] && echo . >>"$BENCH_COUNTER"
bin=${BENCH_HARNESS_DIR:-$HOME/.cache/hellfuzz-bench/target/debug}/harness-html-html5ever
out=$(RUST_BACKTRACE=0 timeout 10 "$bin" "$f" 2>&1 >/dev/null)
case $out in
*'html5ever-0.39.0/src/encoding.rs:39:'*'index out of bounds: the len is '*' but the index is '*) exit 0 ;;
esac
exit 1
