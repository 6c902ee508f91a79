/* The implicit scheme's kept solvers (src/step/implicit_ncp_solver.c, NCP_KEPT): a contact set
 * that cycles among a few sets finds each set's solver again, so that after warm-up a step
 * neither analyses a pattern nor allocates, and the answers are those of the single solver
 * re-created at every change (white box: nkept = 1), bit for bit. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/step.h"
#include "step/implicit_ncp_ws.h"
#include "step_scenes.h"
#include "support.h"

#define NSPH 3
#define PERIOD 60

/* Three spheres side by side on the floor (margin 1 cm); spheres 0 and 1 are lifted in turn by
 * an upward force of twice their weight for 10 steps of every PERIOD and fall back, so the
 * active rows cycle through {0, 1, 2}, {1, 2} and {0, 2}. */
static cdyn_model *three_spheres(void)
{
    const double r = 0.05, m = 0.2;
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    bo.gravity[2] = -9.81;
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_geom_desc fl;
    cdyn_geom_desc_defaults(&fl);
    int floor;
    assert_int_equal(cdyn_builder_add_geom(b, &fl, &floor, NULL), CDYN_OK);
    for (int i = 0; i < NSPH; i++) {
        cdyn_body_desc d;
        cdyn_body_desc_defaults(&d);
        d.mass = m;
        d.inertia[0] = d.inertia[1] = d.inertia[2] = 0.4 * m * r * r;
        d.frame.pos[0] = 4 * r * i;
        d.frame.pos[2] = r;
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
        p.margin = 0.01;
        assert_int_equal(cdyn_builder_add_contact_pair(b, &p, NULL, NULL), CDYN_OK);
    }
    cdyn_model *model = NULL;
    assert_int_equal(cdyn_builder_build(b, &model, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return model;
}

static int same_state(const cdyn_state *a, const cdyn_state *b, int nq, int nv, int nc)
{
    return memcmp(a->q, b->q, (size_t)nq * sizeof(double)) == 0 &&
           memcmp(a->v, b->v, (size_t)nv * sizeof(double)) == 0 &&
           memcmp(a->delta, b->delta, 3 * (size_t)nc * sizeof(double)) == 0 &&
           memcmp(a->lambda, b->lambda, 3 * (size_t)nc * sizeof(double)) == 0 &&
           memcmp(a->mode, b->mode, (size_t)nc * sizeof(a->mode[0])) == 0;
}

/* Stepper 0 keeps its solvers, stepper 1 keeps one (re-created at every change, as before the
 * cache): the same run on both. */
static void cycling_sets(cdyn_step_backend backend)
{
    cdyn_model *model = three_spheres();
    const int nq = cdyn_model_nq(model), nv = cdyn_model_nv(model);
    const int nc = cdyn_model_ncontact(model);
    const double g = 0.2 * 9.81;
    cdyn_stepper *s[2];
    cdyn_state *x[2];
    test_failing_alloc fa[2];
    for (int k = 0; k < 2; k++) {
        cdyn_step_options o;
        cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
        o.backend = backend;
        test_failing_alloc_init(&fa[k], -1);
        o.allocator = &fa[k].allocator;
        assert_int_equal(cdyn_stepper_create(model, &o, &s[k], NULL), CDYN_OK);
        assert_int_equal(cdyn_state_create(model, NULL, &x[k], NULL), CDYN_OK);
        cdyn_model_default_q(model, x[k]->q);
    }
    ncp_ws *w1 = s[1]->ws;
    assert_int_equal(((ncp_ws *)s[0]->ws)->nkept, NCP_KEPT);
    w1->nkept = 1;
    double tau[6 * NSPH] = {0};
    int built[2] = {0, 0}, later[2] = {0, 0}, orderings_later = 0, changes = 0, last = -1;
    int seen[1 << NSPH] = {0};
    for (int step = 0; step < 6 * PERIOD; step++) {
        tau[2] = step % PERIOD < 10 ? 2 * g : 0.0;
        tau[6 + 2] = step % PERIOD >= PERIOD / 2 && step % PERIOD < PERIOD / 2 + 10 ? 2 * g : 0.0;
        const int before = fa[0].allocations, before1 = fa[1].allocations;
        int set = 0;
        for (int k = 0; k < 2; k++) {
            cdyn_step_report sr;
            assert_int_equal(cdyn_step(s[k], tau, x[k], &sr), CDYN_OK);
            if (step < 2 * PERIOD)
                built[k] += sr.analyses;
            else
                later[k] += sr.analyses;
            if (k == 0 && step >= 2 * PERIOD)
                orderings_later += sr.orderings;
        }
        assert_true(same_state(x[0], x[1], nq, nv, nc));
        for (int i = 0; i < nc; i++)
            set |= (x[0]->mode[i] != CDYN_MODE_FREE) << i;
        seen[set] = 1;
        if (step < 2 * PERIOD) {
            last = set;
            continue;
        }
        changes += set != last;
        last = set;
        if (fa[0].allocations != before)
            fail_msg("step %d: the stepper with kept solvers allocated %d blocks", step,
                     fa[0].allocations - before);
        if (fa[1].allocations != before1)
            fail_msg("step %d: the stepper with one solver allocated %d blocks", step,
                     fa[1].allocations - before1);
    }
    int nsets = 0;
    for (int i = 0; i < (1 << NSPH); i++)
        nsets += seen[i];
    print_message("%s: %d sets, %d changes after warm-up; analyses in warm-up / after: kept "
                  "%d / %d, one solver %d / %d\n",
                  cdyn_step_backend_str(backend), nsets, changes, built[0], later[0], built[1],
                  later[1]);
    assert_true(nsets >= 3);    /* the scene did cycle among three sets (carrying force) */
    assert_true(changes >= 12); /* 4 periods of 4 changes each after warm-up */
    assert_int_equal(later[0], 0);
    assert_int_equal(orderings_later, 0);
    if (backend == CDYN_BACKEND_FB_SPARSE) {
        assert_true(built[0] >= 3); /* one analysis per set at least */
        assert_true(later[1] >= changes); /* the single solver re-analyses at every change */
    }
    for (int k = 0; k < 2; k++) {
        cdyn_stepper_free(s[k]);
        assert_int_equal(fa[k].live, 0);
        cdyn_state_free(x[k]);
    }
    cdyn_model_free(model);
}

static void test_cycling_sets_sparse(void **unused)
{
    (void)unused;
    cycling_sets(CDYN_BACKEND_FB_SPARSE);
}

static void test_cycling_sets_dense(void **unused)
{
    (void)unused;
    cycling_sets(CDYN_BACKEND_FB_DENSE);
}

/* Three spheres dropped in a stack (margins 5 mm, test_step.c's ordering scene), whose rows turn
 * active and inactive as they land and bounce: the states of the two steppers agree bit for bit
 * and the kept solvers analyse less often. */
static void test_bouncing_stack(void **unused)
{
    (void)unused;
    cdyn_model *m = scene_dropped_stack();
    const int nq = cdyn_model_nq(m), nv = cdyn_model_nv(m), nc = cdyn_model_ncontact(m);
    cdyn_stepper *s[2];
    cdyn_state *x[2];
    for (int k = 0; k < 2; k++) {
        cdyn_step_options o;
        cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
        o.h = 0.002;
        o.backend = CDYN_BACKEND_FB_SPARSE;
        assert_int_equal(cdyn_stepper_create(m, &o, &s[k], NULL), CDYN_OK);
        assert_int_equal(cdyn_state_create(m, NULL, &x[k], NULL), CDYN_OK);
        cdyn_model_default_q(m, x[k]->q);
    }
    ((ncp_ws *)s[1]->ws)->nkept = 1;
    int analyses[2] = {0, 0};
    for (int step = 0; step < 300; step++)
        for (int k = 0; k < 2; k++) {
            cdyn_step_report rep;
            assert_int_equal(cdyn_step(s[k], NULL, x[k], &rep), CDYN_OK);
            analyses[k] += rep.analyses;
            if (k == 1 && !same_state(x[0], x[1], nq, nv, nc))
                fail_msg("step %d: the states differ", step);
        }
    print_message("bouncing stack: analyses kept %d, one solver %d\n", analyses[0],
                  analyses[1]);
    assert_true(analyses[0] < analyses[1]);
    for (int k = 0; k < 2; k++) {
        cdyn_state_free(x[k]);
        cdyn_stepper_free(s[k]);
    }
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cycling_sets_sparse),
        cmocka_unit_test(test_cycling_sets_dense),
        cmocka_unit_test(test_bouncing_stack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
