/* The broad phase against the all-pairs narrow phase (issue 21, items 4 and 6): random scenes of
 * spheres, boxes and capsules (3D) and of every bounded 2-D shape, declared by pair groups, are
 * evaluated by two models that differ only in cdyn_builder_options.broad_phase, at random states
 * and along moving sequences. The oracle is the model without the broad phase: the active rows
 * must be the same, and their gaps, points, frames, Jacobian entries and Jacobian-dot terms
 * identical bit for bit (the same narrow-phase code runs on them); a skipped row must read as
 * documented (inactive, gap just above its margin, zero Jacobian). */
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

#define NB3 24 /* free bodies of the 3-D scene */
#define NB2 24 /* of the 2-D scene */
#define BOX_HALF 0.4

static cdyn_builder *new_builder(int dim, int broad)
{
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, dim);
    o.broad_phase = broad;
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
    return b;
}

/* The 3-D scene: NB3 free bodies with a random sphere, box or capsule each (body 0 carries a
 * second sphere: a same-body pair for the group to skip), a floor and a wall; all against all
 * among the bodies' geometries with a finite margin, the planes against them with INFINITY. */
static cdyn_model *scene3(uint64_t seed, int broad, double margin)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    cdyn_builder *b = new_builder(3, broad);
    int planes[2], geoms[NB3 + 1], ng = 0;
    cdyn_geom_desc g = tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0);
    assert_int_equal(cdyn_builder_add_geom(b, &g, &planes[0], NULL), CDYN_OK);
    g.frame.pos[0] = -BOX_HALF; /* the wall x = -BOX_HALF, normal +x */
    g.frame.quat[0] = sqrt(0.5);
    g.frame.quat[2] = sqrt(0.5);
    assert_int_equal(cdyn_builder_add_geom(b, &g, &planes[1], NULL), CDYN_OK);
    for (int i = 0; i < NB3; ++i) {
        cdyn_body_desc bd = tm_free_body(1.0, 0.01, 0.01, 0.01);
        int body;
        assert_int_equal(cdyn_builder_add_body(b, &bd, &body, NULL), CDYN_OK);
        const int type = (int)(3 * test_rng_uniform(&rng));
        if (type == 0)
            g = tm_geom(body, CDYN_GEOM_SPHERE, test_rng_range(&rng, 0.03, 0.08), 0, 0);
        else if (type == 1)
            g = tm_geom(body, CDYN_GEOM_BOX, test_rng_range(&rng, 0.02, 0.06),
                        test_rng_range(&rng, 0.02, 0.06), test_rng_range(&rng, 0.02, 0.06));
        else
            g = tm_geom(body, CDYN_GEOM_CAPSULE, test_rng_range(&rng, 0.01, 0.04),
                        test_rng_range(&rng, 0.02, 0.06), 0);
        g.frame.pos[0] = test_rng_range(&rng, -0.02, 0.02); /* off the body origin */
        assert_int_equal(cdyn_builder_add_geom(b, &g, &geoms[ng++], NULL), CDYN_OK);
        if (i == 0) {
            g = tm_geom(body, CDYN_GEOM_SPHERE, 0.02, 0, 0);
            g.frame.pos[1] = 0.05;
            assert_int_equal(cdyn_builder_add_geom(b, &g, &geoms[ng++], NULL), CDYN_OK);
        }
    }
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.solref[0] = 0; /* no contact defaults: the bodies overlap at the reference q */
    pd.mu = 0.3;
    pd.margin = margin;
    cdyn_pair_group_info info;
    cdyn_report r;
    assert_int_equal(cdyn_builder_add_pair_group(b, geoms, ng, NULL, 0, &pd, NULL, &info, &r),
                     CDYN_OK);
    assert_int_equal(info.first_pair, 0);
    assert_int_equal(info.skipped_same_body, 1); /* the two spheres of body 0 */
    assert_int_equal(info.npair + info.skipped_same_body + info.skipped_unsupported,
                     ng * (ng - 1) / 2);
    pd.margin = INFINITY;
    assert_int_equal(cdyn_builder_add_pair_group(b, planes, 2, geoms, ng, &pd, NULL, &info, &r),
                     CDYN_OK);
    assert_int_equal(info.npair, 2 * ng); /* plane-{sphere, box, capsule} all exist */
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, &r), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

/* The 2-D scene: circles, capsules, ellipses, rectangles, polygons, points and arcs on free
 * bodies above the line y = 0; all against all (the group keeps the pairs that have a contact
 * function) with a finite margin, the line against every body with INFINITY. */
