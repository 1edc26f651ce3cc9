#!/usr/bin/env bash
# The default run's answer for a large real folder against real copies of it: on a testbed
# destination (the disk held to 35 MB/s, or one with a write cache), `destbench run DEST --data
# TREE` (the default profile, as a user runs it), then REAL_RUNS real `cp -a` of TREE there, each
# from a cold page cache; the printed range, the expected time, the real median, their ratio,
# whether it fell inside, the cache the run found and how long the run took.
#
#   bench/answer-at-scale.sh   (env: DESTBENCH=binary TREE=/root/.rustup/toolchains
#                               DEST_ARGS="--rate 35 --size 8G" REAL_RUNS=3; needs root)
#
# With a write cache in DEST_ARGS (--cache SIZE --cache-rate MBPS), every copy starts from a
# drained cache (`testbed wait-drained`), as the run did. Each copy goes into a fresh directory,
# is timed to the end of `sync -f` and removed. --no-history and a data directory of its own
# keep the user's history out.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TREE=${TREE:-/root/.rustup/toolchains}
DEST_ARGS=${DEST_ARGS:---rate 35 --size 8G}
REAL_RUNS=${REAL_RUNS:-3}
source "$ROOT/bench/testbed-prelude.sh"
bench_prelude answer-at-scale "cp sync" "$@"
bench_state answer-at-scale
read -r -a args <<<"$DEST_ARGS"
"$ROOT/scripts/testbed" up slow-disk "$STATE/tb" "${args[@]}" >"$STATE/up.txt"
mnt=$(sed -n 's/^mount=//p' "$STATE/up.txt")
cached=$([[ " $DEST_ARGS " == *" --cache "* ]] && echo yes || echo no)
drained() { [[ $cached == no ]] || "$ROOT/scripts/testbed" wait-drained "$STATE/tb" >/dev/null; }

# Seconds of `cp -a TREE` into the destination from a cold page cache, to the end of sync -f.
real_copy() {
    local target=$mnt/real-copy start
    drained
    sync
    echo 3 >/proc/sys/vm/drop_caches
    start=$(date +%s.%N)
    cp -a "$TREE" "$target"
    sync -f "$mnt"
    python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.2f}')" "$start"
    rm -rf "$target"
    sync -f "$mnt"
}

echo "destination: slow-disk $DEST_ARGS; $(grep -E '^delivered' "$STATE/up.txt" | tr '\n' ' ')"
drained
started=$(date +%s.%N)
"$DESTBENCH" run "$mnt" --no-history --json --data "$TREE" >"$STATE/run.json"
took=$(python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$started")
times=()
for _ in $(seq "$REAL_RUNS"); do times+=("$(real_copy)"); done
python3 - "$STATE/run.json" "$TREE" "$took" "${times[@]}" <<'PY'
import json, statistics, sys
doc, tree, took, *times = sys.argv[1:]
answer = json.load(open(doc))["answer"]
data = answer["data"]
print(f"{tree}: {data['bytes'] / 1e9:.2f} GB in {data['files']} files; the run took {took} s")
print(f"cache: {json.dumps(answer.get('cache'))}")
real = statistics.median(float(t) for t in times)
print(f"{'tool':11} {'printed':>19} {'expected':>9} {'real':>8} {'ratio':>6} inside  each real cp -a")
for t in answer["tools"]:
    if t["tool"] != "plain-copy":
        continue
    f = t["first_seconds"]
    inside = "yes" if f["low"] <= real <= f["high"] else "NO"
    print(f"{t['tool']:11} {f['low']:8.1f}-{f['high']:<10.1f} {f['expected']:9.1f} {real:8.1f} "
          f"{real / f['expected']:6.2f} {inside:6}  {' '.join(times)}")
for w in answer["words"]:
    print("  " + w)
PY
