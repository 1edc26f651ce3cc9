#!/usr/bin/env bash
# The end of bench/estimate-vs-real.sh and bench/tools-vs-real.sh: from their rows (dest, tree,
# tool, ..., the ratio estimate / real in the 8th column), the median ratio per destination and
# tool with the worst one; then how often the tools complained (their stderr, in ERRORS).
#
#   bench/ratios-summary.sh ROWS ERRORS
#
# It reads the rows only and runs no destbench, so there is no history to keep out (no
# --no-history to give); the scripts that call it run destbench with a private history.
set -euo pipefail
python3 - "$1" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for key in sorted({(r[0], r[2]) for r in rows}):
    ratios = [float(r[7]) for r in rows if (r[0], r[2]) == key]
    print(f"median ratio {key[0]} {key[1]}: {statistics.median(ratios):.3f} "
          f"(worst {max(ratios, key=lambda x: abs(x - 1)):.3f})")
PY
if [[ -s $2 ]]; then
    echo "the tools complained $(wc -l <"$2") times (first: $(head -1 "$2"))"
fi
