/* The whole-trajectory engine (src/bvp/bvp_engine.c) on a one-dimensional formulation: a mass
 * m above a compliant floor of stiffness k, backward Euler,
 *     y = (z, v, lambda),  F = (z - z_prev - h v,
 *                                v - v_prev - h (-g + lambda / m),
 *                                z + lambda / k)          with 0 <= lambda ⊥ z + lambda/k >= 0,
 * state x = (z, v). Checks: the analytic launch velocity of a flight without contact, the
 * boundary conditions at the solution, a second independent solution path (forward stepping
 * from the solved start reproduces the whole trajectory), user rows equal to fixed ends, start
 * bounds selecting one of two solution classes, and refusals. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bvp/bvp_engine.h"

#define G 9.81

typedef struct floor_ball {
    double h, m, k;
} floor_ball;

static const double LOWER[3] = {-INFINITY, -INFINITY, 0}, UPPER[3] = {INFINITY, INFINITY,
                                                                      INFINITY};
static const int JY_I[6] = {0, 0, 1, 1, 2, 2}, JY_J[6] = {0, 1, 1, 2, 0, 2};
static const int JX_I[2] = {0, 1}, JX_J[2] = {0, 1};

static int fb_F(void *ctx, int step, const double *xp, const double *y, double *F)
{
    const floor_ball *b = ctx;
    (void)step;
    F[0] = y[0] - xp[0] - b->h * y[1];
    F[1] = y[1] - xp[1] - b->h * (-G + y[2] / b->m);
    F[2] = y[0] + y[2] / b->k;
    return 0;
}

static int fb_J(void *ctx, int step, const double *xp, const double *y, double *jy, double *jx)
{
    const floor_ball *b = ctx;
    (void)step, (void)xp, (void)y;
    const double v[6] = {1, -b->h, 1, -b->h / b->m, 1, 1 / b->k};
    memcpy(jy, v, sizeof v);
    jx[0] = -1;
    jx[1] = -1;
    return 0;
}

static bvp_step_ops ops_for(floor_ball *b)
{
    bvp_step_ops o = {2, 3, LOWER, UPPER, 6, JY_I, JY_J, 2, JX_I, JX_J, fb_F, fb_J, b};
    return o;
}

/* z0 fixed, z_N fixed, v free at both ends: 2 conditions for 2 state components. */
static const int FIX0[2] = {1, 0}, FIXN[2] = {1, 0};

static char last_method[CDYN_REPORT_METHOD];
/* options.globalize of the next solves (the MCP's own stall remedies) */
static int globalize = 1;

static double *solve(floor_ball *b, int N, double z0, double zN, double v_guess,
                     const double *lower0, const double *upper0, cdyn_status *st_out)
{
    bvp_step_ops ops = ops_for(b);
    const double val0[2] = {z0, 0}, valN[2] = {zN, 0};
    bvp_spec spec = {N, FIX0, FIXN, val0, valN, 0, NULL, NULL, lower0, upper0};
    bvp_engine *e = NULL;
    cdyn_report rep;
    cdyn_mcp_options o;
    cdyn_mcp_defaults(&o);
    o.max_iter = 200;
    o.globalize = globalize;
    assert_int_equal(bvp_engine_create(&ops, &spec, &o, &e, &rep), CDYN_OK);
    assert_int_equal(bvp_engine_size(e), 2 + 3 * N);
    double *z = calloc((size_t)bvp_engine_size(e), sizeof(double));
    z[0] = z0;
    z[1] = v_guess;
    const double ystart[3] = {z0, v_guess, 0};
    cdyn_status gst = bvp_ivp_guess(&ops, N, ystart, &o, z, &rep);
    if (gst != CDYN_OK)
        print_message("ivp guess: %s\n", rep.message);
    assert_int_equal(gst, CDYN_OK);
    *st_out = bvp_engine_solve(e, z, &rep);
    snprintf(last_method, sizeof last_method, "%s", rep.method);
    if (*st_out != CDYN_OK)
        print_message("bvp: %s (it %d, res %g)\n", rep.message, rep.iterations, rep.residual);
    if (*st_out == CDYN_OK)
        assert_true(bvp_engine_residual(e, z) <= o.tol);
    bvp_engine_free(e);
    return z;
}

