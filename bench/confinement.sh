#!/usr/bin/env bash
# What confining rsync to the scratch costs a run: the same rsync variants (the small set
# copied, then the update's walk) in runs confined as usual and runs with confinement turned
# off (DESTBENCH_NO_CONFINEMENT, on a private directory, where they run unconfined), taking
# turns. Prints each side's median run time and rsync figures, and their ratios (> 1:
# confinement costs that share).
#
#   bench/confinement.sh [DESTDIR] (env: REPS=5)
#
# Each run is `destbench run DESTDIR --tests ...rsync... --no-history` in a data directory of
# this script's own; the release build is used.
set -euo pipefail

WORK=${1:-/var/tmp}
REPS=${REPS:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
command -v rsync >/dev/null || { echo "confinement: rsync is not installed" >&2; exit 1; }
(cd "$ROOT" && cargo build --release --quiet)
DESTBENCH=$ROOT/target/release/destbench
BASE=$(mktemp -d "$WORK/.confinement-XXXXXX")
trap 'rm -rf "$BASE"' EXIT
export XDG_DATA_HOME=$BASE/data DESTBENCH_DB=$BASE/data/history.sqlite
mkdir -p "$BASE/dest" "$BASE/out"

TESTS=files-copy:small-rsync,files-copy:small-rsync-update
run() { # run SIDE REP: one run's document
    local side=$1 rep=$2 env=()
    [ "$side" = unconfined ] && env=(DESTBENCH_NO_CONFINEMENT=1)
    env "${env[@]}" "$DESTBENCH" run "$BASE/dest" --tests "$TESTS" --runs 3 --no-history \
        --json >"$BASE/out/$side-$rep.json"
}
for rep in $(seq "$REPS"); do
    run confined "$rep"
    run unconfined "$rep"
done

python3 - "$BASE/out" "$REPS" <<'PY'
import json, statistics, sys, glob, os
out, reps = sys.argv[1], int(sys.argv[2])
def figures(side):
    runs, copy, update, warned = [], [], [], set()
    for path in sorted(glob.glob(os.path.join(out, f"{side}-*.json"))):
        doc = json.load(open(path))
        runs.append(doc["duration_s"])
        for r in doc["results"]:
            times = [rep["elapsed_s"] for rep in r["repetitions"]]
            if r["variant"].endswith("rsync"):
                copy += times
            elif r["variant"].endswith("rsync-update"):
                update += times
        warned |= {w["kind"] for w in doc["warnings"]}
    return statistics.median(runs), statistics.median(copy), statistics.median(update), warned
c, u = figures("confined"), figures("unconfined")
print(f"{reps} runs each, taking turns; medians, in seconds (rsync's: each repetition's time)")
print(f"{'':14} {'confined':>10} {'unconfined':>11} {'ratio':>7}")
for name, i in [("whole run", 0), ("rsync copy", 1), ("rsync update", 2)]:
    print(f"{name:14} {c[i]:10.3f} {u[i]:11.3f} {c[i] / u[i]:7.3f}")
print(f"warnings: confined {sorted(c[3])}, unconfined {sorted(u[3])}")
PY
