# The lab's guest on a share whose server keeps its export on a disk held to 20 MB/s
# (tests/integration/lab/server.rs): the truth and destbench's run; where $DELAY is 1 (cifs), small
# file sets copied and a folder's backup estimated too, the read through a second, encrypted
# mount, and the sets and the estimate again with netem delay 20ms.
echo "=== info"
$DESTBENCH info $DEST
# The server's disk on its own: 100 MB with conv=fsync, written on the host before the boot.
echo "=== server-disk"
cat /lab/server-disk-dd.txt
sync; sleep 2
# New files of destbench's whole-file transfer sizes (20-100MB), each written directly and
# flushed, one after another; then the last read back directly (the server still holds it).
# The run: those transfers, which the verdict judges a share's write by, and the block read.
echo "=== files"
for mb in 20 40 60 80 100; do
  xfs_io -d -f -c "pwrite -W -b 1m 0 ${mb}m" $DEST/truth-$mb.bin
done
echo "=== read"
xfs_io -d -c "pread -b 1m 0 100m" $DEST/truth-100.bin
rm -f $DEST/truth-*.bin
sync; sleep 2
if [ "$DELAY" != 1 ]; then
  echo "=== plain"
  $DESTBENCH run $DEST --tests seq-write:20-100MB,seq-read:SEQ1M-Q8T1 --size 50M --runs 2 --no-history --json
  echo "=== end"
  exit 0
fi
mkdir /tmp/folder
for d in 1 2 3 4 5; do
  mkdir /tmp/folder/d$d
  for f in $(seq 1 40); do head -c 2000 /dev/urandom > /tmp/folder/d$d/f$f; done
done
head -c 5000000 /dev/urandom > /tmp/folder/big
echo "=== plain"
$DESTBENCH run $DEST --tests seq-write:20-100MB,seq-read:SEQ1M-Q8T1,4k-read:RND4K-Q1T1,files-copy,meta:delete --size 50M --sets small,large --set-size 2M --threads 1 --runs 2 --min-time 0 --db /tmp/history.sqlite --json
echo "=== plain-estimate"
$DESTBENCH estimate /tmp/folder --run latest --db /tmp/history.sqlite --json
# The same share mounted a second time with encryption (seal; a guest session has no key for
# it, so the lab's user), its read priced against the plain mount's by destbench compare.
mkdir -p /mnt/sealed
$(echo "$LAB_MOUNT" | sed 's|/mnt/dest|/mnt/sealed|; s|,guest,|,username=root,password=lab,|'),seal \
  || { echo "lab: the sealed mount failed" >&2; exit 125; }
echo "=== sealed-info"
$DESTBENCH info /mnt/sealed
sync; sleep 2
echo "=== sealed"
$DESTBENCH run /mnt/sealed --tests seq-read:SEQ1M-Q8T1 --size 50M --runs 2 --min-time 0 --db /tmp/history.sqlite --json
echo "=== sealed-compare"
$DESTBENCH compare 1 2 --db /tmp/history.sqlite --json
umount /mnt/sealed
tc qdisc add dev eth0 root netem delay 20ms
sync; sleep 2
# The quick profile (0.5 s block repetitions, 200 files for meta delete), one repetition each:
# each figure judged is a median over many files or requests.
echo "=== delayed"
$DESTBENCH run $DEST --profile quick --tests seq-write:SEQ1M-Q8T1,4k-read:RND4K-Q1T1,files-copy,meta:delete --size 50M --sets small,large --set-size 2M --threads 1 --runs 1 --min-time 0 --db /tmp/history.sqlite --json
echo "=== delayed-estimate"
$DESTBENCH estimate /tmp/folder --run latest --db /tmp/history.sqlite --json
echo "=== end"
