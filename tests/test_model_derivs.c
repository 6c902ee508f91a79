/* Analytic derivatives of the model's terms (cdyn_eval_derivatives) against central differences
 * of the model's own outputs:
 *   id(q, v, a, lambda) = M(q) a + h(q, v) - sum_d Gamma_d(q)' lambda_d   (reference: the dense
 *       M, h and Gamma of cdyn_eval, not the derivative code's own pass),
 *   d id/dq G e_j and d(Gamma_d v)/dq G e_j by differences along q +- eps G(q) e_j,
 *   d id/dv e_j by differences in v.
 * Cases: every supported geometry pair on every two mounts (ground, free body, the end of a
 * revolute-prismatic-revolute chain, a body welded to a free one; pair_cases.c), the distributed
 * patches, and a branched tree on a floating base whose contacts join two of its own branches.
 * The reference is Richardson-extrapolated, (4 D(eps/2) - D(eps)) / 3 with eps = 2e-5: its
 * truncation error is O(eps^4 f^(5)); with the normals of point-like pairs turning at rates up to
 * ~|relative velocity| / 0.02 m ~ 150 /s (tm_random_state: speeds <= ~3.5 m/s), f^(5) ~ 150^5 f
 * gives ~1e-8 |f|, rounding 2 u |f| / eps ~ 1e-11 |f|. Tolerance: relative error 1e-6 of the
 * matrix's largest entry (plus 1 for entries of order one), the bound. */
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
#include "model_support.h"
#include "pair_cases.h"
#include "support.h"

#define MAXV 40
#define MAXC 64

typedef struct errs {
    double id, dq, dv, jq;
} errs;

/* id from cdyn_eval's dense M, h and Gamma; Gamma_d v into gv (3 nc). */
static void reference(const cdyn_model *m, cdyn_data *d, const double *q, const double *v,
                      const double *a, const double *lam, double *id, double *gv)
{
    assert_int_equal(cdyn_eval(m, d, q, v, CDYN_EVAL_ALL, NULL), CDYN_OK);
    const int nv = cdyn_model_nv(m), nc = cdyn_model_ncontact(m);
    const double *M = cdyn_data_mass(d), *h = cdyn_data_bias(d);
    for (int i = 0; i < nv; ++i) {
        double acc = h[i];
        for (int j = 0; j < nv; ++j)
            acc += M[i + j * nv] * a[j];
        id[i] = acc;
    }
    for (int dir = 0; dir < 3; ++dir) {
        const double *J = cdyn_data_jacobian(d, (cdyn_dir)dir);
        for (int r = 0; r < nc; ++r) {
            double acc = 0;
            for (int j = 0; j < nv; ++j) {
                acc += J[r + j * nc] * v[j];
                id[j] -= J[r + j * nc] * lam[3 * r + dir];
            }
            gv[dir * nc + r] = acc;
        }
    }
}

/* Central difference of (id, gv) along q + s G e_j (in_q) or v + s e_j, step eps. */
static void difference(const cdyn_model *m, cdyn_data *d, const double *q, const double *v,
                       const double *a, const double *lam, int j, int in_q, double eps,
                       double *did, double *dgv)
{
    const int nq = cdyn_model_nq(m), nv = cdyn_model_nv(m), nc = cdyn_model_ncontact(m);
    double qs[2][MAXV], vs[2][MAXV], idp[2][MAXV], gvp[2][3 * MAXC], w[MAXV] = {0};
    w[j] = 1.0;
    for (int s = 0; s < 2; ++s) {
        const double step = s == 0 ? eps : -eps;
        memcpy(qs[s], q, (size_t)nq * sizeof(double));
        memcpy(vs[s], v, (size_t)nv * sizeof(double));
        if (in_q)
            tm_step(m, q, w, step, qs[s]);
        else
            vs[s][j] += step;
        reference(m, d, qs[s], vs[s], a, lam, idp[s], gvp[s]);
    }
    for (int i = 0; i < nv; ++i)
        did[i] = (idp[0][i] - idp[1][i]) / (2 * eps);
    for (int i = 0; i < 3 * nc; ++i)
        dgv[i] = (gvp[0][i] - gvp[1][i]) / (2 * eps);
}

