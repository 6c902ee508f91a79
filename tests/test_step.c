/* The stepper driver and the cone step: options, state handling, failure semantics, the
 * recorder, allocation after warm-up, threads, and the cone step's physics against analytic
 * values. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/step.h"
#include "step_scenes.h"
#include "support.h"


static void test_strings_and_defaults(void **unused)
{
    (void)unused;
    assert_string_equal(cdyn_scheme_str(CDYN_SCHEME_CONE_STEP), "cone-step");
    assert_string_equal(cdyn_scheme_str((cdyn_scheme)99), "unknown scheme");
    assert_string_equal(cdyn_step_backend_str(CDYN_BACKEND_LEMKE), "lemke");
    assert_string_equal(cdyn_contact_mode_str(CDYN_MODE_BALLISTIC), "ballistic");
    assert_string_equal(cdyn_contact_mode_str((cdyn_contact_mode)-3), "unknown mode");
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_PYRAMID_LCP);
    assert_int_equal(o.scheme, CDYN_SCHEME_PYRAMID_LCP);
    assert_int_equal(o.backend, CDYN_BACKEND_AUTO);
    assert_true(o.h > 0);
    cdyn_step_defaults(NULL, CDYN_SCHEME_CONE_STEP); /* accepted, does nothing */
}

static void test_create_refusals(void **unused)
{
    (void)unused;
    cdyn_model *m = scene_sphere(0.05, 0.2, 0.2);
    cdyn_stepper *s = (cdyn_stepper *)&s; /* must be reset to NULL on failure */
    cdyn_report rep;
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_CONE_STEP);

    assert_int_equal(cdyn_stepper_create(NULL, &o, &s, &rep), CDYN_EINVAL);
    assert_null(s);
    assert_int_equal(cdyn_stepper_create(m, &o, NULL, &rep), CDYN_EINVAL);

    const double bad_h[] = {0.0, -1e-3, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad_h / sizeof bad_h[0]; i++) {
        cdyn_step_options b = o;
        b.h = bad_h[i];
        assert_int_equal(cdyn_stepper_create(m, &b, &s, &rep), CDYN_EINVAL);
        assert_non_null(strstr(rep.message, "h ="));
        assert_null(s);
    }
    cdyn_step_options b = o;
    b.scheme = (cdyn_scheme)17;
    assert_int_equal(cdyn_stepper_create(m, &b, &s, &rep), CDYN_EINVAL);
    b = o;
    b.backend = CDYN_BACKEND_LEMKE; /* the cone step needs the cone QP */
    assert_int_equal(cdyn_stepper_create(m, &b, &s, &rep), CDYN_EINVAL);
    assert_non_null(strstr(rep.message, "cone-step scheme cannot use the lemke backend"));
    b = o;
    b.max_halvings = -1;
    assert_int_equal(cdyn_stepper_create(m, &b, &s, &rep), CDYN_EINVAL);
    b = o;
    b.gamma = NAN;
    assert_int_equal(cdyn_stepper_create(m, &b, &s, &rep), CDYN_EINVAL);

    assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_OK);
    assert_int_equal(cdyn_stepper_options(s)->backend, CDYN_BACKEND_CONEQP);
    cdyn_stepper_free(s);
    cdyn_stepper_free(NULL);
    cdyn_model_free(m);
}

static void test_state(void **unused)
{
    (void)unused;
    cdyn_model *m = scene_sphere(0.05, 0.2, 0.2);
    cdyn_report rep;
    cdyn_state *a = NULL, *b = NULL;
    assert_int_equal(cdyn_state_create(NULL, NULL, &a, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_state_create(m, NULL, NULL, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_state_create(m, NULL, &a, &rep), CDYN_OK);
    assert_int_equal(a->nq, 7);
    assert_int_equal(a->nv, 6);
    assert_int_equal(a->nc, 1);
    assert_true(a->q[3] == 1.0 && a->q[4] == 0.0); /* the default pose: unit quaternion */
    assert_int_equal(a->mode[0], CDYN_MODE_FREE);

    test_failing_alloc fa;
    test_failing_alloc_init(&fa, 0);
    assert_int_equal(cdyn_state_create(m, &fa.allocator, &b, &rep), CDYN_ENOMEM);
    assert_null(b);
    test_failing_alloc_init(&fa, -1);
    assert_int_equal(cdyn_state_create(m, &fa.allocator, &b, &rep), CDYN_OK);
    a->t = 1.5;
    a->v[2] = -3;
    a->lambda[0] = 2;
    a->mode[0] = CDYN_MODE_SLIP;
    assert_int_equal(cdyn_state_copy(b, a, &rep), CDYN_OK);
    assert_true(b->t == 1.5 && b->v[2] == -3 && b->lambda[0] == 2 && b->mode[0] == CDYN_MODE_SLIP);
    cdyn_state_free(b);
    assert_int_equal(fa.live, 0);

    /* A state of another model is refused by copy and by the stepper. */
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    cdyn_builder *bld = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &bld, &rep), CDYN_OK);
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.mass = 1;
    d.inertia[2] = 1;
    int id;
    assert_int_equal(cdyn_builder_add_body(bld, &d, &id, &rep), CDYN_OK);
    cdyn_model *m2 = NULL;
    assert_int_equal(cdyn_builder_build(bld, &m2, &rep), CDYN_OK);
    cdyn_builder_free(bld);
    cdyn_state *c = NULL;
    assert_int_equal(cdyn_state_create(m2, NULL, &c, &rep), CDYN_OK);
    assert_int_equal(cdyn_state_copy(c, a, &rep), CDYN_EINVAL);
    assert_non_null(strstr(rep.message, "sizes differ"));
    cdyn_stepper *s = scene_stepper(m, CDYN_SCHEME_CONE_STEP, 0.01);
    cdyn_step_report sr;
    assert_int_equal(cdyn_step(s, NULL, c, &sr), CDYN_EINVAL);
    assert_non_null(strstr(sr.solver.message, "sizes"));
    cdyn_stepper_free(s);
    cdyn_state_free(c);
    cdyn_model_free(m2);
    cdyn_state_free(a);
    cdyn_model_free(m);
}