/* Backward Euler in free flight: v_l = v_0 - l h g and z_N = z_0 + N h v_0 - h^2 g N(N+1)/2,
 * so v_0 = (z_N - z_0 + h^2 g N (N+1)/2) / (N h) exactly. */
static void test_flight_analytic(void **unused)
{
    (void)unused;
    floor_ball b = {0.01, 1.0, 1e4};
    const int N = 50;
    cdyn_status st;
    /* The guess (v0 = 2) flies without touching the floor: a linear problem for Newton. From a
     * guess that comes to rest on the floor the end would not depend on v0 at all. */
    double *z = solve(&b, N, 1.0, 1.2, 2.0, NULL, NULL, &st);
    assert_int_equal(st, CDYN_OK);
    const double v0 = (1.2 - 1.0 + b.h * b.h * G * N * (N + 1) / 2.0) / (N * b.h);
    assert_true(fabs(z[1] - v0) < 1e-9);
    assert_true(fabs(z[2 + 3 * (N - 1)] - 1.2) < 1e-9); /* z_N */
    for (int l = 1; l <= N; l++)
        assert_true(z[2 + 3 * (l - 1) + 2] == 0.0 || fabs(z[2 + 3 * (l - 1) + 2]) < 1e-12);
    free(z);
}

/* The IVP from (z0, v0) stepped one step at a time (N small MCPs): the independent second
 * solution path. Returns the trajectory (2 + 3N values). */
static double *ivp(floor_ball *b, int N, double z0, double v0)
{
    bvp_step_ops ops = ops_for(b);
    double *w = calloc((size_t)(2 + 3 * N), sizeof(double));
    w[0] = z0;
    w[1] = v0;
    const double ystart[3] = {z0, v0, 0};
    cdyn_report rep;
    assert_int_equal(bvp_ivp_guess(&ops, N, ystart, NULL, w, &rep), CDYN_OK);
    return w;
}

/* The consistency check of Song-Kumar-Pang, with bounces: the IVP from v0 = -1 ends at z_N*;
 * the BVP with that end, from a guess at v0 = -0.995, recovers v0 = -1 and the IVP's whole
 * trajectory. From a guess at -0.97 it finds another start, v0 = -0.9727, that reaches the same
 * height after a bounce of another phase: a genuine second solution, confirmed by stepping the
 * IVP from it. Bouncing BVPs are not unique; the solution found is the one Newton reaches. */
static void test_bounce_recovers_ivp(void **unused)
{
    (void)unused;
    floor_ball b = {0.002, 1.0, 1e4};
    const int N = 300; /* T = 0.6 s: falls 0.5 m, bounces */
    double *w = ivp(&b, N, 0.5, -1.0);
    int contact_steps = 0;
    for (int l = 1; l <= N; l++)
        contact_steps += w[2 + 3 * (l - 1) + 2] > 0;
    assert_true(contact_steps > 0); /* it did bounce */
    const double zN = w[2 + 3 * (N - 1)];
    cdyn_status st;
    double *z = solve(&b, N, 0.5, zN, -0.995, NULL, NULL, &st);
    assert_int_equal(st, CDYN_OK);
    assert_true(fabs(z[1] + 1.0) < 1e-8);
    for (int i = 0; i < 2 + 3 * N; i++)
        assert_true(fabs(w[i] - z[i]) < 1e-6 * (1 + fabs(w[i])));
    free(z);

    z = solve(&b, N, 0.5, zN, -0.97, NULL, NULL, &st);
    assert_int_equal(st, CDYN_OK);
    assert_true(fabs(z[1] + 1.0) > 1e-3);
    double *w2 = ivp(&b, N, 0.5, z[1]);
    assert_true(fabs(w2[2 + 3 * (N - 1)] - zN) < 1e-8);
    free(w2);
    free(z);
    free(w);
}

