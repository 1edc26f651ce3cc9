#!/usr/bin/env bash
# `destbench estimate --tool restic|borg|rclone` against the real backup of the whole tree: on
# the testbed's slow disk (35 MB/s) and NAS (sshfs over a 100 Mbit/s link), for each tree and
# tool, the estimate next to the real first backup's median, the ratio (estimate / real) and
# whether the real time fell inside the printed range.
#
#   bench/tools-vs-real.sh   (env: DESTBENCH=binary TREES="/usr/share/doc /usr/share/man"
#                              DESTS="slow-disk nas" TOOLS="restic borg rclone" REAL_RUNS=3
#                              ESTIMATE_ARGS="--measure-source" DISK_SIZE=2G; needs root)
#
# Real time: each into a fresh repository (restic init / borg init untimed, as the estimate's
# setup), the page cache dropped first (a first backup reads its source cold), the tool with a
# fresh home of its own (an empty cache, as the estimate's runs have) and throwaway secrets,
# then `sync -f` on the destination, all timed; the median of REAL_RUNS. The repositories are
# deleted together after a tool's runs, then SETTLE seconds (default 30) pass with nothing
# running: ext4 passes over inodes freed in the last minute when it makes new ones (see
# bench/estimate-vs-real.sh). DISK_SIZE: the slow disk's size (a tree over 1 GB needs room for
# REAL_RUNS repositories of it at once). The testbed is machine-wide: the script takes
# /tmp/destbench-testbed.lock for its whole run.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TREES=${TREES:-/usr/share/doc /usr/share/man}
DESTS=${DESTS:-slow-disk nas}
TOOLS=${TOOLS:-restic borg rclone}
REAL_RUNS=${REAL_RUNS:-3}
source "$ROOT/bench/testbed-prelude.sh"
bench_prelude tools-vs-real "$TOOLS python3" "$@"
bench_state tools-vs-real
# `destbench estimate` stores no run and takes no --no-history; the only history it reads is the
# private one bench_state made (DESTBENCH_DB in STATE), never the user's.
: "${DESTBENCH_DB:?bench_state sets a private history}"
# The same throwaway secrets destbench gives the tools (src/workload/presets.rs), never the
# user's.
export RESTIC_PASSWORD=destbench-throwaway-secret BORG_PASSPHRASE=destbench-throwaway-secret
export BORG_DISPLAY_PASSPHRASE=no
unset RESTIC_REPOSITORY BORG_REPO XDG_CACHE_HOME XDG_CONFIG_HOME

now() { date +%s.%N; }
cold() { sync; echo 3 >/proc/sys/vm/drop_caches; }
# The machine's busy CPU time so far, in clock ticks (user, nice, system, irq, softirq, steal).
busy_ticks() {
    local _cpu user nice system _idle _iowait irq softirq steal _rest
    read -r _cpu user nice system _idle _iowait irq softirq steal _rest </proc/stat
    echo $((user + nice + system + irq + softirq + steal))
}
# Seconds tool $1 took to back tree $2 up into a fresh repository $3, flush included, and the
# cores other programs kept busy meanwhile (the machine's busy time less the tool's, over the
# run's time): a real time measured beside other work is not the estimate's to match.
real_time() {
    local tool=$1 src=$2 repo=$3 t0 t1 b0 b1
    local home=$STATE/home-$RANDOM$RANDOM cpu=$STATE/tool-cpu
    mkdir -p "$home"
    case $tool in
        restic) HOME=$home restic -q -r "$repo" init >/dev/null ;;
        borg) HOME=$home borg init -e repokey "$repo" 2>/dev/null ;;
    esac
    sync -f "$(dirname "$repo")"
    cold
    local timed=(/usr/bin/time -f '%U %S' -o "$cpu")
    b0=$(busy_ticks)
    t0=$(now)
    case $tool in
        restic) HOME=$home "${timed[@]}" restic -q -r "$repo" backup "$src" >/dev/null 2>>"$STATE/tool-errors" ;;
        borg) HOME=$home "${timed[@]}" borg create "$repo::backup-1" "$src" 2>>"$STATE/tool-errors" ;;
        rclone) HOME=$home "${timed[@]}" rclone copy "$src" "$repo" 2>>"$STATE/tool-errors" ;;
    esac
    sync -f "$(dirname "$repo")"
    t1=$(now)
    b1=$(busy_ticks)
    rm -rf "$home"
    python3 -c "u, s = map(float, open('$cpu').read().split()[-2:])
t = $t1 - $t0
print(f'{t:.2f}:{max(0.0, ($b1 - $b0) / $(getconf CLK_TCK) - u - s) / t:.2f}')"
}

printf '%-10s %-16s %-7s %8s %16s %9s %12s %7s %-6s %-22s %s\n' dest tree tool "est (s)" range "real (s)" "real spread" ratio inside limit "others' cores est/real"
ROWS=$STATE/rows
for dest in $DESTS; do
    size=()
    [[ $dest == slow-disk && -n ${DISK_SIZE:-} ]] && size=(--size "$DISK_SIZE")
    mount=$(bench_testbed_up tools-vs-real "$dest" 35 "${size[@]}")
    for tree in $TREES; do
        for tool in $TOOLS; do
            # shellcheck disable=SC2086 # ESTIMATE_ARGS is a list of flags
            est=$("$DESTBENCH" estimate "$tree" --to "$mount" --tool "$tool" --json ${ESTIMATE_ARGS:-} 2>>"$STATE/estimate-log" |
                python3 -c 'import json,sys
c = json.load(sys.stdin)["commands"][0]
p = c["predicted_seconds"]
# The most cores other programs kept busy during one of its runs.
others = max(((r["machine_busy_s"] or 0) - (r["cpu_s"] or 0)) / r["tool_s"] for r in c["runs"])
print(p["expected"], p["low"], p["high"], c["limit"]["side"], f"{max(others, 0):.2f}")')
            sleep "${SETTLE:-30}"
            reals=() repos=()
            for ((run = 0; run < REAL_RUNS; run++)); do
                repos+=("$mount/repo-$run")
                reals+=("$(real_time "$tool" "$tree" "$mount/repo-$run")")
            done
            rm -rf "${repos[@]}"
            sync -f "$mount"
            sleep "${SETTLE:-30}"
            read -r e lo hi side others <<<"$est"
            python3 - "$dest" "$tree" "$tool" "$e" "$lo" "$hi" "$side" "$others" "${reals[@]}" <<'PY' | tee -a "$ROWS"
import statistics, sys
dest, tree, tool = sys.argv[1:4]
e, lo, hi = map(float, sys.argv[4:7])
side, others = sys.argv[7], sys.argv[8]
reals = [float(r.split(":")[0]) for r in sys.argv[9:]]
real_others = max(float(r.split(":")[1]) for r in sys.argv[9:])
real = statistics.median(reals)
inside = "yes" if lo <= real <= hi else "NO"
spread = f"{min(reals):.1f}-{max(reals):.1f}"
print(f"{dest:<10} {tree:<16} {tool:<7} {e:8.1f} {f'{lo:.1f}-{hi:.1f}':>16} {real:9.1f} {spread:>12} {e / real:7.3f} {inside:<6} {side:<22} {others}/{real_others:.2f}")
PY
        done
    done
    "$ROOT/scripts/testbed" down "$STATE/tb" >/dev/null
done
"$ROOT/bench/ratios-summary.sh" "$ROWS" "$STATE/tool-errors"
