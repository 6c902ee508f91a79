# Plots of two_finger_ellipse (run by scripts/run-examples.sh):
#   gnuplot -e "dir='out'" examples/two_finger_ellipse.gp
# dir holds the CSV files; the PNGs are written next to them.
if (!exists("dir")) dir = "out"
set datafile separator ","
set terminal pngcairo size 900,430 font ",10"

# Contact-mode maps (the paper's Fig. 7): codes 0 RR, 1 RS, 2 SR, 3 SS, 4 a contact breaks,
# 5 not determinate, 6 no solution.
set output dir."/two_finger_ellipse_modes.png"
set multiplot layout 1,2 title "Contact modes at the onset of motion (finger 1, finger 2), {/Symbol t}_0 = 2.5 N m"
set size ratio -1
set xlabel "{/Symbol t}_1 (N m)"
set ylabel "{/Symbol t}_2 (N m)"
set cbrange [-0.5:6.5]
set palette maxcolors 7
set palette defined (0 "#1a9850", 1 "#91bfdb", 2 "#fc8d59", 3 "#d73027", 4 "#999999", 5 "#000000", 6 "#ffffff")
set cbtics ("RR" 0, "RS" 1, "SR" 2, "SS" 3, "break" 4, "n.d." 5, "none" 6)
set tics out
set autoscale xfix
set autoscale yfix
unset key
set title "{/Symbol m} = 0.2"
plot dir."/two_finger_ellipse_map_mu0.2.csv" every ::1 using 1:2:4 with image
set title "{/Symbol m} = 0.4"
plot dir."/two_finger_ellipse_map_mu0.4.csv" every ::1 using 1:2:4 with image
unset multiplot

# Object acceleration (the paper's Fig. 8): sign of a_y over the map for mu = 0.4, and a_y along
# tau1 = tau2 for both friction coefficients.
set output dir."/two_finger_ellipse_accel.png"
set multiplot layout 1,2 title "Vertical acceleration of the object"
set title "sign of a_y, {/Symbol m} = 0.4"
set size ratio -1
set cbrange [-0.5:1.5]
set palette maxcolors 2
set palette defined (0 "#67a9cf", 1 "#ef8a62")
set cbtics ("a_y < 0" 0, "a_y > 0" 1)
plot dir."/two_finger_ellipse_map_mu0.4.csv" every ::1 using 1:2:($6 > 0 ? 1 : 0) with image
set title "{/Symbol t}_1 = {/Symbol t}_2"
set size noratio
set autoscale
unset colorbox
set xlabel "{/Symbol t}_1 = {/Symbol t}_2 (N m)"
set ylabel "a_y (m/s^2)"
set key top left
set grid
f = dir."/two_finger_ellipse_diag.csv"
plot f every ::1 using 1:2 with lines lw 2 lc 1 title "{/Symbol m} = 0.2", \
     f every ::1 using 1:4 with lines lw 2 lc 2 dt 2 title "{/Symbol m} = 0.4", \
     f every ::1 using 1:(strcol(3) eq "RR" ? $2 : 1/0) with points pt 7 ps 0.4 lc 1 title "RR (0.2)", \
     f every ::1 using 1:(strcol(5) eq "RR" ? $4 : 1/0) with points pt 7 ps 0.4 lc 2 title "RR (0.4)", \
     0 with lines lc "black" lw 0.5 notitle
unset multiplot
