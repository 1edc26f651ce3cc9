#!/usr/bin/env bash
# A million-file source end to end: files-copy (4 threads, cache on) of 1,000,000 small files,
# reporting destbench's peak RSS (its memory must not grow with the file count) and the rate.
#
#   bench/million-files.sh [WORKDIR] (env: FILES=1000000)
set -euo pipefail
WORK=${1:-/var/tmp}
FILES=${FILES:-1000000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
(cd "$ROOT" && cargo build --release --quiet)
BASE=$(mktemp -d "$WORK/.million-XXXXXX")
trap 'rm -rf "$BASE"' EXIT
# destbench's history goes to a data directory of this run's own, never the user's.
export XDG_DATA_HOME=$BASE/data DESTBENCH_DB=$BASE/data/history.sqlite
mkdir "$BASE/src" "$BASE/dst"
echo "making $FILES files of 1-4 KiB in $BASE/src ..." >&2
python3 "$ROOT/bench/make-files.py" "$BASE/src" "$FILES" 4 1000 1
"$ROOT/target/release/destbench" run "$BASE/dst" --json --no-history --runs 1 --threads 4 \
    --no-verify --source "$BASE/src" --tests files-copy:source-4t-cache-on > "$BASE/run.json"
python3 - "$BASE/run.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
r = doc["results"][0]; rep = r["repetitions"][0]
print(f"files copied: {rep['ops']}, bytes: {rep['bytes']}, time: {rep['elapsed_s']:.1f} s, "
      f"{r['ops_per_s_median']:.0f} files/s, {r['median']:.1f} MB/s")
print(f"peak RSS: {doc['peak_rss_bytes'] / 2**20:.1f} MiB")
PY
