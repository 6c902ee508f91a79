/* The Baumgarte scheme reports a penetration beyond options.max_penetration (CDYN_EPENETRATION,
 * the caller's state untouched) instead of OK (on 8165326 a ball with gains 0, or thrown at
 * 10 m/s (0.19 m deep) or 100 m/s with Bortoff's gains, passed through the ground with every
 * step OK). Bortoff's ball: a disk on a prismatic joint whose coordinate is its gap, m = 1. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "step_scenes.h"

static int verbose(void)
{
    return getenv("CDYN_TEST_VERBOSE") != NULL;
}

static cdyn_stepper *baumgarte(const cdyn_model *m, double h, double bound)
{
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_BAUMGARTE);
    o.h = h;
    o.max_penetration = bound;
    cdyn_stepper *s = NULL;
    cdyn_report rep;
    if (cdyn_stepper_create(m, &o, &s, &rep) != CDYN_OK)
        fail_msg("baumgarte stepper: %s", rep.message);
    return s;
}

/* Run from gap q0 at speed v0 for up to n steps of h. Returns the status of the first failing
 * step (CDYN_OK if none); *deepest: the deepest gap of the states the steps returned. A failing
 * step must leave the state bit-identical. */
static cdyn_status run(const double alpha[3], double q0, double v0, double h, int n,
                       double bound, double *deepest, char *message)
{
    cdyn_model *m = scene_prismatic_ball(alpha, 1.0, 0.05, 1);
    cdyn_stepper *s = baumgarte(m, h, bound);
    cdyn_state *x = NULL, *copy = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_create(m, NULL, &copy, NULL), CDYN_OK);
    x->q[0] = q0;
    x->v[0] = v0;
    *deepest = q0;
    cdyn_status st = CDYN_OK;
    for (int k = 0; k < n && st == CDYN_OK; k++) {
        assert_int_equal(cdyn_state_copy(copy, x, NULL), CDYN_OK);
        cdyn_step_report rep;
        st = cdyn_step(s, NULL, x, &rep);
        if (st == CDYN_OK) {
            *deepest = fmin(*deepest, x->q[0]);
            continue;
        }
        strcpy(message, rep.solver.message);
        assert_true(x->t == copy->t && x->q[0] == copy->q[0] && x->v[0] == copy->v[0] &&
                    x->mode[0] == copy->mode[0] && x->lambda[0] == copy->lambda[0]);
        if (verbose())
            print_message("t = %g: %s\n", x->t, message);
    }
    cdyn_state_free(copy);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
    return st;
}

/* Gains 0 (no defaults from solref): after the impact at 4.43 m/s (dropped from 1 m) the gap
 * keeps falling (hddot = 0 in CONTACT); the step in which it passes -0.1 m (the default bound)
 * fails, about 0.1 / 4.43 = 0.023 s after the impact, and no step before returned a state
 * beyond the bound. */
static void test_gains_zero(void **unused)
{
    (void)unused;
    const double alpha[3] = {0, 0, 0};
    double deepest;
    char msg[CDYN_REPORT_TEXT];
    assert_int_equal(run(alpha, 1.0, 0.0, 0.01, 100, 0.1, &deepest, msg), CDYN_EPENETRATION);
    assert_true(deepest >= -0.1);
    assert_non_null(strstr(msg, "max_penetration"));
    assert_non_null(strstr(msg, "pair 0"));
}

/* Bortoff's gains (alpha0 = 100, alpha1 = 1, alpha2 = 1e6). In CONTACT the gap obeys
 * hddot = -alpha1 hdot - alpha0 h - alpha2 h^3, so the deepest point d of an impact at speed v
 * satisfies v^2 / 2 >= alpha0 d^2 / 2 + alpha2 d^4 / 4 (the damping only takes energy away) and,
 * with alpha1 = 1 small, about equality: v = 10 m/s gives d = 0.12 m, v = 100 m/s d = 0.38 m
 * (the ball's own radius is 0.05 m). Both must fail with the
 * default bound 0.1 m; with the bound lifted (INFINITY) the 10 m/s throw is integrated and its
 * depth stays below the energy bound, at least 0.1. The paper's own drop from 1 m (4.43 m/s,
 * d = 0.079 m) runs through with the default bound. */
static double energy_depth(const double alpha[3], double v)
{
    double d = 0.5; /* Newton from above on alpha0 d^2 / 2 + alpha2 d^4 / 4 - v^2 / 2 (convex) */
    for (int k = 0; k < 100; k++)
        d -= (0.5 * alpha[0] * d * d + 0.25 * alpha[2] * pow(d, 4) - 0.5 * v * v) /
             (alpha[0] * d + alpha[2] * pow(d, 3));
    return d;
}

