#!/usr/bin/env bash
# Does every range destbench prints hold the real time as often as it claims? On trees kept out
# of the models' tuning, on the testbed's 35-40 MB/s disk and 100 Mbit/s share, this runs the
# three comparisons against the real tools (bench/estimate-vs-real.sh: `estimate --tool cp` and
# `rsync`; bench/answer-vs-real.sh: the run's answer for a plain copy and rsync;
# bench/tools-vs-real.sh: `estimate --tool restic` and `borg`), then tallies per kind of range
# how many asks held the real time, against what the range claims: each of these ranges is
# printed as the time the backup takes, so it claims every ask. (The block figures' ±precision
# claims 95%: tests/integration/precision_coverage.rs checks it in CI.) Every row and the
# tally go to OUT.
#
#   bench/coverage.sh   (env: DESTBENCH=binary DESTS="slow-disk nas" REAL_RUNS=1
#                        KINDS="estimate answer tools" OUT=dir; needs root)
#
# Trees, made here with `rsync -a --no-links` (sshfs cannot set a symlink's times, so cp -a
# fails on them): "include" = /usr/include (kept out of the copy model's tuning), "python3" =
# /usr/lib/python3, "vim+" = /usr/share/vim, /usr/share/i18n and /usr/share/mime. The testbed
# is machine-wide: the script takes /tmp/destbench-testbed.lock for its whole run, and the
# comparisons it runs go on under it. It runs destbench only through them, each with
# --no-history (`run`) or a private history (`estimate`, which stores no run); bench_state
# gives them a private data directory as well, so the user's history is never read or filled.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DESTS=${DESTS:-slow-disk nas}
REAL_RUNS=${REAL_RUNS:-1}
KINDS=${KINDS:-estimate answer tools}
source "$ROOT/bench/testbed-prelude.sh"
bench_prelude coverage "rsync python3" "$@"
bench_state coverage
OUT=${OUT:-$STATE/out}
mkdir -p "$OUT"
# The comparisons run under this script's lock.
export ESTIMATE_VS_REAL_LOCKED=1 ANSWER_VS_REAL_LOCKED=1 TOOLS_VS_REAL_LOCKED=1
export DESTBENCH DESTS REAL_RUNS

trees=()
tree() {
    local name=$1 dir=$STATE/trees/$1
    shift
    mkdir -p "$dir"
    for source in "$@"; do
        rsync -a -q --no-links "$source" "$dir/"
    done
    trees+=("$dir")
    echo "coverage: $name: $(find "$dir" -type f | wc -l) files, $(du -sb "$dir" | cut -f1) bytes" >&2
}
tree include /usr/include
tree python3 /usr/lib/python3
tree vim+ /usr/share/vim /usr/share/i18n /usr/share/mime
export TREES="${trees[*]}"

for kind in $KINDS; do
    case $kind in
        estimate) TOOLS="cp rsync" "$ROOT/bench/estimate-vs-real.sh" | tee "$OUT/estimate" ;;
        answer) "$ROOT/bench/answer-vs-real.sh" | tee "$OUT/answer" ;;
        tools) TOOLS="restic borg" "$ROOT/bench/tools-vs-real.sh" | tee "$OUT/tools" ;;
        *) echo "coverage: unknown kind $kind (estimate, answer, tools)" >&2; exit 1 ;;
    esac
done

# A row is a destination's line; its one "yes" or "NO" token says whether the real time fell
# inside the printed range; its third word is the tool.
python3 - "$OUT" $KINDS <<'PY' | tee "$OUT/tally"
import sys
from collections import defaultdict
out, *kinds = sys.argv[1:]
asks, held, misses = defaultdict(int), defaultdict(int), []
for kind in kinds:
    for line in open(f"{out}/{kind}"):
        words = line.split()
        if not words or words[0] not in ("slow-disk", "nas"):
            continue
        verdicts = [w for w in words if w in ("yes", "NO")]
        if len(verdicts) != 1:
            continue
        key = (kind, words[2])
        asks[key] += 1
        held[key] += verdicts[0] == "yes"
        if verdicts[0] == "NO":
            misses.append(line.rstrip())
print(f"{'range':<24} {'asks':>5} {'held':>5} {'claims':>7}")
for key in sorted(asks):
    print(f"{key[0] + ' ' + key[1]:<24} {asks[key]:5d} {held[key]:5d} {'all':>7}")
print(f"{'all':<24} {sum(asks.values()):5d} {sum(held.values()):5d} {'all':>7}")
for m in misses:
    print("missed:", m)
PY