static cdyn_model *scene2(uint64_t seed, int broad, double margin)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    cdyn_builder *b = new_builder(2, broad);
    int line, geoms[NB2];
    cdyn_geom_desc g = tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0);
    assert_int_equal(cdyn_builder_add_geom(b, &g, &line, NULL), CDYN_OK);
    for (int i = 0; i < NB2; ++i) {
        cdyn_body_desc bd = tm_free_body(1.0, 0, 0, 0.01);
        int body;
        assert_int_equal(cdyn_builder_add_body(b, &bd, &body, NULL), CDYN_OK);
        const double s0 = test_rng_range(&rng, 0.02, 0.05), s1 = test_rng_range(&rng, 0.02, 0.05);
        switch (i % 7) {
        case 0: g = tm_geom(body, CDYN_GEOM_CIRCLE, s0, 0, 0); break;
        case 1: g = tm_geom(body, CDYN_GEOM_CAPSULE, 0.5 * s0, s1, 0); break;
        case 2: g = tm_geom(body, CDYN_GEOM_ELLIPSE, s0, 0.5 * s1, 0); break;
        case 3: g = tm_geom(body, CDYN_GEOM_RECTANGLE, s0, s1, 0); break;
        case 4:
            g = tm_geom(body, CDYN_GEOM_POLYGON, 0, 0, 0);
            g.n_vertices = 5;
            g.vertices = TM_PENTAGON;
            break;
        case 5: g = tm_geom(body, CDYN_GEOM_POINT, 0, 0, 0); break;
        default: g = tm_geom(body, CDYN_GEOM_ARC, 0.005, 0.06, 2.5); break;
        }
        g.frame = cdyn_pose_planar(test_rng_range(&rng, -0.01, 0.01), 0.0, 0.3);
        assert_int_equal(cdyn_builder_add_geom(b, &g, &geoms[i], NULL), CDYN_OK);
    }
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.solref[0] = 0; /* no contact defaults: the bodies overlap at the reference q */
    pd.margin = margin;
    cdyn_pair_group_info info;
    cdyn_report r;
    assert_int_equal(cdyn_builder_add_pair_group(b, geoms, NB2, NULL, 0, &pd, NULL, &info, &r),
                     CDYN_OK);
    assert_true(info.npair > 0 && info.skipped_unsupported > 0);
    pd.margin = INFINITY;
    assert_int_equal(cdyn_builder_add_pair_group(b, &line, 1, geoms, NB2, &pd, NULL, &info, &r),
                     CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, &r), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

/* A random state: free bodies anywhere in the box (3D: random orientation), random v. */
static void random_state(const cdyn_model *m, test_rng *rng, double *q, double *v)
{
    const int dim = cdyn_model_dim(m);
    for (int k = 0; k < cdyn_model_nbody(m); ++k) {
        cdyn_body_info bi;
        assert_int_equal(cdyn_model_body_info(m, k, &bi), CDYN_OK);
        double *qk = q + bi.qadr;
        qk[0] = test_rng_range(rng, -BOX_HALF, BOX_HALF);
        qk[1] = test_rng_range(rng, dim == 3 ? -BOX_HALF : 0.0, BOX_HALF);
        if (dim == 3) {
            qk[2] = test_rng_range(rng, 0.0, 0.5);
            double n = 0;
            for (int i = 3; i < 7; ++i) {
                qk[i] = test_rng_range(rng, -1, 1);
                n += qk[i] * qk[i];
            }
            for (int i = 3; i < 7; ++i)
                qk[i] /= sqrt(n);
        } else {
            qk[2] = test_rng_range(rng, -3.14159, 3.14159);
        }
    }
    for (int j = 0; j < cdyn_model_nv(m); ++j)
        v[j] = test_rng_range(rng, -1.0, 1.0);
}

/* Entries of row `row` in Gamma_d's CSC, compared bit for bit (same pattern: same pairs). */
static void same_row_entries(const cdyn_data *a, const cdyn_data *b, int row)
{
    for (int d = 0; d < 3; ++d) {
        cdyn_csc Ja, Jb;
        assert_int_equal(cdyn_data_jacobian_csc(a, (cdyn_dir)d, &Ja), CDYN_OK);
        assert_int_equal(cdyn_data_jacobian_csc(b, (cdyn_dir)d, &Jb), CDYN_OK);
        for (int j = 0; j < Ja.ncols; ++j)
            for (int p = Ja.colptr[j]; p < Ja.colptr[j + 1]; ++p)
                if (Ja.rowind[p] == row)
                    assert_memory_equal(&Ja.values[p], &Jb.values[p], sizeof(double));
        assert_memory_equal(&cdyn_data_jacobian_dot_v(a, (cdyn_dir)d)[row],
                            &cdyn_data_jacobian_dot_v(b, (cdyn_dir)d)[row], sizeof(double));
    }
}

