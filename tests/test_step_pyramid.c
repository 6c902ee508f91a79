/* The friction-pyramid LCP step against analytic values: sliding sphere, incline (stick without
 * drift, slide at g (sin - mu cos)), resting stack, Newton's cradle in one LCP, energy, the
 * billiard's per-axis slip ends (Song-Kumar-Pang Fig. 3f), Lemke vs FB-Newton, the approach to
 * the cone as directions grow, failed steps and refused options. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "step_scenes.h"

static cdyn_stepper *pyramid(const cdyn_model *m, double h, cdyn_pyramid_bound bound, int dirs,
                             cdyn_step_backend backend)
{
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_PYRAMID_LCP);
    o.h = h;
    o.bound = bound;
    o.directions = dirs;
    o.backend = backend;
    cdyn_stepper *s = NULL;
    cdyn_report rep;
    if (cdyn_stepper_create(m, &o, &s, &rep) != CDYN_OK)
        fail_msg("pyramid stepper: %s", rep.message);
    return s;
}

/* A solid sphere sliding along x (slip s0 = 1 m/s on an axis of the pyramid, where both bounds
 * are the exact cone) stops slipping at t* = s0 / (3.5 mu g), within 1 % at h = 1 ms. */
static void test_sphere_slip_end(void **unused)
{
    (void)unused;
    const double r = 0.05, mu = 0.2, h = 1e-3;
    cdyn_model *m = scene_sphere(r, 0.2, mu);
    for (int bound = 0; bound <= 1; bound++) {
        cdyn_stepper *s = pyramid(m, h, (cdyn_pyramid_bound)bound, 4, CDYN_BACKEND_AUTO);
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        x->q[2] = r;
        x->v[0] = 1.0;
        const double t_star = 1.0 / (3.5 * mu * G_ACC);
        double t_end = -1;
        for (int k = 0; k < 400 && t_end < 0; k++) {
            assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
            if (fabs(x->v[0] - r * x->v[4]) < 1e-9) {
                t_end = x->t;
                assert_int_equal(x->mode[0], CDYN_MODE_STICK);
            } else {
                assert_int_equal(x->mode[0], CDYN_MODE_SLIP);
                assert_true(fabs(x->lambda[1] + mu * x->lambda[0]) < 1e-9); /* on the bound */
            }
        }
        assert_true(fabs(t_end - t_star) <= 0.01 * t_star);
        cdyn_stepper_free(s);
        cdyn_state_free(x);
    }
    cdyn_model_free(m);
}

/* Incline: tan(theta) < mu sticks with no drift at all (1e-12 m in 1 s); tan(theta) > mu slides
 * with a = g (sin(theta) - mu cos(theta)): the scheme's velocity after n steps is exactly
 * n h a, and the block stays on the plane (no lift, unlike the cone step's relaxation). */
static void test_incline(void **unused)
{
    (void)unused;
    const double mu = 0.5, h = 0.01;
    const double thetas[2] = {20 * M_PI / 180, 35 * M_PI / 180};
    for (int k = 0; k < 2; k++) {
        const double th = thetas[k];
        cdyn_model *m = scene_incline(th, mu);
        cdyn_stepper *s = pyramid(m, h, CDYN_PYRAMID_DIAMOND, 4, CDYN_BACKEND_AUTO);
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        x->q[2] = 0.05;
        for (int i = 0; i < 100; i++)
            assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        if (tan(th) < mu) {
            assert_true(fabs(x->q[0]) < 1e-12 && fabs(x->v[0]) < 1e-12);
        } else {
            const double v_exact = 100 * h * G_ACC * (sin(th) - mu * cos(th));
            assert_true(fabs(x->v[0] - v_exact) < 1e-9 * v_exact);
        }
        assert_true(fabs(x->q[2] - 0.05) < 1e-12);
        cdyn_stepper_free(s);
        cdyn_state_free(x);
        cdyn_model_free(m);
    }
}

/* Three spheres in a row along x touching each other, no gravity, no friction, restitution 1;
 * the first moves at v towards the others. All contacts are in one LCP: with Newton's law at the
 * approaching contact (separation speed >= v) and non-penetration at the touching one, the
 * solution with both impulses positive is v1' = -v/3, v2' = v3' = 2v/3 (derivation in
 * docs/theory.md): momentum and energy are kept, but the balls do not pass the momentum along as
 * a real cradle does (that takes impacts separated in time, i.e. compliance). */
