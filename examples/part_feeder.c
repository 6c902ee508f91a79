/* Song-Kumar-Pang Fig. 6: a rectangular part leaves a frictionless chute, strikes a protrusion
 * whose upper-left corner is (x_p, y_p) and lands on a palm (scene: part_feeder_model.h).
 *
 *   part_feeder [--out DIR] [--quick]
 *
 * (a) The IVP with (x_p, y_p) = (5, 5) and the palm centred at x = 3.2 (the paper's Fig. 6a),
 *     implicit compliant step h = 1 ms for 2.5 s, with the friction QP inside the iteration
 *     (Proposition 1); the same run with the smoothed NCP friction rows for comparison. Checked:
 *     the part ends at rest lying on the palm, each supporting corner sagging m g / (2 K) and the
 *     palm carrying m g.
 *
 * Writes DIR/part_feeder_ivp.csv (t, x, y, theta, palm and tab normal forces). Exit status 1 when
 * a run fails or a check is out of tolerance. */
#include "part_feeder_model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* (a): the IVP at the paper's (5, 5) with the palm at 3.2. Returns nonzero when a check fails. */
static int ivp(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/part_feeder_ivp.csv", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "part_feeder: cannot write %s\n", path);
        return 1;
    }
    fprintf(f, "t,x,y,theta,lambda_palm,lambda_tab\n");
    pf_result r, ncp;
    pf_run(5.0, 5.0, 3.2, 1, f, &r);
    if (fclose(f) != 0) {
        fprintf(stderr, "part_feeder: write error in %s\n", path);
        return 1;
    }
    pf_run(5.0, 5.0, 3.2, 0, NULL, &ncp);
    printf("(a) IVP, (x_p, y_p) = (5, 5), palm at x = 3.2, h = 1 ms, %g s\n\n", PF_T_END);
    if (r.st != CDYN_OK) {
        printf("failed: %s (%s)\n", cdyn_status_str(r.st), r.message);
        return 1;
    }
    const double sag = PF_MASS * PF_G / (2 * PF_K), mg = PF_MASS * PF_G;
    const double th = pf_wrap(r.theta);
    printf("| quantity | computed | expected |\n|---|---|---|\n");
    printf("| strikes the tab at | %.3f s | |\n| lands on the palm at | %.3f s | |\n", r.first_tab,
           r.first_palm);
    printf("| rests at x | %.4f m | on the palm, [%.1f, %.1f] |\n", r.x, 3.2 - PF_PALM_HW,
           3.2 + PF_PALM_HW);
    printf("| orientation | %.4f rad | 0 or pi (lying flat; pi = turned over) |\n", th);
    printf("| height of the centre | %.6f m | B - m g / (2K) = %.6f m |\n", r.y, PF_B - sag);
    printf("| force on the palm | %.6f N | m g = %.6f N |\n", r.palm_force, mg);
    printf("| kinetic energy | %.1e J | 0 |\n", r.ke_end);
    printf("| Newton iterations | %d | |\n\n", r.iterations);
    if (ncp.st == CDYN_OK)
        printf("With the smoothed NCP friction rows instead (gamma = 1e-4 N): rests at x = %.4f, "
               "orientation %.4f rad.\n\n", ncp.x, pf_wrap(ncp.theta));
    else
        printf("With the smoothed NCP friction rows instead (gamma = 1e-4 N) the step fails: %s "
               "(%s)\n\n", cdyn_status_str(ncp.st), ncp.message);
    const int flat = fabs(th) < 1e-3 || fabs(fabs(th) - 3.14159265358979) < 1e-3;
    const int ok = flat && fabs(r.y - (PF_B - sag)) <= 1e-3 * sag &&
                   fabs(r.palm_force - mg) <= 1e-6 * mg && r.ke_end <= 1e-12 &&
                   fabs(r.x - 3.2) <= PF_PALM_HW;
    if (!ok)
        fprintf(stderr, "part_feeder: (a) the part is not at rest lying on the palm\n");
    return !ok;
}

int main(int argc, char **argv)
{
    const char *dir = ".";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--quick") == 0) {
            continue;
        } else {
            fprintf(stderr, "usage: part_feeder [--out DIR] [--quick]\n");
            return 2;
        }
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "part_feeder: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    return ivp(dir);
}
