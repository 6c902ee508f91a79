/* The Coulomb step (CDYN_SCHEME_COULOMB_STEP: velocity-level, exact cone, one frictional contact
 * problem per step): Coulomb's law against textbook rigid-body results, with the difference
 * from the cone step's relaxation checked — a sliding body does not lift off. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/model.h"
#include "cdyn/step.h"
#include "step_scenes.h"

static void test_names_and_refusals(void **unused)
{
    (void)unused;
    assert_string_equal(cdyn_scheme_str(CDYN_SCHEME_COULOMB_STEP), "coulomb-step");
    assert_string_equal(cdyn_step_backend_str(CDYN_BACKEND_FC3D), "fc3d");
    cdyn_model *m = scene_sphere(0.05, 0.2, 0.2);
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_COULOMB_STEP);
    cdyn_stepper *s = NULL;
    cdyn_report rep;
    o.backend = CDYN_BACKEND_LEMKE; /* not a backend of this scheme */
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_EINVAL);
    assert_null(s);
    o.backend = CDYN_BACKEND_FC3D;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_OK);
    assert_int_equal(cdyn_stepper_options(s)->backend, CDYN_BACKEND_FC3D);
    cdyn_stepper_free(s);
    o.backend = CDYN_BACKEND_FC3D;
    cdyn_step_defaults(&o, CDYN_SCHEME_CONE_STEP);
    o.backend = CDYN_BACKEND_FC3D; /* and the cone step cannot use it */
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_EINVAL);
    cdyn_model_free(m);
}

/* A sphere at rest on the plane carries its weight: lambda_n = m g, no tangential force. */
static void test_resting(void **unused)
{
    (void)unused;
    const double r = 0.05, mass = 0.2;
    cdyn_model *m = scene_sphere(r, mass, 0.2);
    cdyn_stepper *s = scene_stepper(m, CDYN_SCHEME_COULOMB_STEP, 0.01);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[2] = r;
    cdyn_step_report sr;
    for (int i = 0; i < 100; i++)
        assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_OK);
    assert_int_equal(sr.nactive, 1);
    assert_true(fabs(x->q[2] - r) < 1e-9);
    assert_true(fabs(x->lambda[0] - mass * G_ACC) < 1e-8 * mass * G_ACC);
    assert_true(fabs(x->lambda[1]) < 1e-9 && fabs(x->lambda[2]) < 1e-9);
    assert_int_equal(x->mode[0], CDYN_MODE_STICK);
    assert_true(sr.solver.residual <= 1e-10);
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* A solid sphere sliding with slip s0 stops slipping at t* = |s0| / (3.5 mu g) (friction
 * mu m g decelerates the centre at mu g and spins the ball up at 5 mu g / (2 r)); the slip keeps
 * its direction (exact cone), the sphere stays on the plane (exact normal condition), and after
 * t* it rolls without slipping at the speed it had. */
