#!/bin/sh
# Interesting (exit 0) when the harness panics where the report says, with its message.
# Usage: test.sh [FILE]; without FILE, ./input.toml (as cvise runs it). Each run appends a line to
# $BENCH_COUNTER if set, so every reducer's oracle calls are counted the same way.
f=${1:-input.toml}
[ -n "$BENCH_COUNTER" ] && echo . >>"$BENCH_COUNTER"
bin=${BENCH_HARNESS_DIR:-$HOME/.cache/hellfuzz-bench/target/debug}/harness-toml-toml_edit
out=$(RUST_BACKTRACE=0 timeout 10 "$bin" "$f" 2>&1 >/dev/null)
case $out in
*'toml_edit-0.25.0+spec-1.1.0/src/parser/document.rs:491:'*'all items have spans'*) exit 0 ;;
esac
exit 1