/* Bad states and forces are refused and leave the state as it was. */
static void test_step_bad_input(void **unused)
{
    (void)unused;
    cdyn_model *m = scene_sphere(0.05, 0.2, 0.2);
    cdyn_stepper *s = scene_stepper(m, CDYN_SCHEME_CONE_STEP, 0.01);
    cdyn_state *x = NULL;
    cdyn_report rep;
    cdyn_step_report sr;
    assert_int_equal(cdyn_state_create(m, NULL, &x, &rep), CDYN_OK);
    x->q[2] = 0.3;
    assert_int_equal(cdyn_step(NULL, NULL, x, &sr), CDYN_EINVAL);
    assert_int_equal(cdyn_step(s, NULL, NULL, &sr), CDYN_EINVAL);

    x->v[1] = NAN;
    assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_EINVAL);
    assert_non_null(strstr(sr.solver.message, "NaN"));
    assert_true(isnan(x->v[1]) && x->t == 0.0);
    x->v[1] = 0;

    double tau[6] = {0, 0, INFINITY, 0, 0, 0};
    assert_int_equal(cdyn_step(s, tau, x, &sr), CDYN_EINVAL);
    x->mode[0] = 42;
    assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_EINVAL);
    x->mode[0] = CDYN_MODE_FREE;
    x->q[3] = 5.0; /* |e| = 5: a wrong state, not rounding */
    assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_EINVAL);
    assert_true(x->q[3] == 5.0);
    x->q[3] = 1.0;
    assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK); /* report may be NULL */
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* Free flight: the scheme is v+ = v + h g, z+ = z + h v+ (symplectic Euler), so after n steps
 * z_n = z_0 + n h v_0 - g h^2 n (n + 1) / 2 exactly; the contact stays FREE. */
