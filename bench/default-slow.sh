#!/usr/bin/env bash
# The default run on a USB 2.0 disk: `destbench run DEST` (the backup profile, its 90 s budget)
# on the testbed's disk held to 35 MB/s, RUNS times, each run's wall time beside its plan and
# time account, then every duration and their median (bench/default-profile.sh does the runs
# and prints them, with --no-history and a data directory of its own).
#
#   bench/default-slow.sh   (env: DESTBENCH=binary RATE=35 RUNS=3; needs root)
#
# The testbed is machine-wide: the script takes /tmp/destbench-testbed.lock for its whole run.
# The disk is made once (2 GiB, ext4) and every run starts on it as the last one left it.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RATE=${RATE:-35}
RUNS=${RUNS:-3}
source "$ROOT/bench/testbed-prelude.sh"
bench_prelude default-slow python3 "$@"
bench_state default-slow
mnt=$(bench_testbed_up default-slow slow-disk "$RATE")
"$ROOT/scripts/testbed" status "$STATE/tb" | grep '^delivered_' || true
DESTBENCH=$DESTBENCH "$ROOT/bench/default-profile.sh" --repeat "$RUNS" "$mnt"
