/* Song, Kumar & Pang, Sec. IV.B, Fig. 5: a BVP through frictional impacts. The billiard ball
 * (r = 0.05 m, m = 0.2 kg, mu = 0.2, K = 1e4 N/m, no damping, g = 9.8) starts at
 * (x, y, z) = (0, 0, 0.6) without spin and must be at x = 0.4, z = 0.4 at T = 0.45 s; the launch
 * velocities v_x0 and v_z0 are the unknowns, with v_z0 <= 0 (the paper's choice of the solution
 * class with impacts: the ball must bounce off the table to get back up to 0.4 m).
 *
 *   ball_impacts [--out DIR]
 *
 * Solved by single shooting (cdyn_bvp_shoot) with the friction QP, h = 0.1 ms (N = 4500). With
 * h = 1 ms the end height is a sawtooth in v_z0 (the backward-Euler damping of the bounce depends
 * on where the contact starts on the time grid; docs/theory.md) and Newton's method stalls.
 * Checked: the end conditions to 1e-9 m; v_z0 <= 0 and one impact; the spin the impact leaves
 * against the impulse balance: the table's friction impulse P_t alone changes both m v_x and
 * I w_y (it acts r below the centre), so w_y(T) = -(5/2)(v_x(T) - v_x0)/r (solid ball,
 * I = 2/5 m r^2) whatever the slip history. About 20 s: not a ctest (tests/test_bvp.c checks
 * the shooting itself).
 * Writes DIR/ball_impacts.csv (t, x, z, v_x, v_z, w_y, lambda_n). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cdyn/cdyn.h>

#include "billiard_ball.h"

#define R BALL_R
#define NSTEPS 4500
#define T_END 0.45

int main(int argc, char **argv)
{
    const char *dir = "out";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else {
            fprintf(stderr, "usage: ball_impacts [--out DIR]\n");
            return 2;
        }
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "ball_impacts: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    cdyn_report rep;
    cdyn_model *m = billiard_ball_model(1e4, &rep);
    if (m == NULL) {
        fprintf(stderr, "ball_impacts: model: %s\n", rep.message);
        return 1;
    }
    cdyn_state **traj = calloc(NSTEPS + 1, sizeof *traj);
    int bad = traj == NULL;
    for (int l = 0; !bad && l <= NSTEPS; l++)
        bad = cdyn_state_create(m, NULL, &traj[l], &rep) != CDYN_OK;
    if (bad) {
        fprintf(stderr, "ball_impacts: out of memory\n");
        goto done;
    }
    /* x = (q 7, v 6, delta 3): the start fixed but v_x, v_z (v_z <= 0); x and z at the end */
    int fixed0[16], fixedN[16] = {0};
    double value0[16] = {0}, valueN[16] = {0}, lower0[16], upper0[16];
    for (int i = 0; i < 16; i++) {
        fixed0[i] = !(i == 7 || i == 9);
        lower0[i] = -INFINITY, upper0[i] = INFINITY;
    }
    upper0[9] = 0.0;
    value0[2] = 0.6, value0[3] = 1.0;
    fixedN[0] = fixedN[2] = 1;
    valueN[0] = 0.4, valueN[2] = 0.4;
    cdyn_bvp_conditions bc = {fixed0, fixedN, value0, valueN, 0, NULL, NULL, lower0, upper0};
    cdyn_bvp_options o;
    cdyn_bvp_defaults(&o);
    o.N = NSTEPS;
    o.step.h = T_END / NSTEPS;
    o.step.friction_qp = 1;
    o.step.mcp.max_iter = 200;
    traj[0]->q[2] = 0.6, traj[0]->q[3] = 1.0;
    traj[0]->v[0] = 0.9, traj[0]->v[2] = -1.0; /* the start of the iteration */
    cdyn_bvp_report br;
    const cdyn_status st = cdyn_bvp_shoot(m, &o, &bc, traj, &br);
    if (st != CDYN_OK) {
        fprintf(stderr, "ball_impacts: %s: %s\n", cdyn_status_str(st), br.solver.message);
        bad = 1;
        goto done;
    }
    const cdyn_state *e = traj[NSTEPS];
    int impacts = 0, was = 0;
    double zmin = INFINITY, lmax = 0;
    for (int l = 0; l <= NSTEPS; l++) {
        const int c = traj[l]->lambda[0] > 0;
        impacts += c && !was;
        was = c;
        zmin = fmin(zmin, traj[l]->q[2]);
        lmax = fmax(lmax, traj[l]->lambda[0]);
    }
    const double vx0 = traj[0]->v[0], vz0 = traj[0]->v[2];
    const double spin_balance = -2.5 * (e->v[0] - vx0) / R;
    printf("Ball with impacts (Song-Kumar-Pang Fig. 5): from (0, 0.6) to (0.4, 0.4) m at T = %.2f s, "
           "v_z0 <= 0; single shooting, h = %.1f ms, N = %d\n\n", T_END, 1e3 * T_END / NSTEPS, NSTEPS);
    printf("| quantity | computed | expected |\n|---|---|---|\n");
    printf("| launch (v_x0, v_z0) | (%.5f, %.5f) m/s | v_z0 <= 0 |\n", vx0, vz0);
    printf("| end (x, z) | (%.10f, %.10f) m | (0.4, 0.4) |\n", e->q[0], e->q[2]);
    printf("| impacts | %d (lowest centre %.4f m, peak force %.1f N) | the bounce class |\n",
           impacts, zmin, lmax);
    printf("| spin at T, w_y | %.6f rad/s | -(5/2)(v_x(T) - v_x0)/r = %.6f rad/s |\n", e->v[4],
           spin_balance);
    printf("| Newton iterations (shooting) | %d (%d inner) | |\n\n", br.solver.iterations,
           br.solver.evaluations);
    const int ok = fabs(e->q[0] - 0.4) <= 1e-9 && fabs(e->q[2] - 0.4) <= 1e-9 && vz0 <= 0 &&
                   impacts == 1 && fabs(e->v[4] - spin_balance) <= 1e-6 * fabs(spin_balance);
    if (!ok) {
        fprintf(stderr, "ball_impacts: a check failed\n");
        bad = 1;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/ball_impacts.csv", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "ball_impacts: cannot write %s: %s\n", path, strerror(errno));
        bad = 1;
        goto done;
    }
    fprintf(f, "t,x,z,v_x,v_z,w_y,lambda_n\n");
    for (int l = 0; l <= NSTEPS; l += 5)
        fprintf(f, "%.5f,%.8f,%.8f,%.8f,%.8f,%.8f,%.6g\n", traj[l]->t, traj[l]->q[0],
                traj[l]->q[2], traj[l]->v[0], traj[l]->v[2], traj[l]->v[4], traj[l]->lambda[0]);
    if (fclose(f) != 0) {
        fprintf(stderr, "ball_impacts: write error in %s\n", path);
        bad = 1;
    }
done:
    for (int l = 0; traj != NULL && l <= NSTEPS; l++)
        cdyn_state_free(traj[l]);
    free(traj);
    cdyn_model_free(m);
    return bad;
}
