/* Song, Kumar & Pang, Sec. IV.A, the billiard BVPs (their table and Fig. 4): the ball of
 * examples/billiard.c (r = 0.05, m = 0.2, mu = 0.2, g = 9.8, K = 1e4 I, gamma = 1e-4, h = 0.01,
 * N = 100) with the spin w0 = (40, -20, -10) given and the launch velocity (v_x, v_y) unknown:
 *   consistency: the end position taken from the IVP launched at (1, 0.5): the BVP must recover
 *                the IVP's launch velocity (the paper: "identical to the IVP");
 *   Fig. 4:      the ball sent to (1, -0.1) m at T = 1 s (the paper: a higher initial speed).
 * Both with the smoothed NCP friction rows and with the friction QP inside the iteration
 * (Proposition 1; the IVP then uses it too).
 * Our conditions: the start fixed but (v_x, v_y) (the paper leaves x0, y0 free and fixes their
 * difference to the end; with the plane invariant under translation this is the same problem),
 * and the end position (x, y) fixed; the paper's rolling end velocities hold at the solution and
 * are checked.
 *
 *   billiard_bvp [--out DIR]
 *
 * Writes DIR/billiard_bvp.csv (t, x, y for both problems) and prints the table of
 * docs/examples.md. Exit 1 on failure or when the consistency check misses by more than 1e-6. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cdyn/cdyn.h>

#include "billiard_ball.h"

#define R BALL_R
#define NSTEPS 100 /* steps of 0.01 s: T = 1 s */

static const double V0[6] = {1, 0.5, 0, 40, -20, -10};

typedef struct result {
    double vx, vy, xN, yN, roll; /* roll: max |rolling condition| at the end */
    double seconds;
    int iterations, unknowns, nonzeros, steps;
} result;

/* BVP to the end position (xe, ye) from the guess (vx, vy); the trajectory stays in traj. */
static int solve(const cdyn_model *m, cdyn_state **traj, double xe, double ye, double vx, double vy,
                 int friction_qp, result *out)
{
    /* x = (q 7, v 6, delta 3): all fixed at the start but v_x, v_y; x_N, y_N at the end */
    int fixed0[16], fixedN[16] = {0};
    double value0[16] = {0}, valueN[16] = {0};
    for (int i = 0; i < 16; i++)
        fixed0[i] = !(i == 7 || i == 8);
    value0[2] = R;
    value0[3] = 1.0;
    memcpy(value0 + 7, V0, sizeof V0);
    fixedN[0] = fixedN[1] = 1;
    valueN[0] = xe;
    valueN[1] = ye;
    cdyn_bvp_conditions bc = {fixed0, fixedN, value0, valueN, 0, NULL, NULL, NULL, NULL};
    cdyn_bvp_options o;
    cdyn_bvp_defaults(&o);
    o.N = NSTEPS;
    o.step.h = 0.01;
    o.step.mcp.max_iter = 200;
    o.step.friction_qp = friction_qp;
    cdyn_state *x0 = traj[0];
    memset(x0->q, 0, 7 * sizeof(double));
    x0->q[2] = R;
    x0->q[3] = 1.0;
    memcpy(x0->v, V0, sizeof V0);
    x0->v[0] = vx;
    x0->v[1] = vy;
    memset(x0->delta, 0, 3 * sizeof(double));
    memset(x0->lambda, 0, 3 * sizeof(double));
    cdyn_bvp_report rep;
    const clock_t c0 = clock();
    const cdyn_status st = cdyn_bvp_solve(m, &o, &bc, traj, &rep);
    out->seconds = (double)(clock() - c0) / CLOCKS_PER_SEC;
    if (st != CDYN_OK) {
        fprintf(stderr, "billiard_bvp: %s: %s\n", cdyn_status_str(st), rep.solver.message);
        return 1;
    }
    const cdyn_state *e = traj[NSTEPS];
    out->vx = traj[0]->v[0];
    out->vy = traj[0]->v[1];
    out->xN = e->q[0];
    out->yN = e->q[1];
    out->roll = fmax(fabs(e->v[0] - R * e->v[4]), fabs(e->v[1] + R * e->v[3]));
    out->iterations = rep.solver.iterations;
    out->unknowns = rep.unknowns;
    out->nonzeros = rep.nonzeros;
    out->steps = rep.continuation_steps;
    return 0;
}

