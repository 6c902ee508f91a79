/* A billiard shot planned through sliding and rolling with the per-step derivatives only
 * (issue 19, item 4; cdyn/deriv.h). Song-Kumar-Pang's ball (billiard_ball.h: r = 0.05 m,
 * m = 0.2 kg, mu = 0.2, K = 1e4 I, implicit scheme with the friction QP, h = 0.01 s) is launched
 * from the origin with the cue's velocity and spin p = (v_x, v_y, w_x, w_y); after N = 100 steps
 * (T = 1 s) it must be at the target (0.5, 0.2) m rolling at (0.3, 0) m/s. Levenberg-Marquardt
 * on the terminal error, its Jacobian from the rollout's own steps: A_k = dx_{k+1}/dx_k after
 * every cdyn_step, chained backward (adjoint; billiard_shot_plan.h). Printed and checked:
 *
 *   - the cost per iteration and the final error (tolerance 1e-9 m);
 *   - the adjoint Jacobian against central differences of whole rollouts (2 n_p rollouts), at
 *     the start and at the optimum, away from the slide -> roll switch (relative 1e-6), and the
 *     time of each (the exact gradient: one rollout with its derivative calls; central
 *     differences: 2 n_p + 1 rollouts);
 *   - the rolling velocity against the closed form for a sphere on a plane: the contact force
 *     has no moment about the contact point, so m r x v + I w is conserved there and rolling
 *     starts at v_roll = (5 v0 + 2 R (w_y, -w_x)) / 7 (5/7 v0 without spin);
 *   - the launch against the whole-trajectory BVP (cdyn_bvp_solve: a second solver of the same
 *     discrete equations, from the same start);
 *   - (shown) the rigid closed-form shot for the same target (h -> 0, K -> infinity).
 *
 *   billiard_shot [--out DIR]
 *
 * Writes DIR/billiard_shot_iterations.csv (iteration, cost, |r|, mu, launch) and
 * DIR/billiard_shot_paths.csv (every iterate's path: iteration, t, x, y, v_x, v_y, slip speed,
 * mode). Exit status 1 when a run fails or a check is out of tolerance. */
#define _POSIX_C_SOURCE 200809L /* mkdir, clock_gettime (CPU time) */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cdyn/cdyn.h>

#include "billiard_ball.h"
#include "billiard_shot_plan.h"

#define N_STEPS 100
#define H 0.01
#define TOL_TARGET 1e-9 /* m: |r| at the end */
#define TOL_GRAD 1e-6   /* relative: adjoint against central differences */
#define TOL_ROLL 1e-9   /* m/s: rolling velocity against the closed form. The implicit step
                           conserves m r x v + I w about the contact point exactly (its impulses
                           act at the sphere's surface point below the centre, gravity and the
                           normal force are vertical): what remains is the solves' error */
#define TOL_BVP 1e-8    /* m/s (spins times R): launch against the BVP's, the same discrete
                           equations solved to 1e-12 */
#define EPS_FD 1e-6     /* m/s: central-difference step of the velocities (spins: / R) */
#define REPEATS 15 /* timings: best of */

static const double TARGET[SHOT_NR] = {0.5, 0.2, 0.3, 0.0}; /* x*, y* (m), v_x*, v_y* (m/s) */

/* CPU seconds of this process: the machine is shared, and wall-clock times of a few ms catch
   the scheduler's time slices of other processes (4 ms stalls at random steps) */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* max over columns j of max_i |J - F| / max_i |F| (the columns have different units) */
static double jac_rel_diff(const double *J, const double *F)
{
    double worst = 0;
    for (int j = 0; j < SHOT_NP; j++) {
        double d = 0, big = 0;
        for (int i = 0; i < SHOT_NR; i++) {
            d = fmax(d, fabs(J[i * SHOT_NP + j] - F[i * SHOT_NP + j]));
            big = fmax(big, fabs(F[i * SHOT_NP + j]));
        }
        worst = fmax(worst, d / big);
    }
    return worst;
}

/* The rigid ball's shot to the target (closed form): sliding ends at t* with the centre's
 * deceleration mu g along the slip's direction u, then it rolls at v_roll = target velocity, so
 * x(T) = v_roll T + 1/2 mu g t*^2 u: u and t* from the target; s0 = 3.5 mu g t* u, v0 = v_roll +
 * (2/7) s0, and s0 = (v_x - R w_y, v_y + R w_x). */
static void rigid_shot(double *p, double *tstar)
{
    const double T = N_STEPS * H, dx = TARGET[0] - TARGET[2] * T, dy = TARGET[1] - TARGET[3] * T;
    const double d = hypot(dx, dy), a = BALL_MU * BALL_G;
    *tstar = sqrt(2 * d / a);
    const double s = 3.5 * a * *tstar, sx = s * dx / d, sy = s * dy / d;
    p[0] = TARGET[2] + sx / 3.5;
    p[1] = TARGET[3] + sy / 3.5;
    p[2] = (sy - p[1]) / BALL_R;
    p[3] = (p[0] - sx) / BALL_R;
}

