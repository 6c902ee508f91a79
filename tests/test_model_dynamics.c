/* M(q) (CRBA) and h(q, v) (RNEA) of src/model/chains.c against independent references:
 *  - the two-link planar arm in closed form (Spong, Hutchinson & Vidyasagar, Robot Modeling and
 *    Control, Wiley 2006, Sec. 7.4.3 "Planar elbow manipulator": d11, d12, d22, the
 *    Christoffel symbols c121 = c211 = c221 = -c112 = -m2 l1 lc2 sin q2, and the gravity terms
 *    phi1 = (m1 lc1 + m2 l1) g cos q1 + m2 lc2 g cos(q1 + q2), phi2 = m2 lc2 g cos(q1 + q2));
 *  - the kinetic energy sum_k 1/2 m_k |c_k'|^2 + 1/2 w_k^T I_k w_k from the body velocities
 *    (a quadratic form determines the symmetric M);
 *  - Lagrange's equations for chains (qdot = v): h_i = sum_jk (dM_ij/dq_k - 1/2 dM_jk/dq_i) v_j
 *    v_k + dV/dq_i, with the derivatives of M and of the potential V = -sum m_k g.c_k by central
 *    differences;
 *  - Euler's equations of one free body: h = (-m g; w x I w) in world axes;
 *  - conservation of energy (and, without gravity, of linear and angular momentum) along RK4
 *    integrations of M vdot = -h, qdot = G(q) v.
 * Finite differences: central, step eps; error <= eps^2/6 |f'''| + 2 u |f| / eps with u the unit
 * roundoff. With eps = 1e-5 and |f'''| <= 1e2 |f| for the O(1) models here, that is ~2e-9 |f|;
 * the tests allow 1e-7 relative. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/model.h"
#include "linalg/dense.h"
#include "linalg/sparse_chol.h"
#include "model_support.h"
#include "support.h"

#define G_ACC 9.81

/* ---- the two-link planar arm -------------------------------------------------------------- */

typedef struct arm {
    double m1, m2, l1, lc1, lc2, I1, I2;
} arm;

static const arm ARM = {1.3, 0.7, 0.9, 0.4, 0.35, 0.11, 0.06};

/* dim 2: links turn about z in the x-y plane, gravity -y; dim 3: the same arm as a spatial
 * chain (axis z, frames in 3D) with inertias (Ixx, Iyy) that must not matter. */
static cdyn_model *build_arm(int dim, double g)
{
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, dim);
    memset(o.gravity, 0, sizeof(o.gravity));
    o.gravity[1] = -g;
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
    const double z[3] = {0, 0, 1};
    const double p2[3] = {ARM.l1, 0, 0};
    const double c1[3] = {ARM.lc1, 0, 0}, c2[3] = {ARM.lc2, 0, 0};
    cdyn_body_desc links[2] = {
        tm_joint(CDYN_JOINT_REVOLUTE, CDYN_GROUND, NULL, z, ARM.m1, c1, 0.3, 0.2, ARM.I1),
        tm_joint(CDYN_JOINT_REVOLUTE, 0, p2, z, ARM.m2, c2, 0.25, 0.15, ARM.I2)};
    int ids[2];
    cdyn_report r;
    const cdyn_status st = cdyn_builder_add_chain(b, CDYN_GROUND, 2, links, ids, &r);
    if (st != CDYN_OK)
        print_error("%s\n", r.message);
    assert_int_equal(st, CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, &r), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