/* From a poor guess (thrown down at 3 m/s, it bounces) plain FB-Newton stalls. Without the
 * MCP's own stall remedies (globalize = 0) the continuation in the boundary data takes over and
 * reaches a solution of the bouncing class (v0 < 0, through contact). With them (the default)
 * the Josephy-Newton iterations from the stall point solve the whole problem at once and reach
 * another genuine solution, the throw that never touches: backward Euler in free flight has
 * z_N = z_0 + N h v_0 - g h^2 N (N + 1) / 2, so v_0 = 2.86231 m/s here. The IVP stepped from
 * either start confirms it. */
static void test_continuation(void **unused)
{
    (void)unused;
    floor_ball b = {0.002, 1.0, 1e4};
    const int N = 250;
    const double z0 = 1.0, zN = 1.2;
    for (int g = 0; g <= 1; g++) {
        globalize = g;
        cdyn_status st;
        double *z = solve(&b, N, z0, zN, -3.0, NULL, NULL, &st);
        assert_int_equal(st, CDYN_OK);
        assert_string_equal(last_method, g ? "bvp-newton" : "bvp-continuation");
        double *w = ivp(&b, N, z0, z[1]);
        assert_true(fabs(w[2 + 3 * (N - 1)] - zN) < 1e-8);
        int contact_steps = 0;
        for (int l = 1; l <= N; l++)
            contact_steps += w[2 + 3 * (l - 1) + 2] > 0;
        if (g) {
            const double h = b.h, v0 = (zN - z0 + G * h * h * N * (N + 1) / 2) / (N * h);
            assert_true(contact_steps == 0 && fabs(z[1] - v0) < 1e-9 * v0);
        } else {
            assert_true(z[1] < 0 && contact_steps > 0);
        }
        free(w);
        free(z);
    }
    globalize = 1;
}

/* A user row Upsilon = z_N - 1.2 in place of the fixed end gives the same solution. */
static int user_end(void *ctx, const double *x0, const double *xN, double *res, double *jac)
{
    (void)ctx, (void)x0;
    res[0] = xN[0] - 1.2;
    if (jac != NULL) {
        memset(jac, 0, 4 * sizeof(double));
        jac[2] = 1.0; /* d/d xN[0]: column nx + 0 = 2 */
    }
    return 0;
}

static void test_user_rows(void **unused)
{
    (void)unused;
    floor_ball b = {0.01, 1.0, 1e4};
    const int N = 50;
    bvp_step_ops ops = ops_for(&b);
    const double val0[2] = {1.0, 0};
    bvp_spec spec = {N, FIX0, NULL, val0, NULL, 1, user_end, NULL, NULL, NULL};
    bvp_engine *e = NULL;
    cdyn_report rep;
    assert_int_equal(bvp_engine_create(&ops, &spec, NULL, &e, &rep), CDYN_OK);
    double *z = calloc((size_t)bvp_engine_size(e), sizeof(double));
    z[0] = 1.0;
    z[1] = 2.0;
    const double ystart[3] = {1.0, 2.0, 0};
    assert_int_equal(bvp_ivp_guess(&ops, N, ystart, NULL, z, &rep), CDYN_OK);
    assert_int_equal(bvp_engine_solve(e, z, &rep), CDYN_OK);
    const double v0 = (1.2 - 1.0 + b.h * b.h * G * N * (N + 1) / 2.0) / (N * b.h);
    assert_true(fabs(z[1] - v0) < 1e-9);
    bvp_engine_free(e);
    free(z);
}

