#!/bin/sh
# Interesting (exit 0) when the harness panics where the report says, with its message.
# Usage: test.sh [FILE]; without FILE, ./input.md (as cvise runs it). Each run appends a line to
# $BENCH_COUNTER if set, so every reducer's oracle calls are counted the same way.
f=${1:-input.md}
[ -n "$BENCH_COUNTER" ] && echo . >>"$BENCH_COUNTER"
bin=${BENCH_HARNESS_DIR:-$HOME/.cache/hellfuzz-bench/target/debug}/harness-markdown-pulldown-cmark
out=$(RUST_BACKTRACE=0 timeout 10 "$bin" "$f" 2>&1 >/dev/null)
case $out in
*'pulldown-cmark-0.12.1/src/tree.rs:239:'*'assertion failed: self[child_ix].item.start < end_byte_ix'*) exit 0 ;;
esac
exit 1
