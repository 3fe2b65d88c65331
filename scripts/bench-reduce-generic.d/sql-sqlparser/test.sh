#!/bin/sh
# Interesting (exit 0) when the harness panics where the report says, with its message.
# Usage: test.sh [FILE]; without FILE, ./input.sql (as cvise runs it). Each run appends a line to
# $BENCH_COUNTER if set, so every reducer's oracle calls are counted the same way.
f=${1:-input.sql}
[ -n "$BENCH_COUNTER" ] && echo . >>"$BENCH_COUNTER"
bin=${BENCH_HARNESS_DIR:-$HOME/.cache/hellfuzz-bench/target/debug}/harness-sql-sqlparser
out=$(RUST_BACKTRACE=0 timeout 10 "$bin" "$f" 2>&1 >/dev/null)
case $out in
*'sqlparser-0.47.0/src/parser/mod.rs:5231:'*'literal int: ParseIntError { kind: PosOverflow }'*) exit 0 ;;
esac
exit 1
