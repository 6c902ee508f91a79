/* Dry (Coulomb) joint friction in the pyramid LCP (issue 20 item 3): per dof with friction
 * f_max > 0 the step's LCP holds impulses f+, f- >= 0 along +-e_j with f+ + f- <= h f_max and
 * the sliding speed's complementarity, so the joint's friction impulse f opposes the new
 * velocity v+_j with |f| = h f_max while it slides and |f| <= h f_max when it sticks. Closed
 * forms of the scheme (semi-implicit Euler: (M + h D)(v+ - v) = h (tau - bias) + f e_j, the
 * bias holding gravity and D v):
 *  - a slider on a horizontal rail, v0 > 0: v_n = v0 - n h f_max / m until the step in which
 *    the bound can stop it, then 0 for ever (exactly: the LCP's answer is exact to rounding);
 *    with damping d as well: v_{n+1} = (m v_n - h f_max) / (m + h d);
 *  - on a rail inclined by alpha: f_max >= m g sin(alpha) holds it (v = 0 every step); below,
 *    it slides down with v_n = -n h (g sin(alpha) - f_max / m);
 *  - a vertical slider carrying a ball dropped onto the floor: it falls with g - f_max / m, then
 *    rests with the floor's force and the joint's friction sharing its weight (statically
 *    indeterminate: lambda_n in [m g - f_max, m g + f_max]);
 *  - Lemke and FB-Newton backends give the same trajectories;
 *  - memory: clean CDYN_ENOMEM at every allocation, nothing allocated after warm-up.
 * The other schemes refuse joint friction (tests/test_joint_damping.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/cdyn.h"
#include "support.h"

static const double G = 9.81; /* the builder's default gravity */

/* A spatial prismatic slider along (cos a, 0, sin a) with mass m, friction f and damping d;
 * with ball > 0 a sphere of that radius on it and the floor z = 0 (frictionless pair) below. */
static cdyn_model *slider(double a, double m, double f, double d, double ball, double z0)
{
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(NULL, &b, NULL), CDYN_OK);
    cdyn_body_desc bd;
    cdyn_body_desc_defaults(&bd);
    bd.joint = CDYN_JOINT_PRISMATIC;
    bd.axis[0] = cos(a);
    bd.axis[1] = 0;
    bd.axis[2] = sin(a);
    bd.frame.pos[2] = z0;
    bd.mass = m;
    bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.01;
    bd.friction = f;
    bd.damping = d;
    int body;
    cdyn_report r;
    assert_int_equal(cdyn_builder_add_body(b, &bd, &body, &r), CDYN_OK);
    if (ball > 0) {
        cdyn_geom_desc floor, sph;
        cdyn_geom_desc_defaults(&floor);
        cdyn_geom_desc_defaults(&sph);
        sph.body = body;
        sph.type = CDYN_GEOM_SPHERE;
        sph.size[0] = ball;
        int gf, gs;
        assert_int_equal(cdyn_builder_add_geom(b, &floor, &gf, NULL), CDYN_OK);
        assert_int_equal(cdyn_builder_add_geom(b, &sph, &gs, NULL), CDYN_OK);
        cdyn_contact_pair_desc p;
        cdyn_contact_pair_desc_defaults(&p);
        p.geom_a = gf;
        p.geom_b = gs;
        assert_int_equal(cdyn_builder_add_contact_pair(b, &p, NULL, NULL), CDYN_OK);
    }
    cdyn_model *model = NULL;
    assert_int_equal(cdyn_builder_build(b, &model, &r), CDYN_OK);
    cdyn_builder_free(b);
    return model;
}

static cdyn_stepper *pyramid(const cdyn_model *m, double h, cdyn_step_backend backend)
{
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_PYRAMID_LCP);
    o.h = h;
    o.backend = backend;
    cdyn_stepper *s = NULL;
    cdyn_report r;
    const cdyn_status st = cdyn_stepper_create(m, &o, &s, &r);
    if (st != CDYN_OK)
        fail_msg("%s", r.message);
    return s;
}

static void step_ok(cdyn_stepper *s, cdyn_state *x, int k)
{
    cdyn_step_report sr;
    const cdyn_status st = cdyn_step(s, NULL, x, &sr);
    if (st != CDYN_OK)
        fail_msg("step %d: %s", k, sr.solver.message);
}

/* Horizontal rail, v0 = 1: decelerates by f/m, stops in the step whose bound can stop it; with
 * damping the recurrence (m v - h f)/(m + h d). */