static double rel_err(int n, const double *x, const double *ref)
{
    double err = 0, scale = 1;
    for (int i = 0; i < n; ++i) {
        err = fmax(err, fabs(x[i] - ref[i]));
        scale = fmax(scale, fabs(ref[i]));
    }
    return err / scale;
}

static void check_model(const cdyn_model *m, test_rng *rng, errs *e)
{
    const int nq = cdyn_model_nq(m), nv = cdyn_model_nv(m), nc = cdyn_model_ncontact(m);
    assert_true(nq <= MAXV && nv <= MAXV && nc <= MAXC);
    double q[MAXV], v[MAXV], a[MAXV], lam[3 * MAXC];
    tm_random_state(m, rng, 0.01, 1, q, v);
    for (int i = 0; i < nv; ++i)
        a[i] = test_rng_range(rng, -3, 3);
    for (int r = 0; r < nc; ++r) {
        lam[3 * r] = test_rng_range(rng, 0, 5);
        lam[3 * r + 1] = test_rng_range(rng, -2, 2);
        lam[3 * r + 2] = cdyn_model_dim(m) == 3 ? test_rng_range(rng, -2, 2) : 0.0;
    }
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    double idr[MAXV], gvr[3 * MAXC];
    reference(m, d, q, v, a, lam, idr, gvr);
    cdyn_report rep;
    assert_int_equal(cdyn_eval_derivatives(m, d, a, lam, NULL, &rep), CDYN_OK);
    static double Dq[MAXV * MAXV], Dv[MAXV * MAXV], JQ[3][MAXC * MAXV];
    memcpy(Dq, cdyn_data_id_dq(d), sizeof(double) * (size_t)nv * nv);
    memcpy(Dv, cdyn_data_id_dv(d), sizeof(double) * (size_t)nv * nv);
    for (int dir = 0; dir < 3; ++dir)
        memcpy(JQ[dir], cdyn_data_jacobian_dq_v(d, (cdyn_dir)dir),
               sizeof(double) * (size_t)nc * nv);
    e->id = fmax(e->id, rel_err(nv, cdyn_data_inverse_dynamics(d), idr));
    /* the CSC forms hold the dense values */
    cdyn_csc C;
    assert_int_equal(cdyn_data_id_dq_csc(d, &C), CDYN_OK);
    assert_int_equal(cdyn_csc_check(&C, NULL), CDYN_OK);
    for (int j = 0; j < nv; ++j)
        for (int p = C.colptr[j]; p < C.colptr[j + 1]; ++p)
            assert_true(C.values[p] == Dq[C.rowind[p] + j * nv]);
    static double rq[MAXV * MAXV], rv[MAXV * MAXV], rj[3][MAXC * MAXV];
    const double eps = 2e-5;
    for (int j = 0; j < nv; ++j) {
        for (int in_q = 0; in_q < 2; ++in_q) {
            double d1[MAXV], g1[3 * MAXC], d2[MAXV], g2[3 * MAXC];
            difference(m, d, q, v, a, lam, j, in_q, eps, d1, g1);
            difference(m, d, q, v, a, lam, j, in_q, eps / 2, d2, g2);
            double *col = in_q ? rq : rv;
            for (int i = 0; i < nv; ++i)
                col[i + j * nv] = (4 * d2[i] - d1[i]) / 3;
            if (in_q)
                for (int dir = 0; dir < 3; ++dir)
                    for (int r = 0; r < nc; ++r)
                        rj[dir][r + j * nc] = (4 * g2[dir * nc + r] - g1[dir * nc + r]) / 3;
        }
    }
    e->dq = fmax(e->dq, rel_err(nv * nv, Dq, rq));
    e->dv = fmax(e->dv, rel_err(nv * nv, Dv, rv));
    for (int dir = 0; dir < 3; ++dir)
        e->jq = fmax(e->jq, rel_err(nc * nv, JQ[dir], rj[dir]));
    cdyn_data_free(d);
}

