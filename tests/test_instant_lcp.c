/* The Yashima–Yamaguchi LCPs rebuilt independently in the paper's form (eqs. 24-28:
 * A = W^T M^-1 W_mu, b = W^T M^-1 (tau - h) + (dW/dt)^T v, with explicit generalized-force
 * columns instead of the library's contact-space Delassus matrix), every solution of every sign
 * combination listed by enumeration (cdyn_lcp_enumerate), the feasible ones kept (eq. 23); then
 *   - Lemke on each combination returns the enumeration's solution (unique: P-matrix),
 *   - cdyn_instant_solve returns one of the feasible solutions, and counts the same number of
 *     feasible combinations and distinct solutions.
 * Instances: the two-finger grasp over its torque map and the three-finger hand (spatial, four
 * sign combinations per rolling contact; and all sliding). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/cdyn.h"
#include "linalg/dense.h"
#include "support.h"
#include "three_finger_model.h"
#include "two_finger_model.h"

#define MAXV 16
#define MAXC 3
#define MAXM 9
#define MAXSOL 64

/* The matrices of an evaluated model, read through the public API. */
typedef struct mats {
    int nv, nc, ntan;
    const double *M, *h, *J[3], *Jd[3];
    double mu[MAXC];
    int rolling[MAXC];
    double mut[MAXC][2]; /* sliding: -mu v_d / |v_T| */
} mats;

static void read_mats(const cdyn_model *m, const cdyn_data *d, const double *v, mats *x)
{
    x->nv = cdyn_model_nv(m);
    x->nc = cdyn_model_ncontact(m);
    x->ntan = cdyn_model_dim(m) == 2 ? 1 : 2;
    x->M = cdyn_data_mass(d);
    x->h = cdyn_data_bias(d);
    for (int k = 0; k < 3; ++k) {
        x->J[k] = cdyn_data_jacobian(d, (cdyn_dir)k);
        x->Jd[k] = cdyn_data_jacobian_dot_v(d, (cdyn_dir)k);
    }
    for (int c = 0; c < x->nc; ++c) {
        cdyn_contact ct;
        cdyn_pair_info pi;
        cdyn_data_contact(d, c, &ct);
        cdyn_model_pair_info(m, ct.pair, &pi);
        x->mu[c] = pi.mu;
        double vt[2] = {0, 0};
        for (int k = 0; k < x->ntan; ++k)
            for (int j = 0; j < x->nv; ++j)
                vt[k] += x->J[1 + k][c + j * x->nc] * v[j];
        const double s = hypot(vt[0], vt[1]);
        x->rolling[c] = s <= 1e-8;
        for (int k = 0; k < 2; ++k)
            x->mut[c][k] = x->rolling[c] ? 0.0 : -x->mu[c] * vt[k] / s;
    }
}

/* Row c of Gamma_d as a column of length nv. */
static void jrow(const mats *x, int d, int c, double *col)
{
    for (int j = 0; j < x->nv; ++j)
        col[j] = x->J[d][c + j * x->nc];
}

/* The LCP of sign combination s (bit c*ntan + d-1 set: sigma = -1) in the paper's form. All
 * contacts touch; the rolling ones have mu > 0. Returns m. */
