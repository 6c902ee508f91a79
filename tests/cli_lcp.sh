#!/bin/sh
# Command-line behaviour of cdyn-lcp.
#   cli_lcp.sh usage    BIN DATA_DIR TMP_DIR   options, exit codes 0/1/2, unreadable input
#   cli_lcp.sh fixtures BIN DATA_DIR TMP_DIR   every tests/data/lcp_*.dat is solved (exit 0):
#                                              the data README says each has a solution
set -u
mode=$1 bin=$2 data=$3 tmp=$4
failures=0
# per mode: ctest may run the modes in parallel
out="$tmp/cli_lcp_$mode.out" err="$tmp/cli_lcp_$mode.err"

# expect CODE PATTERN ARGS...: run bin ARGS, check the exit code and that PATTERN (grep -E)
# appears in stdout or stderr.
expect() {
  code=$1 pattern=$2
  shift 2
  "$bin" "$@" >"$out" 2>"$err"
  got=$?
  if [ "$got" -ne "$code" ] || ! cat "$out" "$err" | grep -Eq -- "$pattern"; then
    echo "FAIL: cdyn-lcp $* -> exit $got (want $code), looking for /$pattern/ in:"
    cat "$out" "$err"
    failures=$((failures + 1))
  fi
}

case $mode in
usage)
  expect 0 '^Usage: cdyn-lcp FILE' --help
  expect 2 'no input file'
  expect 2 'no input file' --quiet
  expect 2 'unknown option' --frobnicate "$data/lcp_CPS_1.dat"
  expect 2 "unknown solver.*'simplex'" "$data/lcp_CPS_1.dat" --solver simplex
  expect 2 'needs a value' "$data/lcp_CPS_1.dat" --solver
  expect 1 "cannot open '$tmp/cli_lcp_missing.dat'" "$tmp/cli_lcp_missing.dat"
  printf '2\n0\n2\n2\n2 2\n1 1\n1 1.0x\n-1 -1\n' >"$tmp/cli_lcp_bad.dat"
  expect 1 'cli_lcp_bad.dat: line 7, token 10: expected M\(1,1\)' "$tmp/cli_lcp_bad.dat"
  expect 1 '^0 of 2 solved' "$tmp/cli_lcp_bad.dat" "$tmp/cli_lcp_missing.dat"
  ;;
fixtures)
  count=$(ls "$data"/lcp_*.dat | wc -l)
  for solver in auto enum; do
    expect 0 "^$count of $count solved" --solver "$solver" "$data"/lcp_*.dat
  done
  # Pang: w2 = z1 - 1 >= 0 and w3 = 1 - z1 >= 0 force z1 = 1, then w1 = -z2 - z3 >= 0 forces
  # z2 = z3 = 0: the only solution is (1, 0, 0), and only with M read column by column.
  expect 0 '^  z +1 -?0 -?0$' "$data/lcp_Pang_isolated_sol.dat"
  expect 0 '^  residual' --quiet "$data/lcp_deudeu.dat"
  if grep -q '^  z' "$out"; then
    echo "FAIL: --quiet printed z"
    failures=$((failures + 1))
  fi
  ;;
*)
  echo "unknown mode $mode"
  exit 2
  ;;
esac
[ "$failures" -eq 0 ]