static void test_newtons_cradle(void **unused)
{
    (void)unused;
    const double r = 0.05, mass = 0.2, v = 1.0;
    cdyn_model *m = scene_spheres(3, r, mass, 0.0, 1.0, 0, 0.0);
    cdyn_report rep;
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_PYRAMID_LCP);
    o.h = 1e-3;
    o.restitution = 1;
    cdyn_stepper *s = NULL;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_OK);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, &rep), CDYN_OK);
    for (int i = 0; i < 3; i++)
        x->q[7 * i] = 2 * r * i;
    x->v[0] = v;
    cdyn_step_report sr;
    assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_OK);
    assert_int_equal(sr.nactive, 2);
    assert_true(fabs(x->v[0] + v / 3) < 1e-12);
    assert_true(fabs(x->v[6] - 2 * v / 3) < 1e-12);
    assert_true(fabs(x->v[12] - 2 * v / 3) < 1e-12);
    const double p = mass * (x->v[0] + x->v[6] + x->v[12]);
    const double e = 0.5 * mass * (x->v[0] * x->v[0] + x->v[6] * x->v[6] + x->v[12] * x->v[12]);
    assert_true(fabs(p - mass * v) < 1e-12 && fabs(e - 0.5 * mass * v * v) < 1e-12);
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* Energy never grows (a ball dropped with spin onto the plane: impact, sliding, rolling), and a
 * ball resting on the plane keeps lambda_n = m g with no drift. */
