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
#define _POSIX_C_SOURCE 200809L /* mkdir, clock_gettime */
#include "part_feeder_model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cdyn/design.h>

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

/* The design objective: one IVP per point (its own model and stepper: thread-safe). */
static int design_cost(void *ctx, int thread, const double *p, double *f, double *g)
{
    (void)ctx, (void)thread, (void)g;
    pf_result r;
    pf_run(p[0], p[1], PF_PALM_B_X, 1, NULL, &r);
    *f = pf_cost(&r);
    return r.st != CDYN_OK;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* One sweep of a G x G grid over [lo, hi] on two threads; the best point into best (2), its cost
 * returned (INFINITY when every run failed). */
static double sweep(int G, const double *lo, const double *hi, double *best, int *runs)
{
    double pts[2 * 81], vals[81];
    int ok[81], b = -1;
    for (int i = 0; i < G * G; i++) {
        pts[2 * i] = lo[0] + (hi[0] - lo[0]) * (i % G) / (G - 1);
        pts[2 * i + 1] = lo[1] + (hi[1] - lo[1]) * (i / G) / (G - 1);
    }
    cdyn_design_options o;
    cdyn_design_defaults(&o);
    o.threads = 2;
    cdyn_report rep;
    if (cdyn_design_sweep(2, design_cost, NULL, G * G, pts, vals, ok, &o, &rep) != CDYN_OK)
        return INFINITY;
    *runs += G * G;
    for (int i = 0; i < G * G; i++)
        if (ok[i] && (b < 0 || vals[i] < vals[b]))
            b = i;
    if (b < 0)
        return INFINITY;
    best[0] = pts[2 * b], best[1] = pts[2 * b + 1];
    return vals[b];
}

/* (b): the design problem over the paper's box, palm at 1.7. The cost is rough on the millimetre
 * scale (where the part first touches the tab moves by whole time steps; a projected BFGS with
 * central differences measured projected gradients of ~300 and stalled), so the design is found
 * by sweeps on two threads: a 7 x 7 grid over the box, then a 5 x 5 grid over the cell around
 * the best point, twice. Returns nonzero when a check fails. */
static int design(const char *dir)
{
    const double box_lo[2] = {4.75, 4.75}, box_hi[2] = {5.25, 5.25};
    double lo[2], hi[2], p[2] = {5.0, 5.0}, cost[3], at[3][2];
    int runs = 0;
    const double t0 = now();
    cost[0] = sweep(7, box_lo, box_hi, p, &runs);
    at[0][0] = p[0], at[0][1] = p[1];
    double cell = (box_hi[0] - box_lo[0]) / 6;
    for (int level = 1; level < 3; level++) {
        for (int i = 0; i < 2; i++) {
            lo[i] = fmax(box_lo[i], p[i] - cell);
            hi[i] = fmin(box_hi[i], p[i] + cell);
        }
        double q[2];
        cost[level] = sweep(5, lo, hi, q, &runs);
        if (cost[level] <= cost[level - 1])
            p[0] = q[0], p[1] = q[1];
        else
            cost[level] = cost[level - 1];
        at[level][0] = p[0], at[level][1] = p[1];
        cell /= 2;
    }
    const double elapsed = now() - t0;
    pf_result r;
    char path[1024];
    snprintf(path, sizeof path, "%s/part_feeder_design.csv", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "part_feeder: cannot write %s\n", path);
        return 1;
    }
    fprintf(f, "t,x,y,theta,lambda_palm,lambda_tab\n");
    pf_run(p[0], p[1], PF_PALM_B_X, 1, f, &r);
    if (fclose(f) != 0) {
        fprintf(stderr, "part_feeder: write error in %s\n", path);
        return 1;
    }
    printf("(b) design: the part to rest at x = %.1f on the palm at %.1f, turned over; "
           "4.75 <= x_p, y_p <= 5.25\n\n", PF_TARGET_X, PF_PALM_B_X);
    printf("| step | best design (x_p, y_p) | cost |\n|---|---|---|\n");
    const char *name[3] = {"7 x 7 sweep of the box", "5 x 5 sweep, +-1 cell", "5 x 5 sweep, "
                           "+-1/2 cell"};
    for (int k = 0; k < 3; k++)
        printf("| %s | (%.4f, %.4f) | %.4g |\n", name[k], at[k][0], at[k][1], cost[k]);
    printf("\nDesign found: (x_p, y_p) = (%.4f, %.4f): the part rests at x = %.4f (target %.1f), "
           "orientation %.4f rad (turned over: pi); %d IVPs of %d steps in %.1f s on 2 threads. "
           "Paper (its own geometry): (4.9322, 5.1123), ~1000 IVPs of 1500 steps, 2-3 s.\n",
           p[0], p[1], r.x, PF_TARGET_X, pf_wrap(r.theta), runs, (int)lround(PF_T_END / PF_H),
           elapsed);
    /* the design must improve on the paper's (5, 5), and leave the part turned over and near
     * the target */
    pf_result r55;
    pf_run(5.0, 5.0, PF_PALM_B_X, 1, NULL, &r55);
    const int good = r.st == CDYN_OK && pf_cost(&r) < pf_cost(&r55) &&
                     fabs(r.x - PF_TARGET_X) < 0.1 &&
                     fabs(fabs(pf_wrap(r.theta)) - 3.14159265358979) < 1e-2;
    if (!good)
        fprintf(stderr, "part_feeder: (b) the design does not reach the target\n");
    return !good;
}

int main(int argc, char **argv)
{
    const char *dir = "out";
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else {
            fprintf(stderr, "usage: part_feeder [--out DIR] [--quick]\n");
            return 2;
        }
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "part_feeder: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    int bad = ivp(dir);
    if (!quick)
        bad |= design(dir);
    return bad;
}
