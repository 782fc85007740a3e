#!/usr/bin/env bash
# Builds and runs every fuzz target for SECONDS each (default 600), one after the other, on one
# core at the lowest priority, and prints each target's executions per second and corpus size.
#
#   fuzz/run.sh [SECONDS] [TARGET...]
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`). The stable toolchain is told to accept the
# sanitizer flags with RUSTC_BOOTSTRAP=1; set SANITIZER=none where AddressSanitizer is missing.
# Seeds (fuzz/seeds/TARGET, committed) are copied into the working corpus (fuzz/corpus/TARGET,
# not committed); crashes land in fuzz/artifacts/TARGET. See docs/FUZZING.md.
set -euo pipefail

cd "$(dirname "$0")"
seconds="${1:-600}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(front_matter config inline_values figure page trace claims)
fi
sanitizer="${SANITIZER:-address}"
export RUSTC_BOOTSTRAP=1

# -O: optimised; -a: with debug assertions and overflow checks, as in tests.
build_flags=(-O -a --sanitizer "$sanitizer")
nice -n 19 cargo fuzz build "${build_flags[@]}"

mkdir -p logs
printf '%-14s %8s %10s %8s %8s %s\n' target seconds runs exec/s corpus result
for target in "${targets[@]}"; do
    mkdir -p "corpus/$target"
    cp -n "seeds/$target"/* "corpus/$target/" 2>/dev/null || true
    log="logs/$target.log"
    status=0
    # One process, one worker (libFuzzer's default without -jobs/-fork), so only one core.
    nice -n 19 cargo fuzz run "${build_flags[@]}" "$target" "corpus/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    corpus=$(find "corpus/$target" -type f | wc -l)
    if [ "$status" -eq 0 ]; then
        result=ok
    else
        result="FAILED (exit $status; see fuzz/$log and fuzz/artifacts/$target)"
    fi
    printf '%-14s %8s %10s %8s %8s %s\n' "$target" "${took:-?}" "${runs:-?}" "${rate:-?}" "$corpus" "$result"
done
