# Plots of urdf_arm (run by scripts/run-examples.sh):
#   gnuplot -e "dir='out'" examples/urdf_arm.gp
if (!exists("dir")) dir = "out"
set datafile separator ","
set terminal pngcairo size 1100,1550 font ",10"
set output dir."/urdf_arm.png"
fs = dir."/urdf_arm_swing.csv"
fp = dir."/urdf_arm_pendulum.csv"
fd = dir."/urdf_arm_damped.csv"
fl = dir."/urdf_arm_limit.csv"
ft = dir."/urdf_arm_stops.csv"
set multiplot layout 6,1 title "URDF models (examples/data) against closed forms"
set grid
set xlabel "t (s)"

set title "arm3.urdf: joint angles (implicit scheme, h = 1 ms; the shoulder strikes its lower stop at -2)"
set ylabel "q (rad)"
plot fs every ::1 using 1:2 with lines lw 1.5 title "shoulder", \
     fs every ::1 using 1:3 with lines lw 1.5 title "elbow", \
     fs every ::1 using 1:4 with lines lw 1.5 title "wrist"

set title "arm3.urdf: energy (kinetic + potential): taken by the joints' damping and backward Euler"
set ylabel "E (J)"
plot fs every ::1 using 1:5 with lines lw 1.5 notitle

set title "pendulum.urdf: deviation from hanging and the closed-form envelope {/Symbol q}_0 (1 + (wh)^2)^{-n/2}"
set ylabel "{/Symbol dq} (rad)"
plot fp every ::1 using 1:2 with lines lw 1 title "computed", \
     fp every ::1 using 1:3 with lines lw 1.5 dt 2 lc rgb "black" title "envelope", \
     fp every ::1 using 1:(-$3) with lines lw 1.5 dt 2 lc rgb "black" notitle

set title "pendulum\\_damped.urdf: implicit NCP and pyramid LCP against the textbook envelope {/Symbol q}_0 e^{-{/Symbol s} t}, {/Symbol s} = d/(2 I)"
set ylabel "{/Symbol dq} (rad)"
plot fd every ::1 using 1:2 with lines lw 1 title "implicit NCP", \
     fd every ::1 using 1:3 with lines lw 1 title "pyramid LCP", \
     fd every ::1 using 1:4 with lines lw 1.5 dt 2 lc rgb "black" title "envelope", \
     fd every ::1 using 1:(-$4) with lines lw 1.5 dt 2 lc rgb "black" notitle

set title "pendulum\\_limited.urdf: the stop 0.01 rad past hanging, reached in the step the free swing's closed form {/Symbol q}_0 {/Symbol r}^{-n} cos(n{/Symbol f}) gives"
set ylabel "{/Symbol dq} (rad)"
set xrange [0:1]
plot fl every ::1 using 1:2 with lines lw 1.5 title "computed", \
     fl every ::1 using 1:3 with lines lw 1.5 dt 2 lc rgb "black" title "free swing (closed form)", \
     fl every ::1 using 1:4 with lines lw 1 lc rgb "red" title "lower limit"
unset xrange

set title "arm3.urdf started on its stops (2.5, -2.5, 2.5): the stops' net torques settle on the chain's statics (dashed)"
set ylabel "{/Symbol l}_{lower} - {/Symbol l}_{upper} (N m)"
set xrange [0:1]
plot ft every ::1 using 1:2 with lines lw 1.5 title "shoulder", \
     ft every ::1 using 1:3 with lines lw 1.5 title "elbow", \
     ft every ::1 using 1:4 with lines lw 1.5 title "wrist", \
     ft every ::1 using 1:5 with lines lw 1.5 dt 2 lc rgb "black" title "statics", \
     ft every ::1 using 1:6 with lines lw 1.5 dt 2 lc rgb "black" notitle, \
     ft every ::1 using 1:7 with lines lw 1.5 dt 2 lc rgb "black" notitle
unset xrange
unset multiplot