static void report_errs(const char *name, const errs *e)
{
    if (tm_verbose() || e->id > 1e-12 || e->dq > 1e-6 || e->dv > 1e-6 || e->jq > 1e-6)
        print_message("%-24s id %.1e  did/dq %.1e  did/dv %.1e  d(Gv)/dq %.1e\n", name, e->id,
                      e->dq, e->dv, e->jq);
}

static void assert_errs(const errs *e)
{
    assert_true(e->id <= 1e-12);
    assert_true(e->dq <= 1e-6);
    assert_true(e->dv <= 1e-6);
    assert_true(e->jq <= 1e-6);
}

static void test_every_pair_and_mount(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 17);
    errs worst = {0, 0, 0, 0};
    for (int ci = 0; ci < TM_NPAIR_CASES; ++ci) {
        const tm_pair_case *pc = &TM_PAIR_CASES[ci];
        errs ec = {0, 0, 0, 0};
        for (int ma = 0; ma < TM_NMOUNT; ++ma)
            for (int mb = 0; mb < TM_NMOUNT; ++mb) {
                if (ma == TM_MOUNT_GROUND && mb == TM_MOUNT_GROUND)
                    continue;
                cdyn_model *m = tm_build_pair(pc, ma, mb, (ma + mb) % 2, 1, 0.0);
                check_model(m, &rng, &ec);
                cdyn_model_free(m);
            }
        report_errs(pc->name, &ec);
        worst.id = fmax(worst.id, ec.id);
        worst.dq = fmax(worst.dq, ec.dq);
        worst.dv = fmax(worst.dv, ec.dv);
        worst.jq = fmax(worst.jq, ec.jq);
    }
    assert_errs(&worst);
}

/* Round and face patches on free bodies and chains. */
static void test_patches(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int n;
        double w;
    } P[] = {{"plane-sphere", 3, 0.02}, {"sphere-sphere", 2, 0.015}, {"plane-box", 3, 0.0},
             {"line-circle", 4, 0.03},  {"circle-circle", 3, 0.02},  {"line-rectangle", 4, 0.0},
             {"line-polygon", 3, 0.0}};
    test_rng rng;
    test_rng_seed(&rng, 23);
    errs worst = {0, 0, 0, 0};
    for (size_t k = 0; k < sizeof(P) / sizeof(P[0]); ++k) {
        const tm_pair_case *pc = NULL;
        for (int ci = 0; ci < TM_NPAIR_CASES && pc == NULL; ++ci)
            if (strcmp(TM_PAIR_CASES[ci].name, P[k].name) == 0)
                pc = &TM_PAIR_CASES[ci];
        assert_non_null(pc);
        errs ec = {0, 0, 0, 0};
        const int mounts[3][2] = {{TM_MOUNT_GROUND, TM_MOUNT_FREE},
                                  {TM_MOUNT_FREE, TM_MOUNT_CHAIN},
                                  {TM_MOUNT_CHAIN, TM_MOUNT_FREE}};
        for (int t = 0; t < 3; ++t) {
            cdyn_model *m = tm_build_pair(pc, mounts[t][0], mounts[t][1], t == 1, P[k].n, P[k].w);
            check_model(m, &rng, &ec);
            cdyn_model_free(m);
        }
        report_errs(P[k].name, &ec);
        worst.id = fmax(worst.id, ec.id);
        worst.dq = fmax(worst.dq, ec.dq);
        worst.dv = fmax(worst.dv, ec.dv);
        worst.jq = fmax(worst.jq, ec.jq);
    }
    assert_errs(&worst);
}