static void test_cone_free_flight(void **unused)
{
    (void)unused;
    cdyn_model *m = scene_sphere(0.05, 0.2, 0.2);
    const double h = 0.01, z0 = 2.0, vz0 = 3.0;
    cdyn_stepper *s = scene_stepper(m, CDYN_SCHEME_CONE_STEP, h);
    cdyn_state *x = NULL;
    cdyn_report rep;
    assert_int_equal(cdyn_state_create(m, NULL, &x, &rep), CDYN_OK);
    x->q[2] = z0;
    x->v[2] = vz0;
    x->v[0] = 0.5;
    x->v[5] = 2.0; /* spin about z: the quaternion turns at 2 rad/s */
    const int n = 50;
    for (int i = 0; i < n; i++)
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
    const double z_exact = z0 + n * h * vz0 - G_ACC * h * h * n * (n + 1) / 2.0;
    assert_true(fabs(x->q[2] - z_exact) < 1e-12);
    assert_true(fabs(x->q[0] - 0.5 * n * h) < 1e-12);
    assert_true(fabs(x->t - n * h) < 1e-12);
    assert_int_equal(x->mode[0], CDYN_MODE_FREE);
    assert_true(fabs(x->lambda[0]) < 1e-9 * 0.2 * G_ACC);
    const double qn = sqrt(x->q[3] * x->q[3] + x->q[4] * x->q[4] + x->q[5] * x->q[5] +
                           x->q[6] * x->q[6]);
    assert_true(fabs(qn - 1.0) < 1e-14);
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* A sphere resting on the plane stays at rest and carries its weight: lambda_n = m g
 * (equilibrium), no tangential force, mode STICK. */
static void test_cone_resting(void **unused)
{
    (void)unused;
    const double r = 0.05, mass = 0.2;
    cdyn_model *m = scene_sphere(r, mass, 0.2);
    cdyn_stepper *s = scene_stepper(m, CDYN_SCHEME_CONE_STEP, 0.01);
    cdyn_state *x = NULL;
    cdyn_report rep;
    assert_int_equal(cdyn_state_create(m, NULL, &x, &rep), CDYN_OK);
    x->q[2] = r;
    cdyn_step_report sr;
    for (int i = 0; i < 100; i++) {
        assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_OK);
        assert_int_equal(sr.nactive, 1);
    }
    assert_true(fabs(x->q[2] - r) < 1e-8);
    assert_true(fabs(x->lambda[0] - mass * G_ACC) < 1e-6 * mass * G_ACC);
    assert_true(fabs(x->lambda[1]) < 1e-8 && fabs(x->lambda[2]) < 1e-8);
    assert_int_equal(x->mode[0], CDYN_MODE_STICK);
    assert_string_equal(sr.solver.method, "coneqp-ipm-dense");
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* A solid sphere sliding on the plane with slip s0 (contact-point velocity v - r w x n) stops
 * slipping at t* = |s0| / (3.5 mu g): friction mu m g decelerates the centre at mu g and spins
 * the ball up at 5 mu g / (2 r), so the slip falls at 3.5 mu g (textbook rigid-body result).
 * The cone step keeps the exact cone, so the slip direction stays fixed (checked) and the end of
 * slip lands within h of t*. */
static void test_cone_sphere_slip_end(void **unused)
{
    (void)unused;
    const double r = 0.05, mass = 0.2, mu = 0.2, h = 1e-3;
    cdyn_model *m = scene_sphere(r, mass, mu);
    cdyn_stepper *s = scene_stepper(m, CDYN_SCHEME_CONE_STEP, h);
    cdyn_state *x = NULL;
    cdyn_report rep;
    assert_int_equal(cdyn_state_create(m, NULL, &x, &rep), CDYN_OK);
    x->q[2] = r;
    x->v[0] = 1.0;
    x->v[1] = 0.5;
    x->v[3] = 4.0; /* w_x: slip_y = v_y - r w_x... */
    /* slip of the contact point (velocity of the ball's material point at the bottom):
     * v + w x (0, 0, -r) = (v_x - r w_y, v_y + r w_x, 0). */
    const double s0x = x->v[0] - r * x->v[4], s0y = x->v[1] + r * x->v[3];
    const double s0 = hypot(s0x, s0y), t_star = s0 / (3.5 * mu * G_ACC);
    double t_end = -1;
    for (int i = 0; i < 400 && t_end < 0; i++) {
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        const double sx = x->v[0] - r * x->v[4], sy = x->v[1] + r * x->v[3];
        if (hypot(sx, sy) > 1e-6) {
            /* the slip keeps its direction (exact cone) */
            assert_true(fabs(sx * s0y - sy * s0x) < 1e-6 * hypot(sx, sy) * s0);
        } else {
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

/* Coulomb's law on an incline: with tan(theta) < mu the block sticks (the exact cone leaves no
 * creep: drift below 1e-9 m in 1 s); with tan(theta) > mu it slides with
 * a = g (sin(theta) - mu cos(theta)). The cone step's relaxation lifts the sliding block by
 * mu |v_T| h (docs/theory.md), so friction acts in most but not all steps: its speed after 1 s is
 * within 1 % of a t, and the lift equals mu v h within 5 %. */
/* The cone step's modes: its complementarity is the dual cone's, u_n >= mu |u_T| against p_n,
 * so a ball sliding fast on the table (u_n = mu |u_T| while the friction acts) is SLIP (STICK once
 * it rolls, after 2 v / (7 mu g) = 0.58 s) in every step that carries a normal force and FREE
 * only in the steps that carry none (the relaxation's lift leaves it in the air for some). Before, the rows were judged FREE by u_n alone, which
 * mu |u_T| exceeds above about 0.7 m/s here: a sliding row with force reported FREE. */
static void test_cone_modes(void **unused)
{
    (void)unused;
    const double mass = 0.2, h = 0.01;
    cdyn_model *m = scene_billiard(); /* r = 0.05, m = 0.2, mu = 0.2 */
    cdyn_stepper *s = scene_stepper(m, CDYN_SCHEME_CONE_STEP, h);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[2] = 0.05;
    x->v[0] = 4.0;
    int slip = 0, free_steps = 0;
    for (int i = 0; i < 80; i++) {
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        if (x->lambda[0] > 1e-3 * mass * G_ACC) {
            assert_int_not_equal(x->mode[0], CDYN_MODE_FREE); /* SLIP, then STICK once rolling */
            slip += x->mode[0] == CDYN_MODE_SLIP;
        } else {
            assert_int_equal(x->mode[0], CDYN_MODE_FREE);
            free_steps++;
        }
    }
    assert_true(slip > 10);
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

static void test_cone_incline(void **unused)
{
    (void)unused;
    const double mu = 0.5, h = 0.01;
    const double thetas[2] = {20 * M_PI / 180, 35 * M_PI / 180};
    for (int k = 0; k < 2; k++) {
        const double th = thetas[k];
        cdyn_model *m = scene_incline(th, mu);
        cdyn_stepper *s = scene_stepper(m, CDYN_SCHEME_CONE_STEP, h);
        cdyn_state *x = NULL;
        cdyn_report rep;
        assert_int_equal(cdyn_state_create(m, NULL, &x, &rep), CDYN_OK);
        x->q[2] = 0.05;
        for (int i = 0; i < 100; i++)
            assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        if (tan(th) < mu) {
            assert_true(fabs(x->q[0]) < 1e-9 && fabs(x->v[0]) < 1e-9);
            for (int i = 0; i < 8; i++)
                assert_true(x->mode[i] == CDYN_MODE_STICK || x->mode[i] == CDYN_MODE_FREE);
        } else {
            const double v_exact = G_ACC * (sin(th) - mu * cos(th)) * 1.0;
            assert_true(fabs(x->v[0] - v_exact) < 0.01 * v_exact);
            assert_true(fabs((x->q[2] - 0.05) - mu * x->v[0] * h) < 0.05 * mu * x->v[0] * h);
        }
        cdyn_stepper_free(s);
        cdyn_state_free(x);
        cdyn_model_free(m);
    }
}

/* Three spheres stacked on the plane (sphere-sphere contacts, all rows in one problem) stay put:
 * the Psi/h term holds every gap at 0, so nothing drifts in 1000 steps, and the contact forces
 * are the weights above each contact (3, 2, 1 m g from the bottom up). */
static void test_cone_stack(void **unused)
{
    (void)unused;
    const double r = 0.05, mass = 0.2;
    cdyn_report rep;
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, &rep), CDYN_OK);
    cdyn_geom_desc plane;
    cdyn_geom_desc_defaults(&plane);
    int gp, gs[3], pair;
    assert_int_equal(cdyn_builder_add_geom(b, &plane, &gp, &rep), CDYN_OK);
    for (int i = 0; i < 3; i++) {
        cdyn_body_desc d;
        cdyn_body_desc_defaults(&d);
        d.mass = mass;
        d.inertia[0] = d.inertia[1] = d.inertia[2] = 0.4 * mass * r * r;
        int body;
        assert_int_equal(cdyn_builder_add_body(b, &d, &body, &rep), CDYN_OK);
        cdyn_geom_desc g;
        cdyn_geom_desc_defaults(&g);
        g.body = body;
        g.type = CDYN_GEOM_SPHERE;
        g.size[0] = r;
        assert_int_equal(cdyn_builder_add_geom(b, &g, &gs[i], &rep), CDYN_OK);
    }
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.mu = 0.5;
    const int a[3] = {gp, gs[0], gs[1]}, c[3] = {gs[0], gs[1], gs[2]};
    for (int i = 0; i < 3; i++) {
        pd.geom_a = a[i];
        pd.geom_b = c[i];
        assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, &pair, &rep), CDYN_OK);
    }
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, &rep), CDYN_OK);
    cdyn_builder_free(b);
    cdyn_stepper *s = scene_stepper(m, CDYN_SCHEME_CONE_STEP, 0.01);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, &rep), CDYN_OK);
    for (int i = 0; i < 3; i++)
        x->q[7 * i + 2] = r + 2 * r * i;
    for (int k = 0; k < 1000; k++)
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
    for (int i = 0; i < 3; i++) {
        assert_true(fabs(x->q[7 * i + 2] - (r + 2 * r * i)) < 1e-9);
        assert_true(fabs(x->q[7 * i]) < 1e-12 && fabs(x->q[7 * i + 1]) < 1e-12);
        const double weight = (3 - i) * mass * G_ACC;
        assert_true(fabs(x->lambda[3 * i] - weight) < 1e-6 * weight);
    }
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* Energy never grows: a ball dropped with spin and sideways speed onto the plane bounces
 * inelastically, slides and rolls; kinetic plus potential energy m g z + 1/2 v'Mv is
 * non-increasing from step to step (to rounding, 1e-12 J). In free flight the scheme (symplectic
 * Euler in z) loses exactly m g^2 h^2 / 2 per step; contacts only dissipate. */
