# Plot of three_finger_sphere (run by scripts/run-examples.sh):
#   gnuplot -e "dir='out'" examples/three_finger_sphere.gp
if (!exists("dir")) dir = "out"
set datafile separator ","
set datafile missing ""
set terminal pngcairo size 900,400 font ",10"
set output dir."/three_finger_sphere.png"
f = dir."/three_finger_sphere_sweep.csv"
set multiplot layout 1,2 title "Three-finger grasp of a sphere: normal force and friction use (contact 1)"
set xlabel "{/Symbol m}"
set ylabel "{/Symbol l}_n (N)"
set logscale y
set yrange [5:1000]
set grid
set key top left Left reverse
set title "normal force"
plot f every ::1 using 1:2 with lines lw 2 title "all sliding, sphere moving down (LCP)", \
     f every ::1 using 1:3 with lines lw 2 dt 2 title "all sliding, sphere spinning (LCP)", \
     f every ::1 using 1:4 with lines lw 2 dt 4 title "rolling start (cone MNCP)"
unset logscale y
set yrange [0:1.1]
set ylabel "|{/Symbol l}_T| / ({/Symbol m} {/Symbol l}_n)"
set title "rolling start: friction use (1 = on the cone: slips)"
set key top right
plot f every ::1 using 1:5 with lines lw 2 lc 3 notitle, \
     f every ::1 using 1:($7 == 1 ? $5 : 1/0) with points pt 7 ps 0.5 lc 2 title "holds (RRR)", \
     f every ::1 using 1:($7 == 0 ? $5 : 1/0) with points pt 7 ps 0.5 lc 7 title "slips (SSS)"
unset multiplot