static void test_slider_stops(void **state)
{
    (void)state;
    const double m = 2, f = 3, h = 0.01;
    for (int damped = 0; damped < 2; ++damped)
        for (int be = 0; be < 2; ++be) {
            const double d = damped ? 4.0 : 0.0;
            cdyn_model *model = slider(0, m, f, d, 0, 0);
            cdyn_stepper *s = pyramid(model, h, be ? CDYN_BACKEND_FB_DENSE : CDYN_BACKEND_LEMKE);
            cdyn_state *x = NULL;
            assert_int_equal(cdyn_state_create(model, NULL, &x, NULL), CDYN_OK);
            x->v[0] = 1.0;
            double v = 1.0, pos = 0, worst = 0;
            int stop = -1;
            for (int k = 0; k < 150; ++k) {
                step_ok(s, x, k);
                /* sliding while the bound h f cannot absorb m v: else it sticks at 0 */
                v = m * v > h * f ? (m * v - h * f) / (m + h * d) : 0.0;
                if (v == 0.0 && stop < 0)
                    stop = k;
                pos += h * v;
                worst = fmax(worst, fabs(x->v[0] - v) + fabs(x->q[0] - pos));
            }
            print_message("slider, f = %g, d = %g, %s: stops in step %d (closed form), largest "
                          "difference %.1e\n",
                          f, d, be ? "fb-dense" : "lemke", stop, worst);
            assert_true(stop > 0);
            assert_true(worst <= (be ? 1e-9 : 1e-12));
            cdyn_state_free(x);
            cdyn_stepper_free(s);
            cdyn_model_free(model);
        }
}

/* Inclined rail (alpha = 30 degrees): held when f >= m g sin(alpha), else sliding down at
 * g sin(alpha) - f / m. */
static void test_incline(void **state)
{
    (void)state;
    const double m = 1.5, a = 3.14159265358979323846 / 6, h = 0.005;
    const double pull = m * G * sin(a);
    const double fs[3] = {1.1 * pull, pull * (1 + 1e-9), 0.5 * pull};
    for (int c = 0; c < 3; ++c) {
        cdyn_model *model = slider(a, m, fs[c], 0, 0, 0);
        cdyn_stepper *s = pyramid(model, h, CDYN_BACKEND_LEMKE);
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(model, NULL, &x, NULL), CDYN_OK);
        const double acc = fs[c] >= pull ? 0.0 : G * sin(a) - fs[c] / m;
        double worst = 0;
        for (int k = 0; k < 200; ++k) {
            step_ok(s, x, k);
            const double v = -(k + 1) * h * acc;
            const double q = -h * h * acc * (k + 1) * (k + 2) / 2;
            worst = fmax(worst, fabs(x->v[0] - v) + fabs(x->q[0] - q));
        }
        print_message("incline, f / (m g sin a) = %.9g: v and q within %.1e of the closed form "
                      "(acceleration %.6g)\n",
                      fs[c] / pull, worst, acc);
        assert_true(worst <= 1e-12);
        cdyn_state_free(x);
        cdyn_stepper_free(s);
        cdyn_model_free(model);
    }
}

/* A vertical slider with a ball (r = 0.05) 0.3 m above the floor, f = 0.4 m g: falls at 0.6 g,
 * then rests on the floor; the floor and the joint share the weight. */
static void test_drop_on_floor(void **state)
{
    (void)state;
    const double m = 1, f = 0.4 * m * G, h = 0.002, r = 0.05, z0 = 0.35;
    cdyn_model *model = slider(3.14159265358979323846 / 2, m, f, 0, r, z0);
    cdyn_stepper *s = pyramid(model, h, CDYN_BACKEND_LEMKE);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(model, NULL, &x, NULL), CDYN_OK);
    double worst_fall = 0, lam = 0;
    int touched = -1;
    for (int k = 0; k < 400; ++k) {
        step_ok(s, x, k);
        if (touched < 0 && x->lambda[0] > 0)
            touched = k;
        if (touched < 0) { /* free fall at g - f/m = 0.6 g, the scheme's discrete form */
            const double v = -(k + 1) * h * (G - f / m);
            worst_fall = fmax(worst_fall, fabs(x->v[0] - v));
        }
        lam = x->lambda[0];
    }
    /* the ball's bottom: z0 + q - r above the floor */
    const double gap = z0 + x->q[0] - r;
    print_message("drop: free fall at 0.6 g within %.1e, contact from step %d, at rest with "
                  "gap %.1e, lambda_n = %.6g in [%.6g, %.6g], v = %.1e\n",
                  worst_fall, touched, gap, lam, m * G - f, m * G + f, x->v[0]);
    assert_true(worst_fall <= 1e-12);
    assert_true(touched > 0);
    assert_true(fabs(gap) <= 1e-9);
    assert_true(fabs(x->v[0]) <= 1e-9);
    assert_true(lam >= m * G - f - 1e-9 && lam <= m * G + f + 1e-9);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(model);
}