static void arm_closed_form(const double *q, const double *v, double g, double *M, double *h)
{
    const arm a = ARM;
    const double c2 = cos(q[1]);
    M[0] = a.m1 * a.lc1 * a.lc1 + a.m2 * (a.l1 * a.l1 + a.lc2 * a.lc2 + 2 * a.l1 * a.lc2 * c2) +
           a.I1 + a.I2;
    M[1] = M[2] = a.m2 * (a.lc2 * a.lc2 + a.l1 * a.lc2 * c2) + a.I2;
    M[3] = a.m2 * a.lc2 * a.lc2 + a.I2;
    const double hh = -a.m2 * a.l1 * a.lc2 * sin(q[1]);
    const double phi1 =
        (a.m1 * a.lc1 + a.m2 * a.l1) * g * cos(q[0]) + a.m2 * a.lc2 * g * cos(q[0] + q[1]);
    const double phi2 = a.m2 * a.lc2 * g * cos(q[0] + q[1]);
    h[0] = 2 * hh * v[0] * v[1] + hh * v[1] * v[1] + phi1;
    h[1] = -hh * v[0] * v[0] + phi2;
}

static void test_arm_closed_form(void **state)
{
    (void)state;
    for (int dim = 2; dim <= 3; ++dim) {
        cdyn_model *m = build_arm(dim, G_ACC);
        assert_int_equal(cdyn_model_nq(m), 2);
        assert_int_equal(cdyn_model_nv(m), 2);
        cdyn_data *d = NULL;
        assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
        test_rng rng;
        test_rng_seed(&rng, 11);
        for (int trial = 0; trial < 20; ++trial) {
            double q[2], v[2], Mr[4], hr[2];
            for (int i = 0; i < 2; ++i) {
                q[i] = test_rng_range(&rng, -3.1, 3.1);
                v[i] = test_rng_range(&rng, -4, 4);
            }
            cdyn_report r;
            assert_int_equal(cdyn_eval(m, d, q, v, CDYN_EVAL_MASS | CDYN_EVAL_BIAS, &r), CDYN_OK);
            arm_closed_form(q, v, G_ACC, Mr, hr);
            /* Same quantities by different formulas: agreement to rounding (1e-13 relative of
             * the O(1..10) entries; 1e-12 absolute). */
            assert_true(tm_maxdiff(4, cdyn_data_mass(d), Mr) < 1e-12);
            assert_true(tm_maxdiff(2, cdyn_data_bias(d), hr) < 1e-12 * 20);
        }
        cdyn_data_free(d);
        cdyn_model_free(m);
    }
}

/* ---- a spatial tree: free body carrying a chain, plus a ground chain ---------------------- */

#define TREE_NB 6
static const double TREE_MASS[TREE_NB] = {2.0, 0.5, 0.4, 0.3, 0.2, 0.6};
static const double TREE_COM[TREE_NB][3] = {{0.02, -0.01, 0.03}, {0.1, 0, 0}, {0, 0.05, 0.02},
                                            {0.08, 0.01, 0},     {0, 0, 0.1}, {0.05, 0, 0}};
static const double TREE_I[TREE_NB][3] = {{0.05, 0.07, 0.06},     {0.01, 0.02, 0.015},
                                          {0.008, 0.005, 0.009},  {0.004, 0.006, 0.005},
                                          {0.002, 0.003, 0.0025}, {0.02, 0.01, 0.015}};

/* bodies: 0 free; 1 revolute (axis tilted) on 0; 2 prismatic on 1; 3 revolute on 2; 4 fixed
 * (massive) on 3; 5 revolute on the ground (a second root). */
