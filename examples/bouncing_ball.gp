# Plot of bouncing_ball (run by scripts/run-examples.sh): Bortoff Figs. 2 and 3.
#   gnuplot -e "dir='out'" examples/bouncing_ball.gp
if (!exists("dir")) dir = "out"
set datafile separator ","
set terminal pngcairo size 1100,700 font ",10"
set output dir."/bouncing_ball.png"
set multiplot layout 2,2 title "Bouncing ball, Baumgarte contact with the state machine (alpha0 = 100, alpha2 = 1e6)"
set grid
set xlabel "t (s)"
set xrange [0:10]
set title "height h"
set ylabel "h (m)"
plot dir."/bouncing_ball_a1_20.csv" every ::1 using 1:2 with lines lw 2 title "alpha1 = 20 (listing)", \
     dir."/bouncing_ball_a1_1.csv" every ::1 using 1:2 with lines lw 1 title "alpha1 = 1", \
     dir."/bouncing_ball_a1_0.csv" every ::1 using 1:2 with lines lw 1 title "alpha1 = 0 (Fig. 3)"
set title "multiplier lambda (N)"
set ylabel "lambda (N)"
set yrange [-5:150]
plot dir."/bouncing_ball_a1_20.csv" every ::1 using 1:4 with lines lw 2 title "alpha1 = 20", \
     dir."/bouncing_ball_a1_0.csv" every ::1 using 1:4 with lines lw 1 title "alpha1 = 0"
set autoscale y
set title "contact state (0 free, 1 contact, 2 ballistic), alpha1 = 20"
set ylabel "state"
set yrange [-0.2:2.2]
plot dir."/bouncing_ball_a1_20.csv" every ::1 using 1:5 with steps lw 2 notitle
set autoscale y
set xrange [0:60]
set title "alpha1 = 1 over 60 s: settles into bouncing"
set ylabel "h (m)"
plot dir."/bouncing_ball_a1_1.csv" every ::1 using 1:2 with lines lw 1 notitle
unset multiplot