static void test_cone_energy(void **unused)
{
    (void)unused;
    scene_check_energy(CDYN_SCHEME_CONE_STEP);
}

/* A failing solve leaves the caller's state bit-identical: the cone QP limited to one
 * interior-point iteration cannot converge. */
static void test_failed_step_untouched(void **unused)
{
    (void)unused;
    const double r = 0.05;
    cdyn_model *m = scene_sphere(r, 0.2, 0.2);
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_CONE_STEP);
    o.coneqp.max_iter = 1;
    o.max_halvings = 2; /* halving cannot help either: reported after 1 + 2 + 4 substeps' tries */
    cdyn_stepper *s = NULL;
    cdyn_report rep;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_OK);
    cdyn_state *x = NULL, *copy = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, &rep), CDYN_OK);
    assert_int_equal(cdyn_state_create(m, NULL, &copy, &rep), CDYN_OK);
    x->t = 0.25;
    x->q[2] = r;
    x->v[0] = 1;
    x->v[3] = 40;
    x->lambda[0] = 7;
    x->mode[0] = CDYN_MODE_SLIP;
    assert_int_equal(cdyn_state_copy(copy, x, &rep), CDYN_OK);
    cdyn_step_report sr;
    assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_ENOCONV);
    assert_int_equal(sr.solver.status, CDYN_ENOCONV);
    assert_int_equal(sr.halvings, 2);
    assert_int_equal(sr.substeps, 4);
    assert_true(strlen(sr.solver.message) > 0);
    assert_memory_equal(x->q, copy->q, sizeof(double) * 7);
    assert_memory_equal(x->v, copy->v, sizeof(double) * 6);
    assert_memory_equal(x->lambda, copy->lambda, sizeof(double) * 3);
    assert_memory_equal(x->delta, copy->delta, sizeof(double) * 3);
    assert_memory_equal(x->mode, copy->mode, sizeof(int));
    assert_memory_equal(&x->t, &copy->t, sizeof(double));
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_state_free(copy);
    cdyn_model_free(m);
}