static void test_fast_throws(void **unused)
{
    (void)unused;
    const double alpha[3] = {100, 1, 1e6};
    double deepest;
    char msg[CDYN_REPORT_TEXT];
    const double speeds[2] = {10, 100};
    for (int c = 0; c < 2; c++) {
        const double v = speeds[c];
        if (verbose())
            print_message("v = %g m/s: energy depth %.4f m\n", v, energy_depth(alpha, v));
        /* thrown down from 0.01 m above the ground; h = 1 ms */
        assert_int_equal(run(alpha, 0.01, -v, 1e-3, 200, 0.1, &deepest, msg), CDYN_EPENETRATION);
        assert_true(deepest >= -0.1);
    }
    assert_int_equal(run(alpha, 0.01, -10, 1e-3, 200, INFINITY, &deepest, msg), CDYN_OK);
    if (verbose())
        print_message("v = 10 m/s, no bound: deepest %.4f m\n", deepest);
    assert_true(deepest < -0.1 && deepest >= -energy_depth(alpha, 10));
    assert_int_equal(run(alpha, 1.0, 0.0, 1e-3, 2000, 0.1, &deepest, msg), CDYN_OK);
    assert_true(deepest < -0.07 && deepest >= -energy_depth(alpha, sqrt(2 * G_ACC)));
}

/* The check follows the gap inside a step, not only at its ends. Gains alpha = (1 / tau^2,
 * 2 / tau, 0), tau = 0.05 s (critically damped, omega h = 0.2 at h = 0.01: RK4 accurate to
 * ~1e-6 relative), no gravity term in CONTACT: from the impact at speed v the gap is
 * -v s e^(-s / tau), deepest at s = tau with d* = v tau / e. Dropped from H = 0.80454 m, the
 * impact is at t_e = sqrt(2 H / g) = 0.405 s and the deepest point at 0.455 s, mid-step; the step
 * ends 5 ms either side are shallower by about h''(tau) (h / 2)^2 / 2 = (v / (e tau)) 1.25e-5 =
 * 4e-4 m. With the bound d* - 1e-4 the step (0.45, 0.46] must fail although no step end lies
 * beyond it; with d* + 1e-4 (above the RK4 and interpolation errors, ~1e-6 m) every step is OK. */
static void test_dip_inside_a_step(void **unused)
{
    (void)unused;
    const double tau = 0.05, H = 0.80454, h = 0.01;
    const double alpha[3] = {1 / (tau * tau), 2 / tau, 0};
    const double v = sqrt(2 * G_ACC * H), dstar = v * tau / exp(1.0);
    double deepest;
    char msg[CDYN_REPORT_TEXT];
    assert_int_equal(run(alpha, H, 0.0, h, 60, dstar + 1e-4, &deepest, msg), CDYN_OK);
    if (verbose())
        print_message("d* = %.6f m, deepest step end %.6f m\n", dstar, -deepest);
    assert_true(-deepest < dstar - 1e-4); /* the step ends do not show it */
    assert_true(-deepest > dstar - 1e-3);
    assert_int_equal(run(alpha, H, 0.0, h, 60, dstar - 1e-4, &deepest, msg), CDYN_EPENETRATION);
    assert_non_null(strstr(msg, "0.45"));
}

/* max_penetration must be > 0 (INFINITY allowed): 0, negative and NaN are refused. */
static void test_refused_bounds(void **unused)
{
    (void)unused;
    const double alpha[3] = {100, 1, 1e6};
    cdyn_model *m = scene_prismatic_ball(alpha, 1.0, 0.05, 1);
    const double bad[3] = {0.0, -1.0, NAN};
    for (int k = 0; k < 3; k++) {
        cdyn_step_options o;
        cdyn_step_defaults(&o, CDYN_SCHEME_BAUMGARTE);
        assert_true(o.max_penetration == 0.1);
        o.max_penetration = bad[k];
        cdyn_stepper *s = NULL;
        cdyn_report rep;
        assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_EINVAL);
        assert_null(s);
        assert_non_null(strstr(rep.message, "max_penetration"));
    }
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gains_zero),
        cmocka_unit_test(test_fast_throws),
        cmocka_unit_test(test_dip_inside_a_step),
        cmocka_unit_test(test_refused_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