static int build_lcp(const mats *x, const double *tau, const double *v, unsigned s, double *A,
                     double *b)
{
    (void)v;
    const int nv = x->nv, nc = x->nc, nt = x->ntan;
    double W[MAXV * MAXM], Wmu[MAXV * MAXM], wdot[MAXM], col[MAXV];
    int m = 0;
    for (int c = 0; c < nc; ++c) { /* normal columns */
        jrow(x, 0, c, &W[m * nv]);
        memcpy(&Wmu[m * nv], &W[m * nv], (size_t)nv * sizeof(double));
        for (int d = 1; d <= nt; ++d) {
            jrow(x, d, c, col);
            const double coef = x->rolling[c]
                                    ? x->mu[c] * (((s >> (c * nt + d - 1)) & 1u) ? -1.0 : 1.0)
                                    : x->mut[c][d - 1];
            for (int j = 0; j < nv; ++j)
                Wmu[m * nv + j] += coef * col[j];
        }
        wdot[m] = x->Jd[0][c];
        ++m;
    }
    for (int c = 0; c < nc; ++c) { /* Delta columns: -sigma Gamma_d^T in both W and W_mu */
        if (!x->rolling[c])
            continue;
        for (int d = 1; d <= nt; ++d) {
            const double sg = ((s >> (c * nt + d - 1)) & 1u) ? -1.0 : 1.0;
            jrow(x, d, c, col);
            for (int j = 0; j < nv; ++j)
                W[m * nv + j] = Wmu[m * nv + j] = -sg * col[j];
            wdot[m] = -sg * x->Jd[d][c];
            ++m;
        }
    }
    /* M^-1 W_mu and M^-1 (tau - h) by LU (not the library's Cholesky path) */
    double LU[MAXV * MAXV], X[MAXV * (MAXM + 1)];
    int ipiv[MAXV];
    memcpy(LU, x->M, (size_t)nv * (size_t)nv * sizeof(double));
    assert_int_equal(cdyn_dense_lu(nv, LU, nv, ipiv), CDYN_OK);
    memcpy(X, Wmu, (size_t)nv * (size_t)m * sizeof(double));
    for (int j = 0; j < nv; ++j)
        X[m * nv + j] = tau[j] - x->h[j];
    cdyn_dense_lu_solve(0, nv, LU, nv, ipiv, m + 1, X, nv);
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j <= m; ++j) {
            double sum = 0.0;
            for (int k = 0; k < nv; ++k)
                sum += W[i * nv + k] * X[j * nv + k];
            if (j < m)
                A[i + j * m] = sum;
            else
                b[i] = sum + wdot[i];
        }
    }
    return m;
}

/* Physical forces (lam_n, lam_t, lam_o per contact) of an LCP solution z of combination s. */
static void forces(const mats *x, unsigned s, const double *z, double lam[3 * MAXC])
{
    const int nc = x->nc, nt = x->ntan;
    memset(lam, 0, 3 * MAXC * sizeof(double));
    int j = nc;
    for (int c = 0; c < nc; ++c) {
        lam[c] = z[c];
        for (int d = 1; d <= nt; ++d) {
            if (x->rolling[c]) {
                const double sg = ((s >> (c * nt + d - 1)) & 1u) ? -1.0 : 1.0;
                lam[d * MAXC + c] = sg * (x->mu[c] * z[c] - z[j++]);
            } else
                lam[d * MAXC + c] = x->mut[c][d - 1] * z[c];
        }
    }
}

static int feasible(const mats *x, const double *z)
{
    const int nc = x->nc, nt = x->ntan;
    double zmax = 0.0;
    for (int i = 0; i < nc + nc * nt; ++i)
        zmax = fmax(zmax, fabs(z[i]));
    int j = nc;
    for (int c = 0; c < nc; ++c)
        if (x->rolling[c])
            for (int d = 1; d <= nt; ++d)
                if (z[j++] > x->mu[c] * z[c] + 1e-8 * fmax(zmax, 1e-300))
                    return 0;
    return 1;
}

static int same(const double *a, const double *b, int n, double tol)
{
    double s = 1e-300;
    for (int i = 0; i < n; ++i)
        s = fmax(s, fmax(fabs(a[i]), fabs(b[i])));
    for (int i = 0; i < n; ++i)
        if (fabs(a[i] - b[i]) > tol * s)
            return 0;
    return 1;
}

typedef struct tally {
    int combos, feasible_combos, distinct, pcombos;
    double lam[MAXSOL][3 * MAXC];
} tally;

/* Enumerate every combination; check Lemke against enumeration on each. */
static void enumerate_all(const mats *x, const double *tau, const double *v, tally *t)
{
    int nrf = 0;
    for (int c = 0; c < x->nc; ++c)
        nrf += x->rolling[c];
    memset(t, 0, sizeof *t);
    t->combos = 1 << (nrf * x->ntan);
    for (unsigned s = 0; s < (unsigned)t->combos; ++s) {
        /* bits of sliding contacts are unused: only enumerate combinations whose bits all
           belong to rolling contacts (with every contact rolling or all sliding, all do) */
        double A[MAXM * MAXM], b[MAXM], sols[MAXSOL * MAXM];
        const int m = build_lcp(x, tau, v, s, A, b);
        const cdyn_lcp lcp = {m, A, b};
        int count = 0, isp = 0;
        assert_int_equal(cdyn_lcp_enumerate(&lcp, sols, MAXSOL, &count, NULL, NULL), CDYN_OK);
        assert_true(count <= MAXSOL);
        assert_int_equal(cdyn_lcp_is_pmatrix(m, A, 0.0, &isp, NULL, NULL), CDYN_OK);
        t->pcombos += isp;
        if (isp) { /* P-matrix: exactly one solution, and Lemke finds it */
            assert_int_equal(count, 1);
            double z[MAXM], w[MAXM];
            assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, NULL), CDYN_OK);
            assert_true(same(z, sols, m, 1e-9));
        }
        int any = 0;
        for (int k = 0; k < count; ++k) {
            if (!feasible(x, &sols[k * m]))
                continue;
            any = 1;
            double lam[3 * MAXC];
            forces(x, s, &sols[k * m], lam);
            int known = 0;
            for (int u = 0; u < t->distinct; ++u)
                known |= same(lam, t->lam[u], 3 * MAXC, 1e-7);
            if (!known && t->distinct < MAXSOL)
                memcpy(t->lam[t->distinct++], lam, sizeof lam);
        }
        t->feasible_combos += any;
    }
}

