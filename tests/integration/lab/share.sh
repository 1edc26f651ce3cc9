# The lab's guest on a share (tests/integration/lab/mod.rs, `shaped_share`): xfs_io's direct
# writes and reads alternating with destbench's, each after sync and the same pause. Lab::run_script
# is given $ROUNDS and $FSYNC_TOO (1: buffered writes with fsync too, both tools).
echo "=== info"
$DESTBENCH info $DEST
echo "=== write-new"
xfs_io -d -f -c "pwrite -W -b 1m 0 100m" $DEST/truth.bin
echo "=== dd-rewrite"
dd if=/dev/zero of=$DEST/truth.bin bs=1M count=100 oflag=direct conv=notrunc,fsync 2>&1 | tail -n1
for i in $(seq 1 $ROUNDS); do
    sync; sleep 5
    echo "=== write-$i"
    xfs_io -d -c "pwrite -W -b 1m 0 100m" $DEST/truth.bin
    if [ "$FSYNC_TOO" = 1 ]; then
        echo "=== fsync-$i"
        xfs_io -c "pwrite -W -b 1m 0 100m" $DEST/truth.bin
    fi
    echo "=== read-$i"
    xfs_io -d -c "pread -b 1m 0 100m" $DEST/truth.bin
    sync; sleep 5
    echo "=== run-$i"
    $DESTBENCH run $DEST --tests seq-write:SEQ1M-Q1T1,seq-write:SEQ1M-Q8T1,seq-read:SEQ1M-Q1T1 --size 100M --duration 5 --runs 1 --no-history --json --link-speed 100mbit || echo "exit $?" >&2
    if [ "$FSYNC_TOO" = 1 ]; then
        echo "=== run-fsync-$i"
        $DESTBENCH run $DEST --tests seq-write:SEQ1M-Q1T1 --size 100M --duration 5 --runs 1 --no-history --json --link-speed 100mbit --buffered || echo "exit $?" >&2
    fi
done
rm -f $DEST/truth.bin
echo "=== end"
