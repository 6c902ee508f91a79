#!/usr/bin/env bash
# The main job (README): installs missing packages, builds cdyn into build/ (RelWithDebInfo, the
# same configuration scripts/test.sh uses, so the two share one build), runs the example programs
# and writes their outputs under out/. Works from any working directory.
#   lcp_table (every tests/data LCP solved, table + CSV), the cdyn-lcp tool on the same fixtures,
#   ucp_data_sets and ucp_random_table (Pang-Trinkle-Lo Data Sets 1-4 and Table 1),
#   two_finger_ellipse (Yashima-Yamaguchi mode maps) and three_finger_sphere (Buffo-Maciel),
#   billiard (Song-Kumar-Pang Fig. 3, every time-stepping scheme), billiard_shot (a shot planned
#   with the per-step derivatives), urdf_arm (a robot from a URDF file against closed forms),
#   with PNG plots by gnuplot when it is available.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scripts/deps.sh
# gnuplot only draws the plots: without it the examples still write their CSV files.
scripts/deps.sh gnuplot-nox || echo "cdyn: gnuplot-nox could not be installed; plots will be skipped" >&2

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

# plot SCRIPT: run examples/SCRIPT with gnuplot on the CSV files in $out (PNGs next to them).
plot() {
  if command -v gnuplot >/dev/null 2>&1; then
    if gnuplot -e "dir='$out'" "$root/examples/$1"; then
      echo "plots: $2"
    else
      echo "cdyn: gnuplot failed on examples/$1" >&2
      failed+=("$1")
    fi
  else
    echo "gnuplot not found: plots skipped (the CSV files are written)"
  fi
}

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
echo "== two_finger_ellipse: Yashima-Yamaguchi contact-mode maps and object acceleration (Figs. 7, 8)"
if ! "$build/examples/two_finger_ellipse" --out "$out" | tee "$out/two_finger_ellipse.md"; then
  failed+=(two_finger_ellipse)
fi
plot two_finger_ellipse.gp "$out/two_finger_ellipse_modes.png, $out/two_finger_ellipse_accel.png"

echo
echo "== three_finger_sphere: Buffo-Maciel all-sliding LCP and all-rolling mixed NCP"
if ! "$build/examples/three_finger_sphere" --out "$out" | tee "$out/three_finger_sphere.md"; then
  failed+=(three_finger_sphere)
fi
plot three_finger_sphere.gp "$out/three_finger_sphere.png"

echo
echo "== billiard: Song-Kumar-Pang Fig. 3 with every time-stepping scheme (paper: (0.5632, -0.0534), box slip ends 0.30 / 0.37 s)"
if ! "$build/examples/billiard" --out "$out" | tee "$out/billiard.md"; then
  failed+=(billiard)
fi
plot billiard.gp "$out/billiard.png"

echo
echo "== disk_slide_roll: Song-Kumar-Pang disk as IVPs and BVPs (paper: v0 = 1.2402 m/s, rolling at 0.0114 s)"
if ! "$build/examples/disk_slide_roll" --out "$out" | tee "$out/disk_slide_roll.md"; then
  failed+=(disk_slide_roll)
fi
plot disk_slide_roll.gp "$out/disk_slide_roll.png"

echo
echo "== billiard_bvp: Song-Kumar-Pang billiard BVPs (paper: recovers the IVP's launch; Fig. 4 needs a higher speed)"
if ! "$build/examples/billiard_bvp" --out "$out" | tee "$out/billiard_bvp.md"; then
  failed+=(billiard_bvp)
fi
plot billiard_bvp.gp "$out/billiard_bvp.png"

echo
echo "== billiard_shot: a billiard shot planned with the per-step derivatives (checks: target reached, adjoint = central differences of rollouts, rolling velocity = (5 v0 + 2 R w0) / 7)"
if ! "$build/examples/billiard_shot" --out "$out" | tee "$out/billiard_shot.md"; then
  failed+=(billiard_shot)
fi
plot billiard_shot.gp "$out/billiard_shot.png"

echo
echo "== ball_impacts: Song-Kumar-Pang Fig. 5 (paper: a BVP through frictional impacts; about 20 s)"
if ! "$build/examples/ball_impacts" --out "$out" | tee "$out/ball_impacts.md"; then
  failed+=(ball_impacts)
fi
plot ball_impacts.gp "$out/ball_impacts.png"

echo
echo "== bouncing_ball: Bortoff Figs. 2-3 (paper: comes to rest with lambda = m g; alpha1 = 0: apex height grows)"
if ! "$build/examples/bouncing_ball" --out "$out" | tee "$out/bouncing_ball.md"; then
  failed+=(bouncing_ball)
fi
plot bouncing_ball.gp "$out/bouncing_ball.png"

echo
echo "== ball_maze: Bortoff Figs. 10-11 (paper: contact with the outer ring at about 0.1 s, then through the gates to the centre)"
if ! "$build/examples/ball_maze" --out "$out" | tee "$out/ball_maze.md"; then
  failed+=(ball_maze)
