/* The billiard shot planner of examples/billiard_shot.c (examples/billiard_shot_plan.c) on a
 * shorter shot (N = 40 steps of 0.01 s): Levenberg-Marquardt with the Jacobian chained from the
 * per-step derivatives reaches the target (the rollout's own end, recomputed); the adjoint
 * Jacobian matches central differences of whole rollouts to 1e-6 relative where no step is near
 * a switch (the margins say so); the rolling velocity matches the closed form of a sphere on a
 * plane. CDYN_TEST_VERBOSE=1 prints the measured values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "billiard_ball.h"
#include "billiard_shot_plan.h"
#include "model_support.h"

#define N_STEPS 40
#define H 0.01

/* at T = 0.4 s at (0.15, 0.06) m rolling at (0.3, 0.1) m/s: the rigid ball slides for about
   0.2 s (x(T) - v T = 1/2 mu g t*^2 u), so the shot slides, then rolls */
static const double TARGET[SHOT_NR] = {0.15, 0.06, 0.3, 0.1};

typedef struct fixture {
    cdyn_model *m;
    shot_planner *P;
} fixture;

static int setup(void **state)
{
    static fixture f;
    cdyn_report rep;
    char msg[CDYN_REPORT_TEXT + 64];
    f.m = billiard_ball_model(1e4, &rep);
    if (f.m == NULL)
        return -1;
    /* Newton tolerance 1e-12: the central differences carry the solves' error over eps */
    f.P = shot_planner_create(f.m, N_STEPS, H, TARGET, 1e-12, msg, sizeof msg);
    if (f.P == NULL)
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    shot_planner_free(f->P);
    cdyn_model_free(f->m);
    return 0;
}

/* max over columns of max_i |J - F| / max_i |F| */
static double rel_diff(const double *J, const double *F)
{
    double worst = 0;
    for (int j = 0; j < SHOT_NP; j++) {
        double d = 0, big = 0;
        for (int i = 0; i < SHOT_NR; i++) {
            d = fmax(d, fabs(J[i * SHOT_NP + j] - F[i * SHOT_NP + j]));
            big = fmax(big, fabs(F[i * SHOT_NP + j]));
        }
        assert_true(big > 0);
        worst = fmax(worst, d / big);
    }
    return worst;
}

/* The adjoint Jacobian at p against central differences of rollouts (eps 1e-6 m/s, 2e-5 rad/s),
 * on a rollout that slides, then rolls, with every step away from its switches. */
static void gradient_matches(shot_planner *P, const double *p, const char *where)
{
    double r[SHOT_NR], J[SHOT_NR * SHOT_NP], F[SHOT_NR * SHOT_NP];
    shot_margins mg;
    assert_int_equal(shot_rollout(P, p, r, J, &mg, NULL, 0, NULL, NULL), CDYN_OK);
    assert_int_equal(shot_fd_jacobian(P, p, 1e-6, F), CDYN_OK);
    /* through the switch: slipping at the start, rolling before the end */
    assert_true(mg.roll_step >= 1 && mg.roll_step < N_STEPS - 1);
    /* away from it: no pair at its switch, slip and cone margins far above what a perturbation
       of 1e-6 m/s moves them */
    assert_int_equal(mg.degenerate, 0);
    assert_true(mg.slip > 1e-3);
    assert_true(mg.cone > 1e-3);
    const double rel = rel_diff(J, F);
    if (tm_verbose())
        printf("%-10s rolling from step %d, slip margin %.3g m/s, cone margin %.3g: adjoint vs "
               "central differences %.2e\n", where, mg.roll_step + 1, mg.slip, mg.cone, rel);
    assert_true(rel <= 1e-6);
}

static void test_gradient_at_start(void **state)
{
    fixture *f = *state;
    const double p[SHOT_NP] = {0.5, 0.2, 10, -5}; /* some spin: every column of J is nonzero */
    gradient_matches(f->P, p, "start");
}

static void test_reaches_target(void **state)
{
    fixture *f = *state;
    const double T = N_STEPS * H;
    double p[SHOT_NP] = {TARGET[0] / T, TARGET[1] / T, 0, 0}; /* straight at it, no spin */
    shot_log log;
    const cdyn_status st = shot_optimize(f->P, p, 1e-9, &log);
    if (st != CDYN_OK)
        fail_msg("shot_optimize: %s", shot_planner_message(f->P));
    assert_true(log.n >= 2 && log.cost[log.n - 1] < log.cost[0]);
    /* the rollout's own end, recomputed from the launch found */
    double r[SHOT_NR];
    shot_margins mg;
    assert_int_equal(shot_rollout(f->P, p, r, NULL, &mg, NULL, 0, NULL, NULL), CDYN_OK);
    const double err = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    /* closed form: the contact's impulse has no moment about the contact point, so
       m R (v_x, v_y) + I (w_y, -w_x) is conserved, and rolling starts at
       (5 v0 + 2 R (w_y, -w_x)) / 7 (the implicit step conserves it exactly: 1e-9 is the solves'
       error) */
    const double vx = (5 * p[0] + 2 * BALL_R * p[3]) / 7, vy = (5 * p[1] - 2 * BALL_R * p[2]) / 7;
    const double roll = hypot(TARGET[2] + r[2] / T - vx, TARGET[3] + r[3] / T - vy);
    if (tm_verbose())
        printf("target reached in %d iterations (%d rollouts): |r| %.2e m, launch (%.6f, %.6f, "
               "%.4f, %.4f), rolling from step %d, closed form off by %.1e m/s\n", log.n - 1,
               log.rollouts, err, p[0], p[1], p[2], p[3], mg.roll_step + 1, roll);
    assert_true(err <= 1e-9);
    assert_true(roll <= 1e-9);
    gradient_matches(f->P, p, "optimum");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gradient_at_start),
        cmocka_unit_test(test_reaches_target),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