static void test_sphere_slip_end(void **unused)
{
    (void)unused;
    const double r = 0.05, mass = 0.2, mu = 0.2, h = 1e-3;
    cdyn_model *m = scene_sphere(r, mass, mu);
    cdyn_stepper *s = scene_stepper(m, CDYN_SCHEME_COULOMB_STEP, h);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[2] = r;
    x->v[0] = 1.0;
    x->v[1] = 0.5;
    x->v[3] = 4.0;
    const double s0x = x->v[0] - r * x->v[4], s0y = x->v[1] + r * x->v[3];
    const double s0 = hypot(s0x, s0y), t_star = s0 / (3.5 * mu * G_ACC);
    double t_end = -1;
    for (int i = 0; i < 400; i++) {
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        assert_true(fabs(x->q[2] - r) < 1e-9); /* no lift-off while sliding */
        const double sx = x->v[0] - r * x->v[4], sy = x->v[1] + r * x->v[3];
        if (hypot(sx, sy) > 1e-6) {
            assert_true(t_end < 0); /* once rolling, it keeps rolling */
            assert_true(fabs(sx * s0y - sy * s0x) < 1e-6 * hypot(sx, sy) * s0);
            assert_int_equal(x->mode[0], CDYN_MODE_SLIP);
            /* sliding friction is mu m g, opposite to the slip */
            assert_true(fabs(hypot(x->lambda[1], x->lambda[2]) - mu * mass * G_ACC) <
                        1e-8 * mass * G_ACC);
        } else {
            if (t_end < 0)
                t_end = x->t;
            assert_int_equal(x->mode[0], CDYN_MODE_STICK);
        }
    }
    assert_true(t_end > 0);
    assert_true(fabs(t_end - t_star) <= h);
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* Coulomb's law on an incline: for tan(theta) < mu the block sticks without creep; for
 * tan(theta) > mu it slides with a = g (sin(theta) - mu cos(theta)) — every step, since the exact
 * cone does not lift the block (the cone step's relaxation does, by mu v h per step). The
 * semi-implicit Euler velocity after n steps is exactly n h a. */
static void test_incline(void **unused)
{
    (void)unused;
    const double mu = 0.5, h = 0.01;
    const double thetas[2] = {20 * M_PI / 180, 35 * M_PI / 180};
    for (int k = 0; k < 2; k++) {
        const double th = thetas[k];
        cdyn_model *m = scene_incline(th, mu);
        cdyn_stepper *s = scene_stepper(m, CDYN_SCHEME_COULOMB_STEP, h);
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        x->q[2] = 0.05;
        for (int i = 0; i < 100; i++)
            assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        if (tan(th) < mu) {
            assert_true(fabs(x->q[0]) < 1e-9 && fabs(x->v[0]) < 1e-9);
        } else {
            const double v_exact = G_ACC * (sin(th) - mu * cos(th)) * 1.0;
            assert_true(fabs(x->v[0] - v_exact) < 1e-8 * v_exact);
            assert_true(fabs(x->q[2] - 0.05) < 1e-9);
        }
        cdyn_stepper_free(s);
        cdyn_state_free(x);
        cdyn_model_free(m);
    }
}

/* The planar disk (I = m r^2 / 2) sliding without spin: slip v + r w falls at
 * mu g + r (mu m g r / I) = 3 mu g, so rolling starts at t* = v0 / (3 mu g); the planar rows get
 * a decoupled third component, whose force stays 0. */
static void test_planar_disk(void **unused)
{
    (void)unused;
    const double mu = 0.3, h = 1e-3, r = 0.1, v0 = 1.0;
    cdyn_model *m = scene_disk(mu, 0.0, 0.0);
    cdyn_stepper *s = scene_stepper(m, CDYN_SCHEME_COULOMB_STEP, h);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[1] = r;
    x->v[0] = v0;
    const double t_star = v0 / (3 * mu * G_ACC);
    double t_end = -1;
    for (int i = 0; i < 200 && t_end < 0; i++) {
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        assert_true(fabs(x->q[1] - r) < 1e-9);
        assert_true(x->lambda[2] == 0.0);
        if (fabs(x->v[0] + r * x->v[2]) < 1e-6)
            t_end = x->t;
    }
    assert_true(t_end > 0);
    assert_true(fabs(t_end - t_star) <= h);
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* Energy never grows: a ball dropped with spin and sideways speed onto the plane, as for the
 * cone step (1e-12 J of rounding). */
static void test_energy(void **unused)
{
    (void)unused;
    scene_check_energy(CDYN_SCHEME_COULOMB_STEP);
}

/* A failing solve leaves the caller's state bit-identical: no Gauss-Seidel, no Newton
 * iteration allowed, no fallbacks, on a contact that needs a force. */
static void test_failed_step_untouched(void **unused)
{
    (void)unused;
    const double r = 0.05;
    cdyn_model *m = scene_sphere(r, 0.2, 0.2);
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_COULOMB_STEP);
    o.h = 0.01;
    o.fc3d.warm_sweeps = 0;
    o.fc3d.newton.max_iter = 0;
    o.fc3d.try_fb = 0;
    o.fc3d.fallback_nsgs = 0;
    cdyn_stepper *s = NULL;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_OK);
    cdyn_state *x = NULL, *copy = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_create(m, NULL, &copy, NULL), CDYN_OK);
    x->q[2] = r;
    x->v[0] = 1.0;
    x->v[1] = 0.3;
    x->v[3] = 5.0;
    assert_int_equal(cdyn_state_copy(copy, x, NULL), CDYN_OK);
    cdyn_step_report sr;
    cdyn_status st = cdyn_step(s, NULL, x, &sr);
    assert_int_not_equal(st, CDYN_OK);
    assert_true(strlen(sr.solver.message) > 0);
    assert_memory_equal(x->q, copy->q, sizeof(double) * (size_t)x->nq);
    assert_memory_equal(x->v, copy->v, sizeof(double) * (size_t)x->nv);
    assert_true(x->t == copy->t);
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_state_free(copy);
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_refusals), cmocka_unit_test(test_resting),
        cmocka_unit_test(test_sphere_slip_end),    cmocka_unit_test(test_incline),
        cmocka_unit_test(test_planar_disk),        cmocka_unit_test(test_energy),
        cmocka_unit_test(test_failed_step_untouched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