fi
plot ball_maze.gp "$out/ball_maze.png"

echo
echo "== delta_robot: Bortoff Fig. 13 (paper: contact at 12 s, peak 90 mN, hold 40 mN, the brick does not move)"
if ! "$build/examples/delta_robot" --out "$out" | tee "$out/delta_robot.md"; then
  failed+=(delta_robot)
fi
plot delta_robot.gp "$out/delta_robot.png"

echo
echo "== part_feeder: Song-Kumar-Pang Fig. 6 (paper: the part is turned over and comes to rest on the palm)"
if ! "$build/examples/part_feeder" --out "$out" | tee "$out/part_feeder.md"; then
  failed+=(part_feeder)
fi
plot part_feeder.gp "$out/part_feeder.png"

echo
echo "== urdf_arm: a URDF arm and pendulums (closed forms: holding torques, also on the joint limits' stops, a limit reached in the predicted step, the implicit scheme's period and decay, a damped pendulum's decay rate)"
if ! "$build/examples/urdf_arm" --out "$out" | tee "$out/urdf_arm.md"; then
  failed+=(urdf_arm)
fi
plot urdf_arm.gp "$out/urdf_arm.png"

echo
echo "== part_feeder_mpi: the design sweep over MPI ranks (1 and 2 ranks must give the same file)"
# MPI only serves this example: without it (or its packages) the example is skipped.
if scripts/deps.sh libopenmpi-dev openmpi-bin >/dev/null 2>&1; then
  # configured again: the first configure ran before MPI was there
  cmake -S . -B "$build" >/dev/null &&
    cmake --build "$build" -j"$jobs" --target part_feeder_mpi >/dev/null ||
    echo "cdyn: part_feeder_mpi did not build" >&2
else
  echo "cdyn: the MPI packages could not be installed" >&2
fi
if [ -x "$build/examples/part_feeder_mpi" ] && command -v mpirun >/dev/null 2>&1; then
  mpi=(mpirun)
  if [ "$(id -u)" -eq 0 ]; then mpi+=(--allow-run-as-root); fi
  if "${mpi[@]}" -np 1 "$build/examples/part_feeder_mpi" --grid 7 --csv "$out/part_feeder_sweep_np1.csv" &&
    "${mpi[@]}" -np 2 "$build/examples/part_feeder_mpi" --grid 7 --csv "$out/part_feeder_sweep.csv" &&
    cmp "$out/part_feeder_sweep_np1.csv" "$out/part_feeder_sweep.csv"; then
    echo "1 and 2 ranks: identical results ($out/part_feeder_sweep.csv)"
  else
    failed+=(part_feeder_mpi)
  fi
else
  echo "MPI not available: part_feeder_mpi skipped"
fi

echo
echo "Outputs in $out:"
echo "  lcp_table.csv   the table as CSV"
echo "  lcp_table.txt   the table as printed"
echo "  cdyn-lcp.txt    cdyn-lcp's report for every fixture"
echo "  ucp_data_sets.md, ucp_table1.md/.csv   quasistatic grasp results next to the paper's"
echo "  two_finger_ellipse*.csv/.md/.png       contact-mode maps and accelerations (Yashima-Yamaguchi)"
echo "  three_finger_sphere*.csv/.md/.png      sliding LCP / rolling MNCP table and sweep (Buffo-Maciel)"
echo "  billiard*.csv/.md/.png                 billiard ball with every scheme (Song-Kumar-Pang Fig. 3)"
echo "  disk*.csv, disk_slide_roll.md/.png     sliding-to-rolling disk, IVP and BVP (Song-Kumar-Pang Fig. 2)"
echo "  bouncing_ball*.csv/.md/.png            Baumgarte contact state machine (Bortoff Figs. 2-3)"
echo "  billiard_bvp.csv/.md/.png              billiard BVPs: consistency check and Fig. 4 target"
echo "  billiard_shot*.csv/.md/.png            billiard shot planned with the per-step derivatives"
echo "  ball_impacts.csv/.md/.png              BVP through frictional impacts (Song-Kumar-Pang Fig. 5)"
echo "  ball_maze.csv/.md/.png                 ball maze solved by feedback (Bortoff Figs. 10-11)"
echo "  delta_robot.csv/.md/.png               delta robot soft touch (Bortoff Fig. 13)"
echo "  part_feeder*.csv/.md/.png              part feeder IVP and design (Song-Kumar-Pang Fig. 6)"
echo "  part_feeder_sweep.csv                  the design sweep over MPI ranks"
echo "  urdf_arm*.csv/.md/.png                 URDF arm and pendulum against closed forms"
if [ ${#failed[@]} -gt 0 ]; then
  echo "cdyn: examples with unsolved problems or errors: ${failed[*]}" >&2
  exit 1
fi
