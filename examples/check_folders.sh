#!/bin/sh
# Issue-10 guarantee for the example programs: they run from any folder and never fail silently.
#   check_folders.sh default BIN_DIR TMP_DIR   fast examples started in an empty folder with no
#                                              arguments create ./out and write their CSV there
#   check_folders.sh unwritable BIN_DIR TMP_DIR every example that writes files, given an output
#                                              path it cannot create, exits non-zero and says why
set -u
mode=$1 bin=$2 tmp=$3
failures=0
case $mode in
default)
  dir="$tmp/examples_default_folder"
  rm -rf "$dir" && mkdir -p "$dir" || exit 1
  for e in billiard billiard_shot bouncing_ball two_finger_ellipse three_finger_sphere lcp_table \
    urdf_arm; do
    rm -rf "$dir/out"
    if ! (cd "$dir" && "$bin/$e" >"$dir/$e.log" 2>&1); then
      echo "FAIL: $e exited non-zero in an empty folder:"
      cat "$dir/$e.log"
      failures=$((failures + 1))
    elif ! ls "$dir"/out/*.csv >/dev/null 2>&1; then
      echo "FAIL: $e wrote no CSV into ./out"
      failures=$((failures + 1))
    fi
  done
  ;;
unwritable)
  : >"$tmp/examples_not_a_folder"
  bad="$tmp/examples_not_a_folder/out"
  for e in billiard billiard_bvp billiard_shot bouncing_ball ball_maze ball_impacts delta_robot \
    disk_slide_roll part_feeder two_finger_ellipse three_finger_sphere urdf_arm; do
    "$bin/$e" --out "$bad" >"$tmp/$e.unwritable.out" 2>"$tmp/$e.unwritable.err"
    rc=$?
    if [ "$rc" -eq 0 ] || ! grep -q "cannot create $bad" "$tmp/$e.unwritable.err"; then
      echo "FAIL: $e --out $bad: exit $rc, stderr:"
      cat "$tmp/$e.unwritable.err"
      failures=$((failures + 1))
    fi
  done
  for e in lcp_table ucp_random_table part_feeder_mpi; do
    [ -x "$bin/$e" ] || continue
    "$bin/$e" --csv "$bad.csv" >"$tmp/$e.unwritable.out" 2>"$tmp/$e.unwritable.err"
    rc=$?
    if [ "$rc" -eq 0 ] || ! grep -q "$bad.csv" "$tmp/$e.unwritable.err"; then
      echo "FAIL: $e --csv $bad.csv: exit $rc, stderr:"
      cat "$tmp/$e.unwritable.err"
      failures=$((failures + 1))
    fi
  done
  ;;
*)
  echo "unknown mode $mode"
  exit 2
  ;;
esac
[ "$failures" -eq 0 ] || exit 1
echo "examples $mode: ok"
