#!/usr/bin/env python3
"""Makes a benchmark's file set: N files of 1 KiB to MAX_KIB KiB (uniform, from SEED), in
directories of PER_DIR files under ROOT.

    bench/make-files.py ROOT N MAX_KIB PER_DIR SEED
"""
import os
import random
import sys

root, n, max_kib, per_dir, seed = sys.argv[1], *map(int, sys.argv[2:6])
rng = random.Random(seed)
data = os.urandom(max_kib * 1024)
for i in range(n):
    d = os.path.join(root, f"d{i // per_dir:05}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i:07}"), "wb") as f:
        f.write(data[: rng.randint(1024, max_kib * 1024)])
