# Plot of billiard_bvp (run by scripts/run-examples.sh):
#   gnuplot -e "dir='out'" examples/billiard_bvp.gp
if (!exists("dir")) dir = "out"
set datafile separator ","
set terminal pngcairo size 800,500 font ",10"
set output dir."/billiard_bvp.png"
f = dir."/billiard_bvp.csv"
set title "Billiard BVPs (Song-Kumar-Pang Fig. 4): paths of the ball's centre, T = 1 s"
set grid
set xlabel "x (m)"
set ylabel "y (m)"
set size ratio -1
plot f every ::1 using 2:3 with lines lw 1.5 title "consistency: back to the IVP's launch (1, 0.5) m/s", \
     f every ::1 using 4:5 with lines lw 1.5 title "Fig. 4: to (1, -0.1) m"
