# Plots of urdf_arm (run by scripts/run-examples.sh):
#   gnuplot -e "dir='out'" examples/urdf_arm.gp
if (!exists("dir")) dir = "out"
set datafile separator ","
set terminal pngcairo size 1100,800 font ",10"
set output dir."/urdf_arm.png"
fs = dir."/urdf_arm_swing.csv"
fp = dir."/urdf_arm_pendulum.csv"
set multiplot layout 3,1 title "URDF models (examples/data): arm3.urdf swinging from the horizontal, pendulum.urdf against the implicit scheme's closed forms"
set grid
set xlabel "t (s)"

set title "arm3.urdf: joint angles (implicit scheme, h = 1 ms)"
set ylabel "q (rad)"
plot fs every ::1 using 1:2 with lines lw 1.5 title "shoulder", \
     fs every ::1 using 1:3 with lines lw 1.5 title "elbow", \
     fs every ::1 using 1:4 with lines lw 1.5 title "wrist"

set title "arm3.urdf: energy (kinetic + potential): backward Euler loses energy overall, not monotonically"
set ylabel "E (J)"
plot fs every ::1 using 1:5 with lines lw 1.5 notitle

set title "pendulum.urdf: deviation from hanging and the closed-form envelope {/Symbol q}_0 (1 + (wh)^2)^{-n/2}"
set ylabel "{/Symbol dq} (rad)"
plot fp every ::1 using 1:2 with lines lw 1 title "computed", \
     fp every ::1 using 1:3 with lines lw 1.5 dt 2 lc rgb "black" title "envelope", \
     fp every ::1 using 1:(-$3) with lines lw 1.5 dt 2 lc rgb "black" notitle
unset multiplot