static FILE *open_csv(const char *dir, const char *name, const char *header)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        fprintf(stderr, "billiard_shot: cannot write %s: %s\n", path, strerror(errno));
    else
        fprintf(f, "%s\n", header);
    return f;
}

static const char *verdict(int ok)
{
    return ok ? "pass" : "FAIL";
}

/* The same shot as one boundary-value problem (cdyn_bvp_solve: all N steps' equations and the
 * end conditions in one sparse Newton system, a second solver of the same discrete equations)
 * from the launch guess p; its launch into pb. 0 on failure. */
static int bvp_shot(const cdyn_model *m, const double *p, double *pb, double *seconds)
{
    /* x = (q 7, v 6, delta 3): fixed at the start but v_x, v_y, w_x, w_y; x, y, v_x, v_y at
       the end */
    const int free0[SHOT_NP] = {7, 8, 10, 11};
    int fixed0[16], fixedN[16] = {0};
    double value0[16] = {0}, valueN[16] = {0};
    for (int i = 0; i < 16; i++)
        fixed0[i] = i != 7 && i != 8 && i != 10 && i != 11;
    value0[2] = BALL_R;
    value0[3] = 1.0;
    fixedN[0] = fixedN[1] = fixedN[7] = fixedN[8] = 1;
    valueN[0] = TARGET[0];
    valueN[1] = TARGET[1];
    valueN[7] = TARGET[2];
    valueN[8] = TARGET[3];
    cdyn_bvp_conditions bc = {fixed0, fixedN, value0, valueN, 0, NULL, NULL, NULL, NULL};
    cdyn_bvp_options o;
    cdyn_bvp_defaults(&o);
    o.N = N_STEPS;
    o.step.h = H;
    o.step.mcp.tol = 1e-12;
    o.step.mcp.max_iter = 200;
    cdyn_state *traj[N_STEPS + 1] = {0};
    int ok = 1;
    for (int l = 0; l <= N_STEPS && ok; l++)
        ok = cdyn_state_create(m, NULL, &traj[l], NULL) == CDYN_OK;
    if (ok) {
        cdyn_bvp_state_unpack(m, value0, traj[0]);
        for (int j = 0; j < SHOT_NP; j++)
            traj[0]->v[free0[j] - 7] = p[j];
        cdyn_bvp_report rep;
        const double t0 = now();
        const cdyn_status st = cdyn_bvp_solve(m, &o, &bc, traj, &rep);
        *seconds = now() - t0;
        if (st != CDYN_OK) {
            fprintf(stderr, "billiard_shot: BVP: %s: %s\n", cdyn_status_str(st),
                    rep.solver.message);
            ok = 0;
        }
        for (int j = 0; j < SHOT_NP; j++)
            pb[j] = traj[0]->v[free0[j] - 7];
    }
    for (int l = 0; l <= N_STEPS; l++)
        cdyn_state_free(traj[l]);
    return ok;
}

/* Times of the two gradients at p (best of REPEATS): the adjoint (one rollout with its
 * derivative calls) and central differences (2 n_p + 1 rollouts). */
static int time_gradients(shot_planner *P, const double *p, double *t_adj, double *t_fd,
                          double *t_steps, double *t_derivs)
{
    double r[SHOT_NR], J[SHOT_NR * SHOT_NP];
    *t_adj = *t_fd = INFINITY;
    for (int k = 0; k < REPEATS; k++) {
        double ts = 0, td = 0, t0 = now();
        if (shot_rollout(P, p, r, J, NULL, NULL, 0, &ts, &td) != CDYN_OK)
            return 0;
        const double t1 = now();
        if (shot_rollout(P, p, r, NULL, NULL, NULL, 0, NULL, NULL) != CDYN_OK ||
            shot_fd_jacobian(P, p, EPS_FD, J) != CDYN_OK)
            return 0;
        const double t2 = now();
        if (t1 - t0 < *t_adj) {
            *t_adj = t1 - t0;
            *t_steps = ts;
            *t_derivs = td;
        }
        *t_fd = fmin(*t_fd, t2 - t1);
    }
    return 1;
}

