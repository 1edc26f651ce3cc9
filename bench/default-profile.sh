#!/usr/bin/env bash
# The default profile's wall time on one destination, and how precisely it knows each figure:
# `destbench run DEST` as a new user types it (the backup profile, adaptive repetitions), its
# history kept out (--no-history, and a data directory of this run's own).
#
#   bench/default-profile.sh [DEST]      (DEST defaults to /var/tmp)
#
# Prints the wall time against the profile's budget, then one line per figure: its median, its
# repetitions, the half-width of its median's 95% confidence interval (% of the median), what it
# was computed from (batch-means / repetitions) and why it stopped (precise / budget / count).
# One run, on whatever else the machine is doing: say so beside the figures.
set -euo pipefail

DEST=${1:-/var/tmp}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
(cd "$ROOT" && cargo build --release --quiet)
DESTBENCH=${CARGO_TARGET_DIR:-$ROOT/target}/release/destbench
DATA=$(mktemp -d)
trap 'rm -rf "$DATA"' EXIT
export XDG_DATA_HOME=$DATA/data DESTBENCH_DB=$DATA/data/history.sqlite

start=$(date +%s.%N)
"$DESTBENCH" run "$DEST" --json --no-history >"$DATA/run.json"
end=$(date +%s.%N)

python3 - "$DATA/run.json" "$start" "$end" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
adaptive = doc["settings"].get("adaptive") or {}
print(f"default profile on {doc['destination']['path']}: {wall:.1f} s wall "
      f"(the run's own clock: {doc['duration_s']:.1f} s; budget {adaptive.get('budget_s', '?')} s)")
print(f"{'test':14} {'variant':20} {'median':>10} {'unit':7} {'reps':>4} {'±95%':>7} {'from':12} stopped")
for r in doc["results"]:
    p = r.get("precision")
    precision = f"{p * 100:.1f}%" if p is not None else "-"
    print(f"{r['test']:14} {r['variant']:20} {r['median']:10.2f} {r['unit']:7} "
          f"{len(r['samples']):4} {precision:>7} {r.get('precision_method', '-'):12} "
          f"{r.get('stopped', '-')}")
stops = [r.get("stopped") for r in doc["results"]]
print("stopped: " + ", ".join(f"{s} {stops.count(s)}" for s in ("precise", "budget", "count")))
for w in doc["warnings"]:
    if w["kind"] == "stretched":
        print("stretched: " + w["message"])
for f in doc["failures"]:
    print(f"failed: {f['test']} {f['variant']}: {f['error']}")
PY
