/* Newton restitution in the friction-pyramid LCP step (docs/theory.md, "Time stepping" Sec. 4):
 * only contacts that close within the step bounce (none in the air), an impact never adds energy
 * (also at low speed, where e |v0| would), and a whole bouncing sequence loses energy at every
 * step and comes to rest near the analytic T = sqrt(2 h0 / g) (1 + e) / (1 - e). */
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

static cdyn_stepper *pyramid_e(const cdyn_model *m, double h)
{
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_PYRAMID_LCP);
    o.h = h;
    o.restitution = 1;
    cdyn_stepper *s = NULL;
    cdyn_report rep;
    if (cdyn_stepper_create(m, &o, &s, &rep) != CDYN_OK)
        fail_msg("pyramid stepper: %s", rep.message);
    return s;
}

/* Mechanical energy of a single free sphere (m, I = 2/5 m r^2) under gravity g. */
static double energy(const cdyn_state *x, double m, double r, double g)
{
    const double *v = x->v, I = 0.4 * m * r * r;
    return m * g * x->q[2] + 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
           0.5 * I * (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
}

/* Two spheres 0.4 m apart (gap 0.3 m) approaching at 1 m/s each, no gravity, e = 1, h = 0.01:
 * they meet after 0.15 s. Before that nothing touches, so every step is free flight with the
 * velocities unchanged (exactly: no impulse); on 8165326 the first step swapped them. The
 * collision then happens in the step that closes the gap (within h |u| = 0.02 m of touching)
 * and swaps the velocities (equal masses, e = 1: v' = -v to rounding). */
static void test_no_bounce_at_a_distance(void **unused)
{
    (void)unused;
    const double r = 0.05, h = 0.01;
    cdyn_model *m = scene_spheres(2, r, 0.2, 0.0, 1.0, 0, 0.0);
    cdyn_stepper *s = pyramid_e(m, h);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[0] = 0.0;
    x->q[7] = 0.4;
    x->v[0] = 1.0;
    x->v[6] = -1.0;
    int k = 0;
    for (; k < 30 && x->v[0] > 0; k++) {
        const double gap = x->q[7] - x->q[0] - 2 * r;
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        if (x->v[0] == 1.0) {
            assert_true(x->v[6] == -1.0);
            assert_true(x->lambda[0] == 0.0);
        } else {
            /* the bounce: in the step that would close the gap */
            assert_true(gap - 2 * h <= 1e-12);
            assert_true(fabs(x->v[0] + 1.0) < 1e-12 && fabs(x->v[6] - 1.0) < 1e-12);
        }
    }
    assert_true(x->v[0] < 0);
    assert_true(x->q[7] - x->q[0] - 2 * r >= -1e-12); /* they never overlapped */
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* A ball dropped from 0.9 m above the plane (e = 0.9) falls freely until it reaches the plane:
 * v_z = -g t exactly (symplectic Euler's free flight) while the gap after the step stays
 * positive; on 8165326 it "bounced" at 0.9 m on its second step and hovered. */
static void test_no_bounce_in_the_air(void **unused)
{
    (void)unused;
    const double r = 0.05, h = 0.01, g = G_ACC;
    cdyn_model *m = scene_spheres(1, r, 0.2, 0.0, 0.9, 1, g);
    cdyn_stepper *s = pyramid_e(m, h);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[2] = r + 0.9;
    int k = 1;
    double gap0, v0;
    for (;; k++) {
        gap0 = x->q[2] - r;
        v0 = x->v[2];
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        if (x->v[2] >= 0)
            break; /* the bounce */
        assert_true(fabs(x->v[2] + g * h * k) < 1e-12);
        assert_true(x->q[2] > r);
    }
    /* it bounces where it touches: in the step whose free motion closes the gap */
    assert_true(gap0 + h * (v0 - g * h) <= 0);
    assert_true(k > 40); /* t = sqrt(2 * 0.9 / g) = 0.43 s */
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* An impact at low speed: the ball touches the plane (gap 0) and approaches at |v0| below
 * 2 e g h / (1 - e^2), where the old law (leave at e |v0|) gains
 * dE = m g h e |v0| - 1/2 m (1 - e^2) v0^2 > 0 in the step. Now the step keeps the energy at
 * most 1/2 m e^2 v0^2 + m g z (theory.md), i.e. loses at least 1/2 m (1 - e^2) v0^2, for e = 0.5
 * and e = 1 (where the old law gains m g h |v0|). Tolerance: rounding (1e-15 J). */
static void test_low_speed_impact(void **unused)
{
    (void)unused;
    const double r = 0.05, mass = 0.2, h = 0.01, g = G_ACC;
    const double es[2] = {0.5, 1.0};
    for (int c = 0; c < 2; c++) {
        const double e = es[c];
        cdyn_model *m = scene_spheres(1, r, mass, 0.0, e, 1, g);
        cdyn_stepper *s = pyramid_e(m, h);
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        for (int i = 1; i <= 10; i++) {
            const double v0 = -0.01 * i; /* 2 e g h / (1 - e^2) = 0.131 m/s for e = 0.5 */
            x->q[2] = r;
            memset(x->v, 0, 6 * sizeof(double));
            x->v[2] = v0;
            const double e0 = energy(x, mass, r, g);
            assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
            const double e1 = energy(x, mass, r, g);
            if (verbose())
                print_message("e %.1f v0 %.2f: dE %.3e, bound %.3e\n", e, v0, e1 - e0,
                              -0.5 * mass * (1 - e * e) * v0 * v0);
            assert_true(e1 - e0 <= -0.5 * mass * (1 - e * e) * v0 * v0 + 1e-15);
            assert_true(x->v[2] >= 0); /* it does leave (or stop), never sinks */
            assert_true(x->v[2] <= e * fabs(v0));
        }
        cdyn_stepper_free(s);
        cdyn_state_free(x);
        cdyn_model_free(m);
    }
}

/* A whole bouncing sequence: a ball dropped from h0 = 1 m with e = 0.5. The energy never rises
 * from one step to the next (1e-12 J: rounding of energies ~2 J) and the ball comes to rest
 * (in contact from then on, at rest) near the analytic T = sqrt(2 h0 / g) (1 + e) / (1 - e) =
 * 1.3546 s. Tolerance: the scheme is first order; each bounce is off by at most a few steps (the
 * impact is taken at the start of the step that closes the gap, the approach speed is the one at
 * that start, and the rebound speed loses g h: docs/theory.md), and the bounces that count number
 * N = log(g t0 / (g h)) / log(1 / e) + 1, so |T_h - T| <= 4 N h. That bound must hold at
 * h = 1e-3 and 1e-4, and the error must shrink with h (convergence, not luck). */
static double rest_time(double h, double e, double h0)
{
    const double r = 0.05, mass = 0.2, g = G_ACC;
    cdyn_model *m = scene_spheres(1, r, mass, 0.0, e, 1, g);
    cdyn_stepper *s = pyramid_e(m, h);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[2] = r + h0;
    const double T = sqrt(2 * h0 / g) * (1 + e) / (1 - e);
    const long n = lround(2 * T / h);
    double e_prev = energy(x, mass, r, g), t_rest = -1;
    int bounces = 0;
    for (long k = 0; k < n; k++) {
        const double vz = x->v[2];
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        const double en = energy(x, mass, r, g);
        assert_true(en <= e_prev + 1e-12);
        e_prev = en;
        bounces += vz < 0 && x->v[2] > 0;
        const int resting = x->mode[0] != CDYN_MODE_FREE && fabs(x->v[2]) < 1e-12;
        if (!resting)
            t_rest = -1;
        else if (t_rest < 0)
            t_rest = x->t;
    }
    assert_true(t_rest > 0);
    assert_true(fabs(x->q[2] - r) < 1e-9);
    assert_true(fabs(x->lambda[0] - mass * g) < 1e-9);
    if (verbose())
        print_message("h %g: rest at %.5f s (T %.5f, error %.2e = %.1f h), %d bounces\n", h,
                      t_rest, T, t_rest - T, (t_rest - T) / h, bounces);
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
    return t_rest;
}

static void test_bouncing_sequence(void **unused)
{
    (void)unused;
    const double e = 0.5, h0 = 1.0, g = G_ACC;
    const double T = sqrt(2 * h0 / g) * (1 + e) / (1 - e);
    double err[2];
    const double hs[2] = {1e-3, 1e-4};
    for (int c = 0; c < 2; c++) {
        const double h = hs[c];
        const double nb = log(sqrt(2 * h0 / g) / h) / log(1 / e) + 1;
        err[c] = fabs(rest_time(h, e, h0) - T);
        assert_true(err[c] <= 4 * nb * h);
    }
    assert_true(err[1] < err[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_bounce_at_a_distance),
        cmocka_unit_test(test_no_bounce_in_the_air),
        cmocka_unit_test(test_low_speed_impact),
        cmocka_unit_test(test_bouncing_sequence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
