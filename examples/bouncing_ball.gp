# Plots of bouncing_ball (run by scripts/run-examples.sh):
#   gnuplot -e "dir='out'" examples/bouncing_ball.gp
if (!exists("dir")) dir = "out"
set datafile separator ","
set terminal pngcairo size 1100,800 font ",10"
set output dir."/bouncing_ball.png"
f2 = dir."/bouncing_ball_fig2.csv"
fl = dir."/bouncing_ball_listing.csv"
f3 = dir."/bouncing_ball_fig3.csv"
fa = dir."/bouncing_ball_a10.csv"
set multiplot layout 2,2 title "Bortoff's bouncing ball: Baumgarte contact with the FREE / CONTACT / BALLISTIC state machine ({/Symbol a}_0 = 100, {/Symbol a}_2 = 10^6)"
set grid
set xlabel "t (s)"

set title "height (Fig. 2 caption: {/Symbol a}_1 = 1; four bounces: {/Symbol a}_1 = 10; listing: 20)"
set ylabel "h (m)"
set xrange [0:10]
plot f2 every ::1 using 1:2 with lines lw 1.5 title "{/Symbol a}_1 = 1", \
     fa every ::1 using 1:2 with lines lw 1.5 title "{/Symbol a}_1 = 10", \
     fl every ::1 using 1:2 with lines lw 1.5 title "{/Symbol a}_1 = 20"

set title "multiplier (-> m g = 9.81 N at rest)"
set ylabel "{/Symbol l} (N)"
set yrange [0:*]
plot f2 every ::1 using 1:4 with lines lw 1 title "{/Symbol a}_1 = 1", \
     fa every ::1 using 1:4 with lines lw 1 title "{/Symbol a}_1 = 10", \
     fl every ::1 using 1:4 with lines lw 1 title "{/Symbol a}_1 = 20"
set yrange [*:*]

set title "Fig. 3: {/Symbol a}_1 = 0, the apex grows"
set ylabel "h (m)"
plot f3 every ::1 using 1:2 with lines lw 1.5 lc 3 notitle

set title "Fig. 4: exit from contact near 4.36 s ({/Symbol a}_1 = 0)"
set xrange [4.30:4.40]
set ylabel "h (m)"
set y2label "{/Symbol l} (N), mode"
set y2tics
set ytics nomirror
plot f3 every ::1 using 1:2 with lines lw 2 lc 3 title "h", \
     f3 every ::1 using 1:4 axes x1y2 with lines lw 2 lc 7 title "{/Symbol l}", \
     f3 every ::1 using 1:(100*$5) axes x1y2 with steps lw 1 lc 8 title "100 x mode (0 free, 3 contact)"
unset multiplot