/* The adjoint Jacobian against central differences at p; prints one table row. */
static int check_gradient(shot_planner *P, const char *where, const double *p, double *rel)
{
    double r[SHOT_NR], J[SHOT_NR * SHOT_NP], F[SHOT_NR * SHOT_NP];
    shot_margins mg;
    if (shot_rollout(P, p, r, J, &mg, NULL, 0, NULL, NULL) != CDYN_OK ||
        shot_fd_jacobian(P, p, EPS_FD, F) != CDYN_OK) {
        printf("| %s | failed: %s | | | | |\n", where, shot_planner_message(P));
        return 0;
    }
    *rel = jac_rel_diff(J, F);
    /* the slip speed's rate of change near the switch is 3.5 mu g h per step: a margin well
       above what a perturbation of EPS_FD moves keeps every step on its side */
    const int away = mg.degenerate == 0 && mg.slip > 1e3 * EPS_FD && mg.cone > 1e-3;
    printf("| %s | %d | %.2e m/s | %.2e | %.2e | %s |\n", where, mg.roll_step + 1, mg.slip,
           mg.cone, *rel, verdict(away && *rel <= TOL_GRAD));
    return away && *rel <= TOL_GRAD;
}

int main(int argc, char **argv)
{
    const char *dir = "out";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            dir = argv[++i];
        else {
            fprintf(stderr, "usage: billiard_shot [--out DIR]\n");
            return 2;
        }
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "billiard_shot: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    cdyn_report rep;
    cdyn_model *m = billiard_ball_model(1e4, &rep);
    if (m == NULL) {
        fprintf(stderr, "billiard_shot: model: %s\n", rep.message);
        return 1;
    }
    char msg[CDYN_REPORT_TEXT + 64];
    /* Newton tolerance 1e-12: the central differences of the check carry the solves' error
       divided by their step (tests/test_step_derivs.c) */
    shot_planner *P = shot_planner_create(m, N_STEPS, H, TARGET, 1e-12, msg, sizeof msg);
    if (P == NULL) {
        fprintf(stderr, "billiard_shot: planner: %s\n", msg);
        cdyn_model_free(m);
        return 1;
    }
    int bad = 0;
    const double T = N_STEPS * H;
    /* start: straight at the target point, no spin */
    const double p0[SHOT_NP] = {TARGET[0] / T, TARGET[1] / T, 0, 0};
    double p[SHOT_NP];
    memcpy(p, p0, sizeof p);

    printf("Billiard shot through sliding and rolling (implicit scheme, friction QP, h = %g s, "
           "N = %d): launch (v_x, v_y, w_x, w_y) to reach (%.2f, %.2f) m rolling at (%.2f, %.2f) "
           "m/s at T = %g s\n\n", H, N_STEPS, TARGET[0], TARGET[1], TARGET[2], TARGET[3], T);
    shot_log log;
    const double t0 = now();
    const cdyn_status st = shot_optimize(P, p, TOL_TARGET, &log);
    const double t_opt = now() - t0;
    printf("| iteration | cost 1/2 |r|^2 (m^2) | |r| (m) | mu | v_x (m/s) | v_y (m/s) | "
           "w_x (rad/s) | w_y (rad/s) |\n|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < log.n; k++)
        printf("| %d | %.3e | %.3e | %.0e | %.6f | %.6f | %.4f | %.4f |\n", k, log.cost[k],
               log.norm[k], log.mu[k], log.p[k][0], log.p[k][1], log.p[k][2], log.p[k][3]);
    printf("\nLevenberg-Marquardt: %d iterations, %d rollouts with derivatives, %.3f s",
           log.n - 1, log.rollouts, t_opt);
    if (st != CDYN_OK) {
        printf(": %s (%s)\n", cdyn_status_str(st), shot_planner_message(P));
        bad = 1;
    } else {
        printf("\n");
    }

    /* the optimized shot: its path, its end and its rolling velocity */
    FILE *fi = open_csv(dir, "billiard_shot_iterations.csv", "iteration,cost,norm,mu,vx,vy,wx,wy");
    FILE *fp = open_csv(dir, "billiard_shot_paths.csv", "iteration,t,x,y,vx,vy,slip,mode");
    if (fi == NULL || fp == NULL)
        bad = 1;
    double r[SHOT_NR];
    shot_margins mg = {0};
    for (int k = 0; k < log.n && fi != NULL && fp != NULL; k++) {
        fprintf(fi, "%d,%.6e,%.6e,%.1e,%.10f,%.10f,%.10f,%.10f\n", k, log.cost[k], log.norm[k],
                log.mu[k], log.p[k][0], log.p[k][1], log.p[k][2], log.p[k][3]);
        if (shot_rollout(P, log.p[k], r, NULL, NULL, fp, k, NULL, NULL) != CDYN_OK)
            bad = 1;
    }
    if ((fi != NULL && fclose(fi) != 0) || (fp != NULL && fclose(fp) != 0)) {
        fprintf(stderr, "billiard_shot: write error in %s\n", dir);
        bad = 1;
    }
    double J[SHOT_NR * SHOT_NP];
    if (shot_rollout(P, p, r, J, &mg, NULL, 0, NULL, NULL) != CDYN_OK) {
        fprintf(stderr, "billiard_shot: %s\n", shot_planner_message(P));
        bad = 1;
    }
    const double pos_err = hypot(r[0], r[1]), vel_err = hypot(r[2], r[3]) / T;
    printf("\nFinal error: position %.2e m, velocity %.2e m/s (|r| %.2e m, tolerance %.0e m): "
           "%s\n", pos_err, vel_err, hypot(pos_err, T * vel_err), TOL_TARGET,
           verdict(st == CDYN_OK && hypot(pos_err, T * vel_err) <= TOL_TARGET));

    /* closed form: the rolling velocity from the optimized launch */
    const double vr[2] = {(5 * p[0] + 2 * BALL_R * p[3]) / 7, (5 * p[1] - 2 * BALL_R * p[2]) / 7};
    const double ve[2] = {TARGET[2] + r[2] / T, TARGET[3] + r[3] / T};
    const double roll_err = hypot(ve[0] - vr[0], ve[1] - vr[1]);
    printf("\n| check | computed | expected | difference | tolerance | verdict |\n"
           "|---|---|---|---|---|---|\n");
    printf("| rolling velocity (m/s), closed form (5 v0 + 2 R (w_y, -w_x)) / 7 | (%.8f, %.8f) | "
           "(%.8f, %.8f) | %.1e | %.0e | %s |\n", ve[0], ve[1], vr[0], vr[1], roll_err, TOL_ROLL,
           verdict(roll_err <= TOL_ROLL));
    bad |= roll_err > TOL_ROLL || st != CDYN_OK || hypot(pos_err, T * vel_err) > TOL_TARGET;
    double pb[SHOT_NP], t_bvp = 0;
    const int bvp_ok = bvp_shot(m, p0, pb, &t_bvp);
    double bvp_diff = 0;
    for (int j = 0; j < SHOT_NP; j++)
        bvp_diff = fmax(bvp_diff, fabs(pb[j] - p[j]) * (j < 2 ? 1 : BALL_R));
    printf("| launch against the whole-trajectory BVP (cdyn_bvp_solve from the same start, "
           "%.3f s) | (%.8f, %.8f, %.6f, %.6f) | (%.8f, %.8f, %.6f, %.6f) | %.1e m/s | %.0e m/s | "
           "%s |\n", t_bvp, p[0], p[1], p[2], p[3], pb[0], pb[1], pb[2], pb[3], bvp_diff,
           TOL_BVP, verdict(bvp_ok && bvp_diff <= TOL_BVP));
    bad |= !bvp_ok || bvp_diff > TOL_BVP;
    double pr[SHOT_NP], tstar;
    rigid_shot(pr, &tstar);
    printf("| launch against the rigid closed-form shot (shown) | (%.4f, %.4f, %.3f, %.3f) | "
           "(%.4f, %.4f, %.3f, %.3f) | %.1e m/s | | |\n", p[0], p[1], p[2], p[3], pr[0], pr[1],
           pr[2], pr[3], hypot(p[0] - pr[0], p[1] - pr[1]));
    printf("| rolling from (shown) | step %d (t = %.2f s) | t* = %.3f s (rigid) | | | |\n",
           mg.roll_step + 1, (mg.roll_step + 1) * H, tstar);

    /* the adjoint against central differences, and their times */
    printf("\n| Jacobian dr/dp at | rolling from step | slowest slip | cone margin | "
           "max rel. difference to central differences | verdict |\n|---|---|---|---|---|---|\n");
    double rel0, rel1;
    bad |= !check_gradient(P, "the start (no spin)", p0, &rel0);
    bad |= !check_gradient(P, "the optimum", p, &rel1);
    double t_adj, t_fd, t_steps = 0, t_derivs = 0;
    if (!time_gradients(P, p, &t_adj, &t_fd, &t_steps, &t_derivs)) {
        fprintf(stderr, "billiard_shot: timing: %s\n", shot_planner_message(P));
        bad = 1;
    } else {
        printf("\nGradient CPU time (best of %d): per-step derivatives %.2f ms (steps %.2f ms + "
               "derivative calls %.2f ms + adjoint), central differences %d rollouts %.2f ms: "
               "%.1fx faster (the step count alone predicts (2 n_p + 1) / (1 + derivative "
               "calls / steps) = %.1fx)\n", REPEATS, 1e3 * t_adj, 1e3 * t_steps, 1e3 * t_derivs,
               2 * SHOT_NP + 1, 1e3 * t_fd, t_fd / t_adj,
               (2 * SHOT_NP + 1) / (1 + t_derivs / t_steps));
    }
    shot_planner_free(P);
    cdyn_model_free(m);
    return bad;
}
