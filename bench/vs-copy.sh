#!/usr/bin/env bash
# destbench files-copy vs cp -a, rsync -a, tar | tar and `ls | xargs -P4 cp -a`, in one run,
# on the same small set (~20,000 files of 1-64 KiB) and large set (~1 GiB in 128 MiB files).
# Prints the median time of each tool and its ratio to destbench (> 1: destbench is faster).
#
#   bench/vs-copy.sh [DESTDIR] (env: REPS=3 SMALL_FILES=20000 LARGE_FILES=8 SRCDIR=/dev/shm;
#   needs root)
#
# The sets live in SRCDIR (tmpfs by default: a source in memory, another filesystem than the
# destination, as a backup's source is); with both on one filesystem cp can use copy_file_range
# in the kernel, which destbench refuses (on btrfs, xfs or NFS it becomes a reflink or a
# server-side copy and measures nothing), so that setup compares different things.
#
# Cache state, the same for every tool: the page cache is dropped before each copy, then the
# source is read once (destbench does that itself, untimed; the others get `tar cf - | cat`
# first), so every tool copies from a cached source to a cold destination. Every time includes
# making the copy durable: `sync -f` on the destination for the tools, destbench's own timed
# syncfs. destbench runs with 4 threads, write cache on, no verification; its figure is its own
# timing of the copy (walk, copy, metadata, syncfs), which leaves out its untimed preparation.
set -euo pipefail

WORK=${1:-/var/tmp}
SRCDIR=${SRCDIR:-/dev/shm}
REPS=${REPS:-3}
SMALL_FILES=${SMALL_FILES:-20000}
LARGE_FILES=${LARGE_FILES:-8}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[[ $EUID == 0 ]] || { echo "vs-copy: needs root (drops the page cache)" >&2; exit 1; }
for tool in rsync tar python3; do
    command -v "$tool" >/dev/null || { echo "vs-copy: $tool is not installed" >&2; exit 1; }
done
(cd "$ROOT" && cargo build --release --quiet)
DESTBENCH=$ROOT/target/release/destbench
BASE=$(mktemp -d "$WORK/.vs-copy-XXXXXX")
SETS=$(mktemp -d "$SRCDIR/.vs-copy-sets-XXXXXX")
trap 'rm -rf "$BASE" "$SETS"' EXIT
# destbench's history goes to a data directory of this run's own, never the user's.
export XDG_DATA_HOME=$BASE/data DESTBENCH_DB=$BASE/data/history.sqlite

echo "making the sets in $SETS ..." >&2
python3 - "$SETS/small" "$SETS/large" "$SMALL_FILES" "$LARGE_FILES" <<'PY'
import os, random, sys
small, large, n_small, n_large = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(7)
for i in range(n_small):
    d = os.path.join(small, f"d{i // 500:03}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i:05}.bin"), "wb") as f:
        f.write(os.urandom(rng.randint(1024, 65536)))
os.makedirs(large)
block = os.urandom(1 << 20)
for i in range(n_large):
    with open(os.path.join(large, f"big{i}.bin"), "wb") as f:
        for j in range(128):
            f.write(block[:-8] + j.to_bytes(4, "little") + i.to_bytes(4, "little"))
PY
sync

cold() { sync; echo 3 > /proc/sys/vm/drop_caches; tar cf - -C "$1" . | cat > /dev/null; }
now() { date +%s.%N; }

# Each prints the seconds its copy of $1 into a fresh $2 took, flush included.
tool_cp() { local t0; t0=$(now); cp -a "$1/." "$2/"; sync -f "$2"; echo "$(now) - $t0" | bc; }
tool_rsync() { local t0; t0=$(now); rsync -a "$1/" "$2/"; sync -f "$2"; echo "$(now) - $t0" | bc; }
tool_tar() {
    local t0; t0=$(now)
    (cd "$1" && tar cf - .) | (cd "$2" && tar xf -); sync -f "$2"; echo "$(now) - $t0" | bc
}
tool_xargs() {
    local t0; t0=$(now)
    (cd "$1" && ls | xargs -P4 -I{} cp -a {} "$2/"); sync -f "$2"; echo "$(now) - $t0" | bc
}
tool_destbench() {
    "$DESTBENCH" run "$2" --json --runs 1 --threads 4 --no-verify --no-history --source "$1" \
        --tests files-copy:source-4t-cache-on 2>/dev/null |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["repetitions"][0]["elapsed_s"])'
}
command -v bc >/dev/null || { echo "vs-copy: bc is not installed" >&2; exit 1; }
TOOLS=(destbench cp rsync tar xargs)
for set in small large; do
    declare -A times=()
    for ((rep = 0; rep < REPS; rep++)); do
        for tool in "${TOOLS[@]}"; do
            dst="$BASE/dst-$tool"
            rm -rf "$dst"; mkdir "$dst"
            cold "$SETS/$set"
            times[$tool]+="$(tool_$tool "$SETS/$set" "$dst") "
            rm -rf "$dst"
        done
    done
    python3 - "$set" "${times[destbench]}" "${times[cp]}" "${times[rsync]}" "${times[tar]}" "${times[xargs]}" <<'PY'
import statistics, sys
name, *lists = sys.argv[1:]
tools = ["destbench", "cp -a", "rsync -a", "tar | tar", "xargs -P4 cp -a"]
medians = [statistics.median(map(float, l.split())) for l in lists]
db = medians[0]
print(f"{name} set:")
for tool, m in zip(tools, medians):
    print(f"  {tool:<16} {m:8.3f} s   {'' if tool == 'destbench' else f'{m / db:6.2f}x destbench'}")
best = min(medians[1:])
print(f"  destbench vs the best of the others: {best / db:.2f}x")
PY
    unset times
done
echo "medians of $REPS runs each; $SMALL_FILES small files, $LARGE_FILES x 128 MiB large files, from $SRCDIR to $WORK"
