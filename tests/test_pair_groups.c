/* Pair groups (cdyn_builder_add_pair_group, issue 21 item 4): the pairs a group declares, their
 * order and rows as documented in cdyn/model.h, the exclusions (same rigid body, jointed bodies,
 * types without a contact function) with their counts, and bad input refused with CDYN_EINVAL
 * and a message, the builder unchanged. Expected values are counted by hand from the scenes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/model.h"
#include "model_support.h"
#include "support.h"

static cdyn_builder *new_builder(void)
{
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, 3);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
    return b;
}

static int add_free_geom(cdyn_builder *b, cdyn_geom_type type, double s0, double s1, double s2)
{
    cdyn_body_desc bd = tm_free_body(1.0, 0.01, 0.01, 0.01);
    int body, g;
    assert_int_equal(cdyn_builder_add_body(b, &bd, &body, NULL), CDYN_OK);
    cdyn_geom_desc gd = tm_geom(body, type, s0, s1, s2);
    assert_int_equal(cdyn_builder_add_geom(b, &gd, &g, NULL), CDYN_OK);
    return g;
}

static int add_plane(cdyn_builder *b)
{
    cdyn_geom_desc gd = tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0);
    int g;
    assert_int_equal(cdyn_builder_add_geom(b, &gd, &g, NULL), CDYN_OK);
    return g;
}

static cdyn_model *build(cdyn_builder *b)
{
    cdyn_model *m = NULL;
    cdyn_report r;
    assert_int_equal(cdyn_builder_build(b, &m, &r), CDYN_OK);
    return m;
}

static void expect_pair(const cdyn_model *m, int p, int ga, int gb, int row, int nrows)
{
    cdyn_pair_info pi;
    assert_int_equal(cdyn_model_pair_info(m, p, &pi), CDYN_OK);
    assert_int_equal(pi.geom_a, ga);
    assert_int_equal(pi.geom_b, gb);
    assert_int_equal(pi.row, row);
    assert_int_equal(pi.nrows, nrows);
}

/* Plane and four spheres all against all: C(5, 2) = 10 pairs in the order (0,1), (0,2), ...,
 * (3,4), each one row; after an explicit pair, so the ids and rows start at 1. Then A x B. */
static void test_order_and_rows(void **state)
{
    (void)state;
    cdyn_builder *b = new_builder();
    int g[5];
    g[0] = add_plane(b);
    for (int i = 1; i < 5; ++i)
        g[i] = add_free_geom(b, CDYN_GEOM_SPHERE, 0.05, 0, 0);
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.solref[0] = 0; /* no contact defaults: the bodies overlap at the reference q */
    pd.geom_a = g[0];
    pd.geom_b = g[1];
    int id;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, &id, NULL), CDYN_OK);
    assert_int_equal(id, 0);
    pd.geom_a = pd.geom_b = 12345; /* ignored by groups */
    pd.mu = 0.4;
    pd.margin = 0.01;
    cdyn_pair_group_info info;
    cdyn_report r;
    assert_int_equal(cdyn_builder_add_pair_group(b, g, 5, NULL, 0, &pd, NULL, &info, &r),
                     CDYN_OK);
    assert_int_equal(info.first_pair, 1);
    assert_int_equal(info.npair, 10);
    assert_int_equal(info.nrows, 10);
    assert_int_equal(info.skipped_same_body + info.skipped_jointed + info.skipped_unsupported, 0);
    /* A x B: A = (sphere 3, sphere 4), B = (plane, sphere 1, sphere 2): 6 pairs, A first */
    const int A[2] = {g[3], g[4]}, B[3] = {g[0], g[1], g[2]};
    assert_int_equal(cdyn_builder_add_pair_group(b, A, 2, B, 3, &pd, NULL, &info, &r), CDYN_OK);
    assert_int_equal(info.first_pair, 11);
    assert_int_equal(info.npair, 6);
    cdyn_model *m = build(b);
    assert_int_equal(cdyn_model_npair(m), 17);
    assert_int_equal(cdyn_model_ncontact(m), 17);
    int p = 1;
    for (int i = 0; i < 5; ++i)
        for (int j = i + 1; j < 5; ++j, ++p)
            expect_pair(m, p, g[i], g[j], p, 1);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j, ++p)
            expect_pair(m, p, A[i], B[j], p, 1);
    cdyn_pair_info pi;
    assert_int_equal(cdyn_model_pair_info(m, 5, &pi), CDYN_OK);
    assert_true(pi.mu == 0.4 && pi.margin == 0.01); /* the template's values */
    cdyn_model_free(m);
    cdyn_builder_free(b);
}

