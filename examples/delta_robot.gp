# Plots of delta_robot (run by scripts/run-examples.sh):
#   gnuplot -e "dir='out'" examples/delta_robot.gp
if (!exists("dir")) dir = "out"
set datafile separator ","
set terminal pngcairo size 1100,800 font ",10"
set output dir."/delta_robot.png"
f = dir."/delta_robot.csv"
set multiplot layout 2,2 title "Delta robot soft touch (Bortoff Fig. 13): approach at 0.2 mm/s, k_p -> 0 by 9 s"
set grid
set xlabel "t (s)"

set title "distance to the brick (contact at 12 s)"
set ylabel "gap (mm)"
plot f every ::1 using 1:($4*1e3) with lines lw 1.5 notitle

set title "contact force (hold: M k_d v_{ref} = 40 mN)"
set ylabel "{/Symbol l}_n (mN)"
plot f every ::1 using 1:($5*1e3) with lines lw 1.5 notitle

set title "position gain"
set ylabel "k_p (1/s^2)"
plot f every ::1 using 1:6 with lines lw 1.5 notitle

set title "servo torques"
set ylabel "{/Symbol t} (N m)"
plot f every ::1 using 1:8 with lines lw 1.5 title "servo 1", \
     f every ::1 using 1:9 with lines lw 1.5 title "servo 2", \
     f every ::1 using 1:10 with lines lw 1.5 dt 2 title "servo 3"
unset multiplot
