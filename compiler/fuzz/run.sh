#!/bin/sh
# Runs every fuzz target (or the ones named) for MINUTES each, one after another, at the lowest
# CPU priority, then prints one table row per target for docs/reliability.md.
#
#   compiler/fuzz/run.sh MINUTES [TARGET...]
#
# New inputs go into compiler/fuzz/corpus/<target>/ (minimise with `cargo fuzz cmin` before
# committing). libFuzzer runs in fork mode and keeps going past findings, so one crash does not
# end a target's time: every crash, hang (-timeout) or out-of-memory (-rss_limit_mb) input is
# saved in compiler/fuzz/artifacts/<target>/ and counted in the table. Logs:
# compiler/fuzz/logs/<target>.log.
set -u
minutes=${1:?usage: run.sh MINUTES [TARGET...]}
shift
cd "$(dirname "$0")/.." || exit 2 # cargo fuzz looks for ./fuzz
targets=${*:-$(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^ensemble-fuzz$')}
seconds=$(awk "BEGIN { printf \"%d\", $minutes * 60 }")
mkdir -p fuzz/logs
CARGO_INCREMENTAL=0 nice -n 19 cargo +nightly fuzz build -s none || exit 2
for t in $targets; do
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    nice -n 19 cargo +nightly fuzz run -s none "$t" "fuzz/corpus/$t" -- \
        -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="fuzz/artifacts/$t/" >"fuzz/logs/$t.log" 2>&1
done
echo "| target | executions | seconds | corpus (files) | corpus (bytes) | OOMs / hangs / crashes |"
echo "|---|---:|---:|---:|---:|---|"
for t in $targets; do
    # The fork driver's last status line: `#EXECS: cov: … oom/timeout/crash: O/T/C time: Ss …`.
    last=$(grep -E '^#[0-9]+: cov:' "fuzz/logs/$t.log" | tail -n 1)
    execs=$(echo "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
    took=$(echo "$last" | sed -n 's/.* time: \([0-9]*\)s.*/\1/p')
    findings=$(echo "$last" | sed -n 's|.*oom/timeout/crash: \([0-9/]*\).*|\1|p')
    files=$(find "fuzz/corpus/$t" -type f | wc -l)
    bytes=$(find "fuzz/corpus/$t" -type f -exec cat {} + | wc -c)
    echo "| $t | ${execs:-?} | ${took:-?} | $files | $bytes | ${findings:-? (see fuzz/logs/$t.log)} |"
done
