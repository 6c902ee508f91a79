# Plots of billiard (run by scripts/run-examples.sh): Song-Kumar-Pang Fig. 3 (b)-(f) for every
# scheme. gnuplot -e "dir='out'" examples/billiard.gp
if (!exists("dir")) dir = "out"
set datafile separator ","
set terminal pngcairo size 1200,800 font ",10"
set output dir."/billiard.png"
schemes = "implicit-ncp pyramid-box pyramid-diamond cone-step coulomb-step"
file(i) = dir."/billiard_".word(schemes, i).".csv"
set multiplot layout 2,2 title "Billiard ball, h = 0.01 s (Song-Kumar-Pang Fig. 3)"
set grid
set key bottom left
set title "centre trajectory (b)"
set xlabel "x (m)"
set ylabel "y (m)"
plot for [i=1:5] file(i) every ::1 using 2:3 with lines lw 2 title word(schemes, i)
set key top right
set title "normal force (c), (d)"
set xlabel "t (s)"
set ylabel "{/Symbol l}_n (N)"
set yrange [0:4]
plot for [i=1:5] file(i) every ::1 using 1:7 with lines lw 2 title word(schemes, i)
set autoscale y
set title "tangential forces (c), (d)"
set ylabel "{/Symbol l}_t, {/Symbol l}_o (N)"
plot for [i=1:5] file(i) every ::1 using 1:8 with lines lw 2 lc i title word(schemes, i)." t", \
     for [i=1:5] file(i) every ::1 using 1:9 with lines lw 2 lc i dt 2 title word(schemes, i)." o"
set title "slip velocities (e), (f)"
set ylabel "slip (m/s)"
plot for [i=1:5] file(i) every ::1 using 1:5 with lines lw 2 lc i title word(schemes, i)." t", \
     for [i=1:5] file(i) every ::1 using 1:6 with lines lw 2 lc i dt 2 title word(schemes, i)." o"
unset multiplot
