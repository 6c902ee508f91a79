#!/bin/sh
# Command-line behaviour of cdyn-fc3d.
#   cli_fc3d.sh usage BIN DATA_DIR TMP_DIR   options, exit codes 0/1/2, unreadable input
#   cli_fc3d.sh files BIN DATA_DIR TMP_DIR   every tests/data/fc3d file is solved (exit 0)
set -u
mode=$1 bin=$2 data=$3 tmp=$4
failures=0
out="$tmp/cli_fc3d_$mode.out" err="$tmp/cli_fc3d_$mode.err"

# expect CODE PATTERN ARGS...: run bin ARGS, check the exit code and that PATTERN (grep -E)
# appears in stdout or stderr.
expect() {
  code=$1 pattern=$2
  shift 2
  "$bin" "$@" >"$out" 2>"$err"
  got=$?
  if [ "$got" -ne "$code" ] || ! cat "$out" "$err" | grep -Eq -- "$pattern"; then
    echo "FAIL: cdyn-fc3d $* -> exit $got (want $code), looking for /$pattern/ in:"
    cat "$out" "$err"
    failures=$((failures + 1))
  fi
}

one="$data/fc3d/FrictionContact3D_1c.dat"
case $mode in
usage)
  expect 0 '^Usage: cdyn-fc3d FILE' --help
  expect 2 'no input file'
  expect 2 'unknown option' --frobnicate "$one"
  expect 2 "unknown solver.*'lemke'" "$one" --solver lemke
  expect 2 'needs a value' "$one" --tol
  expect 2 'positive number' "$one" --tol -1
  expect 2 'positive integer' "$one" --max-iter 0
  expect 1 "cli_fc3d_missing.dat" "$tmp/cli_fc3d_missing.dat"
  printf '3\n1\n0\n3\n3\n3\n3\n1 0 0 0 1 0 0 0 1.0x\n-1 0 0\n0.5\n' >"$tmp/cli_fc3d_bad.dat"
  expect 1 'line 8' "$tmp/cli_fc3d_bad.dat"
  expect 1 '^0 of 2 solved' "$tmp/cli_fc3d_bad.dat" "$tmp/cli_fc3d_missing.dat"
  # one contact, W = [[15,-1,-2],[-1,14,1],[-2,1,16]], q = (-1, 2, 3), mu = 0.1: solved
  for s in auto nsgs newton-ac newton-fb; do
    expect 0 '^1 of 1 solved' --solver "$s" --tol 1e-12 "$one"
  done
  # a budget too small: one Newton iteration does not reach 1e-300
  expect 1 '^0 of 1 solved' --solver newton-ac --max-iter 1 --tol 1e-300 "$one"
  ;;
files)
  count=$(ls "$data"/fc3d/*.dat "$data"/fc3d/*.hdf5 | wc -l)
  expect 0 "^$count of $count solved" --tol 1e-8 "$data"/fc3d/*.dat "$data"/fc3d/*.hdf5
  ;;
*)
  echo "unknown mode $mode"
  exit 2
  ;;
esac
if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "cli_fc3d $mode: ok"
