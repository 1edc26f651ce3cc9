# The lab's guest for a round trip's cost (tests/integration/lab/mod.rs, `cifs_delay`): a copy and
# an estimate, as the share is and with netem delay 20ms.
mkdir /tmp/folder
for d in 1 2 3 4 5; do
  mkdir /tmp/folder/d$d
  for f in $(seq 1 40); do head -c 2000 /dev/urandom > /tmp/folder/d$d/f$f; done
done
head -c 5000000 /dev/urandom > /tmp/folder/big
copy_and_estimate() {
  echo "=== $1"
  $DESTBENCH run $DEST --tests seq-write:SEQ1M-Q8T1,files-copy --size 50M --sets small,large --set-size 2M --threads 1 --runs 1 --min-time 0 --db /tmp/history.sqlite --json
  echo "=== $1-estimate"
  $DESTBENCH estimate /tmp/folder --run latest --db /tmp/history.sqlite --json
}
copy_and_estimate plain
tc qdisc add dev eth0 root netem delay 20ms
copy_and_estimate delayed
echo "=== end"
