#!/usr/bin/env bash
# The answer's first-backup ranges against the real tools: on the testbed's slow disk (35 MB/s)
# and NAS (sshfs over a 100 Mbit/s link), `destbench run DEST --source TREE` (the sequential
# write, the one-thread copy of the tree and its rsync -a copy), then REAL_RUNS real `cp -a` and
# `rsync -a` of the tree there; for each tool the printed range, the expected time, the real
# median, their ratio and whether the median fell inside the range.
#
#   bench/answer-vs-real.sh   (env: DESTBENCH=binary TREES="/usr/share/man" DESTS="slow-disk nas"
#                              REAL_RUNS=3; needs root)
#
# Each real copy goes into a fresh directory and is timed to the end of `sync -f`; the copies
# are removed between runs. sshfs cannot set a symlink's times, which cp -a and rsync -a report
# as failures: over the share, choose trees without symlinks. The testbed is machine-wide: the
# script takes /tmp/destbench-testbed.lock for its whole run. --no-history and a data directory
# of its own keep the user's history out.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TREES=${TREES:-/usr/share/man}
DESTS=${DESTS:-slow-disk nas}
REAL_RUNS=${REAL_RUNS:-3}
source "$ROOT/bench/testbed-prelude.sh"
bench_prelude answer-vs-real "" "$@"
WORK=$(mktemp -d)
STATE=$WORK/testbed
cleanup() { "$ROOT/scripts/testbed" down "$STATE" >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT
export XDG_DATA_HOME=$WORK/data

# Seconds of `PROGRAM -a` of TREE into DEST, to the end of sync -f.
real_copy() {
    local program=$1 tree=$2 dest=$3 target=$3/real-copy
    local start
    start=$(date +%s.%N)
    if [[ $program == rsync ]]; then
        rsync -a "$tree/" "$target/"
    else
        cp -a "$tree" "$target"
    fi
    sync -f "$dest"
    python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.2f}')" "$start"
    rm -rf "$target"
    sync -f "$dest"
}

printf '%-10s %-28s %-6s %-17s %9s %9s %6s %-6s %s\n' dest tree tool printed expected real ratio inside "each real copy (load average)"
for dest in $DESTS; do
    case $dest in
        slow-disk) args=(--rate 35) ;;
        nas) args=(--link 100mbit) ;;
        *) echo "answer-vs-real: unknown destination $dest" >&2; exit 1 ;;
    esac
    "$ROOT/scripts/testbed" up "$dest" "$STATE" "${args[@]}" >/dev/null
    mnt=$STATE/mnt
    for tree in $TREES; do
        "$DESTBENCH" run "$mnt" --no-history --json --source "$tree" --threads 1 --runs 3 \
            --min-time 0 --size 64M \
            --tests seq-write:SEQ1M-Q8T1,files-copy:source-1t-cache-on,files-copy:source-rsync \
            >"$WORK/run.json"
        for program in cp rsync; do
            times=()
            for _ in $(seq "$REAL_RUNS"); do times+=("$(real_copy "$program" "$tree" "$mnt")"); done
            load=$(cut -d' ' -f1 /proc/loadavg)
            python3 - "$WORK/run.json" "$dest" "$tree" "$program" "$load" "${times[@]}" <<'PY'
import json, statistics, sys
doc, dest, tree, program, load, *times = sys.argv[1:]
tool = "plain-copy" if program == "cp" else program
answer = json.load(open(doc))["answer"]
first = next(t for t in answer["tools"] if t["tool"] == tool)["first_seconds"]
real = statistics.median(float(t) for t in times)
inside = "yes" if first["low"] <= real <= first["high"] else "NO"
print(f"{dest:10} {tree:28} {program:6} {first['low']:7.2f}-{first['high']:<8.2f} "
      f"{first['expected']:9.2f} {real:9.2f} {real / first['expected']:6.2f} {inside:6} "
      f"{' '.join(times)} ({load})")
PY
        done
    done
    "$ROOT/scripts/testbed" down "$STATE" >/dev/null
done