/* A floating base (free body) with two branches — revolute then prismatic, and revolute,
 * revolute, a welded tip — and contacts of both tips with the ground and with each other: every
 * joint type, a tree, and pairs whose two bodies share ancestors. */
static cdyn_model *branched_tree(int dim)
{
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, dim);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
    cdyn_body_desc base = tm_free_body(2.0, 0.02, 0.03, 0.025);
    base.frame.pos[dim == 3 ? 2 : 1] = 0.3;
    base.com[0] = 0.01;
    int ib, i1, i2, i3, i4, i5;
    assert_int_equal(cdyn_builder_add_body(b, &base, &ib, NULL), CDYN_OK);
    const double z[3] = {0, 0, 1}, x[3] = {1, 0, 0}, y[3] = {0, 1, 0};
    const double p1[3] = {0.1, 0, 0}, p2[3] = {0.08, 0.01, 0}, p3[3] = {-0.1, 0, 0};
    const double p4[3] = {-0.08, 0, 0}, p5[3] = {-0.05, 0.02, 0}, com[3] = {0.02, 0.01, 0};
    cdyn_body_desc l1 = tm_joint(CDYN_JOINT_REVOLUTE, ib, p1, z, 0.5, com, 0.01, 0.012, 0.008);
    assert_int_equal(cdyn_builder_add_body(b, &l1, &i1, NULL), CDYN_OK);
    cdyn_body_desc l2 = tm_joint(CDYN_JOINT_PRISMATIC, i1, p2, x, 0.3, com, 0.01, 0.01, 0.01);
    assert_int_equal(cdyn_builder_add_body(b, &l2, &i2, NULL), CDYN_OK);
    cdyn_body_desc l3 =
        tm_joint(CDYN_JOINT_REVOLUTE, ib, p3, dim == 3 ? y : z, 0.4, com, 0.01, 0.02, 0.01);
    assert_int_equal(cdyn_builder_add_body(b, &l3, &i3, NULL), CDYN_OK);
    cdyn_body_desc l4 = tm_joint(CDYN_JOINT_REVOLUTE, i3, p4, dim == 3 ? x : z, 0.2, com, 0.004,
                                 0.005, 0.006);
    assert_int_equal(cdyn_builder_add_body(b, &l4, &i4, NULL), CDYN_OK);
    cdyn_body_desc l5 = tm_joint(CDYN_JOINT_FIXED, i4, p5, NULL, 0.1, NULL, 0.001, 0.001, 0.001);
    assert_int_equal(cdyn_builder_add_body(b, &l5, &i5, NULL), CDYN_OK);
    int gp, g2, g5, gbase;
    cdyn_geom_desc plane = tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0);
    assert_int_equal(cdyn_builder_add_geom(b, &plane, &gp, NULL), CDYN_OK);
    cdyn_geom_desc tip2 = tm_geom(i2, dim == 3 ? CDYN_GEOM_SPHERE : CDYN_GEOM_CIRCLE, 0.03, 0, 0);
    assert_int_equal(cdyn_builder_add_geom(b, &tip2, &g2, NULL), CDYN_OK);
    cdyn_geom_desc tip5 = tm_geom(i5, CDYN_GEOM_CAPSULE, 0.02, 0.04, 0);
    tip5.frame = dim == 3 ? tip5.frame : cdyn_pose_planar(0, 0, 0.3);
    assert_int_equal(cdyn_builder_add_geom(b, &tip5, &g5, NULL), CDYN_OK);
    cdyn_geom_desc gb = dim == 3 ? tm_geom(ib, CDYN_GEOM_BOX, 0.05, 0.04, 0.03)
                                 : tm_geom(ib, CDYN_GEOM_RECTANGLE, 0.05, 0.03, 0);
    assert_int_equal(cdyn_builder_add_geom(b, &gb, &gbase, NULL), CDYN_OK);
    const int pairs[4][2] = {{gp, g2}, {gp, g5}, {g5, g2}, {gp, gbase}};
    for (int k = 0; k < 4; ++k) {
        cdyn_contact_pair_desc pd;
        cdyn_contact_pair_desc_defaults(&pd);
        pd.geom_a = pairs[k][0];
        pd.geom_b = pairs[k][1];
        assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, NULL, NULL), CDYN_OK);
    }
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