static void test_energy_and_rest(void **unused)
{
    (void)unused;
    const double r = 0.05, mass = 0.2, I = 0.4 * mass * r * r, h = 0.01;
    cdyn_model *m = scene_sphere(r, mass, 0.3);
    cdyn_stepper *s = pyramid(m, h, CDYN_PYRAMID_DIAMOND, 4, CDYN_BACKEND_AUTO);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[2] = 0.5;
    x->v[0] = 1.5;
    x->v[4] = 30;
    double e_prev = INFINITY;
    for (int k = 0; k < 300; k++) {
        const double *v = x->v;
        const double e = mass * G_ACC * x->q[2] +
                         0.5 * mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
                         0.5 * I * (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
        assert_true(e <= e_prev + 1e-12);
        e_prev = e;
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
    }
    /* by now it rolls at constant speed: a resting-like contact carrying m g */
    assert_true(fabs(x->lambda[0] - mass * G_ACC) < 1e-9);
    assert_true(fabs(x->q[2] - r) < 1e-12);
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* Song-Kumar-Pang's billiard ball, h = 0.01: with the per-axis (box) bound the t slip ends at
 * 0.30 s and the o slip at 0.37 s (their Fig. 3f), within h; the diamond couples the axes and
 * ends both together. */
static void run_billiard(cdyn_stepper *s, const cdyn_model *m, double *end_t, double *end_o,
                         double *xy)
{
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    const double r = 0.05, v0[6] = {1, 0.5, 0, 40, -20, -10};
    x->q[2] = r;
    memcpy(x->v, v0, sizeof v0);
    *end_t = *end_o = 0;
    for (int k = 0; k < 101; k++) {
        if (fabs(x->v[0] - r * x->v[4]) > 1e-9)
            *end_t = x->t + 0.01;
        if (fabs(x->v[1] + r * x->v[3]) > 1e-9)
            *end_o = x->t + 0.01;
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
    }
    xy[0] = x->q[0];
    xy[1] = x->q[1];
    cdyn_state_free(x);
}

static void test_billiard_box_slip_ends(void **unused)
{
    (void)unused;
    cdyn_model *m = scene_billiard();
    cdyn_stepper *s = pyramid(m, 0.01, CDYN_PYRAMID_BOX, 4, CDYN_BACKEND_AUTO);
    double et, eo, xy[2];
    run_billiard(s, m, &et, &eo, xy);
    assert_true(fabs(et - 0.30) <= 0.01 + 1e-9);
    assert_true(fabs(eo - 0.37) <= 0.01 + 1e-9);
    cdyn_stepper_free(s);
    s = pyramid(m, 0.01, CDYN_PYRAMID_DIAMOND, 4, CDYN_BACKEND_AUTO);
    run_billiard(s, m, &et, &eo, xy);
    assert_true(fabs(et - eo) < 1e-9);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
}

/* Lemke (warm-started) and FB-Newton solve the same LCPs: the same billiard trajectory. */
static void test_backends_agree(void **unused)
{
    (void)unused;
    cdyn_model *m = scene_billiard();
    for (int bound = 0; bound <= 1; bound++) {
        double a[2], b[2], e1, e2;
        cdyn_stepper *s = pyramid(m, 0.01, (cdyn_pyramid_bound)bound, 4, CDYN_BACKEND_LEMKE);
        run_billiard(s, m, &e1, &e2, a);
        cdyn_stepper_free(s);
        s = pyramid(m, 0.01, (cdyn_pyramid_bound)bound, 4, CDYN_BACKEND_FB_DENSE);
        run_billiard(s, m, &e1, &e2, b);
        cdyn_stepper_free(s);
        assert_true(fabs(a[0] - b[0]) < 1e-8 && fabs(a[1] - b[1]) < 1e-8);
    }
    cdyn_model_free(m);
}

/* As the directions grow the diamond tends to the circular cone: the billiard's displacement
 * approaches the cone step's (same rigid model, exact cone) at h = 1 ms. */
static void test_directions_to_cone(void **unused)
{
    (void)unused;
    cdyn_model *m = scene_billiard();
    const double h = 0.001;
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_CONE_STEP);
    o.h = h;
    cdyn_stepper *cone = NULL;
    assert_int_equal(cdyn_stepper_create(m, &o, &cone, NULL), CDYN_OK);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    const double v0[6] = {1, 0.5, 0, 40, -20, -10};
    const int nsteps = 1010;
    double ref[2], prev = INFINITY;
    x->q[2] = 0.05;
    memcpy(x->v, v0, sizeof v0);
    for (int k = 0; k < nsteps; k++)
        assert_int_equal(cdyn_step(cone, NULL, x, NULL), CDYN_OK);
    ref[0] = x->q[0];
    ref[1] = x->q[1];
    const int dirs[3] = {4, 8, 32};
    for (int i = 0; i < 3; i++) {
        cdyn_stepper *s = pyramid(m, h, CDYN_PYRAMID_DIAMOND, dirs[i], CDYN_BACKEND_AUTO);
        cdyn_state_free(x);
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        x->q[2] = 0.05;
        memcpy(x->v, v0, sizeof v0);
        for (int k = 0; k < nsteps; k++)
            assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        const double err = hypot(x->q[0] - ref[0], x->q[1] - ref[1]);
        print_message("diamond, %2d directions: |x - x_cone| = %.2e\n", dirs[i], err);
        assert_true(err < prev);
        prev = err;
        cdyn_stepper_free(s);
    }
    assert_true(prev < 5e-3);
    cdyn_stepper_free(cone);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* A solve that fails (one pivot allowed, no fallbacks) leaves the state bit-identical. */
static void test_failed_step_untouched(void **unused)
{
    (void)unused;
    cdyn_model *m = scene_billiard();
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_PYRAMID_LCP);
    o.lcp.lemke.max_pivots = 1;
    o.lcp.try_alternate_covering = 0;
    o.lcp.try_enumeration = 0;
    o.lcp.try_fb_newton = 0;
    cdyn_stepper *s = NULL;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_OK);
    cdyn_state *x = NULL, *c = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_create(m, NULL, &c, NULL), CDYN_OK);
    const double v0[6] = {1, 0.5, 0, 40, -20, -10};
    x->q[2] = 0.05;
    memcpy(x->v, v0, sizeof v0);
    x->lambda[0] = 3;
    assert_int_equal(cdyn_state_copy(c, x, NULL), CDYN_OK);
    cdyn_step_report sr;
    const cdyn_status st = cdyn_step(s, NULL, x, &sr);
    assert_true(st == CDYN_ENOCONV || st == CDYN_ENUMERIC);
    assert_memory_equal(x->q, c->q, sizeof(double) * 7);
    assert_memory_equal(x->v, c->v, sizeof(double) * 6);
    assert_memory_equal(x->lambda, c->lambda, sizeof(double) * 3);
    assert_memory_equal(x->mode, c->mode, sizeof(int));
    assert_true(x->t == c->t);
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_state_free(c);
    cdyn_model_free(m);
}

static void test_refusals(void **unused)
{
    (void)unused;
    cdyn_model *m = scene_billiard();
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_PYRAMID_LCP);
    cdyn_stepper *s = NULL;
    cdyn_report rep;
    o.bound = CDYN_PYRAMID_BOX;
    o.directions = 6;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_EINVAL);
    assert_non_null(strstr(rep.message, "box bound needs directions = 4"));
    o.bound = CDYN_PYRAMID_DIAMOND;
    o.directions = 2;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_EINVAL);
    o.directions = 4;
    o.bound = (cdyn_pyramid_bound)7;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_EINVAL);
    o.bound = CDYN_PYRAMID_DIAMOND;
    o.backend = CDYN_BACKEND_CONEQP;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_EINVAL);
    assert_non_null(strstr(rep.message, "pyramid-lcp scheme cannot use the coneqp backend"));
    assert_null(s);
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sphere_slip_end),    cmocka_unit_test(test_incline),
        cmocka_unit_test(test_newtons_cradle),     cmocka_unit_test(test_energy_and_rest),
        cmocka_unit_test(test_billiard_box_slip_ends), cmocka_unit_test(test_backends_agree),
        cmocka_unit_test(test_directions_to_cone), cmocka_unit_test(test_failed_step_untouched),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