/* After warm-up a step allocates nothing (the arena keeps the backends' memory); every failed
 * allocation at creation is a clean CDYN_ENOMEM with nothing leaked. */
static void test_allocation(void **unused)
{
    (void)unused;
    const double r = 0.05;
    cdyn_model *m = scene_sphere(r, 0.2, 0.2);
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_CONE_STEP);
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    o.allocator = &fa.allocator;
    cdyn_stepper *s = NULL;
    cdyn_report rep;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_OK);
    const int at_create = fa.allocations;
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, &rep), CDYN_OK);
    x->q[2] = r;
    x->v[0] = 1;
    x->v[3] = 40;
    for (int i = 0; i < 3; i++)
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
    const int warm = fa.allocations;
    for (int i = 0; i < 100; i++)
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
    assert_int_equal(fa.allocations, warm);
    assert_true(warm > at_create); /* the arena did grow during warm-up */
    cdyn_stepper_free(s);
    assert_int_equal(fa.live, 0);

    for (int k = 0; k < at_create; k++) {
        test_failing_alloc_init(&fa, k);
        s = (cdyn_stepper *)&s;
        assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_ENOMEM);
        assert_null(s);
        assert_int_equal(fa.live, 0);
    }
    /* The arena's first growth failing inside a step: CDYN_ENOMEM, state untouched. */
    test_failing_alloc_init(&fa, at_create);
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_OK);
    const double v0 = x->v[0];
    cdyn_step_report sr;
    assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_ENOMEM);
    assert_true(x->v[0] == v0);
    cdyn_stepper_free(s);
    assert_int_equal(fa.live, 0);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* No allocation after warm-up for the pyramid LCP and the implicit NCP (dense, and sparse: the
 * Newton matrix assembled into its pattern, KLU refactoring; KLU's own allocations go through
 * SuiteSparse's malloc, which this allocator does not see, and happen only when a refactorization
 * is rejected) either: the billiard ball, 100 steps after 5. */
static void test_allocation_other_schemes(void **unused)
{
    (void)unused;
    const cdyn_scheme schemes[3] = {CDYN_SCHEME_PYRAMID_LCP, CDYN_SCHEME_IMPLICIT_NCP,
                                    CDYN_SCHEME_IMPLICIT_NCP};
    cdyn_model *m = scene_sphere(0.05, 0.2, 0.2);
    for (int k = 0; k < 3; k++) {
        cdyn_step_options o;
        cdyn_step_defaults(&o, schemes[k]);
        if (k == 2)
            o.backend = CDYN_BACKEND_FB_SPARSE;
        test_failing_alloc fa;
        test_failing_alloc_init(&fa, -1);
        o.allocator = &fa.allocator;
        cdyn_stepper *s = NULL;
        assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_OK);
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        x->q[2] = 0.05;
        const double v0[6] = {1, 0.5, 0, 40, -20, -10};
        memcpy(x->v, v0, sizeof v0);
        for (int i = 0; i < 5; i++)
            assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        const int warm = fa.allocations;
        for (int i = 0; i < 100; i++)
            assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        assert_int_equal(fa.allocations, warm);
        cdyn_stepper_free(s);
        assert_int_equal(fa.live, 0);
        cdyn_state_free(x);
    }
    cdyn_model_free(m);
}

/* The Coulomb step holds one frictional contact solver object (cdyn_fc3d_solver) from step to
 * step: after warm-up a step allocates nothing of cdyn's while the contact set stays, here a
 * stack of 12 spheres resting on the floor (12 contacts: the Newton systems go through KLU).
 * What still allocates, outside this allocator: KLU's numeric factor, through SuiteSparse's hooks,
 * at the first factorization of each Newton stage of a step (and when a refactorization is
 * rejected); its symbolic analysis is not repeated. */