static cdyn_model *build_tree(double g, int free_root)
{
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, 3);
    o.gravity[2] = -g;
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
    cdyn_report r;
    int id;
    const double *c = &TREE_COM[0][0], *I = &TREE_I[0][0];
    cdyn_body_desc d0 = tm_free_body(TREE_MASS[0], I[0], I[1], I[2]);
    memcpy(d0.com, c, 3 * sizeof(double));
    if (!free_root) { /* a revolute root instead, so that qdot = v for the Lagrange check */
        const double ax[3] = {0.3, 0.2, 1.0};
        d0 =
            tm_joint(CDYN_JOINT_REVOLUTE, CDYN_GROUND, NULL, ax, TREE_MASS[0], c, I[0], I[1], I[2]);
    }
    assert_int_equal(cdyn_builder_add_body(b, &d0, &id, &r), CDYN_OK);
    const double p1[3] = {0.1, 0.2, -0.1}, a1[3] = {1, 1, 0};
    const double p2[3] = {0.3, 0, 0}, a2[3] = {0, 1, 0.5};
    const double p3[3] = {0, 0.2, 0.1}, a3[3] = {0, 0, 1};
    const double p4[3] = {0.15, 0, 0};
    cdyn_body_desc links[4] = {tm_joint(CDYN_JOINT_REVOLUTE, 0, p1, a1, TREE_MASS[1], TREE_COM[1],
                                        TREE_I[1][0], TREE_I[1][1], TREE_I[1][2]),
                               tm_joint(CDYN_JOINT_PRISMATIC, 0, p2, a2, TREE_MASS[2], TREE_COM[2],
                                        TREE_I[2][0], TREE_I[2][1], TREE_I[2][2]),
                               tm_joint(CDYN_JOINT_REVOLUTE, 0, p3, a3, TREE_MASS[3], TREE_COM[3],
                                        TREE_I[3][0], TREE_I[3][1], TREE_I[3][2]),
                               tm_joint(CDYN_JOINT_FIXED, 0, p4, NULL, TREE_MASS[4], TREE_COM[4],
                                        TREE_I[4][0], TREE_I[4][1], TREE_I[4][2])};
    /* rotate the joint frames so that body axes differ from world axes */
    links[1].frame.quat[0] = cos(0.3);
    links[1].frame.quat[1] = sin(0.3);
    links[3].frame.quat[0] = cos(0.2);
    links[3].frame.quat[3] = sin(0.2);
    int ids[4];
    assert_int_equal(cdyn_builder_add_chain(b, 0, 4, links, ids, &r), CDYN_OK);
    const double p5[3] = {-0.5, 0, 0}, a5[3] = {0, 1, 0};
    cdyn_body_desc d5 = tm_joint(CDYN_JOINT_REVOLUTE, CDYN_GROUND, p5, a5, TREE_MASS[5],
                                 TREE_COM[5], TREE_I[5][0], TREE_I[5][1], TREE_I[5][2]);
    assert_int_equal(cdyn_builder_add_body(b, &d5, &id, &r), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, &r), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

static void random_state(const cdyn_model *m, test_rng *rng, double *q, double *v)
{
    const int nq = cdyn_model_nq(m), nv = cdyn_model_nv(m);
    for (int i = 0; i < nq; ++i)
        q[i] = test_rng_range(rng, -1, 1);
    for (int i = 0; i < nv; ++i)
        v[i] = test_rng_range(rng, -2, 2);
    cdyn_model_normalize_q(m, q, NULL);
}

