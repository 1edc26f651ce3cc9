#!/usr/bin/env bash
# The answer's slower side against the real thing: a folder (TREE) copied onto the testbed's
# slow disk (RATE MB/s), a fast destination (a tmpfs, whose own time is next to nothing, or
# DEST_DIR), `destbench run DEST --data FOLDER` (its answer reads a sample of the folder cold),
# then REAL_RUNS real `cp -a` of the folder to the destination, caches dropped before each; per
# trial the printed range, the expected time (reading and writing), the sample's reading time
# alone, the real median, their ratio (real / expected), whether the median fell inside the
# range, which side the answer named and the sample's own time.
#
#   bench/answer-source.sh   (env: DESTBENCH=binary TREE=/usr/share/man RATE=20 TRIALS=3
#                             REAL_RUNS=3 DEST_DIR= RUN_ARGS="--profile quick --tests
#                             seq-write:SEQ1M-Q8T1"; needs root)
#
# Each real copy goes into a fresh directory and is timed to the end of `sync -f`, then removed.
# The testbed is machine-wide: the script takes /tmp/destbench-testbed.lock for its whole run.
# --no-history and a data directory of its own keep the user's history out.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TREE=${TREE:-/usr/share/man}
RATE=${RATE:-20}
TRIALS=${TRIALS:-3}
REAL_RUNS=${REAL_RUNS:-3}
DEST_DIR=${DEST_DIR:-}
RUN_ARGS=${RUN_ARGS---profile quick --tests seq-write:SEQ1M-Q8T1}
source "$ROOT/bench/testbed-prelude.sh"
bench_prelude answer-source "cp sync" "$@"
bench_state answer-source
dest=
cleanup() {
    "$ROOT/scripts/testbed" down "$STATE/tb" >/dev/null 2>&1 || true
    "$ROOT/scripts/testbed" down "$STATE/dest" >/dev/null 2>&1 || true
    [[ -z $DEST_DIR || -z $dest ]] || rm -rf "$dest"
    rm -rf "$STATE"
}
trap cleanup EXIT

src=$(bench_testbed_up answer-source slow-disk "$RATE")
if [[ -n $DEST_DIR ]]; then
    dest=$(mktemp -d "$DEST_DIR/.answer-source-XXXXXX")
else
    dest=$("$ROOT/scripts/testbed" up tmpfs "$STATE/dest" --size 1G | sed -n 's/^mount=//p')
fi
data=$src/$(basename "$TREE")
cp -a "$TREE" "$data"
# Written to the disk: pages not yet written cannot be dropped, so could not be read cold.
sync -f "$data"

# Seconds of `cp -a` of the data into the destination from a cold cache, to the end of sync -f.
real_copy() {
    local target=$dest/real-copy start
    sync
    echo 3 >/proc/sys/vm/drop_caches
    start=$(date +%s.%N)
    cp -a "$data" "$target"
    sync -f "$dest"
    python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.2f}')" "$start"
    rm -rf "$target"
}

echo "data: $TREE on a disk held to $RATE MB/s; destination: ${DEST_DIR:-a tmpfs}; run: $RUN_ARGS"
printf '%-5s %-13s %9s %8s %9s %6s %-6s %-11s %7s %s\n' trial printed expected reading real ratio inside limited_by sample "each real copy (load average)"
for trial in $(seq "$TRIALS"); do
    sync
    echo 3 >/proc/sys/vm/drop_caches
    # shellcheck disable=SC2086 # RUN_ARGS is a list of flags
    "$DESTBENCH" run "$dest" --no-history --json --data "$data" $RUN_ARGS >"$STATE/run.json"
    times=()
    for _ in $(seq "$REAL_RUNS"); do times+=("$(real_copy)"); done
    load=$(cut -d' ' -f1 /proc/loadavg)
    python3 - "$STATE/run.json" "$trial" "$load" "${times[@]}" <<'PY'
import json, statistics, sys
doc, trial, load, *times = sys.argv[1:]
answer = json.load(open(doc))["answer"]
first = answer["tools"][0]["first_seconds"]
reads = answer["data"]["reads"] or {}
reading = (reads.get("seconds") or {}).get("expected", 0.0)
real = statistics.median(float(t) for t in times)
inside = "yes" if first["low"] <= real <= first["high"] else "NO"
print(f"{trial:5} {first['low']:5.2f}-{first['high']:<7.2f} {first['expected']:9.2f} {reading:8.2f} {real:9.2f} "
      f"{real / first['expected']:6.2f} {inside:6} {str(answer['limited_by']):11} "
      f"{reads.get('sample_seconds', 0):6.2f}s {' '.join(times)} ({load})")
PY
done