static void test_allocation_coulomb_step(void **unused)
{
    (void)unused;
    enum { N = 12 };
    const double r = 0.05;
    cdyn_model *m = scene_spheres(N, r, 0.2, 0.5, 0.0, 1, 9.81);
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_COULOMB_STEP);
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    o.allocator = &fa.allocator;
    cdyn_stepper *s = NULL;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_OK);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    for (int i = 0; i < N; i++)
        x->q[7 * i + 2] = r + 2 * r * i;
    cdyn_step_report sr;
    for (int i = 0; i < 5; i++)
        assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_OK);
    const int warm = fa.allocations;
    int newton = 0;
    for (int i = 0; i < 100; i++) {
        assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_OK);
        assert_int_equal(sr.nactive, N);
        newton += strncmp(sr.solver.method, "newton", 6) == 0;
    }
    assert_int_equal(fa.allocations, warm);
    assert_true(newton > 0); /* Newton (and its KLU workspace) did run after warm-up */
    assert_true(fabs(x->q[7 * (N - 1) + 2] - (r + 2 * r * (N - 1))) < 1e-3); /* still a stack */
    cdyn_stepper_free(s);
    assert_int_equal(fa.live, 0);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* A contact set that changes: two spheres side by side on the floor, one lifted by an upward
 * force (twice its weight) for 10 steps out of every 40 and falling back, so the step's problem
 * goes from 2 contacts to 1 and back again. After warm-up (the first two cycles, 80 steps, in
 * which the arenas — the step's and the kept solvers' — grow to the peak of both shapes) no step
 * allocates, in every scheme, while the contact set keeps changing. The Coulomb step's fc3d solver keeps the workspaces of its two latest shapes: no
 * step builds a shape (report.analyses = 0) after the first cycle; the implicit step keeps the
 * solvers of its NCP_KEPT latest row sets, so the sparse backend runs no KLU analysis either. */
static void changing_contacts(cdyn_scheme scheme, cdyn_step_backend backend)
{
    const double r = 0.05, m = 0.2, g = 9.81;
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    bo.gravity[2] = -g;
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_geom_desc fl;
    cdyn_geom_desc_defaults(&fl);
    int floor;
    assert_int_equal(cdyn_builder_add_geom(b, &fl, &floor, NULL), CDYN_OK);
    for (int i = 0; i < 2; i++) {
        cdyn_body_desc d;
        cdyn_body_desc_defaults(&d);
        d.mass = m;
        d.inertia[0] = d.inertia[1] = d.inertia[2] = 0.4 * m * r * r;
        int body, gs;
        assert_int_equal(cdyn_builder_add_body(b, &d, &body, NULL), CDYN_OK);
        cdyn_geom_desc sp;
        cdyn_geom_desc_defaults(&sp);
        sp.body = body;
        sp.type = CDYN_GEOM_SPHERE;
        sp.size[0] = r;
        assert_int_equal(cdyn_builder_add_geom(b, &sp, &gs, NULL), CDYN_OK);
        cdyn_contact_pair_desc p;
        cdyn_contact_pair_desc_defaults(&p);
        p.geom_a = floor;
        p.geom_b = gs;
        p.mu = 0.5;
        p.margin = 0.01; /* a row takes part within 1 cm */
        assert_int_equal(cdyn_builder_add_contact_pair(b, &p, NULL, NULL), CDYN_OK);
    }
    cdyn_model *model = NULL;
    assert_int_equal(cdyn_builder_build(b, &model, NULL), CDYN_OK);
    cdyn_builder_free(b);
    cdyn_step_options o;
    cdyn_step_defaults(&o, scheme);
    o.backend = backend;
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    o.allocator = &fa.allocator;
    cdyn_stepper *s = NULL;
    assert_int_equal(cdyn_stepper_create(model, &o, &s, NULL), CDYN_OK);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(model, NULL, &x, NULL), CDYN_OK);
    x->q[2] = x->q[9] = r;
    x->q[7] = 4 * r;
    double tau[12] = {0};
    int built = 0, changes = 0, last = -1, later = 0, warm = 0;
    for (int k = 0; k < 280; k++) {
        tau[2] = k % 40 < 10 ? 2 * m * g : 0.0;
        const int before = fa.allocations;
        cdyn_step_report sr;
        assert_int_equal(cdyn_step(s, tau, x, &sr), CDYN_OK);
        if (scheme != CDYN_SCHEME_BAUMGARTE) /* Baumgarte's rows are all the model's */
            assert_true(sr.nactive == 1 || sr.nactive == 2);
        else
            sr.nactive = x->mode[0] == CDYN_MODE_FREE ? 1 : 2;
        if (k < 80) {
            built += sr.analyses;
            last = sr.nactive;
            continue;
        }
        changes += sr.nactive != last;
        last = sr.nactive;
        later += sr.analyses;
        /* the pyramid solves its LCP on its solver object: Lemke, warm from the last basis
           while the rows stay (0 pivots) */
        if (scheme == CDYN_SCHEME_PYRAMID_LCP) {
            assert_non_null(strstr(sr.solver.method, "lemke"));
            warm += sr.solver.iterations == 0;
        }
        if (fa.allocations != before)
            fail_msg("%s: step %d allocated %d blocks", cdyn_scheme_str(scheme), k,
                     fa.allocations - before);
    }
    print_message("%s (%s): %d contact-set changes after warm-up, %d analyses then\n",
                  cdyn_scheme_str(scheme), cdyn_step_backend_str(backend), changes, later);
    if (scheme == CDYN_SCHEME_COULOMB_STEP ||
        (scheme == CDYN_SCHEME_IMPLICIT_NCP && backend == CDYN_BACKEND_FB_SPARSE)) {
        assert_int_equal(built, 2); /* warm-up: one shape for 2 contacts, one for 1 */
        assert_int_equal(later, 0);
    }
    assert_true(changes >= 8); /* the contact set kept changing after it (10 times) */
    if (scheme == CDYN_SCHEME_PYRAMID_LCP) {
        print_message("  %d of 200 LCPs solved warm with 0 pivots\n", warm);
        assert_true(warm >= 100); /* of 200 steps, 10 of them with new rows */
    }
    cdyn_stepper_free(s);
    assert_int_equal(fa.live, 0);
    cdyn_state_free(x);
    cdyn_model_free(model);
}