static void test_tree_kinetic_energy_and_spd(void **state)
{
    (void)state;
    for (int fr = 0; fr <= 1; ++fr) {
        cdyn_model *m = build_tree(G_ACC, fr);
        const int nv = cdyn_model_nv(m);
        assert_int_equal(nv, fr ? 10 : 5);
        cdyn_data *d = NULL;
        assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
        cdyn_sparse_chol *chol = NULL;
        test_rng rng;
        test_rng_seed(&rng, 5 + fr);
        double q[16], v[16], L[100], x[10], y[10];
        for (int trial = 0; trial < 10; ++trial) {
            random_state(m, &rng, q, v);
            assert_int_equal(cdyn_eval(m, d, q, v, CDYN_EVAL_MASS, NULL), CDYN_OK);
            const double *M = cdyn_data_mass(d);
            /* 1/2 v^T M v equals the kinetic energy from the body velocities (rounding only). */
            double T = 0.0;
            for (int i = 0; i < nv; ++i)
                for (int j = 0; j < nv; ++j)
                    T += 0.5 * v[i] * M[i + j * nv] * v[j];
            const double Tref = tm_kinetic(m, d, TREE_MASS, TREE_COM, TREE_I);
            assert_true(fabs(T - Tref) <= 1e-12 * (1 + Tref));
            /* symmetric and positive definite */
            for (int i = 0; i < nv; ++i)
                for (int j = 0; j < nv; ++j)
                    assert_true(M[i + j * nv] == M[j + i * nv]);
            memcpy(L, M, sizeof(double) * nv * nv);
            assert_int_equal(cdyn_dense_chol(nv, L, nv), CDYN_OK);
            /* the CSC lower triangle holds exactly the dense entries, and zeros elsewhere */
            cdyn_csc C;
            assert_int_equal(cdyn_data_mass_csc(d, &C), CDYN_OK);
            assert_int_equal(cdyn_csc_check(&C, NULL), CDYN_OK);
            double *full = calloc((size_t)nv * nv, sizeof(double));
            for (int j = 0; j < nv; ++j)
                for (int p = C.colptr[j]; p < C.colptr[j + 1]; ++p) {
                    assert_true(C.rowind[p] >= j);
                    full[C.rowind[p] + j * nv] = C.values[p];
                }
            for (int i = 0; i < nv; ++i)
                for (int j = 0; j <= i; ++j)
                    assert_true(full[i + j * nv] == M[i + j * nv]);
            free(full);
            /* CHOLMOD on the CSC solves like the dense Cholesky (backward-stable solvers on an
             * SPD matrix of condition < 1e6 here: agreement to 1e-9 relative). */
            if (chol == NULL)
                assert_int_equal(cdyn_sparse_chol_create(&C, NULL, &chol, NULL), CDYN_OK);
            assert_int_equal(cdyn_sparse_chol_factor(chol, &C, NULL), CDYN_OK);
            assert_int_equal(cdyn_sparse_chol_solve(chol, 1, v, x, NULL), CDYN_OK);
            memcpy(y, v, sizeof(double) * nv);
            cdyn_dense_chol_solve(nv, L, nv, 1, y, nv);
            assert_true(tm_maxdiff(nv, x, y) <= 1e-9 * (1 + cdyn_dense_norm_inf(nv, y)));
        }
        cdyn_sparse_chol_free(chol);
        cdyn_data_free(d);
        cdyn_model_free(m);
    }
}

/* Potential energy -sum m_k g . c_k from the body poses. */
static double potential(const cdyn_model *m, const cdyn_data *d, const double *mass,
                        const double (*com)[3])
{
    double g[3], V = 0.0;
    cdyn_model_gravity(m, g);
    for (int k = 0; k < cdyn_model_nbody(m); ++k) {
        double c[3];
        tm_material_point(d, k, com[k], c);
        V -= mass[k] * (g[0] * c[0] + g[1] * c[1] + g[2] * c[2]);
    }
    return V;
}

static void test_tree_lagrange_bias(void **state)
{
    (void)state;
    cdyn_model *m = build_tree(G_ACC, 0); /* revolute root: q has no quaternion, qdot = v */
    const int n = cdyn_model_nv(m);
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    test_rng rng;
    test_rng_seed(&rng, 99);
    const double eps = 1e-5;
    for (int trial = 0; trial < 5; ++trial) {
        double q[5], v[5], h[5], qp[5], dM[5][25], dV[5];
        random_state(m, &rng, q, v);
        for (int k = 0; k < n; ++k) {
            double Mp[25], Mm[25], Vp, Vm;
            memcpy(qp, q, sizeof(q));
            qp[k] += eps;
            cdyn_eval(m, d, qp, NULL, CDYN_EVAL_MASS, NULL);
            memcpy(Mp, cdyn_data_mass(d), sizeof(Mp));
            Vp = potential(m, d, TREE_MASS, TREE_COM);
            qp[k] -= 2 * eps;
            cdyn_eval(m, d, qp, NULL, CDYN_EVAL_MASS, NULL);
            memcpy(Mm, cdyn_data_mass(d), sizeof(Mm));
            Vm = potential(m, d, TREE_MASS, TREE_COM);
            for (int i = 0; i < n * n; ++i)
                dM[k][i] = (Mp[i] - Mm[i]) / (2 * eps);
            dV[k] = (Vp - Vm) / (2 * eps);
        }
        assert_int_equal(cdyn_eval(m, d, q, v, CDYN_EVAL_BIAS, NULL), CDYN_OK);
        memcpy(h, cdyn_data_bias(d), sizeof(h));
        for (int i = 0; i < n; ++i) {
            double ref = dV[i];
            for (int j = 0; j < n; ++j)
                for (int k = 0; k < n; ++k)
                    ref += (dM[k][i + j * n] - 0.5 * dM[i][j + k * n]) * v[j] * v[k];
            assert_true(fabs(h[i] - ref) <= 1e-7 * (1 + fabs(ref)));
        }
    }
    cdyn_data_free(d);
    cdyn_model_free(m);
}

