# Plots of ball_impacts (run by scripts/run-examples.sh):
#   gnuplot -e "dir='out'" examples/ball_impacts.gp
if (!exists("dir")) dir = "out"
set datafile separator ","
set terminal pngcairo size 1100,400 font ",10"
set output dir."/ball_impacts.png"
f = dir."/ball_impacts.csv"
set multiplot layout 1,3 title "Ball with impacts (Song-Kumar-Pang Fig. 5): from (0, 0.6) to (0.4, 0.4) m in 0.45 s, v_{z0} <= 0"
set grid
set title "trajectory of the centre"
set xlabel "x (m)"
set ylabel "z (m)"
plot f every ::1 using 2:3 with lines lw 1.5 notitle
set title "spin from the frictional impact"
set xlabel "t (s)"
set ylabel "{/Symbol w}_y (rad/s)"
plot f every ::1 using 1:6 with lines lw 1.5 notitle
set title "normal force"
set ylabel "{/Symbol l}_n (N)"
plot f every ::1 using 1:7 with lines lw 1.5 notitle
unset multiplot