static void test_allocation_changing_contacts(void **unused)
{
    (void)unused;
    changing_contacts(CDYN_SCHEME_COULOMB_STEP, CDYN_BACKEND_AUTO);
    changing_contacts(CDYN_SCHEME_CONE_STEP, CDYN_BACKEND_AUTO);
    changing_contacts(CDYN_SCHEME_PYRAMID_LCP, CDYN_BACKEND_AUTO);
    changing_contacts(CDYN_SCHEME_IMPLICIT_NCP, CDYN_BACKEND_FB_DENSE);
    changing_contacts(CDYN_SCHEME_IMPLICIT_NCP, CDYN_BACKEND_FB_SPARSE);
    changing_contacts(CDYN_SCHEME_BAUMGARTE, CDYN_BACKEND_AUTO);
}

/* The sparse implicit step orders the pattern of all the model's rows once and restricts that
 * order for each active set: three spheres dropped in a stack (margins 5 mm), whose rows turn
 * active and inactive as they land and bounce. Measured here: the active set changes, one
 * ordering for the whole run; and the states equal those of the dense backend, which has no
 * ordering, to the solver's tolerance. */
static void test_sparse_ordering_reused(void **unused)
{
    (void)unused;
    cdyn_model *m = scene_dropped_stack();
    cdyn_stepper *s[2] = {NULL, NULL};
    cdyn_state *x[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        cdyn_step_options o;
        cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
        o.h = 0.002;
        o.backend = k == 0 ? CDYN_BACKEND_FB_SPARSE : CDYN_BACKEND_FB_DENSE;
        assert_int_equal(cdyn_stepper_create(m, &o, &s[k], NULL), CDYN_OK);
        assert_int_equal(cdyn_state_create(m, NULL, &x[k], NULL), CDYN_OK);
        cdyn_model_default_q(m, x[k]->q);
    }
    int orderings = 0, analyses = 0, changes = 0, last = -1;
    double diff = 0;
    for (int step = 0; step < 300; step++) {
        cdyn_step_report rep;
        assert_int_equal(cdyn_step(s[0], NULL, x[0], &rep), CDYN_OK);
        orderings += rep.orderings;
        analyses += rep.analyses;
        changes += last >= 0 && rep.nactive != last;
        last = rep.nactive;
        assert_int_equal(cdyn_step(s[1], NULL, x[1], &rep), CDYN_OK);
        assert_int_equal(rep.orderings + rep.analyses, 0);
        for (int i = 0; i < x[0]->nq; i++)
            diff = fmax(diff, fabs(x[0]->q[i] - x[1]->q[i]));
    }
    assert_true(changes >= 2);
    assert_int_equal(orderings, 1);
    assert_true(analyses >= 2); /* the set changed: two sets at least, one analysis each */
    assert_true(diff <= 1e-8);
    for (int k = 0; k < 2; k++) {
        cdyn_state_free(x[k]);
        cdyn_stepper_free(s[k]);
    }
    cdyn_model_free(m);
}