static void test_free_body_euler(void **state)
{
    (void)state;
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, 3);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
    cdyn_body_desc bd = tm_free_body(1.7, 0.02, 0.05, 0.04);
    bd.inertia[3] = 0.004; /* a product of inertia: the body axes are not principal */
    assert_int_equal(cdyn_builder_add_body(b, &bd, NULL, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    const double q[7] = {0.1, -0.2, 0.3, cos(0.4), sin(0.4) * 0.6, sin(0.4) * 0.8, 0.0};
    const double v[6] = {0.5, -1, 2, 3, -4, 1.5};
    assert_int_equal(cdyn_eval(m, d, q, v, CDYN_EVAL_MASS | CDYN_EVAL_BIAS, NULL), CDYN_OK);
    /* world inertia R I R^T with R from the pose accessor */
    double R[9], Ib[9] = {0.02, 0.004, 0, 0.004, 0.05, 0, 0, 0, 0.04}, Iw[9] = {0};
    cdyn_data_body_pose(d, 0, NULL, R);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k)
                for (int l = 0; l < 3; ++l)
                    Iw[i + 3 * j] += R[i + 3 * k] * Ib[k + 3 * l] * R[j + 3 * l];
    const double *w = v + 3;
    double Iww[3], ref[6];
    for (int i = 0; i < 3; ++i)
        Iww[i] = Iw[i] * w[0] + Iw[i + 3] * w[1] + Iw[i + 6] * w[2];
    ref[0] = 0;
    ref[1] = 0;
    ref[2] = 1.7 * 9.81;
    ref[3] = w[1] * Iww[2] - w[2] * Iww[1];
    ref[4] = w[2] * Iww[0] - w[0] * Iww[2];
    ref[5] = w[0] * Iww[1] - w[1] * Iww[0];
    assert_true(tm_maxdiff(6, cdyn_data_bias(d), ref) < 1e-12 * 20);
    const double *M = cdyn_data_mass(d);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            assert_true(fabs(M[i + 6 * j] - (i == j ? 1.7 : 0.0)) < 1e-14);
            assert_true(fabs(M[3 + i + 6 * (3 + j)] - Iw[i + 3 * j]) < 1e-14);
            assert_true(fabs(M[i + 6 * (3 + j)]) < 1e-14);
        }
    cdyn_data_free(d);
    cdyn_model_free(m);
}

/* ---- conservation along RK4 trajectories --------------------------------------------------- */

typedef struct sim {
    const cdyn_model *m;
    cdyn_data *d;
    int nq, nv;
    double *work; /* nv*nv + nv */
} sim;