/* A skipped row as documented: gap the double after the margin, zero Jacobian and J-dot. */
static void far_row(const cdyn_model *m, const cdyn_data *d, int row)
{
    cdyn_contact c;
    cdyn_pair_info pi;
    assert_int_equal(cdyn_data_contact(d, row, &c), CDYN_OK);
    assert_int_equal(cdyn_model_pair_info(m, c.pair, &pi), CDYN_OK);
    assert_true(c.gap == nextafter(pi.margin, INFINITY));
    for (int dd = 0; dd < 3; ++dd) {
        cdyn_csc J;
        assert_int_equal(cdyn_data_jacobian_csc(d, (cdyn_dir)dd, &J), CDYN_OK);
        for (int j = 0; j < J.ncols; ++j)
            for (int p = J.colptr[j]; p < J.colptr[j + 1]; ++p)
                if (J.rowind[p] == row)
                    assert_true(J.values[p] == 0.0);
        assert_true(cdyn_data_jacobian_dot_v(d, (cdyn_dir)dd)[row] == 0.0);
    }
}

typedef struct tally {
    long active, active_swept, skipped_rows, evaluated_on, evaluated_off;
} tally;

/* Evaluate both models at (q, v) and compare. Rows inactive with the broad phase are either
 * inactive evaluated rows (same values as without it) or skipped rows (far_row). */
static void compare(const cdyn_model *mon, cdyn_data *don, const cdyn_model *moff,
                    cdyn_data *doff, const double *q, const double *v, tally *t)
{
    cdyn_report r;
    assert_int_equal(cdyn_eval(mon, don, q, v, CDYN_EVAL_ALL, &r), CDYN_OK);
    assert_int_equal(cdyn_eval(moff, doff, q, v, CDYN_EVAL_ALL, &r), CDYN_OK);
    const int nc = cdyn_model_ncontact(mon);
    assert_int_equal(nc, cdyn_model_ncontact(moff));
    const int *aon = cdyn_data_active(don), *aoff = cdyn_data_active(doff);
    t->evaluated_on += cdyn_data_pairs_evaluated(don);
    t->evaluated_off += cdyn_data_pairs_evaluated(doff);
    assert_int_equal(cdyn_data_pairs_evaluated(doff), cdyn_model_npair(moff));
    for (int i = 0; i < nc; ++i) {
        assert_int_equal(aon[i], aoff[i]);
        cdyn_contact a, b;
        memset(&a, 0, sizeof(a)); /* padding after `active` */
        memset(&b, 0, sizeof(b));
        assert_int_equal(cdyn_data_contact(don, i, &a), CDYN_OK);
        assert_int_equal(cdyn_data_contact(doff, i, &b), CDYN_OK);
        if (aon[i]) {
            t->active++;
            cdyn_pair_info pi;
            assert_int_equal(cdyn_model_pair_info(mon, a.pair, &pi), CDYN_OK);
            t->active_swept += isfinite(pi.margin); /* decided by the broad phase */
            assert_memory_equal(&a, &b, sizeof(a)); /* gap, points, frame, pair, index */
            same_row_entries(don, doff, i);
        } else if (memcmp(&a.gap, &b.gap, sizeof(double)) == 0) { /* evaluated, inactive */
            assert_memory_equal(&a, &b, sizeof(a));
            same_row_entries(don, doff, i);
        } else {
            t->skipped_rows++;
            far_row(mon, don, i);
            assert_true(b.gap > a.gap); /* the true gap lies beyond the bound */
        }
    }
}

