# Plots of billiard_shot (run by scripts/run-examples.sh): the Levenberg-Marquardt iterates'
# paths to the target, the cost per iteration, and the optimized shot's velocity and slip.
#   gnuplot -e "dir='out'" examples/billiard_shot.gp
if (!exists("dir")) dir = "out"
set datafile separator ","
set terminal pngcairo size 1200,420 font ",10"
set output dir."/billiard_shot.png"
fi = dir."/billiard_shot_iterations.csv"
fp = dir."/billiard_shot_paths.csv"
stats fi every ::1 using 1 nooutput
last = int(STATS_max)
set multiplot layout 1,3 title "Billiard shot planned with the per-step derivatives: to (0.5, 0.2) m rolling at (0.3, 0) m/s at T = 1 s"
set grid
set key top left font ",8"
set title "paths of the iterates (the ball slides, then rolls)"
set xlabel "x (m)"
set ylabel "y (m)"
set yrange [0:0.5]
plot for [k=0:last] fp every ::1 using ($1 == k ? $3 : 1/0):4 with lines lw (k == last ? 2.5 : 1) \
       title (k == last ? sprintf("iterate %d (optimum)", k) : sprintf("iterate %d", k)), \
     "+" using (0.5):(0.2) every ::0::0 with points pt 7 ps 1.5 lc rgb "black" title "target"
set autoscale y
set title "cost per iteration"
set xlabel "Levenberg-Marquardt iteration"
set ylabel "1/2 |r|^2 (m^2)"
set logscale y
set format y "10^{%L}"
set key top right
plot fi every ::1 using 1:2 with linespoints lw 2 pt 7 title "cost"
unset logscale y
set format y "%g"
set title "optimized shot: centre velocity and slip speed"
set xlabel "t (s)"
set ylabel "m/s"
plot fp every ::1 using ($1 == last ? $2 : 1/0):5 with lines lw 2 title "v_x", \
     fp every ::1 using ($1 == last ? $2 : 1/0):6 with lines lw 2 title "v_y", \
     fp every ::1 using ($1 == last ? $2 : 1/0):7 with lines lw 2 dt 2 title "slip speed"
unset multiplot
