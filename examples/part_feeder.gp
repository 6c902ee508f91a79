# Plots of part_feeder (run by scripts/run-examples.sh):
#   gnuplot -e "dir='out'" examples/part_feeder.gp
if (!exists("dir")) dir = "out"
set datafile separator ","
set terminal pngcairo size 1100,800 font ",10"
set output dir."/part_feeder.png"
fi = dir."/part_feeder_ivp.csv"
set multiplot layout 2,2 title "Part feeder (Song-Kumar-Pang Fig. 6a): implicit compliant step with the friction QP, h = 1 ms"
set grid

set title "path of the part's centre; tab corner (5, 5), palm top y = 0 on [1.2, 5.2]"
set xlabel "x (m)"
set ylabel "y (m)"
set size ratio -1
set object 1 rect from 1.2,-0.5 to 5.2,0 fc rgb "#bbbbbb" fs solid
set object 2 rect from 5,4 to 6,5 fc rgb "#bbbbbb" fs solid
set xrange [0:7]
set yrange [-0.6:7]
plot fi every ::1 using 2:3 with lines lw 1.5 notitle
unset object 1
unset object 2
set size noratio
set autoscale

set title "orientation (pi: turned over)"
set xlabel "t (s)"
set ylabel "{/Symbol q} (rad)"
plot fi every ::1 using 1:4 with lines lw 1.5 notitle

set title "normal force on the palm (-> m g = 9.81 N)"
set ylabel "{/Symbol l}_n (N)"
set yrange [0:40]
plot fi every ::1 using 1:5 with lines lw 1 notitle
set autoscale

set title "normal force on the tab"
set ylabel "{/Symbol l}_n (N)"
plot fi every ::1 using 1:6 with lines lw 1 notitle
unset multiplot
