/* Baumgarte contact with Bortoff's state machine, against closed forms: free fall (RK4 is exact
 * for a parabola), the constraint's linear ODE in CONTACT, rest with lambda = m g, growing apexes
 * without damping (Bortoff Fig. 3), an impact located inside a long step (not sampled), a failing
 * step left untouched, refused options. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/step.h"

#define G 9.81

/* A point mass (m = 1) on a vertical prismatic joint above the floor: q = h, the gap. With
 * `twice`, two identical floor pairs (dependent constraints). */
static cdyn_model *ball(double a0, double a1, double a2, int twice)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.joint = CDYN_JOINT_PRISMATIC;
    d.axis[0] = d.axis[1] = 0;
    d.axis[2] = 1;
    d.mass = 1.0;
    d.inertia[0] = d.inertia[1] = d.inertia[2] = 1e-3;
    int body, gf, gp, id;
    assert_int_equal(cdyn_builder_add_body(b, &d, &body, NULL), CDYN_OK);
    cdyn_geom_desc floor, point;
    cdyn_geom_desc_defaults(&floor);
    cdyn_geom_desc_defaults(&point);
    point.type = CDYN_GEOM_POINT;
    point.body = body;
    assert_int_equal(cdyn_builder_add_geom(b, &floor, &gf, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &point, &gp, NULL), CDYN_OK);
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.geom_a = gf;
    pd.geom_b = gp;
    pd.baumgarte[0] = a0;
    pd.baumgarte[1] = a1;
    pd.baumgarte[2] = a2;
    for (int k = 0; k <= twice; k++)
        assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, &id, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

static cdyn_stepper *stepper(const cdyn_model *m, double h)
{
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_BAUMGARTE);
    o.h = h;
    cdyn_stepper *s = NULL;
    cdyn_report rep;
    if (cdyn_stepper_create(m, &o, &s, &rep) != CDYN_OK)
        fail_msg("%s", rep.message);
    return s;
}