/* DIR/billiard_bvp.csv: t, x, y of both BVPs. Returns nonzero on failure. */
static int write_csv(const char *dir, cdyn_state **a, cdyn_state **b)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/billiard_bvp.csv", dir);
    FILE *csv = fopen(path, "w");
    if (csv == NULL) {
        fprintf(stderr, "billiard_bvp: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    fprintf(csv, "t,x_consistency,y_consistency,x_fig4,y_fig4\n");
    for (int l = 0; l <= NSTEPS; l++)
        fprintf(csv, "%.2f,%.8f,%.8f,%.8f,%.8f\n", a[l]->t, a[l]->q[0], a[l]->q[1], b[l]->q[0],
                b[l]->q[1]);
    if (fclose(csv) != 0) {
        fprintf(stderr, "billiard_bvp: write error in %s\n", path);
        return 1;
    }
    return 0;
}

/* The consistency check and Fig. 4 with the NCP friction rows (qp = 0) or the friction QP: the
 * IVP the consistency check takes its end from, both BVPs, the table rows and (qp = 0) the CSV.
 * Returns nonzero on failure. */
static int billiard_pair(const cdyn_model *m, int qp, cdyn_state **a, cdyn_state **b,
                         const char *dir)
{
    cdyn_report rep;
    int bad = 0;
    /* The IVP the consistency check takes its end from. */
    cdyn_step_options so;
    cdyn_step_defaults(&so, CDYN_SCHEME_IMPLICIT_NCP);
    so.friction_qp = qp;
    cdyn_stepper *s = NULL;
    cdyn_state *x = NULL;
    if (cdyn_stepper_create(m, &so, &s, &rep) != CDYN_OK ||
        cdyn_state_create(m, NULL, &x, &rep) != CDYN_OK) {
        fprintf(stderr, "billiard_bvp: %s\n", rep.message);
        bad = 1;
    }
    result c = {0}, f = {0};
    if (!bad) {
        x->q[2] = R;
        memcpy(x->v, V0, sizeof V0);
        for (int l = 0; l < NSTEPS && !bad; l++) {
            cdyn_step_report sr;
            if (cdyn_step(s, NULL, x, &sr) != CDYN_OK) {
                fprintf(stderr, "billiard_bvp: IVP step %d: %s\n", l, sr.solver.message);
                bad = 1;
            }
        }
    }
    if (!bad) {
        bad |= solve(m, a, x->q[0], x->q[1], 0.9, 0.6, qp, &c);
        bad |= solve(m, b, 1.0, -0.1, 1.0, 0.5, qp, &f);
    }
    if (!bad) {
        const char *fr = qp ? "QP" : "NCP rows";
        printf("| consistency | %s | (%.4f, %.4f) | (%.8f, %.8f) | %.1e | %d | %d | %d | %.3f | "
               "recovers the IVP's (1, 0.5); 2300 unknowns, PATH < 2 s (2006) |\n", fr, c.xN, c.yN,
               c.vx, c.vy, c.roll, c.unknowns, c.nonzeros, c.iterations, c.seconds);
        printf("| Fig. 4 | %s | (%.4f, %.4f) | (%.4f, %.4f) | %.1e | %d | %d | %d | %.3f | "
               "a higher initial speed than (1, 0.5) |\n", fr, f.xN, f.yN, f.vx, f.vy, f.roll,
               f.unknowns, f.nonzeros, f.iterations, f.seconds);
        if (fabs(c.vx - 1.0) > 1e-6 || fabs(c.vy - 0.5) > 1e-6) {
            fprintf(stderr, "billiard_bvp: the consistency check misses the IVP's launch velocity\n");
            bad = 1;
        }
        if (!(hypot(f.vx, f.vy) > hypot(1.0, 0.5))) {
            fprintf(stderr, "billiard_bvp: Fig. 4's launch is not faster than the IVP's\n");
            bad = 1;
        }
    }
    if (!bad && !qp) /* the CSV holds the NCP rows' trajectories */
        bad = write_csv(dir, a, b);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    return bad;
}

int main(int argc, char **argv)
{
    const char *dir = "out";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            dir = argv[++i];
        else {
            fprintf(stderr, "usage: billiard_bvp [--out DIR]\n");
            return 2;
        }
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "billiard_bvp: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    cdyn_report rep;
    cdyn_model *m = billiard_ball_model(1e4, &rep);
    if (m == NULL) {
        fprintf(stderr, "billiard_bvp: model: %s\n", rep.message);
        return 1;
    }
    cdyn_state **a = calloc(NSTEPS + 1, sizeof *a), **b = calloc(NSTEPS + 1, sizeof *b);
    int bad = a == NULL || b == NULL;
    for (int l = 0; !bad && l <= NSTEPS; l++)
        bad = cdyn_state_create(m, NULL, &a[l], NULL) != CDYN_OK ||
              cdyn_state_create(m, NULL, &b[l], NULL) != CDYN_OK;
    if (!bad) {
        printf("Billiard BVPs (Song-Kumar-Pang Sec. IV.A, Fig. 4): N = %d, h = 0.01 s, spin (40, "
               "-20, -10) given; friction by the smoothed NCP rows (gamma = 1e-4) and by the "
               "friction QP (Proposition 1)\n\n", NSTEPS);
        printf("| problem | friction | end (x, y) (m) | launch (v_x, v_y) found (m/s) | rolling at "
               "the end | unknowns | nonzeros | Newton iterations | time (s) | paper |\n"
               "|---|---|---|---|---|---|---|---|---|---|\n");
    }
    for (int qp = 0; qp <= 1 && !bad; qp++)
        bad = billiard_pair(m, qp, a, b, dir);
    for (int l = 0; l <= NSTEPS; l++) {
        cdyn_state_free(a != NULL ? a[l] : NULL);
        cdyn_state_free(b != NULL ? b[l] : NULL);
    }
    free(a);
    free(b);
    cdyn_model_free(m);
    return bad;
}
