#!/bin/sh
# Interesting (exit 0) when the harness panics where the report says, with its message.
# Usage: test.sh [FILE]; without FILE, ./input.rs (as cvise runs it). Each run appends a line to
# $BENCH_COUNTER if set, so every reducer's oracle calls are counted the same way.
f=${1:-input.rs}
[ -n "$BENCH_COUNTER" ] && echo . >>"$BENCH_COUNTER"
bin=${BENCH_HARNESS_DIR:-$HOME/.cache/hellfuzz-bench/target/debug}/harness-rust-syn
out=$(RUST_BACKTRACE=0 timeout 10 "$bin" "$f" 2>&1 >/dev/null)
case $out in
*'syn-1.0.82/src/item.rs:2465:'*'internal error: entered unreachable code'*) exit 0 ;;
esac
exit 1
