# The lab's guest for direct and buffered writes on cifs (tests/integration/lab/mod.rs,
# `cifs_direct_and_buffered`): cache=none, then cache=strict, xfs_io alternating with destbench.
for mode in none strict; do
  umount $DEST
  $(echo "$LAB_MOUNT" | sed "s/cache=strict/cache=$mode/") || exit 125
  echo "=== $mode-mount"
  grep " $DEST " /proc/mounts
  xfs_io -d -f -c "pwrite -b 1m 0 60m" $DEST/truth.bin >/dev/null
  rounds="1 2 3"
  [ $mode = strict ] && rounds=1
  for i in $rounds; do
    sync; sleep 5
    echo "=== $mode-direct-$i"
    xfs_io -d -c "pwrite -W -b 1m 0 60m" $DEST/truth.bin
    echo "=== $mode-fsync-$i"
    xfs_io -c "pwrite -W -b 1m 0 60m" $DEST/truth.bin
    sync; sleep 5
    echo "=== $mode-run-direct-$i"
    $DESTBENCH run $DEST --tests seq-write:SEQ1M-Q1T1 --size 60M --duration 5 --runs 1 --no-history --json --link-speed 100mbit
    echo "=== $mode-run-fsync-$i"
    $DESTBENCH run $DEST --tests seq-write:SEQ1M-Q1T1 --size 60M --duration 5 --runs 1 --no-history --json --link-speed 100mbit --buffered
  done
  rm -f $DEST/truth.bin
done
echo "=== end"