/* Exclusions. A chain ground -r- L0 -r- L1 =fixed= L2 -r- L3, one capsule each, plus two
 * spheres on one free body, a box on another, and the floor:
 *   same body: (L1, L2) welded, (s1, s2) on one body                          -> 2
 *   jointed: (L0, L1), (L0, L2) (L2 is part of L1's unit), (L2, L3), (L1, L3) -> 4
 *   unsupported in 3D: capsule-box (4 links), box-... (floor-box exists)     -> 4
 * of the C(9, 2) = 36 candidates; 36 - 10 = 26 kept. Without exclude_jointed: 30. The floor
 * meets every link: the ground is no body's parent for this rule. */
static void build_exclusion_scene(cdyn_builder *b, int *g)
{
    const double z[3] = {0, 0, 1}, dz[3] = {0, 0, 0.2};
    int prev = CDYN_GROUND, links[4];
    for (int k = 0; k < 4; ++k) {
        cdyn_body_desc bd = tm_joint(k == 2 ? CDYN_JOINT_FIXED : CDYN_JOINT_REVOLUTE, prev,
                                     k == 0 ? NULL : dz, z, 1.0, NULL, 0.01, 0.01, 0.01);
        assert_int_equal(cdyn_builder_add_body(b, &bd, &links[k], NULL), CDYN_OK);
        cdyn_geom_desc gd = tm_geom(links[k], CDYN_GEOM_CAPSULE, 0.02, 0.05, 0);
        assert_int_equal(cdyn_builder_add_geom(b, &gd, &g[k], NULL), CDYN_OK);
        prev = links[k];
    }
    g[4] = add_free_geom(b, CDYN_GEOM_SPHERE, 0.05, 0, 0);
    cdyn_geom_desc gd = tm_geom(4, CDYN_GEOM_SPHERE, 0.03, 0, 0); /* on g[4]'s body */
    gd.frame.pos[0] = 0.1;
    assert_int_equal(cdyn_builder_add_geom(b, &gd, &g[5], NULL), CDYN_OK);
    g[6] = add_free_geom(b, CDYN_GEOM_BOX, 0.05, 0.05, 0.05);
    g[7] = add_plane(b);
    g[8] = add_free_geom(b, CDYN_GEOM_POINT, 0, 0, 0);
}

static void test_exclusions(void **state)
{
    (void)state;
    for (int excl = 1; excl >= 0; --excl) {
        cdyn_builder *b = new_builder();
        int g[9];
        build_exclusion_scene(b, g);
        cdyn_contact_pair_desc pd;
        cdyn_contact_pair_desc_defaults(&pd);
    pd.solref[0] = 0; /* no contact defaults: the bodies overlap at the reference q */
        cdyn_pair_group_options go;
        cdyn_pair_group_defaults(&go);
        assert_int_equal(go.exclude_jointed, 1);
        go.exclude_jointed = excl;
        cdyn_pair_group_info info;
        cdyn_report r;
        assert_int_equal(cdyn_builder_add_pair_group(b, g, 9, NULL, 0, &pd, &go, &info, &r),
                         CDYN_OK);
        assert_int_equal(info.skipped_same_body, 2);
        assert_int_equal(info.skipped_jointed, excl ? 4 : 0);
        /* unsupported: box-capsule x 4 links, box-box none, point-point (none: one point),
         * capsule-... all exist, sphere-box exists; box-point exists: 4 */
        assert_int_equal(info.skipped_unsupported, 4);
        assert_int_equal(info.npair, excl ? 26 : 30);
        cdyn_model *m = build(b);
        assert_int_equal(cdyn_model_npair(m), info.npair);
        /* no kept pair is on one rigid body or jointed; the floor meets link 0 (jointed to the
         * ground) */
        int floor_link0 = 0;
        for (int p = 0; p < cdyn_model_npair(m); ++p) {
            cdyn_pair_info pi;
            assert_int_equal(cdyn_model_pair_info(m, p, &pi), CDYN_OK);
            floor_link0 += pi.geom_a == g[0] && pi.geom_b == g[7];
            const int la = pi.geom_a < 4 ? pi.geom_a : -1, lb = pi.geom_b < 4 ? pi.geom_b : -1;
            if (excl && la >= 0 && lb >= 0)
                assert_true(la == 0 ? lb == 3 : 0); /* only (L0, L3) among the links */
        }
        assert_int_equal(floor_link0, 1);
        cdyn_model_free(m);
        cdyn_builder_free(b);
    }
}

