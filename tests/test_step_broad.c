/* Stepping with the broad phase (issue 21, items 4 and 6): 30 spheres dropped into a box, their
 * pairs declared by one all-against-all group with a margin of one radius, step the same
 * trajectory with and without the broad phase, bit for bit, in every scheme that reads the
 * active rows (the oracle is the run without it: the same rows take part, with the same values).
 * The pile must also have made sphere-sphere contacts, or the comparison would test nothing.
 * Baumgarte reads every row's gap, not only the active ones: a skipped row's gap (just above
 * the margin, positive) leads it to the same modes as the true one, so it matches too. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/model.h"
#include "cdyn/step.h"
#include "step_scenes.h"

#define NS 30
#define RAD 0.05
#define HALF 0.2 /* half width of the box */

static int add_plane(cdyn_builder *b, const double pos[3], double angle, int axis)
{
    cdyn_geom_desc g;
    cdyn_geom_desc_defaults(&g);
    memcpy(g.frame.pos, pos, 3 * sizeof(double));
    if (axis >= 0) { /* turn the +z normal about axis by angle */
        g.frame.quat[0] = cos(0.5 * angle);
        g.frame.quat[1 + axis] = sin(0.5 * angle);
    }
    int id;
    assert_int_equal(cdyn_builder_add_geom(b, &g, &id, NULL), CDYN_OK);
    return id;
}

/* Floor and four walls; NS spheres (m = 0.1) on a jittered 3 x 3 lattice of layers 2.2 r
 * apart, the lowest 0.1 m up. Walls and floor meet every sphere (a group A x B); spheres meet
 * each other (all against all) with margin r. */
static cdyn_model *pile(int broad)
{
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, 3);
    o.broad_phase = broad;
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
    const double z0[3] = {0, 0, 0}, px[3] = {-HALF, 0, 0}, mx[3] = {HALF, 0, 0};
    const double py[3] = {0, -HALF, 0}, my[3] = {0, HALF, 0};
    const double q = 0.5 * M_PI;
    const int walls[5] = {add_plane(b, z0, 0, -1), add_plane(b, px, q, 1),
                          add_plane(b, mx, -q, 1), add_plane(b, py, -q, 0),
                          add_plane(b, my, q, 0)};
    int gs[NS];
    for (int i = 0; i < NS; ++i) {
        cdyn_body_desc bd;
        cdyn_body_desc_defaults(&bd);
        bd.mass = 0.1;
        bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.4 * 0.1 * RAD * RAD;
        const int a = i % 3, c = (i / 3) % 3, l = i / 9;
        bd.frame.pos[0] = (a - 1) * 2.2 * RAD + 0.003 * ((i * 7) % 5 - 2);
        bd.frame.pos[1] = (c - 1) * 2.2 * RAD + 0.003 * ((i * 11) % 5 - 2);
        bd.frame.pos[2] = 0.1 + l * 2.2 * RAD;
        int body;
        assert_int_equal(cdyn_builder_add_body(b, &bd, &body, NULL), CDYN_OK);
        cdyn_geom_desc g;
        cdyn_geom_desc_defaults(&g);
        g.body = body;
        g.type = CDYN_GEOM_SPHERE;
        g.size[0] = RAD;
        assert_int_equal(cdyn_builder_add_geom(b, &g, &gs[i], NULL), CDYN_OK);
    }
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.mu = 0.5;
    pd.margin = RAD;
    cdyn_pair_group_info info;
    cdyn_report r;
    assert_int_equal(cdyn_builder_add_pair_group(b, walls, 5, gs, NS, &pd, NULL, &info, &r),
                     CDYN_OK);
    assert_int_equal(info.npair, 5 * NS);
    assert_int_equal(cdyn_builder_add_pair_group(b, gs, NS, NULL, 0, &pd, NULL, &info, &r),
                     CDYN_OK);
    assert_int_equal(info.first_pair, 5 * NS);
    assert_int_equal(info.npair, NS * (NS - 1) / 2);
    cdyn_model *m = NULL;
    if (cdyn_builder_build(b, &m, &r) != CDYN_OK)
        fail_msg("build: %s", r.message);
    cdyn_builder_free(b);
    return m;
}

