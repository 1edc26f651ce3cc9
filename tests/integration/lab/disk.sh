# The lab's guest on a disk (tests/integration/lab/mod.rs, `throttled_disk`): dd, xfs_io and cp as
# the truths, destbench beside them. Lab::run prepends $MB, $SET_MB, $TM_ROUNDS and $COPY_ROUNDS;
# scripts/lab sets $DESTBENCH and $DEST.
# Each section is marked on stderr too, to tell whose complaint a line there is.
section() { echo "=== $1"; echo "=== $1" >&2; }
section info-without-smartctl
$DESTBENCH info $DEST
section info
PATH=$PATH:/opt/smart $DESTBENCH info $DEST
section dd-write
dd if=/dev/zero of=$DEST/truth.bin bs=1M count=$MB oflag=direct conv=fsync 2>&1 | tail -n1
section dd-read
dd if=$DEST/truth.bin of=/dev/null bs=1M iflag=direct 2>&1 | tail -n1
section dd-rewrite
dd if=/dev/zero of=$DEST/truth.bin bs=1M count=$MB oflag=direct conv=notrunc,fsync 2>&1 | tail -n1
rm -f $DEST/truth.bin
for i in $(seq 1 $TM_ROUNDS); do
  dd if=/dev/zero of=$DEST/warm.bin bs=1M count=4 oflag=direct conv=fsync 2>/dev/null
  rm -f $DEST/warm.bin
  sync; sleep 2
  section xfs-tm$i
  xfs_io -d -f -c "pwrite -W -b 1m 0 50m" $DEST/tm.bin
  rm -f $DEST/tm.bin
  sync; sleep 2
  section tm$i
  $DESTBENCH run $DEST --tests tm-check:50MB --runs 1 --no-history --json || echo "exit $?" >&2
done
section run
$DESTBENCH run $DEST --tests seq-write:SEQ1M-Q8T1,seq-read:SEQ1M-Q8T1 --size ${MB}M --duration 10 --runs 1 --no-history --json || echo "exit $?" >&2
mkdir /tmp/cpset
if [ "$COPY_ROUNDS" -gt 0 ]; then
  for i in 1 2 3 4 5 6 7 8; do
    dd if=/dev/urandom of=/tmp/cpset/f$i bs=1M count=$((SET_MB / 8)) 2>/dev/null
  done
fi
# Each side warms up with a copy of one file first: right after a destbench process the
# emulated CPU copies cold (see copy_and_truth).
warm_copy() { cp /tmp/cpset/f1 $DEST/warm.bin; rm -f $DEST/warm.bin; sync; sleep 2; }
for i in $(seq 1 $COPY_ROUNDS); do
  warm_copy
  section cp$i
  t0=$(cut -d' ' -f1 /proc/uptime)
  cp -r /tmp/cpset $DEST/cp$i
  sync
  echo "$((SET_MB / 8 * 8 * 1048576)) $t0 $(cut -d' ' -f1 /proc/uptime)"
  rm -rf $DEST/cp$i
  warm_copy
  section copy$i
  $DESTBENCH run $DEST --tests files-copy:large-1t-cache-on --sets large --set-size ${SET_MB}M --threads 1 --runs 1 --no-history --json || echo "exit $?" >&2
done
rm -rf /tmp/cpset
section end
