#!/usr/bin/env bash
# destbench vs fio: the same directory, file size, block size, queue depth and duration, direct
# I/O, in one run. Prints the medians of each side and destbench/fio ratios of throughput and of
# CPU time per I/O (higher throughput ratio is better; lower CPU ratio is better). The
# throughput ratio is the median of per-repetition pairs, with a sign test: on a shared host a
# variant's ratio swung from 0.80 to 1.43 between whole runs of this script, so "parity (n.s.)"
# (not significantly different) is said where the pairs do not show a winner.
#
#   bench/vs-fio.sh [DIR] (env: SIZE=1GiB DURATION=3 REPS=7 SETTLE=2 ONLY=regex of "test variant")
#
# How CPU is counted: destbench reports the CPU time of its whole process during each timed
# repetition (cpu_s in --json); fio reports usr_cpu + sys_cpu of its job over its runtime.
# Engines are matched: queue depth 1 runs destbench's sync engine against fio's psync, deeper
# queues io_uring against fio's io_uring with fixed buffers (as destbench registers its buffers).
# The two tools run back to back in each repetition, in alternating order, each after the same
# settle (see settle below), so drift on a shared machine hits both alike.
# Every block variant of seq-* and 4k-* is compared (20-100MB writes whole new files, which fio's
# time-based jobs do not; it has no fio counterpart). Each line names what both sides used.
# The fio side runs the job file `destbench export ID --format fio` writes for the variant's first
# destbench run, so both sides run the same job by construction. Only that run
# is stored, for the export, in a history inside the work directory (removed at the end);
# the others run with --no-history. The user's history is never touched.
# Buffers: destbench maps buffers of 512 KiB and more in 2 MiB pages, so a 1 MiB request is one
# segment and reaches the device whole; in 4 KiB pages it is 256 segments, which queues with
# fewer (virtio-blk: 254) split into 1016 KiB + 8 KiB. fio gets the same with iomem=shmhuge, which
# needs huge pages reserved: as root this script reserves 64 (128 MiB) for its run and gives them
# back; otherwise fio keeps its default (malloc) and each line says so. It is set per job: on
# fio's lay-down job for every variant (how the file was laid down changed the speed of the
# 4K random writes that followed by 1.2x), on the measured job for 1 MiB variants only.
set -euo pipefail