/* Free fall from 1 m: h(t) = 1 - g t^2 / 2 to rounding (RK4 integrates a quadratic exactly). */
static void test_free_fall(void **unused)
{
    (void)unused;
    cdyn_model *m = ball(100, 1, 1e6, 0);
    cdyn_stepper *s = stepper(m, 0.01);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[0] = 1.0;
    for (int k = 0; k < 40; k++) { /* 0.4 s < the impact at 0.4515 s */
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        assert_true(fabs(x->q[0] - (1.0 - 0.5 * G * x->t * x->t)) < 1e-12);
        assert_int_equal(x->mode[0], CDYN_MODE_FREE);
    }
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* In CONTACT with alpha2 = 0 the gap obeys hddot + a1 hdot + a0 h = 0: from h(0) = -0.01, at
 * rest, h(t) = -0.01 e^{-z w t} (cos(wd t) + z w / wd sin(wd t)), w = sqrt(a0), z = a1 / (2 w).
 * lambda = m (g - a1 hdot - a0 h) stays above m (g - 1.2) > 0, so the mode stays CONTACT. */
static void test_contact_ode(void **unused)
{
    (void)unused;
    const double a0 = 100, a1 = 1;
    cdyn_model *m = ball(a0, a1, 0, 0);
    cdyn_stepper *s = stepper(m, 1e-3);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[0] = -0.01;
    x->mode[0] = CDYN_MODE_CONTACT;
    const double w = sqrt(a0), z = a1 / (2 * w), wd = w * sqrt(1 - z * z);
    for (int k = 0; k < 1000; k++) {
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        assert_int_equal(x->mode[0], CDYN_MODE_CONTACT);
    }
    const double t = x->t;
    const double h = -0.01 * exp(-z * w * t) * (cos(wd * t) + z * w / wd * sin(wd * t));
    assert_true(fabs(x->q[0] - h) < 1e-9);
    assert_true(fabs(x->lambda[0] - (G - a1 * x->v[0] - a0 * x->q[0])) < 1e-8);
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* The impact at t_e = sqrt(2/g) = 0.4515 s inside the step [0.44, 0.46] of h = 20 ms is located,
 * not sampled: the state at 0.46 s agrees with a run of 1 ms steps to 1e-4 m, where a switch at
 * the step's end would leave the ball 3.8 cm below the floor. (The rest of the step after an
 * event is one RK4 step: h must suit the contact's stiffness, as for any explicit method.) */
static void test_event_located(void **unused)
{
    (void)unused;
    cdyn_model *m = ball(100, 20, 1e6, 0);
    cdyn_stepper *big = stepper(m, 0.02), *fine = stepper(m, 1e-3);
    cdyn_state *a = NULL, *b = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &a, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_create(m, NULL, &b, NULL), CDYN_OK);
    a->q[0] = b->q[0] = 1.0;
    cdyn_step_report sr;
    int events = 0;
    for (int k = 0; k < 23; k++) {
        assert_int_equal(cdyn_step(big, NULL, a, &sr), CDYN_OK);
        events += sr.events;
    }
    assert_int_equal(events, 1);
    assert_int_equal(a->mode[0], CDYN_MODE_CONTACT);
    for (int k = 0; k < 460; k++)
        assert_int_equal(cdyn_step(fine, NULL, b, NULL), CDYN_OK);
    print_message("big step: h %.6f v %.6f; fine: h %.6f v %.6f\n", a->q[0], a->v[0], b->q[0], b->v[0]);
    assert_true(fabs(a->q[0] - b->q[0]) < 1e-4 && fabs(a->v[0] - b->v[0]) < 1e-2);
    cdyn_stepper_free(big);
    cdyn_stepper_free(fine);
    cdyn_state_free(a);
    cdyn_state_free(b);
    cdyn_model_free(m);
}

/* Bortoff's bouncing ball: with the damping of his listing (alpha1 = 20) it comes to rest,
 * h -> 0 and lambda -> m g (the equilibrium of the stabilized constraint, lambda = m (g + a0 h +
 * a2 h^3)); without damping (alpha1 = 0, Fig. 3) every apex is higher than the last. */
static void test_bounces(void **unused)
{
    (void)unused;
    cdyn_model *m = ball(100, 20, 1e6, 0);
    cdyn_stepper *s = stepper(m, 1e-3);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[0] = 1.0;
    for (int k = 0; k < 10000; k++)
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
    assert_int_equal(x->mode[0], CDYN_MODE_CONTACT);
    assert_true(fabs(x->q[0]) < 1e-9 && fabs(x->lambda[0] - G) < 1e-6);
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);

    m = ball(100, 0, 1e6, 0);
    s = stepper(m, 1e-3);
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[0] = 1.0;
    double apex[8], prev_v = 0;
    int n = 0;
    for (int k = 0; k < 8000 && n < 8; k++) {
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        if (prev_v > 0 && x->v[0] <= 0)
            apex[n++] = x->q[0];
        prev_v = x->v[0];
    }
    assert_true(n >= 4);
    assert_true(apex[0] > 1.0);
    for (int i = 1; i < n; i++)
        assert_true(apex[i] > apex[i - 1]);
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* Two identical contacts in CONTACT make Gamma M^-1 Gamma' singular: the step fails with
 * CDYN_ESINGULAR and the state is bit-identical. Bad options are refused. */
static void test_failure_and_options(void **unused)
{
    (void)unused;
    cdyn_model *m = ball(100, 20, 0, 1);
    cdyn_stepper *s = stepper(m, 1e-3);
    cdyn_state *x = NULL, *c = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_create(m, NULL, &c, NULL), CDYN_OK);
    x->q[0] = -0.001;
    x->mode[0] = x->mode[1] = CDYN_MODE_CONTACT;
    assert_int_equal(cdyn_state_copy(c, x, NULL), CDYN_OK);
    cdyn_step_report sr;
    assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_ESINGULAR);
    assert_memory_equal(x->q, c->q, sizeof(double));
    assert_memory_equal(x->v, c->v, sizeof(double));
    assert_memory_equal(x->mode, c->mode, 2 * sizeof(int));
    assert_true(x->t == c->t);
    cdyn_stepper_free(s);

    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_BAUMGARTE);
    o.event_tol = 0;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_EINVAL);
    o.event_tol = 1e-9;
    o.backend = CDYN_BACKEND_LEMKE;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_EINVAL);
    assert_null(s);
    cdyn_state_free(x);
    cdyn_state_free(c);
    cdyn_model_free(m);

    /* the builder refuses negative Baumgarte coefficients */
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.mass = 1;
    d.inertia[0] = d.inertia[1] = d.inertia[2] = 1;
    int body, gf, gp, id;
    assert_int_equal(cdyn_builder_add_body(b, &d, &body, NULL), CDYN_OK);
    cdyn_geom_desc floor, point;
    cdyn_geom_desc_defaults(&floor);
    cdyn_geom_desc_defaults(&point);
    point.type = CDYN_GEOM_POINT;
    point.body = body;
    assert_int_equal(cdyn_builder_add_geom(b, &floor, &gf, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &point, &gp, NULL), CDYN_OK);
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.geom_a = gf;
    pd.geom_b = gp;
    pd.baumgarte[1] = -1;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, &id, NULL), CDYN_EINVAL);
    cdyn_builder_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_free_fall),     cmocka_unit_test(test_contact_ode),
        cmocka_unit_test(test_event_located), cmocka_unit_test(test_bounces),
        cmocka_unit_test(test_failure_and_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