/* (qdot, vdot) at (q, v): qdot = G v, M vdot = -h. */
static void deriv(sim *s, const double *q, const double *v, double *qd, double *vd)
{
    assert_int_equal(cdyn_eval(s->m, s->d, q, v, CDYN_EVAL_MASS | CDYN_EVAL_BIAS, NULL), CDYN_OK);
    cdyn_model_qdot(s->m, q, v, qd, NULL);
    double *L = s->work;
    memcpy(L, cdyn_data_mass(s->d), sizeof(double) * s->nv * s->nv);
    assert_int_equal(cdyn_dense_chol(s->nv, L, s->nv), CDYN_OK);
    for (int i = 0; i < s->nv; ++i)
        vd[i] = -cdyn_data_bias(s->d)[i];
    cdyn_dense_chol_solve(s->nv, L, s->nv, 1, vd, s->nv);
}

static void rk4(sim *s, double *q, double *v, double h)
{
    const int nq = s->nq, nv = s->nv;
    double kq[4][16], kv[4][16], qt[16], vt[16];
    deriv(s, q, v, kq[0], kv[0]);
    for (int st = 1; st < 4; ++st) {
        const double c = st == 3 ? h : 0.5 * h;
        for (int i = 0; i < nq; ++i)
            qt[i] = q[i] + c * kq[st - 1][i];
        for (int i = 0; i < nv; ++i)
            vt[i] = v[i] + c * kv[st - 1][i];
        deriv(s, qt, vt, kq[st], kv[st]);
    }
    for (int i = 0; i < nq; ++i)
        q[i] += h / 6 * (kq[0][i] + 2 * kq[1][i] + 2 * kq[2][i] + kq[3][i]);
    for (int i = 0; i < nv; ++i)
        v[i] += h / 6 * (kv[0][i] + 2 * kv[1][i] + 2 * kv[2][i] + kv[3][i]);
    cdyn_model_normalize_q(s->m, q, NULL);
}

static double energy(sim *s, const double *q, const double *v, const double *mass,
                     const double (*com)[3])
{
    cdyn_eval(s->m, s->d, q, v, CDYN_EVAL_MASS, NULL);
    const double *M = cdyn_data_mass(s->d);
    double T = 0;
    for (int i = 0; i < s->nv; ++i)
        for (int j = 0; j < s->nv; ++j)
            T += 0.5 * v[i] * M[i + j * s->nv] * v[j];
    return T + potential(s->m, s->d, mass, com);
}

/* Linear and angular momentum (about the world origin) from body poses and velocities. */
static void momentum(sim *s, const double *q, const double *v, double *p, double *L)
{
    cdyn_eval(s->m, s->d, q, v, 0, NULL);
    memset(p, 0, 3 * sizeof(double));
    memset(L, 0, 3 * sizeof(double));
    for (int k = 0; k < cdyn_model_nbody(s->m); ++k) {
        double o[3], R[9], vo[3], w[3], r[3], c[3], vc[3], wb[3], Iwb[3], Lk[3];
        cdyn_data_body_pose(s->d, k, o, R);
        cdyn_data_body_velocity(s->d, k, vo, w);
        for (int i = 0; i < 3; ++i)
            r[i] = R[i] * TREE_COM[k][0] + R[i + 3] * TREE_COM[k][1] + R[i + 6] * TREE_COM[k][2];
        for (int i = 0; i < 3; ++i)
            c[i] = o[i] + r[i];
        vc[0] = vo[0] + w[1] * r[2] - w[2] * r[1];
        vc[1] = vo[1] + w[2] * r[0] - w[0] * r[2];
        vc[2] = vo[2] + w[0] * r[1] - w[1] * r[0];
        for (int i = 0; i < 3; ++i) {
            wb[i] = R[3 * i] * w[0] + R[3 * i + 1] * w[1] + R[3 * i + 2] * w[2];
            Iwb[i] = TREE_I[k][i] * wb[i];
        }
        for (int i = 0; i < 3; ++i)
            Lk[i] = R[i] * Iwb[0] + R[i + 3] * Iwb[1] + R[i + 6] * Iwb[2];
        const double mk = TREE_MASS[k];
        for (int i = 0; i < 3; ++i)
            p[i] += mk * vc[i];
        L[0] += Lk[0] + mk * (c[1] * vc[2] - c[2] * vc[1]);
        L[1] += Lk[1] + mk * (c[2] * vc[0] - c[0] * vc[2]);
        L[2] += Lk[2] + mk * (c[0] * vc[1] - c[1] * vc[0]);
    }
}

