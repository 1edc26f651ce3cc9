#!/usr/bin/env bash
# The file-tree tests under `--engine uring` against the default engine, in one run, on the same
# generated set: whether io_uring batches of small files copy faster than system calls.
# Prints, per test variant, each engine's median rate and CPU time per file, and uring/default
# ratios (rate > 1: uring is faster; CPU > 1: uring spends more).
#
#   bench/tree-engines.sh [DESTDIR] (env: DESTBENCH=binary FILES=5000 ROUNDS=3 THREADS=1,4
#                                    SRCDIR=/dev/shm)
#
# Since issue 26 every engine copies trees with system calls, which docs/engines.md explains
# with this script's figures; DESTBENCH=path runs an older build that still had the batches.
#
# The set (FILES files of 1-64 KiB, the sizes the batches take, in directories of 500) lives in
# SRCDIR, tmpfs by default, so the source is never what is measured. Each round runs both
# engines back to back, the order alternating between rounds, so drift on a shared machine hits
# both alike. Every run copies, restores and deletes the set as `--source`, one repetition each
# (of at least destbench's --min-time), without verification; the figures are each run's own.
set -euo pipefail

WORK=${1:-/var/tmp}
SRCDIR=${SRCDIR:-/dev/shm}
FILES=${FILES:-5000}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-1,4}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || { echo "tree-engines: needs python3" >&2; exit 1; }
if [[ -z ${DESTBENCH:-} ]]; then
    (cd "$ROOT" && cargo build --release --quiet)
    DESTBENCH=${CARGO_TARGET_DIR:-$ROOT/target}/release/destbench
fi
BASE=$(mktemp -d "$WORK/.tree-engines-XXXXXX")
SET=$(mktemp -d "$SRCDIR/.tree-engines-set-XXXXXX")
trap 'rm -rf "$BASE" "$SET"' EXIT
# destbench's history goes to a data directory of this run's own, never the user's.
export XDG_DATA_HOME=$BASE/data DESTBENCH_DB=$BASE/data/history.sqlite

echo "making $FILES files of 1-64 KiB in $SET ..." >&2
python3 "$ROOT/bench/make-files.py" "$SET" "$FILES" 64 500 11
sync

# One run of the three tests with engine $1; its JSON goes to $2.
run() {
    mkdir -p "$BASE/dst"
    "$DESTBENCH" run "$BASE/dst" --json --no-history --runs 1 --no-verify --engine "$1" \
        --source "$SET" --threads "$THREADS" --tests files-copy,files-restore,files-delete \
        >"$2" 2>>"$BASE/stderr" || { echo "tree-engines: destbench failed:" >&2; cat "$BASE/stderr" >&2; exit 1; }
}

for ((round = 0; round < ROUNDS; round++)); do
    if ((round % 2 == 0)); then order=(auto uring); else order=(uring auto); fi
    for engine in "${order[@]}"; do
        echo "round $((round + 1))/$ROUNDS: $engine" >&2
        run "$engine" "$BASE/$engine-$round.json"
    done
done

python3 - "$BASE" "$ROUNDS" "$FILES" "$WORK" <<'PY'
import json, statistics, sys
base, rounds, files, work = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
# (test, variant) -> engine -> [(rate, cpu seconds per file)]
seen = {}
for engine in ("auto", "uring"):
    for r in range(rounds):
        doc = json.load(open(f"{base}/{engine}-{r}.json"))
        for res in doc["results"]:
            reps = res["repetitions"]
            cpu = sum(x["cpu_s"] for x in reps) / max(1, sum(x["ops"] for x in reps))
            seen.setdefault((res["test"], res["variant"]), {}).setdefault(engine, []).append(
                (res["median"], cpu, res["unit"]))
print(f"{'test':<14} {'variant':<20} {'default':>10} {'uring':>10} {'unit':<8} {'rate ratio':>10}"
      f" {'cpu/file default':>17} {'uring':>7} {'cpu ratio':>9}")
for (test, variant), by in seen.items():
    med = {e: statistics.median(v[0] for v in by[e]) for e in by}
    cpu = {e: statistics.median(v[1] for v in by[e]) * 1e6 for e in by}
    unit = by["auto"][0][2]
    print(f"{test:<14} {variant:<20} {med['auto']:10.1f} {med['uring']:10.1f} {unit:<8}"
          f" {med['uring'] / med['auto']:10.2f} {cpu['auto']:14.0f} us {cpu['uring']:4.0f} us"
          f" {cpu['uring'] / cpu['auto']:9.2f}")
print(f"medians of {rounds} alternating rounds; {files} files of 1-64 KiB from tmpfs to {work}")
PY