/* Bad input: CDYN_EINVAL with a message; the builder keeps its pairs (the next group starts
 * where it would have). */
static void test_bad_input(void **state)
{
    (void)state;
    cdyn_builder *b = new_builder();
    int g[4];
    g[0] = add_plane(b);
    g[1] = add_free_geom(b, CDYN_GEOM_SPHERE, 0.05, 0, 0);
    g[2] = add_free_geom(b, CDYN_GEOM_SPHERE, 0.05, 0, 0);
    g[3] = add_free_geom(b, CDYN_GEOM_CAPSULE, 0.02, 0.05, 0);
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.solref[0] = 0; /* no contact defaults: the bodies overlap at the reference q */
    cdyn_pair_group_info info;
    cdyn_report r;
#define REFUSED(call, needle)                                                                      \
    do {                                                                                           \
        memset(&r, 0, sizeof(r));                                                                  \
        assert_int_equal((call), CDYN_EINVAL);                                                     \
        assert_int_equal(r.status, CDYN_EINVAL);                                                   \
        if (strstr(r.message, needle) == NULL)                                                     \
            print_error("message \"%s\", expected \"%s\"\n", r.message, needle);                   \
        assert_non_null(strstr(r.message, needle));                                                \
    } while (0)
    REFUSED(cdyn_builder_add_pair_group(NULL, g, 4, NULL, 0, &pd, NULL, &info, &r), "NULL");
    REFUSED(cdyn_builder_add_pair_group(b, NULL, 4, NULL, 0, &pd, NULL, &info, &r), "NULL");
    REFUSED(cdyn_builder_add_pair_group(b, g, 4, NULL, 0, NULL, NULL, &info, &r), "NULL");
    REFUSED(cdyn_builder_add_pair_group(b, g, 0, NULL, 0, &pd, NULL, &info, &r), "empty");
    REFUSED(cdyn_builder_add_pair_group(b, g, 2, g + 2, 0, &pd, NULL, &info, &r), "empty");
    const int bad[2] = {g[1], 4}, neg[2] = {-1, g[1]}, dup[3] = {g[1], g[2], g[1]};
    REFUSED(cdyn_builder_add_pair_group(b, bad, 2, NULL, 0, &pd, NULL, &info, &r),
            "not a geometry id");
    REFUSED(cdyn_builder_add_pair_group(b, neg, 2, NULL, 0, &pd, NULL, &info, &r),
            "not a geometry id");
    REFUSED(cdyn_builder_add_pair_group(b, dup, 3, NULL, 0, &pd, NULL, &info, &r), "twice");
    REFUSED(cdyn_builder_add_pair_group(b, g, 2, g + 1, 2, &pd, NULL, &info, &r), "twice");
    cdyn_contact_pair_desc t = pd;
    t.mu = NAN;
    REFUSED(cdyn_builder_add_pair_group(b, g, 4, NULL, 0, &t, NULL, &info, &r), "mu");
    t = pd;
    t.margin = NAN;
    REFUSED(cdyn_builder_add_pair_group(b, g, 4, NULL, 0, &t, NULL, &info, &r), "margin");
    t = pd;
    t.stiffness[0] = NAN;
    REFUSED(cdyn_builder_add_pair_group(b, g, 4, NULL, 0, &t, NULL, &info, &r), "stiffness");
    t = pd;
    t.restitution = 2.0;
    REFUSED(cdyn_builder_add_pair_group(b, g, 4, NULL, 0, &t, NULL, &info, &r), "restitution");
    /* a patch: plane-sphere and sphere-sphere take it, sphere-capsule does not: all refused */
    t = pd;
    t.patch_n = 2;
    t.patch_half_width = 0.01;
    REFUSED(cdyn_builder_add_pair_group(b, g, 4, NULL, 0, &t, NULL, &info, &r), "patch");
    assert_non_null(strstr(r.message, "pair group: geometries (0, 3)"));
    /* without the capsule the patch suits every pair: 3 pairs of 4 elements */
    assert_int_equal(cdyn_builder_add_pair_group(b, g, 3, NULL, 0, &t, NULL, &info, &r), CDYN_OK);
    assert_int_equal(info.first_pair, 0); /* nothing was added by the refused calls */
    assert_int_equal(info.npair, 3);
    assert_int_equal(info.nrows, 12);
    cdyn_model *m = build(b);
    assert_int_equal(cdyn_model_npair(m), 3);
    assert_int_equal(cdyn_model_ncontact(m), 12);
    cdyn_model_free(m);
    cdyn_builder_free(b);
}

