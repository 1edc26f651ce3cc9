#!/usr/bin/env bash
# The default profile's wall time on one destination beside the plan its budget made, and how
# precisely it knows each figure: `destbench run DEST` as a new user types it (the backup
# profile, adaptive repetitions), its history kept out (--no-history, and a data directory of
# this run's own).
#
#   bench/default-profile.sh [--repeat N] [DEST]      (DEST defaults to /var/tmp, N to 1;
#                                                      env: DESTBENCH=binary, else built)
#
# For each run: the wall time against the budget; the share of the profile's sizes the run took
# for the destination's rate, and the answer's first lines; the plan (made once the test file
# showed the destination's rate) beside what was spent, for the timed repetitions and each kind
# of untimed work; the ETA shown at 10% of the run against its real end. With N = 1, then one
# line per figure: its median, its repetitions, the half-width of its median's 95% confidence
# interval (% of the median), what it was computed from (batch-means / repetitions) and why it
# stopped (precise / budget / count). With N > 1, the wall times and their median. The machine
# is noisy: say how loaded it was (uptime) beside the figures.
set -euo pipefail

REPEAT=1
if [[ ${1:-} == --repeat ]]; then
    REPEAT=$2
    shift 2
fi
DEST=${1:-/var/tmp}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z ${DESTBENCH:-} ]]; then
    (cd "$ROOT" && cargo build --release --quiet)
    DESTBENCH=${CARGO_TARGET_DIR:-$ROOT/target}/release/destbench
fi
DATA=$(mktemp -d)
trap 'rm -rf "$DATA"' EXIT
export XDG_DATA_HOME=$DATA/data DESTBENCH_DB=$DATA/data/history.sqlite

echo "load before: $(uptime)"
for i in $(seq 1 "$REPEAT"); do
    start=$(date +%s.%N)
    "$DESTBENCH" run "$DEST" --json --no-history >"$DATA/run-$i.json"
    end=$(date +%s.%N)
    echo "$start $end" >"$DATA/wall-$i"
done
echo "load after: $(uptime)"

python3 - "$DATA" "$REPEAT" <<'PY'
import json, statistics, sys
data, repeat = sys.argv[1], int(sys.argv[2])
walls = []
for i in range(1, repeat + 1):
    doc = json.load(open(f"{data}/run-{i}.json"))
    start, end = map(float, open(f"{data}/wall-{i}").read().split())
    wall = end - start
    walls.append(wall)
    adaptive = doc["settings"].get("adaptive") or {}
    budget = adaptive.get("budget_s")
    t = doc.get("time") or {}
    print(f"run {i} on {doc['destination']['path']}: {wall:.1f} s wall (budget {budget} s; "
          f"the run's own clock {doc['duration_s']:.1f} s; sizes {adaptive.get('size_share', 1):g} "
          f"of the profile's, a {doc['settings']['file_size_bytes'] >> 20} MiB test file)")
    sets = {r["file_set"]["name"]: r["file_set"]["bytes"] for r in doc["results"]
            if r.get("file_set") and r["test"] == "files-copy"}
    transfers = [r["variant"] for r in doc["results"] if r["test"] == "seq-write"][:1]
    print(f"  sized: transfers {', '.join(transfers)}; sets "
          + ", ".join(f"{name} {b / 1e6:g} MB" for name, b in sets.items()))
    for words in ((doc.get("answer") or {}).get("words") or [])[:2]:
        print(f"  answer: {words}")
    if t:
        planned_untimed = sum(l["planned_s"] for l in t["untimed"])
        spent_untimed = sum(l["spent"]["seconds"] for l in t["untimed"])
        other = t["spent_s"] - t["measuring_s"] - spent_untimed
        print(f"  {'phase':12} {'planned':>8} {'spent':>8}")
        print(f"  {'whole run':12} {t['planned_s']:8.1f} {t['spent_s']:8.1f}")
        print(f"  {'measuring':12} {t['planned_measuring_s']:8.1f} {t['measuring_s']:8.1f}")
        print(f"  {'untimed':12} {planned_untimed:8.1f} {spent_untimed:8.1f}")
        for l in t["untimed"]:
            print(f"  {'  ' + l['kind']:12} {l['planned_s']:8.1f} {l['spent']['seconds']:8.1f}")
        print(f"  {'other':12} {'':8} {other:8.1f}  (set-up, engines, between steps)")
        end_s = t["spent_s"]
        seen = [p for p in t["predictions"] if p[0] <= 0.1 * end_s]
        if seen:
            at, predicted = seen[-1]
            print(f"  ETA at {at:.1f} s (10% in): {predicted:.1f} s, the real end {end_s:.1f} s "
                  f"({(predicted / end_s - 1) * 100:+.0f}%)")
    for w in doc["warnings"]:
        if w["kind"] == "stretched":
            at = t.get("stretched_at_s")
            when = f" (said at {at:.1f} s)" if at is not None else ""
            print(f"  stretched{when}: " + w["message"])
    for f in doc["failures"]:
        print(f"  failed: {f['test']} {f['variant']}: {f['error']}")
    if repeat == 1:
        print(f"{'test':14} {'variant':20} {'median':>10} {'unit':7} {'reps':>4} {'±95%':>7} {'from':12} stopped")
        for r in doc["results"]:
            p = r.get("precision")
            precision = f"{p * 100:.1f}%" if p is not None else "-"
            print(f"{r['test']:14} {r['variant']:20} {r['median']:10.2f} {r['unit']:7} "
                  f"{len(r['samples']):4} {precision:>7} {r.get('precision_method', '-'):12} "
                  f"{r.get('stopped', '-')}")
        stops = [r.get("stopped") for r in doc["results"]]
        print("stopped: " + ", ".join(f"{s} {stops.count(s)}" for s in ("precise", "budget", "count")))
if repeat > 1:
    print("wall times: " + ", ".join(f"{w:.1f}" for w in walls)
          + f" s; median {statistics.median(walls):.1f} s")
PY