static void same_trajectory(cdyn_scheme scheme, int steps)
{
    cdyn_model *mon = pile(1), *moff = pile(0);
    cdyn_stepper *son = scene_stepper(mon, scheme, 0.005), *soff = scene_stepper(moff, scheme, 0.005);
    cdyn_state *xon = NULL, *xoff = NULL;
    assert_int_equal(cdyn_state_create(mon, NULL, &xon, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_create(moff, NULL, &xoff, NULL), CDYN_OK);
    const int nq = xon->nq, nv = xon->nv, nc = xon->nc;
    int sphere_contacts = 0;
    for (int k = 0; k < steps; ++k) {
        cdyn_step_report ron, roff;
        const cdyn_status st = cdyn_step(son, NULL, xon, &ron);
        if (st != CDYN_OK)
            fail_msg("%s step %d: %s", cdyn_scheme_str(scheme), k, ron.solver.message);
        assert_int_equal(cdyn_step(soff, NULL, xoff, &roff), CDYN_OK);
        assert_int_equal(ron.nactive, roff.nactive);
        assert_memory_equal(xon->q, xoff->q, (size_t)nq * sizeof(double));
        assert_memory_equal(xon->v, xoff->v, (size_t)nv * sizeof(double));
        assert_memory_equal(xon->lambda, xoff->lambda, 3 * (size_t)nc * sizeof(double));
        assert_memory_equal(xon->delta, xoff->delta, 3 * (size_t)nc * sizeof(double));
        assert_memory_equal(xon->mode, xoff->mode, (size_t)nc * sizeof(int));
        for (int i = 5 * NS; i < nc; ++i) /* rows of the sphere-sphere pairs */
            sphere_contacts += xon->lambda[3 * i] > 0;
    }
    assert_true(sphere_contacts > 0);
    /* the pile is in the box: every sphere above the floor, to the schemes' penetration */
    double zmin = INFINITY;
    for (int i = 0; i < NS; ++i)
        zmin = fmin(zmin, xon->q[7 * i + 2]);
    /* velocity-level rigid schemes: at the floor to rounding (0.0500 seen); the compliant step
     * sinks g (tau zeta)^2 = 3.9 mm per sphere's weight (cdyn/model.h, solref): the bottom of
     * a stack of four about 16 mm (0.0341 seen); Baumgarte's gains from solref let an impact
     * in, recovered over tau (0.0493 at 0.2 s seen) */
    const double sink = scheme == CDYN_SCHEME_IMPLICIT_NCP ? 0.02
                        : scheme == CDYN_SCHEME_BAUMGARTE  ? 0.01
                                                           : 1e-6;
    assert_true(zmin > RAD - sink);
    cdyn_state_free(xon);
    cdyn_state_free(xoff);
    cdyn_stepper_free(son);
    cdyn_stepper_free(soff);
    cdyn_model_free(mon);
    cdyn_model_free(moff);
}

static void test_cone_step(void **state)
{
    (void)state;
    same_trajectory(CDYN_SCHEME_CONE_STEP, 80);
}

static void test_coulomb_step(void **state)
{
    (void)state;
    same_trajectory(CDYN_SCHEME_COULOMB_STEP, 80);
}

static void test_pyramid_lcp(void **state)
{
    (void)state;
    same_trajectory(CDYN_SCHEME_PYRAMID_LCP, 32);
}

static void test_implicit_ncp(void **state)
{
    (void)state;
    same_trajectory(CDYN_SCHEME_IMPLICIT_NCP, 32);
}

static void test_baumgarte(void **state)
{
    (void)state;
    same_trajectory(CDYN_SCHEME_BAUMGARTE, 34);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cone_step),
        cmocka_unit_test(test_coulomb_step),
        cmocka_unit_test(test_pyramid_lcp),
        cmocka_unit_test(test_implicit_ncp),
        cmocka_unit_test(test_baumgarte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
