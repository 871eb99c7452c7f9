#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ (with AddressSanitizer) and runs each for FUZZ_SECONDS (default 60).
# New corpus entries and findings go to .build-fuzz/work/<target>/ (gitignored), never into Fuzz/corpus/.
# Exits non-zero if a target stops on a finding (crash, sanitizer report, timeout or out-of-memory).
set -uo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
SECONDS_EACH=${FUZZ_SECONDS:-60}
TIMEOUT=${FUZZ_TIMEOUT:-10}          # seconds per input
RSS_LIMIT_MB=${FUZZ_RSS_LIMIT_MB:-2048}  # FuzzPDF reached 1.8 GB in a 7-minute run
SCRATCH=.build-fuzz
WORK=$SCRATCH/work
# lld: gold fails with an internal error on these links (measured with binutils 2.40).
BUILD=("$SWIFT" build --package-path Fuzz --scratch-path "$SCRATCH" -c release
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld)

"${BUILD[@]}" || exit 1
BIN=$("${BUILD[@]}" --show-bin-path) || exit 1

# Swift's own crash handler would catch the signal first (and trips AddressSanitizer reading memory).
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS=suppressions=$PWD/Fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}

status=0
run() { # run TARGET [libFuzzer flags and corpus directories…]
    local target=$1 name=$2
    shift 2
    mkdir -p "$WORK/$name/corpus" "$WORK/$name/findings"
    echo "== $target: ${SECONDS_EACH}s (log: $WORK/$name/log)"
    "$BIN/$target" -max_total_time="$SECONDS_EACH" -timeout="$TIMEOUT" -rss_limit_mb="$RSS_LIMIT_MB" \
        -artifact_prefix="$WORK/$name/findings/" -print_final_stats=1 "$@" >"$WORK/$name/log" 2>&1
    local code=$?
    grep -E "^#[0-9]+[[:space:]]+DONE|^stat::number_of_executed_units|^stat::average_exec_per_sec|^stat::peak_rss_mb" \
        "$WORK/$name/log" | awk '!seen[$0]++' | sed 's/^/   /'
    if [ $code -ne 0 ]; then
        echo "   FINDING (exit $code):"
        grep -E "ERROR: |Fatal error|SUMMARY|Test unit written|^==[0-9]+== ?ERROR" "$WORK/$name/log" |
            head -8 | sed 's/^/   /'
        status=1
    fi
}

run FuzzWire wire "$WORK/wire/corpus" Fuzz/corpus/wire

# The PDF target's seeds: the committed fixtures (copied at each run, not committed twice) and Fuzz/corpus/pdf/.
mkdir -p "$WORK/pdf/seeds"
cp Fixtures/*.pdf "$WORK/pdf/seeds/"
run FuzzPDF pdf -dict=Fuzz/pdf.dict "$WORK/pdf/corpus" "$WORK/pdf/seeds" Fuzz/corpus/pdf

exit $status