/* All allocation failures of a group: CDYN_ENOMEM or success, nothing leaked. */
typedef struct group_ctx {
    int npair_after;
} group_ctx;

static cdyn_status run_group(void *ctx, const cdyn_allocator *a)
{
    group_ctx *c = ctx;
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, 3);
    o.allocator = a;
    cdyn_builder *b = NULL;
    cdyn_status st = cdyn_builder_create(&o, &b, NULL);
    if (st != CDYN_OK)
        return st;
    int g[12], n = 0;
    cdyn_geom_desc gd = tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0);
    st = cdyn_builder_add_geom(b, &gd, &g[n++], NULL);
    for (int i = 0; i < 11 && st == CDYN_OK; ++i) {
        cdyn_body_desc bd = tm_free_body(1.0, 0.01, 0.01, 0.01);
        int body;
        st = cdyn_builder_add_body(b, &bd, &body, NULL);
        gd = tm_geom(body, CDYN_GEOM_SPHERE, 0.05, 0, 0);
        if (st == CDYN_OK)
            st = cdyn_builder_add_geom(b, &gd, &g[n++], NULL);
    }
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.solref[0] = 0; /* no contact defaults: the bodies overlap at the reference q */
    pd.margin = 0.01;
    cdyn_pair_group_info info;
    memset(&info, 0, sizeof(info));
    if (st == CDYN_OK)
        st = cdyn_builder_add_pair_group(b, g, n, NULL, 0, &pd, NULL, &info, NULL);
    cdyn_model *m = NULL;
    if (st == CDYN_OK)
        st = cdyn_builder_build(b, &m, NULL);
    cdyn_data *d = NULL;
    if (st == CDYN_OK)
        st = cdyn_data_create(m, NULL, &d, NULL);
    if (st == CDYN_OK)
        c->npair_after = cdyn_model_npair(m);
    cdyn_data_free(d);
    cdyn_model_free(m);
    cdyn_builder_free(b);
    return st;
}

static int group_unchanged(void *ctx)
{
    (void)ctx;
    return 1;
}

static void test_alloc_failures(void **state)
{
    (void)state;
    group_ctx c = {0};
    test_alloc_case tc = {"pair group", run_group, group_unchanged, NULL, &c};
    assert_true(test_alloc_every_failure(&tc) > 0);
    assert_int_equal(c.npair_after, 66); /* C(12, 2) */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_rows),
        cmocka_unit_test(test_exclusions),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