/* The recorder writes a header and full-precision lines that read back exactly. */
static void test_recorder(void **unused)
{
    (void)unused;
    cdyn_model *m = scene_sphere(0.05, 0.2, 0.2);
    cdyn_report rep;
    cdyn_recorder *rec = NULL;
    assert_int_equal(cdyn_recorder_open(m, "/nonexistent-dir/x.csv", &rec, &rep), CDYN_EIO);
    assert_null(rec);
    assert_non_null(strstr(rep.message, "cannot write"));
    assert_int_equal(cdyn_recorder_open(NULL, "x.csv", &rec, &rep), CDYN_EINVAL);

    const char *path = CDYN_TEST_OUT_DIR "/test_step_recorder.csv";
    assert_int_equal(cdyn_recorder_open(m, path, &rec, &rep), CDYN_OK);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, &rep), CDYN_OK);
    x->t = 0.1;
    x->q[2] = 1.0 / 3.0;
    x->lambda[0] = 1e-300;
    x->mode[0] = CDYN_MODE_STICK;
    assert_int_equal(cdyn_recorder_write(rec, x, &rep), CDYN_OK);
    assert_int_equal(cdyn_recorder_write(rec, NULL, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_recorder_close(rec, &rep), CDYN_OK);
    assert_int_equal(cdyn_recorder_close(NULL, &rep), CDYN_OK);

    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[4096];
    assert_non_null(fgets(line, sizeof line, f));
    assert_true(strncmp(line, "t,q0,q1,q2,q3,q4,q5,q6,v0,", 26) == 0);
    assert_non_null(strstr(line, ",delta_n0,delta_t0,delta_o0,lambda_n0,lambda_t0,lambda_o0,mode0\n"));
    assert_non_null(fgets(line, sizeof line, f));
    double vals[1 + 7 + 6 + 3 + 3 + 1];
    char *p = line;
    for (int k = 0; k < 21; k++) {
        vals[k] = strtod(p, &p);
        if (*p == ',')
            p++;
    }
    assert_true(vals[0] == 0.1 && vals[3] == 1.0 / 3.0 && vals[17] == 1e-300);
    assert_true(vals[20] == CDYN_MODE_STICK);
    fclose(f);
    remove(path);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* Steppers on one shared model in two threads give the serial run's results bit for bit (the cone
 * step, the pyramid LCP and the implicit NCP). */
typedef struct run_arg {
    const cdyn_model *m;
    double out[7];
    int status;
    cdyn_scheme scheme;
} run_arg;

static void *run_billiard(void *p)
{
    run_arg *a = p;
    cdyn_step_options o;
    cdyn_step_defaults(&o, a->scheme);
    cdyn_stepper *s = NULL;
    cdyn_state *x = NULL;
    a->status = cdyn_stepper_create(a->m, &o, &s, NULL);
    if (a->status == CDYN_OK)
        a->status = cdyn_state_create(a->m, NULL, &x, NULL);
    if (a->status == CDYN_OK) {
        x->q[2] = 0.05;
        const double v0[6] = {1, 0.5, 0, 40, -20, -10};
        memcpy(x->v, v0, sizeof v0);
        for (int i = 0; i < 60 && a->status == CDYN_OK; i++)
            a->status = cdyn_step(s, NULL, x, NULL);
        memcpy(a->out, x->q, sizeof a->out);
    }
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    return NULL;
}

static void test_threads(void **unused)
{
    (void)unused;
    cdyn_model *m = scene_sphere(0.05, 0.2, 0.2);
    for (int sc = 0; sc < 3; sc++) {
        const cdyn_scheme scheme = sc == 0   ? CDYN_SCHEME_CONE_STEP
                                   : sc == 1 ? CDYN_SCHEME_PYRAMID_LCP
                                             : CDYN_SCHEME_IMPLICIT_NCP;
        run_arg serial = {m, {0}, 0, scheme};
        run_arg t[2] = {{m, {0}, 0, scheme}, {m, {0}, 0, scheme}};
        run_billiard(&serial);
        assert_int_equal(serial.status, CDYN_OK);
        pthread_t th[2];
        for (int i = 0; i < 2; i++)
            assert_int_equal(pthread_create(&th[i], NULL, run_billiard, &t[i]), 0);
        for (int i = 0; i < 2; i++) {
            pthread_join(th[i], NULL);
            assert_int_equal(t[i].status, CDYN_OK);
            assert_memory_equal(t[i].out, serial.out, sizeof serial.out);
        }
    }
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strings_and_defaults),
        cmocka_unit_test(test_create_refusals),
        cmocka_unit_test(test_state),
        cmocka_unit_test(test_step_bad_input),
        cmocka_unit_test(test_cone_free_flight),
        cmocka_unit_test(test_cone_resting),
        cmocka_unit_test(test_cone_sphere_slip_end),
        cmocka_unit_test(test_cone_incline),
        cmocka_unit_test(test_cone_modes),
        cmocka_unit_test(test_cone_stack),
        cmocka_unit_test(test_cone_energy),
        cmocka_unit_test(test_failed_step_untouched),
        cmocka_unit_test(test_allocation),
        cmocka_unit_test(test_allocation_other_schemes),
        cmocka_unit_test(test_allocation_coulomb_step),
        cmocka_unit_test(test_allocation_changing_contacts),
        cmocka_unit_test(test_sparse_ordering_reused),
        cmocka_unit_test(test_recorder),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