/* RK4 global error ~ T (h Lambda)^4 relative, Lambda the fastest rate of the motion (here
 * <= 10 1/s): with h = 2e-3, T = 0.5 s this is ~1e-7; energy and momenta must be conserved to
 * 1e-6 relative while they change by O(1) between bodies. */
static void test_energy_arm(void **state)
{
    (void)state;
    const double arm_mass[2] = {ARM.m1, ARM.m2};
    const double arm_com[2][3] = {{ARM.lc1, 0, 0}, {ARM.lc2, 0, 0}};
    for (int grav = 0; grav <= 1; ++grav) {
        cdyn_model *m = build_arm(2, grav ? G_ACC : 0.0);
        sim s = {m, NULL, 2, 2, malloc(sizeof(double) * 6)};
        assert_int_equal(cdyn_data_create(m, NULL, &s.d, NULL), CDYN_OK);
        double q[2] = {0.3, -0.8}, v[2] = {2.0, -3.0};
        const double E0 = energy(&s, q, v, arm_mass, arm_com);
        for (int step = 0; step < 500; ++step)
            rk4(&s, q, v, 2e-3);
        const double E1 = energy(&s, q, v, arm_mass, arm_com);
        assert_true(fabs(E1 - E0) <= 1e-6 * fabs(E0));
        free(s.work);
        cdyn_data_free(s.d);
        cdyn_model_free(m);
    }
}

static void test_energy_momentum_tree(void **state)
{
    (void)state;
    for (int grav = 0; grav <= 1; ++grav) {
        cdyn_model *m = build_tree(grav ? G_ACC : 0.0, 1);
        sim s = {m, NULL, cdyn_model_nq(m), cdyn_model_nv(m), malloc(sizeof(double) * 110)};
        assert_int_equal(cdyn_data_create(m, NULL, &s.d, NULL), CDYN_OK);
        double q[11], v[10];
        test_rng rng;
        test_rng_seed(&rng, 3);
        random_state(m, &rng, q, v);
        /* keep the ground-rooted body 5 at rest without gravity: then the free subtree alone
         * conserves momentum */
        if (!grav)
            v[9] = 0.0;
        const double E0 = energy(&s, q, v, TREE_MASS, TREE_COM);
        double p0[3], L0[3], p1[3], L1[3];
        momentum(&s, q, v, p0, L0);
        for (int step = 0; step < 250; ++step)
            rk4(&s, q, v, 2e-3);
        const double E1 = energy(&s, q, v, TREE_MASS, TREE_COM);
        assert_true(fabs(E1 - E0) <= 1e-6 * fabs(E0));
        if (!grav) {
            momentum(&s, q, v, p1, L1);
            const double sp = fabs(p0[0]) + fabs(p0[1]) + fabs(p0[2]) + 1;
            const double sl = fabs(L0[0]) + fabs(L0[1]) + fabs(L0[2]) + 1;
            assert_true(tm_maxdiff(3, p0, p1) <= 1e-6 * sp);
            assert_true(tm_maxdiff(3, L0, L1) <= 1e-6 * sl);
            assert_true(fabs(v[9]) < 1e-12); /* decoupled body stays at rest */
        }
        free(s.work);
        cdyn_data_free(s.d);
        cdyn_model_free(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arm_closed_form),
        cmocka_unit_test(test_tree_kinetic_energy_and_spd),
        cmocka_unit_test(test_tree_lagrange_bias),
        cmocka_unit_test(test_free_body_euler),
        cmocka_unit_test(test_energy_arm),
        cmocka_unit_test(test_energy_momentum_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
