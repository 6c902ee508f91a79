# Plots of ball_maze (run by scripts/run-examples.sh):
#   gnuplot -e "dir='out'" examples/ball_maze.gp
if (!exists("dir")) dir = "out"
set datafile separator ","
set terminal pngcairo size 1100,800 font ",10"
set output dir."/ball_maze.png"
f = dir."/ball_maze.csv"
set multiplot layout 2,2 title "Ball maze (Bortoff Figs. 10-11): balanced on each ring, dropped through its gate"
set grid
set xlabel "t (s)"

set title "ball's distance from the centre (rings at 0.20, 0.15, 0.10, 0.05 m)"
set ylabel "r (m)"
plot f every ::1 using 1:5 with lines lw 1.5 notitle

set title "maze angle and its reference"
set ylabel "q_1 (rad)"
plot f every ::1 using 1:2 with lines lw 1.5 title "q_1", \
     f every ::1 using 1:3 with lines lw 1 dt 2 title "reference"

set title "ball's angle from the vertical"
set ylabel "{/Symbol f} (rad)"
set yrange [-0.2:0.2]
plot f every ::1 using 1:4 with lines lw 1 notitle
set autoscale

set title "normal force on each ring"
set ylabel "{/Symbol l}_n (N)"
set yrange [0:0.3]
plot for [i=6:9] f every ::1 using 1:i with lines lw 1 title sprintf("ring %d", i - 5)
unset multiplot
