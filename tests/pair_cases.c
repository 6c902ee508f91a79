/* Geometry pair cases for the model tests (pair_cases.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pair_cases.h"

#define PI 3.14159265358979323846

void tm_random_state(const cdyn_model *m, test_rng *rng, double jit, int small_rot, double *q,
                         double *v)
{
    cdyn_model_default_q(m, q);
    for (int k = 0; k < cdyn_model_nbody(m); ++k) {
        cdyn_body_info bi;
        cdyn_model_body_info(m, k, &bi);
        double *qb = q + bi.qadr;
        if (bi.joint == CDYN_JOINT_FREE) {
            for (int i = 0; i < (cdyn_model_dim(m) == 3 ? 3 : 2); ++i)
                qb[i] += test_rng_range(rng, -jit, jit);
            if (cdyn_model_dim(m) == 2)
                qb[2] = small_rot ? test_rng_range(rng, -0.6, 0.6) : test_rng_range(rng, -PI, PI);
            else {
                double ax[3], nax = 0;
                for (int i = 0; i < 3; ++i) {
                    ax[i] = test_rng_range(rng, -1, 1);
                    nax += ax[i] * ax[i];
                }
                nax = sqrt(nax);
                const double ang =
                    small_rot ? test_rng_range(rng, -0.6, 0.6) : test_rng_range(rng, -PI, PI);
                qb[3] = cos(ang / 2);
                for (int i = 0; i < 3; ++i)
                    qb[4 + i] = sin(ang / 2) * ax[i] / nax;
            }
        } else if (bi.nq == 1) {
            qb[0] = test_rng_range(rng, -0.15, 0.15);
        }
    }
    for (int i = 0; i < cdyn_model_nv(m); ++i)
        v[i] = test_rng_range(rng, -2, 2);
}


cdyn_model *tm_build_pair(const tm_pair_case *pc, int ma, int mb, int swap, int patch_n,
                          double patch_w)
{
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, pc->dim);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
    const double zero[3] = {0, 0, 0};
    const int body_a = tm_add_mount(b, pc->dim, ma, zero);
    const int body_b = tm_add_mount(b, pc->dim, mb, pc->cb);
    cdyn_geom_desc ga = tm_geom(body_a, pc->ta, pc->sa[0], pc->sa[1], pc->sa[2]);
    cdyn_geom_desc gb = tm_geom(body_b, pc->tb, pc->sb[0], pc->sb[1], pc->sb[2]);
    /* geometry frames off the body frames (the ground one at the nominal place) */
    if (body_a >= 0 || ma == TM_MOUNT_GROUND) {
        if (pc->dim == 3) {
            ga.frame.quat[0] = cos(0.05);
            ga.frame.quat[1] = sin(0.05);
        } else {
            ga.frame = cdyn_pose_planar(0, 0, 0.05);
        }
    }
    if (body_b >= 0 && mb != TM_MOUNT_WELDED) {
        if (pc->dim == 3) {
            gb.frame.pos[0] = 0.005;
            gb.frame.quat[0] = cos(0.2);
            gb.frame.quat[2] = sin(0.2);
        } else {
            gb.frame = cdyn_pose_planar(0.005, -0.003, 0.2);
        }
    }
    if (mb == TM_MOUNT_GROUND) {
        gb.frame.pos[0] = pc->cb[0];
        gb.frame.pos[1] = pc->cb[1];
        gb.frame.pos[2] = pc->dim == 3 ? pc->cb[2] : 0.0;
    }
    if (pc->tb == CDYN_GEOM_POLYGON) {
        gb.n_vertices = 5;
        gb.vertices = TM_PENTAGON;
    }
    if (pc->ta == CDYN_GEOM_POLYGON) {
        ga.n_vertices = 5;
        ga.vertices = TM_PENTAGON;
    }
    int ia, ib;
    assert_int_equal(cdyn_builder_add_geom(b, &ga, &ia, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &gb, &ib, NULL), CDYN_OK);
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.geom_a = swap ? ib : ia;
    pd.geom_b = swap ? ia : ib;
    pd.patch_n = patch_n;
    pd.patch_half_width = patch_w;
    cdyn_report r;
    const cdyn_status st = cdyn_builder_add_contact_pair(b, &pd, NULL, &r);
    if (st != CDYN_OK)
        print_error("%s: %s\n", pc->name, r.message);
    assert_int_equal(st, CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

const tm_pair_case TM_PAIR_CASES[] = {
    {"plane-sphere", 3, CDYN_GEOM_PLANE, {0}, CDYN_GEOM_SPHERE, {0.05}, {0.02, 0.01, 0.06}, 1},
    {"plane-point", 3, CDYN_GEOM_PLANE, {0}, CDYN_GEOM_POINT, {0}, {0.02, 0.01, 0.01}, 1},
    {"plane-capsule", 3, CDYN_GEOM_PLANE, {0}, CDYN_GEOM_CAPSULE, {0.02, 0.06}, {0, 0, 0.05}, 1},
    {"plane-box", 3, CDYN_GEOM_PLANE, {0}, CDYN_GEOM_BOX, {0.04, 0.03, 0.02}, {0, 0, 0.06}, 1},
    {"sphere-sphere", 3, CDYN_GEOM_SPHERE, {0.05}, CDYN_GEOM_SPHERE, {0.03}, {0.05, 0.04, 0.03}, 0},
    {"sphere-point", 3, CDYN_GEOM_SPHERE, {0.05}, CDYN_GEOM_POINT, {0}, {0.05, 0.05, 0.03}, 0},
    {"capsule-sphere",
     3,
     CDYN_GEOM_CAPSULE,
     {0.02, 0.1},
     CDYN_GEOM_SPHERE,
     {0.03},
     {0.02, 0.05, 0.02},
     0},
    {"capsule-sphere-end",
     3,
     CDYN_GEOM_CAPSULE,
     {0.02, 0.05},
     CDYN_GEOM_SPHERE,
     {0.03},
     {0.12, 0.03, 0.02},
     0},
    {"capsule-point",
     3,
     CDYN_GEOM_CAPSULE,
     {0.02, 0.1},
     CDYN_GEOM_POINT,
     {0},
     {0.01, 0.06, 0.03},
     0},
    {"line-circle", 2, CDYN_GEOM_PLANE, {0}, CDYN_GEOM_CIRCLE, {0.05}, {0.02, 0.06}, 1},
    {"line-point", 2, CDYN_GEOM_PLANE, {0}, CDYN_GEOM_POINT, {0}, {0.02, 0.01}, 1},
    {"line-capsule", 2, CDYN_GEOM_PLANE, {0}, CDYN_GEOM_CAPSULE, {0.01, 0.06}, {0, 0.05}, 1},
    {"line-rectangle", 2, CDYN_GEOM_PLANE, {0}, CDYN_GEOM_RECTANGLE, {0.05, 0.03}, {0, 0.06}, 1},
    {"line-polygon", 2, CDYN_GEOM_PLANE, {0}, CDYN_GEOM_POLYGON, {0}, {0, 0.05}, 1},
    {"line-ellipse", 2, CDYN_GEOM_PLANE, {0}, CDYN_GEOM_ELLIPSE, {0.185, 0.15}, {0, 0.2}, 1},
    {"circle-circle", 2, CDYN_GEOM_CIRCLE, {0.05}, CDYN_GEOM_CIRCLE, {0.03}, {0.05, 0.06}, 0},
    {"circle-point", 2, CDYN_GEOM_CIRCLE, {0.05}, CDYN_GEOM_POINT, {0}, {0.05, 0.06}, 0},
    {"capsule-circle",
     2,
     CDYN_GEOM_CAPSULE,
     {0.01, 0.1},
     CDYN_GEOM_CIRCLE,
     {0.03},
     {0.02, 0.05},
     0},
    {"capsule-point", 2, CDYN_GEOM_CAPSULE, {0.01, 0.1}, CDYN_GEOM_POINT, {0}, {0.15, 0.03}, 0},
    {"ellipse-circle",
     2,
     CDYN_GEOM_ELLIPSE,
     {0.185, 0.15},
     CDYN_GEOM_CIRCLE,
     {0.03},
     {0.12, 0.16},
     0},
    {"ellipse-point", 2, CDYN_GEOM_ELLIPSE, {0.185, 0.15}, CDYN_GEOM_POINT, {0}, {0.2, 0.05}, 0},
    {"ellipse-capsule",
     2,
     CDYN_GEOM_ELLIPSE,
     {0.185, 0.15},
     CDYN_GEOM_CAPSULE,
     {0.01, 0.15},
     {0.03, 0.17},
     0},
    {"capsule-capsule",
     3,
     CDYN_GEOM_CAPSULE,
     {0.02, 0.1},
     CDYN_GEOM_CAPSULE,
     {0.01, 0.08},
     {0.03, 0.02, 0.06},
     0},
    {"capsule-capsule-end",
     3,
     CDYN_GEOM_CAPSULE,
     {0.02, 0.1},
     CDYN_GEOM_CAPSULE,
     {0.01, 0.05},
     {0.17, 0.05, 0.03},
     0},
    {"box-sphere",
     3,
     CDYN_GEOM_BOX,
     {0.04, 0.03, 0.02},
     CDYN_GEOM_SPHERE,
     {0.02},
     {0.01, 0.0, 0.06},
     0},
    {"box-sphere-edge",
     3,
     CDYN_GEOM_BOX,
     {0.04, 0.03, 0.02},
     CDYN_GEOM_SPHERE,
     {0.02},
     {0.08, 0.06, 0.05},
     0},
    {"box-point", 3, CDYN_GEOM_BOX, {0.04, 0.03, 0.02}, CDYN_GEOM_POINT, {0}, {0.1, 0.01, 0.07}, 0},
    /* (planar segments must not cross: the gap is then -(ra + rb), flat; see the docs) */
    {"capsule-capsule",
     2,
     CDYN_GEOM_CAPSULE,
     {0.02, 0.1},
     CDYN_GEOM_CAPSULE,
     {0.01, 0.08},
     {0.2, 0.16},
     0},
    {"rectangle-circle",
     2,
     CDYN_GEOM_RECTANGLE,
     {0.05, 0.03},
     CDYN_GEOM_CIRCLE,
     {0.02},
     {0.01, 0.07},
     0},
    {"polygon-circle", 2, CDYN_GEOM_POLYGON, {0}, CDYN_GEOM_CIRCLE, {0.02}, {0.07, 0.05}, 0},
    {"polygon-point", 2, CDYN_GEOM_POLYGON, {0}, CDYN_GEOM_POINT, {0}, {0.02, 0.08}, 0},
    /* a ring of radius 0.2 with a gate (half-angle 2.5 rad): outside it, inside it, past an end */
    {"arc-circle-out", 2, CDYN_GEOM_ARC, {0.01, 0.2, 2.5}, CDYN_GEOM_CIRCLE, {0.02}, {0.01, 0.24},
     0},
    {"arc-circle-in", 2, CDYN_GEOM_ARC, {0.01, 0.2, 2.5}, CDYN_GEOM_CIRCLE, {0.02}, {0.1, 0.13},
     0},
    {"arc-circle-end", 2, CDYN_GEOM_ARC, {0.01, 0.2, 2.5}, CDYN_GEOM_CIRCLE, {0.02},
     {-0.2, -0.1}, 0},
    {"arc-point", 2, CDYN_GEOM_ARC, {0.0, 0.2, 2.5}, CDYN_GEOM_POINT, {0}, {0.12, -0.12}, 0},
};
const int TM_NPAIR_CASES = (int)(sizeof(TM_PAIR_CASES) / sizeof(TM_PAIR_CASES[0]));
const char *const TM_MOUNT_NAME[TM_NMOUNT] = {"ground", "free", "chain", "welded"};