static void test_refusals(void **unused)
{
    (void)unused;
    floor_ball b = {0.01, 1.0, 1e4};
    bvp_step_ops ops = ops_for(&b);
    const double val[2] = {1.0, 1.0};
    const int none[2] = {0, 0}, both[2] = {1, 1};
    bvp_engine *e = (bvp_engine *)&e;
    cdyn_report rep;
    /* one condition for two components */
    bvp_spec spec = {10, FIX0, none, val, val, 0, NULL, NULL, NULL, NULL};
    assert_int_equal(bvp_engine_create(&ops, &spec, NULL, &e, &rep), CDYN_EINVAL);
    assert_null(e);
    assert_non_null(strstr(rep.message, "exactly as many"));
    /* three */
    spec.fixedN = both;
    assert_int_equal(bvp_engine_create(&ops, &spec, NULL, &e, &rep), CDYN_EINVAL);
    spec.fixedN = FIXN;
    spec.N = 0;
    assert_int_equal(bvp_engine_create(&ops, &spec, NULL, &e, &rep), CDYN_EINVAL);
    spec.N = 10;
    const double nanv[2] = {NAN, 0};
    spec.value0 = nanv;
    assert_int_equal(bvp_engine_create(&ops, &spec, NULL, &e, &rep), CDYN_EINVAL);
    spec.value0 = val;
    const double lo[2] = {0, 1}, hi[2] = {0, -1};
    spec.lower0 = lo;
    spec.upper0 = hi;
    assert_int_equal(bvp_engine_create(&ops, &spec, NULL, &e, &rep), CDYN_EINVAL);
    spec.lower0 = spec.upper0 = NULL;
    spec.nuser = 1; /* without a callback */
    assert_int_equal(bvp_engine_create(&ops, &spec, NULL, &e, &rep), CDYN_EINVAL);
    spec.nuser = 0;
    ops.lower = NULL;
    assert_int_equal(bvp_engine_create(&ops, &spec, NULL, &e, &rep), CDYN_EINVAL);
    ops.lower = LOWER;
    assert_int_equal(bvp_engine_create(&ops, &spec, NULL, &e, &rep), CDYN_OK);
    bvp_engine_free(e);
    bvp_engine_free(NULL);
}

/* An unreachable target with a bound that forbids the only way there: the MCP is solved with
 * the start velocity at its bound, but the end condition is missed: CDYN_ENOSOLUTION with the
 * miss as the residual, the start vector untouched. */
static void test_unreachable(void **unused)
{
    (void)unused;
    floor_ball b = {0.01, 1.0, 1e4};
    const int N = 50;
    bvp_step_ops ops = ops_for(&b);
    /* reach z = 2 after 0.5 s while the start velocity is capped at 0 */
    const double val0[2] = {1.0, 0}, valN[2] = {2.0, 0};
    const double lo[2] = {-INFINITY, -INFINITY}, hi[2] = {INFINITY, 0.0};
    bvp_spec spec = {N, FIX0, FIXN, val0, valN, 0, NULL, NULL, lo, hi};
    bvp_engine *e = NULL;
    cdyn_report rep;
    assert_int_equal(bvp_engine_create(&ops, &spec, NULL, &e, &rep), CDYN_OK);
    double *z = calloc((size_t)bvp_engine_size(e), sizeof(double));
    z[0] = 1.0;
    const double ystart[3] = {1.0, 0, 0};
    assert_int_equal(bvp_ivp_guess(&ops, N, ystart, NULL, z, &rep), CDYN_OK);
    double *copy = malloc(sizeof(double) * (size_t)bvp_engine_size(e));
    memcpy(copy, z, sizeof(double) * (size_t)bvp_engine_size(e));
    cdyn_status st = bvp_engine_solve(e, z, &rep);
    assert_int_equal(st, CDYN_ENOSOLUTION);
    assert_non_null(strstr(rep.message, "no solution within the bounds"));
    /* with v0 = 0 the ball falls: z_N <= 1, so the miss is at least 1 m */
    assert_true(rep.residual >= 1.0);
    assert_memory_equal(z, copy, sizeof(double) * (size_t)bvp_engine_size(e));
    bvp_engine_free(e);
    free(z);
    free(copy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flight_analytic),   cmocka_unit_test(test_bounce_recovers_ivp),
        cmocka_unit_test(test_continuation),    cmocka_unit_test(test_user_rows),
        cmocka_unit_test(test_refusals),          cmocka_unit_test(test_unreachable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