static void test_branched_tree(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 5);
    for (int dim = 2; dim <= 3; ++dim) {
        cdyn_model *m = branched_tree(dim);
        errs e = {0, 0, 0, 0};
        for (int trial = 0; trial < 4; ++trial)
            check_model(m, &rng, &e);
        report_errs(dim == 3 ? "tree 3D" : "tree 2D", &e);
        assert_errs(&e);
        cdyn_model_free(m);
    }
}

/* cdyn_model_deriv_keep: in a model whose spheres are paired all against all, the positions of
 * the derivative pattern it drops for a subset of pairs hold exact zeros when only those pairs
 * carry force (the tree of free bodies is block-diagonal; a pair's coupling is nonzero only
 * through its force), and every pair together keeps the whole pattern. */
static void test_deriv_keep(void **state)
{
    (void)state;
    enum { NS = 6 };
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    int g[NS + 1];
    cdyn_geom_desc gp;
    cdyn_geom_desc_defaults(&gp);
    assert_int_equal(cdyn_builder_add_geom(b, &gp, &g[NS], NULL), CDYN_OK); /* the plane */
    for (int i = 0; i < NS; ++i) {
        cdyn_body_desc bd;
        cdyn_body_desc_defaults(&bd);
        bd.mass = 0.2;
        bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 2e-4;
        cdyn_geom_desc gs;
        cdyn_geom_desc_defaults(&gs);
        assert_int_equal(cdyn_builder_add_body(b, &bd, &gs.body, NULL), CDYN_OK);
        gs.type = CDYN_GEOM_SPHERE;
        gs.size[0] = 0.05;
        assert_int_equal(cdyn_builder_add_geom(b, &gs, &g[i], NULL), CDYN_OK);
    }
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.mu = 0.5;
    for (int i = 0; i <= NS; ++i)
        for (int j = i + 1; j <= NS; ++j) {
            pd.geom_a = g[j];
            pd.geom_b = g[i];
            int id;
            assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, &id, NULL), CDYN_OK);
        }
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    const int nv = cdyn_model_nv(m), nc = cdyn_model_ncontact(m), np = cdyn_model_npair(m);
    const int nnz = cdyn_model_deriv_nnz(m);
    assert_int_equal(nnz, nv * nv); /* every body coupled to every other by a pair */
    test_rng rng;
    test_rng_seed(&rng, 11);
    double q[7 * NS], v[6 * NS], a[6 * NS], lam[3 * 64];
    assert_true(nc <= 64);
    cdyn_model_default_q(m, q);
    for (int i = 0; i < NS; ++i)
        for (int c = 0; c < 3; ++c)
            q[7 * i + c] = test_rng_range(&rng, -0.1, 0.1) + (c == 2 ? 0.1 : 0.0);
    for (int i = 0; i < nv; ++i) {
        v[i] = test_rng_range(&rng, -1, 1);
        a[i] = test_rng_range(&rng, -1, 1);
    }
    unsigned char *keep = malloc((size_t)nnz);
    int pairs[64] = {0};
    assert_true(np <= 64);
    for (int pi = 0; pi < np; pi += 4) /* every fourth pair carries force */
        pairs[pi] = 1;
    assert_int_equal(cdyn_eval(m, d, q, v, CDYN_EVAL_MASS | CDYN_EVAL_BIAS | CDYN_EVAL_CONTACTS,
                               NULL), CDYN_OK);
    for (int r = 0; r < nc; ++r) {
        cdyn_contact ct;
        assert_int_equal(cdyn_data_contact(d, r, &ct), CDYN_OK);
        for (int k = 0; k < 3; ++k)
            lam[3 * r + k] = pairs[ct.pair] ? test_rng_range(&rng, 0.5, 2) : 0.0;
    }
    assert_int_equal(cdyn_eval_derivatives(m, d, a, lam, NULL, NULL), CDYN_OK);
    assert_int_equal(cdyn_model_deriv_keep(m, pairs, keep), CDYN_OK);
    cdyn_csc Dq, Dv;
    assert_int_equal(cdyn_data_id_dq_csc(d, &Dq), CDYN_OK);
    assert_int_equal(cdyn_data_id_dv_csc(d, &Dv), CDYN_OK);
    int dropped = 0, nonzero_kept = 0;
    for (int p = 0; p < nnz; ++p) {
        if (!keep[p]) {
            dropped++;
            assert_true(Dq.values[p] == 0.0 && Dv.values[p] == 0.0);
        } else if (Dq.values[p] != 0.0) {
            nonzero_kept++;
        }
    }
    assert_true(dropped > 0 && nonzero_kept > 0);
    /* no pair: the free bodies' own 6 x 6 blocks */
    int none[64] = {0};
    assert_int_equal(cdyn_model_deriv_keep(m, none, keep), CDYN_OK);
    int kept = 0;
    for (int p = 0; p < nnz; ++p)
        kept += keep[p];
    assert_int_equal(kept, 36 * NS);
    /* every pair: the whole pattern */
    assert_int_equal(cdyn_model_deriv_keep(m, NULL, keep), CDYN_OK);
    for (int p = 0; p < nnz; ++p)
        assert_int_equal(keep[p], 1);
    assert_int_equal(cdyn_model_deriv_keep(NULL, NULL, keep), CDYN_EINVAL);
    assert_int_equal(cdyn_model_deriv_keep(m, NULL, NULL), CDYN_EINVAL);
    assert_int_equal(cdyn_model_deriv_nnz(NULL), -1);
    free(keep);
    cdyn_data_free(d);
    cdyn_model_free(m);
}