static void run_scene(cdyn_model *(*scene)(uint64_t, int, double), uint64_t seed, double margin)
{
    cdyn_model *mon = scene(seed, 1, margin), *moff = scene(seed, 0, margin);
    cdyn_data *don = NULL, *doff = NULL;
    assert_int_equal(cdyn_data_create(mon, NULL, &don, NULL), CDYN_OK);
    assert_int_equal(cdyn_data_create(moff, NULL, &doff, NULL), CDYN_OK);
    const int nq = cdyn_model_nq(mon), nv = cdyn_model_nv(mon);
    double *q = calloc((size_t)nq, sizeof(double)), *v = calloc((size_t)nv, sizeof(double));
    double *qd = calloc((size_t)nq, sizeof(double));
    int *all = malloc(sizeof(int) * (size_t)cdyn_model_npair(mon));
    for (int p = 0; p < cdyn_model_npair(mon); ++p)
        all[p] = p % 3 != 0; /* a caller's own subset */
    test_rng rng;
    test_rng_seed(&rng, seed ^ 0x9e3779b97f4a7c15ull);
    tally t = {0, 0, 0, 0, 0};
    for (int s = 0; s < 4; ++s) { /* fresh states, then motion from each */
        random_state(mon, &rng, q, v);
        for (int k = 0; k < 25; ++k) {
            compare(mon, don, moff, doff, q, v, &t);
            if (k == 10) { /* a subset evaluation in between: the next broad phase resets it */
                assert_int_equal(
                    cdyn_eval_pairs(mon, don, q, v, CDYN_EVAL_CONTACTS, all, NULL), CDYN_OK);
                assert_int_equal(cdyn_data_pairs_evaluated(don),
                                 cdyn_model_npair(mon) - (cdyn_model_npair(mon) + 2) / 3);
            }
            assert_int_equal(cdyn_model_qdot(mon, q, v, qd, NULL), CDYN_OK);
            for (int i = 0; i < nq; ++i)
                q[i] += 0.03 * qd[i]; /* 3 cm or 0.03 rad per step at 1 m/s */
            assert_int_equal(cdyn_model_normalize_q(mon, q, NULL), CDYN_OK);
        }
    }
    /* the comparison saw contacts, skipped pairs, and the broad phase evaluated fewer pairs */
    assert_true(t.active_swept > 50); /* 105 to 898 for these seeds */
    assert_true(t.skipped_rows > 100);
    assert_true(t.evaluated_on < t.evaluated_off / 2);
    free(all);
    free(qd);
    free(q);
    free(v);
    cdyn_data_free(don);
    cdyn_data_free(doff);
    cdyn_model_free(mon);
    cdyn_model_free(moff);
}

static void test_random_3d(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 4; ++seed)
        run_scene(scene3, seed, seed == 4 ? 1e-3 : 0.05);
}

static void test_random_2d(void **state)
{
    (void)state;
    for (uint64_t seed = 11; seed <= 14; ++seed)
        run_scene(scene2, seed, seed == 14 ? 1e-3 : 0.05);
}

/* Touching boxes at a margin's distance: a sphere pair whose gap is exactly at the margin, up
 * to rounding, is evaluated (the boxes carry a slack) and the narrow phase decides; one whose
 * gap is clearly beyond is skipped. Values: two spheres of radius 0.1 at centre distance
 * 0.2 + 0.05 have gap 0.05 (margin 0.05: active) and at 0.2 + 0.06 gap 0.06 (inactive). */
static void test_margin_edge(void **state)
{
    (void)state;
    cdyn_builder *b = new_builder(3, 1);
    int g[2];
    for (int i = 0; i < 2; ++i) {
        cdyn_body_desc bd = tm_free_body(1, 0.01, 0.01, 0.01);
        int body;
        assert_int_equal(cdyn_builder_add_body(b, &bd, &body, NULL), CDYN_OK);
        cdyn_geom_desc gd = tm_geom(body, CDYN_GEOM_SPHERE, 0.1, 0, 0);
        assert_int_equal(cdyn_builder_add_geom(b, &gd, &g[i], NULL), CDYN_OK);
    }
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.margin = 0.05;
    assert_int_equal(cdyn_builder_add_pair_group(b, g, 2, NULL, 0, &pd, NULL, NULL, NULL),
                     CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    double q[14];
    cdyn_model_default_q(m, q);
    q[7] = 0.25; /* along x: boxes exactly 0.05 apart */
    assert_int_equal(cdyn_eval(m, d, q, NULL, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    assert_int_equal(cdyn_data_pairs_evaluated(d), 1);
    assert_true(fabs(cdyn_data_gap(d)[0] - 0.05) < 1e-15);
    assert_int_equal(cdyn_data_active(d)[0], cdyn_data_gap(d)[0] <= 0.05);
    q[7] = 0.26;
    assert_int_equal(cdyn_eval(m, d, q, NULL, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    assert_int_equal(cdyn_data_pairs_evaluated(d), 0);
    assert_int_equal(cdyn_data_active(d)[0], 0);
    assert_true(cdyn_data_gap(d)[0] == nextafter(0.05, INFINITY));
    /* diagonal: the boxes lie within the margin along each axis (0.04 apart), the spheres do
     * not (gap 0.24 sqrt(2) - 0.2 = 0.1394 > 0.05): evaluated, and inactive */
    q[7] = 0.24;
    q[8] = 0.24;
    assert_int_equal(cdyn_eval(m, d, q, NULL, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    assert_int_equal(cdyn_data_pairs_evaluated(d), 1);
    assert_true(fabs(cdyn_data_gap(d)[0] - (0.24 * sqrt(2.0) - 0.2)) < 1e-15);
    assert_int_equal(cdyn_data_active(d)[0], 0);
    cdyn_data_free(d);
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_3d),
        cmocka_unit_test(test_random_2d),
        cmocka_unit_test(test_margin_edge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
