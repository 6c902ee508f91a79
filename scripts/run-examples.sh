#!/usr/bin/env bash
# The main job (README): installs missing packages, builds cdyn into build/ (RelWithDebInfo, the
# same configuration scripts/test.sh uses, so the two share one build), runs the example programs
# and writes their outputs under out/. Works from any working directory.
#   lcp_table (every tests/data LCP solved, table + CSV), the cdyn-lcp tool on the same fixtures,
#   ucp_data_sets and ucp_random_table (Pang-Trinkle-Lo Data Sets 1-4 and Table 1).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scripts/deps.sh

jobs=$(nproc 2>/dev/null || echo 2)
if [ "$jobs" -gt 2 ]; then jobs=2; fi # the machine is shared: never more than 2
export OPENBLAS_NUM_THREADS=1
build="$root/build"
out="$root/out"
mkdir -p "$out"

echo "== cdyn: build in $build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCDYN_BUILD_EXAMPLES=ON >/dev/null
cmake --build "$build" -j"$jobs"

# Each example runs even when an earlier one reports unsolved problems; the script fails at the
# end if any did.
failed=()

echo
echo "== lcp_table: tests/data LCP fixtures, default solver"
if ! "$build/examples/lcp_table" "$root/tests/data" --csv "$out/lcp_table.csv" |
  tee "$out/lcp_table.txt"; then
  failed+=(lcp_table)
fi

echo
echo "== cdyn-lcp on the fixtures"
if ! "$build/tools/cdyn-lcp" "$root"/tests/data/lcp_*.dat >"$out/cdyn-lcp.txt"; then
  failed+=(cdyn-lcp)
fi
tail -n 1 "$out/cdyn-lcp.txt"

echo
echo "== ucp_data_sets: Pang-Trinkle-Lo Data Sets 1-4 (paper: 1-3 solved in <= 2 pairs, 4 has no solution)"
if ! "$build/examples/ucp_data_sets" 5 | tee "$out/ucp_data_sets.md"; then
  failed+=(ucp_data_sets)
fi

echo
echo "== ucp_random_table: Pang-Trinkle-Lo Table 1 (random problems, n_c up to 40; about 20 s)"
if ! "$build/examples/ucp_random_table" --csv "$out/ucp_table1.csv" | tee "$out/ucp_table1.md"; then
  failed+=(ucp_random_table)
fi

echo
echo "Outputs in $out:"
echo "  lcp_table.csv   the table as CSV"
echo "  lcp_table.txt   the table as printed"
echo "  cdyn-lcp.txt    cdyn-lcp's report for every fixture"
echo "  ucp_data_sets.md, ucp_table1.md/.csv   quasistatic grasp results next to the paper's"
if [ ${#failed[@]} -gt 0 ]; then
  echo "cdyn: examples with unsolved problems or errors: ${failed[*]}" >&2
  exit 1
fi
