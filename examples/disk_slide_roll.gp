# Plot of disk_slide_roll (run by scripts/run-examples.sh): Song-Kumar-Pang Fig. 2, the BVP with
# N = 21 (points) against the rigid analytic solution from v0 = 1.2402 m/s (lines).
#   gnuplot -e "dir='out'" examples/disk_slide_roll.gp
if (!exists("dir")) dir = "out"
set datafile separator ","
set terminal pngcairo size 1000,420 font ",10"
set output dir."/disk_slide_roll.png"
f = dir."/disk_bvp_N21.csv"
set multiplot layout 1,2 title "Sliding-to-rolling disk: BVP with N = 21 (points) and the analytic solution (lines)"
set grid
set xlabel "t (s)"
set key bottom right
set title "position"
set ylabel "x (m)"
plot f every ::1 using 1:6 with lines lw 2 lc 1 title "x analytic", \
     f every ::1 using 1:2 with points pt 7 lc 1 title "x (BVP)"
set key top right
set title "velocities"
set ylabel "m/s"
plot f every ::1 using 1:7 with lines lw 2 lc 2 title "v analytic", \
     f every ::1 using 1:3 with points pt 7 lc 2 title "v (BVP)", \
     f every ::1 using 1:8 with lines lw 2 lc 3 title "r{/Symbol w} analytic", \
     f every ::1 using 1:4 with points pt 5 lc 3 title "r{/Symbol w} (BVP)"
unset multiplot