DIR=${1:-.}
SIZE=${SIZE:-1GiB}
DURATION=${DURATION:-3}
REPS=${REPS:-7}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
command -v fio >/dev/null || { echo "vs-fio: fio is not installed (apt-get install fio)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "vs-fio: needs python3 to read the JSON" >&2; exit 1; }
(cd "$ROOT" && cargo build --release --quiet)
DESTBENCH=$ROOT/target/release/destbench
WORK=$(mktemp -d "$DIR/.vs-fio-XXXXXX")
export XDG_DATA_HOME=$WORK/data DESTBENCH_DB=$WORK/data/history.sqlite
HUGEPAGES_BEFORE=$(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo)
trap 'rm -rf "$WORK"; [[ -z $HUGEPAGES_BEFORE ]] || echo "$HUGEPAGES_BEFORE" >/proc/sys/vm/nr_hugepages 2>/dev/null || true' EXIT
fio_huge=no
if [[ -n $HUGEPAGES_BEFORE ]] && echo $((HUGEPAGES_BEFORE + 64)) >/proc/sys/vm/nr_hugepages 2>/dev/null \
    && (($(awk '/HugePages_Free/ {print $2}' /proc/meminfo) >= 64)); then
    fio_huge=yes
fi

# test variant block depth
CASES=(
    "seq-read SEQ1M-Q1T1 1m 1"
    "seq-read SEQ1M-Q8T1 1m 8"
    "seq-write SEQ1M-Q1T1 1m 1"
    "seq-write SEQ1M-Q8T1 1m 8"
    "4k-read SEQ4K-Q1T1 4k 1"
    "4k-read RND4K-Q1T1 4k 1"
    "4k-read RND4K-Q32T1 4k 32"
    "4k-write SEQ4K-Q1T1 4k 1"
    "4k-write RND4K-Q1T1 4k 1"
    "4k-write RND4K-Q32T1 4k 32"
)

# Before each side: write back what is dirty and wait SETTLE seconds. Deleting the other side's
# 1 GiB file issues discards on filesystems mounted with `discard` (this machine's root is),
# which the device works through in the background: run straight after, the next side read at
# 0.8x. With the same pause before both sides, and the order alternating, neither side pays
# for the other.
settle() {
    sync
    sleep "${SETTLE:-2}"
}

printf '%-10s %-12s %-40s %10s %10s %7s %10s %5s %-13s %7s\n' test variant "both sides" "db MB/s" \
    "fio MB/s" ratio "pair range" "p" "verdict" "cpu/io ratio"
for case in "${CASES[@]}"; do
    read -r test variant bs depth <<<"$case"
    [[ "$test $variant" =~ ${ONLY:-.} ]] || continue
    if [[ $depth == 1 ]]; then db_engine=sync engine=psync; else db_engine=uring engine=io_uring; fi
    # Like destbench's buffers: 2 MiB pages from 512 KiB up (where fio can have them).
    # fio's lay-down job always gets 2 MiB pages (destbench lays its file down in 1 MiB
    # requests from 2 MiB pages); the measured job only where destbench's buffers are in them.
    huge_jobs="lay-down" pages="4k pages"
    if [[ $bs == 1m ]]; then
        huge_jobs="lay-down $test.$variant" pages="2M pages"
    fi
    [[ $fio_huge == yes ]] || pages="destbench $pages, fio 4k (no huge pages reserved)"
    db_rates=() db_cpus=() fio_rates=() fio_cpus=()
    rm -f "$WORK/job.fio"
    run_destbench() {
        local db rate cpu id store=(--no-history)
        # Only the variant's first run is stored (in the private history), for its job file.
        [[ -s $WORK/job.fio ]] || store=()
        settle
        db=$("$DESTBENCH" run "$DIR" --json --tests "$test:$variant" --size "$SIZE" \
            --duration "$DURATION" --runs 1 --engine "$db_engine" "${store[@]}" \
            2> >(grep -v '^destbench: stored as run' >&2))
        read -r rate cpu < <(python3 -c '
import json, sys
r = json.load(sys.stdin)["results"][0]; rep = r["repetitions"][0]
print(r["median"], rep["cpu_s"] / rep["ops"] * 1e6)' <<<"$db")
        db_rates+=("$rate") db_cpus+=("$cpu")
        # fio runs the job file destbench exports for this variant: the same file size, block
        # size, depth, engine, direct flag and duration, by construction. Its first job lays
        # the file down as destbench lays its own (1 MiB direct writes, 8 in flight, flushed),
        # untimed, and the file is deleted after the last (unlink=1). fio's own buffered layout
        # (overwrite=1) left its 4K random direct writes at 0.5-0.6x destbench's on this
        # host-cached virtual disk; laid down the same way, the two agree.
        if ((${#store[@]} == 0)); then
            id=$("$DESTBENCH" history --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["runs"][0]["id"])')
            "$DESTBENCH" export "$id" --format fio >"$WORK/job.fio"
            if [[ $fio_huge == yes ]]; then
                # The job's own memory setting: fio's default buffers (malloc) split a 1 MiB
                # request into 1016 KiB + 8 KiB on this machine's virtio disk, and a file laid
                # down in split requests took 4K random writes 1.2x faster afterwards (fio
                # against fio, alternating): the comparison would measure the layout.
                awk -v jobs="$huge_jobs" 'BEGIN { split(jobs, names, " "); for (i in names) huge["[" names[i] "]"] = 1 }
                    { print } $0 in huge { print "iomem=shmhuge"; print "hugepage-size=2m" }' \
                    "$WORK/job.fio" >"$WORK/job.fio.new" && mv "$WORK/job.fio.new" "$WORK/job.fio"
            fi
        fi
    }
    run_fio() {
        local out rate cpu
        settle
        out=$(fio --output-format=json "$WORK/job.fio")
        read -r rate cpu < <(python3 -c '
import json, sys
j = [j for j in json.load(sys.stdin)["jobs"] if j["jobname"] != "lay-down"][0]; side = j["read"] if j["read"]["total_ios"] else j["write"]
runtime_s = j["job_runtime"] / 1000
cpu_s = (j["usr_cpu"] + j["sys_cpu"]) / 100 * runtime_s
print(side["bw_bytes"] / 1e6, cpu_s / side["total_ios"] * 1e6)' <<<"$out")
        fio_rates+=("$rate") fio_cpus+=("$cpu")
    }
    # The first pair runs destbench first (fio needs its job file); then the order alternates,
    # so neither side always follows the other's deletion.
    for ((rep = 0; rep < REPS; rep++)); do
        if ((rep % 2 == 0)); then
            run_destbench
            run_fio
        else
            run_fio
            run_destbench
        fi
    done
    both="$db_engine/$engine QD$depth bs=$bs direct $pages"
    python3 - "$test" "$variant" "$both" "${db_rates[*]}" "${fio_rates[*]}" "${db_cpus[*]}" "${fio_cpus[*]}" <<'PY'
import statistics, sys
test, variant, both, *lists = sys.argv[1:]
dbs, fios, dbcs, fiocs = ([float(x) for x in l.split()] for l in lists)
db, fio, dbc, fioc = map(statistics.median, (dbs, fios, dbcs, fiocs))
# Each repetition ran both sides back to back: its ratio cancels the host's drift between
# repetitions. The sign test asks whether one side won more pairs than chance allows.
pairs = [d / f for d, f in zip(dbs, fios)]
wins = sum(r > 1 for r in pairs)
n = len(pairs)
def tail(k):
    return sum(__import__("math").comb(n, i) for i in range(k, n + 1)) / 2**n
p = min(1.0, 2 * min(tail(wins), tail(n - wins)))
# A winner only where the pairs show one; a median above 1 alone is not one (it called 4 of 7
# wins at p = 0.45 "faster").
if p > 0.05:
    verdict = "parity (n.s.)"
else:
    verdict = "faster" if statistics.median(pairs) >= 1 else "SLOWER"
spread = f"{min(pairs):.2f}-{max(pairs):.2f}"
print(f"{test:<10} {variant:<12} {both:<40} {db:10.2f} {fio:10.2f} {statistics.median(pairs):7.3f} {spread:>10} {p:5.2f} {verdict:<13} {dbc / fioc:7.3f}")
PY
done
echo "medians of $REPS alternating runs; same file size $SIZE, ${DURATION}s per run, in $DIR;" \
    "writes end with fdatasync/end_fsync on both sides. ratio: median of the paired" \
    "destbench/fio throughput ratios (each pair back to back), their range, the sign test's p;" \
    "cpu/io ratio: destbench's process CPU per I/O over fio's (lower is better)"