/* cdyn_instant_solve (pyramid) against the enumeration. */
static void check_instance(const cdyn_model *m, cdyn_data *d, const double *q, const double *v,
                           const double *tau)
{
    cdyn_instant_result r;
    memset(&r, 0, sizeof r);
    double lam[3 * MAXC], vdot[MAXV];
    r.vdot = vdot;
    r.lambda_n = lam;
    r.lambda_t = lam + MAXC; /* nc == MAXC or fewer: each block is written with nc entries */
    r.lambda_o = lam + 2 * MAXC;
    memset(lam, 0, sizeof lam);
    cdyn_report rep;
    const cdyn_status st = cdyn_instant_solve(m, d, q, v, tau, NULL, &r, &rep);
    mats x;
    read_mats(m, d, v, &x);
    tally t;
    enumerate_all(&x, tau, v, &t);
    if (t.distinct == 0) {
        assert_int_equal(st, CDYN_ENOSOLUTION);
        return;
    }
    assert_int_equal(st, CDYN_OK);
    assert_int_equal(r.combinations, t.combos);
    if (t.pcombos == t.combos) { /* one solution per combination: the counts must agree */
        assert_int_equal(r.feasible, t.feasible_combos);
        assert_int_equal(r.distinct, t.distinct);
    }
    int found = 0;
    for (int u = 0; u < t.distinct; ++u)
        found |= same(lam, t.lam[u], 3 * MAXC, 1e-7);
    assert_true(found);
}

static void test_two_finger_map(void **state)
{
    (void)state;
    const double mus[2] = {0.2, 0.4};
    int checked = 0;
    for (int k = 0; k < 2; ++k) {
        tw_grasp g;
        assert_int_equal(tw_build(mus[k], &g, NULL), CDYN_OK);
        for (int i = 0; i < 9; ++i)
            for (int j = 0; j < 9; ++j) {
                double tau[TW_N];
                tw_torques(TW_TAU0, 0.5 * i, 0.5 * j, tau);
                check_instance(g.model, g.data, g.q, g.v, tau);
                ++checked;
            }
        /* fingers opening: contacts break */
        double tau[TW_N];
        tw_torques(-1.0, -2.0, -1.5, tau);
        check_instance(g.model, g.data, g.q, g.v, tau);
        tw_free(&g);
    }
    assert_int_equal(checked, 162);
}

static void test_three_finger(void **state)
{
    (void)state;
    const double mus[3] = {0.1, 0.5, 0.8};
    for (int k = 0; k < 3; ++k) {
        tf_params p;
        tf_defaults(&p);
        p.mu = mus[k];
        tf_hand h;
        assert_int_equal(tf_build(&p, &h, NULL), CDYN_OK);
        double v[TF_NV] = {0}, tau[TF_NV];
        /* at rest: three rolling contacts, 64 combinations of 9 x 9 LCPs */
        assert_int_equal(tf_squeeze_torques(&h, v, 10.0, tau, NULL), CDYN_OK);
        check_instance(h.model, h.data, h.q, v, tau);
        /* all sliding: the sphere slips down (mu = 0.8: no solution), or spins */
        v[2] = -0.05;
        assert_int_equal(tf_squeeze_torques(&h, v, 10.0, tau, NULL), CDYN_OK);
        check_instance(h.model, h.data, h.q, v, tau);
        v[2] = 0.0;
        v[5] = 0.5;
        assert_int_equal(tf_squeeze_torques(&h, v, 10.0, tau, NULL), CDYN_OK);
        check_instance(h.model, h.data, h.q, v, tau);
        tf_free(&h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_finger_map),
        cmocka_unit_test(test_three_finger),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
