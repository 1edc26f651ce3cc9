# Sourced by the bench scripts that use the testbed (not run alone): what each needs before its
# first measurement, written once.
#
#   bench_prelude NAME "PROGRAMS" "$@"   root, the testbed's lock (the testbed is machine-wide:
#                                        held for the whole script, which is re-run under flock),
#                                        PROGRAMS installed, and DESTBENCH built unless given
#   bench_state NAME                     STATE, a private directory removed on exit with the
#                                        testbed at STATE/tb, and a private history in it

bench_prelude() {
    local name=$1 programs=$2 lock_var
    shift 2
    [[ $EUID == 0 ]] || { echo "$name: needs root (testbed, drop caches)" >&2; exit 1; }
    lock_var=$(tr 'a-z-' 'A-Z_' <<<"$name")_LOCKED
    if [[ -z ${!lock_var:-} ]]; then
        export "$lock_var=1"
        exec flock /tmp/destbench-testbed.lock "$0" "$@"
    fi
    local program
    for program in $programs flock; do
        command -v "$program" >/dev/null || { echo "$name: $program is not installed" >&2; exit 1; }
    done
    # DESTBENCH=path runs a given binary (e.g. a saved copy of an older version) instead.
    if [[ -z ${DESTBENCH:-} ]]; then
        (cd "$ROOT" && cargo build --release --quiet)
        DESTBENCH=${CARGO_TARGET_DIR:-$ROOT/target}/release/destbench
    fi
}

bench_state() {
    STATE=$(mktemp -d "/var/tmp/.$1-XXXXXX")
    trap '"$ROOT/scripts/testbed" down "$STATE/tb" >/dev/null 2>&1 || true; rm -rf "$STATE"' EXIT
    # `estimate --to` stores no run and has no --no-history to give (tested in
    # tests/integration/estimate.rs: it never creates its history); the history is a private
    # one all the same, so the user's is never read or touched.
    export XDG_DATA_HOME=$STATE/data DESTBENCH_DB=$STATE/data/history.sqlite
}

# bench_testbed_up NAME DEST RATE [UP-OPTIONS...]: the testbed's DEST (slow-disk at RATE MB/s,
# or nas on a 100 Mbit/s link) brought up at STATE/tb, with any further `testbed up` options
# (e.g. --cache 1G --cache-rate 120 for a disk whose RATE comes after a write cache); prints
# its mount point.
bench_testbed_up() {
    local args
    case $2 in
        slow-disk) args=(--rate "$3" --size 2G) ;;
        nas) args=(--link 100mbit) ;;
        *) echo "$1: unknown destination $2" >&2; exit 1 ;;
    esac
    "$ROOT/scripts/testbed" up "$2" "$STATE/tb" "${args[@]}" "${@:4}" | sed -n 's/^mount=//p'
}