/* Refusals, and results that go stale with a new eval. */
static void test_errors(void **state)
{
    (void)state;
    cdyn_model *m = branched_tree(3);
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    double q[MAXV], v[MAXV] = {0}, a[MAXV] = {0};
    cdyn_model_default_q(m, q);
    cdyn_report r;
    assert_int_equal(cdyn_eval_derivatives(NULL, d, a, NULL, NULL, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_eval_derivatives(m, d, a, NULL, NULL, &r), CDYN_EINVAL); /* no eval */
    assert_int_equal(cdyn_eval(m, d, q, NULL, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    assert_int_equal(cdyn_eval_derivatives(m, d, a, NULL, NULL, &r), CDYN_EINVAL); /* no v */
    assert_int_equal(cdyn_eval(m, d, q, v, CDYN_EVAL_MASS, NULL), CDYN_OK);
    assert_int_equal(cdyn_eval_derivatives(m, d, a, NULL, NULL, &r), CDYN_EINVAL); /* no rows */
    assert_int_equal(cdyn_eval(m, d, q, v, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    a[2] = NAN;
    assert_int_equal(cdyn_eval_derivatives(m, d, a, NULL, NULL, &r), CDYN_EINVAL);
    assert_null(cdyn_data_id_dq(d));
    a[2] = 0;
    assert_int_equal(cdyn_eval_derivatives(m, d, a, NULL, NULL, &r), CDYN_OK);
    assert_non_null(cdyn_data_id_dq(d));
    assert_int_equal(cdyn_eval(m, d, q, v, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    assert_null(cdyn_data_id_dq(d));
    assert_null(cdyn_data_inverse_dynamics(d));
    cdyn_csc C;
    assert_int_equal(cdyn_data_id_dv_csc(d, &C), CDYN_EINVAL);
    cdyn_data_free(d);
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_pair_and_mount),
        cmocka_unit_test(test_patches),
        cmocka_unit_test(test_branched_tree),
        cmocka_unit_test(test_deriv_keep),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