/* Memory: with joint friction, a joint limit and a contact, every allocation of creation
 * failing in turn is a clean CDYN_ENOMEM with nothing leaked; the first step's arena growth
 * failing leaves the state untouched; after warm-up the steps allocate nothing. */
static void test_allocation(void **state)
{
    (void)state;
    const double m = 1, f = 0.4 * m * G;
    cdyn_model *model = NULL;
    {
        cdyn_builder *b = NULL;
        assert_int_equal(cdyn_builder_create(NULL, &b, NULL), CDYN_OK);
        cdyn_body_desc bd;
        cdyn_body_desc_defaults(&bd);
        bd.joint = CDYN_JOINT_PRISMATIC;
        bd.frame.pos[2] = 0.35;
        bd.mass = m;
        bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.01;
        bd.friction = f;
        bd.limited = 1;
        bd.lower = -0.1; /* stops the slider 0.2 m above the floor */
        bd.upper = 1;
        int body, gf, gs;
        assert_int_equal(cdyn_builder_add_body(b, &bd, &body, NULL), CDYN_OK);
        cdyn_geom_desc floor, sph;
        cdyn_geom_desc_defaults(&floor);
        cdyn_geom_desc_defaults(&sph);
        sph.body = body;
        sph.type = CDYN_GEOM_SPHERE;
        sph.size[0] = 0.05;
        assert_int_equal(cdyn_builder_add_geom(b, &floor, &gf, NULL), CDYN_OK);
        assert_int_equal(cdyn_builder_add_geom(b, &sph, &gs, NULL), CDYN_OK);
        cdyn_contact_pair_desc p;
        cdyn_contact_pair_desc_defaults(&p);
        p.geom_a = gf;
        p.geom_b = gs;
        assert_int_equal(cdyn_builder_add_contact_pair(b, &p, NULL, NULL), CDYN_OK);
        assert_int_equal(cdyn_builder_build(b, &model, NULL), CDYN_OK);
        cdyn_builder_free(b);
    }
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_PYRAMID_LCP);
    o.h = 0.005;
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    o.allocator = &fa.allocator;
    cdyn_stepper *s = NULL;
    assert_int_equal(cdyn_stepper_create(model, &o, &s, NULL), CDYN_OK);
    const int at_create = fa.allocations;
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(model, NULL, &x, NULL), CDYN_OK);
    for (int i = 0; i < 5; i++)
        step_ok(s, x, i);
    const int warm = fa.allocations;
    for (int i = 0; i < 200; i++) /* falls onto the limit and rests there */
        step_ok(s, x, i);
    assert_int_equal(fa.allocations, warm);
    assert_true(fabs(x->q[0] + 0.1) <= 1e-15 && fabs(x->v[0]) <= 1e-12);
    cdyn_stepper_free(s);
    assert_int_equal(fa.live, 0);
    for (int k = 0; k < at_create; k++) {
        test_failing_alloc_init(&fa, k);
        s = (cdyn_stepper *)&s;
        assert_int_equal(cdyn_stepper_create(model, &o, &s, NULL), CDYN_ENOMEM);
        assert_null(s);
        assert_int_equal(fa.live, 0);
    }
    test_failing_alloc_init(&fa, at_create);
    assert_int_equal(cdyn_stepper_create(model, &o, &s, NULL), CDYN_OK);
    x->q[0] = 0.2;
    x->v[0] = -1;
    cdyn_step_report sr;
    assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_ENOMEM);
    assert_true(x->q[0] == 0.2 && x->v[0] == -1);
    cdyn_stepper_free(s);
    assert_int_equal(fa.live, 0);
    cdyn_state_free(x);
    cdyn_model_free(model);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slider_stops),
        cmocka_unit_test(test_incline),
        cmocka_unit_test(test_drop_on_floor),
        cmocka_unit_test(test_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
