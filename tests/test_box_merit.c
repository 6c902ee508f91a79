/* Box-constrained merit minimization (cdyn_box_merit_solve) against the FB semismooth Newton
 * solver (cdyn_mcp_solve / cdyn_lcp_fb_newton) on the shared MCP test problems, on random
 * P-matrix LCPs (with the Mathias–Pang error bound), and on small problems whose stationary
 * points are known by hand; plus white-box checks of both reformulations' residual Jacobians
 * against central differences.
 *
 * Expected values: the published / hand-derived solution sets of mcp_testproblems.c; the
 * independent FB-Newton solution; analytic solutions and stationary points derived in the
 * comments below; finite differences. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/boxmerit.h"
#include "cdyn/mcp.h"
#include "mcp_testproblems.h"
#include "solvers/boxmerit/box_merit_internal.h"
#include "support.h"

static const char *merit_name(int merit) { return merit == CDYN_BOX_MERIT_FB ? "fb" : "slack"; }

static cdyn_mcp dense_problem(const tp_problem *pb)
{
    cdyn_mcp mcp;
    memset(&mcp, 0, sizeof mcp);
    mcp.n = pb->n;
    mcp.lower = pb->lower;
    mcp.upper = pb->upper;
    mcp.F = pb->F;
    mcp.jac = pb->J;
    return mcp;
}

/* Natural residual of x recomputed here from F(x), independently of the solver's report. */
static double residual_of(const cdyn_mcp *mcp, const double *x)
{
    double F[64];
    assert_true(mcp->n <= 64);
    if (mcp->F(mcp->ctx, x, F) != 0)
        return INFINITY;
    return cdyn_mcp_residual(mcp, x, F);
}

/* ---- Literature problems: both merit functions vs FB-Newton ------------------------------- */

/* The cases where the slack merit function may stop at a stationary point that is not a
   solution (measured, see docs/theory.md §6): Kojima–Shindo and Josephy from x = 0, where
   F' is not a P-matrix, so §4's guarantee for that merit does not apply (both problems do have
   such points, e.g. Kojima–Shindo's at x = (0, 0, 0, 1.5608), merit 1.87). Which start ends there
   depends on the path (analytic or finite-difference Jacobian), so either outcome is accepted,
   any other is not. The FB merit, which needs only P0 there, and FB-Newton solve them. */
static int slack_stationary_case(const tp_problem *pb, int s, int merit)
{
    return merit == CDYN_BOX_MERIT_SLACK && s == 0 &&
           (strcmp(pb->name, "josephy") == 0 || strcmp(pb->name, "kojima-shindo") == 0);
}

static void literature_problems(int use_fd)
{
    for (int merit = 0; merit < 2; ++merit)
        for (int k = 0; k < TP_NPROB; ++k) {
            const tp_problem *pb = &TP_PROBLEMS[k];
            const cdyn_mcp mcp = dense_problem(pb);
            for (int s = 0; s < 2; ++s) {
                double xfb[TP_MAXN], xbm[TP_MAXN];
                memcpy(xfb, pb->start[s], sizeof xfb);
                memcpy(xbm, pb->start[s], sizeof xbm);
                cdyn_mcp_options mo;
                cdyn_mcp_defaults(&mo);
                mo.jacobian_fd = use_fd;
                cdyn_report rfb, rbm;
                assert_int_equal(cdyn_mcp_solve(&mcp, &mo, xfb, &rfb), CDYN_OK);

                cdyn_box_merit_options o;
                cdyn_box_merit_defaults(&o);
                o.merit = (cdyn_box_merit_kind)merit;
                o.jacobian_fd = use_fd;
                const cdyn_status st = cdyn_box_merit_solve(&mcp, &o, xbm, &rbm);
                if (slack_stationary_case(pb, s, merit) && st != CDYN_OK) {
                    assert_int_equal(st, CDYN_ENOCONV);
                    assert_non_null(strstr(rbm.message, "stationary point"));
                    assert_memory_equal(xbm, pb->start[s], (size_t)pb->n * sizeof(double));
                    continue;
                }
                const double res = residual_of(&mcp, xbm);
                const double dist = pb->distance(xbm);
                const double agree = tp_dist_to(xbm, xfb, pb->n);
                if (st != CDYN_OK || !(res <= o.tol) || !(dist <= pb->distance_tol) ||
                    (pb->unique && !(agree <= 1e-7)))
                    print_error("%s start %d merit %s fd %d: status %d (%s) it %d res %g dist %g "
                                "agree %g\n",
                                pb->name, s, merit_name(merit), use_fd, (int)st, rbm.message,
                                rbm.iterations, res, dist, agree);
                assert_int_equal(st, CDYN_OK);
                assert_string_equal(rbm.method, merit == 0 ? "box-merit-fb" : "box-merit-slack");
                assert_true(res <= o.tol);
                assert_true(rbm.residual <= o.tol);
                assert_true(dist <= pb->distance_tol);
                /* A unique solution: both solvers stop at natural residual <= 1e-10 at a
                   nondegenerate solution, so they agree to a small multiple of that. */
                if (pb->unique)
                    assert_true(agree <= 1e-7);
                /* every iterate stays in the box, the returned point included */
                for (int i = 0; i < pb->n; ++i) {
                    assert_true(xbm[i] >= (pb->lower ? pb->lower[i] : 0.0));
                    assert_true(xbm[i] <= (pb->upper ? pb->upper[i] : INFINITY));
                }
                assert_true(rbm.evaluations > 0);
            }
        }
}

static void test_literature_analytic_jacobian(void **state)
{
    (void)state;
    literature_problems(0);
}

static void test_literature_finite_differences(void **state)
{
    (void)state;
    literature_problems(1);
}

/* Both Kojima–Shindo solutions are reachable (the second is degenerate: x3 = F3 = 0): started
   0.05 away from either, both merit functions converge to it. */
static void test_kojima_shindo_both_solutions(void **state)
{
    (void)state;
    const double *sols[2] = {TP_KS_SOL1, TP_KS_SOL2};
    for (int merit = 0; merit < 2; ++merit)
        for (int k = 0; k < 2; ++k) {
            cdyn_mcp mcp;
            memset(&mcp, 0, sizeof mcp);
            mcp.n = 4;
            mcp.F = tp_ks_F;
            mcp.jac = tp_ks_J;
            double x[4];
            for (int i = 0; i < 4; ++i)
                x[i] = sols[k][i] + 0.05;
            cdyn_box_merit_options o;
            cdyn_box_merit_defaults(&o);
            o.merit = (cdyn_box_merit_kind)merit;
            cdyn_report r;
            assert_int_equal(cdyn_box_merit_solve(&mcp, &o, x, &r), CDYN_OK);
            assert_true(tp_dist_to(x, sols[k], 4) <= 1e-9);
        }
}

/* The spectral projected gradient method alone (newton = 0) on the problems where it reaches
   the tolerance within the iteration budget with the FB merit (measured: 1-195 iterations;
   first-order, so up to 25 times more than with the Gauss–Newton phase). */
static void test_spg_only(void **state)
{
    (void)state;
    const char *names[] = {"josephy", "mathiesen-walras", "nash-cournot", "billups-flipped"};
    for (size_t q = 0; q < sizeof names / sizeof names[0]; ++q)
        for (int k = 0; k < TP_NPROB; ++k) {
            const tp_problem *pb = &TP_PROBLEMS[k];
            if (strcmp(pb->name, names[q]) != 0)
                continue;
            const cdyn_mcp mcp = dense_problem(pb);
            for (int s = 0; s < 2; ++s) {
                cdyn_box_merit_options o;
                cdyn_box_merit_defaults(&o);
                o.newton = 0;
                o.max_iter = 2000;
                double x[TP_MAXN];
                memcpy(x, pb->start[s], sizeof x);
                cdyn_report r;
                const cdyn_status st = cdyn_box_merit_solve(&mcp, &o, x, &r);
                if (st != CDYN_OK)
                    print_error("%s start %d: %s\n", pb->name, s, r.message);
                assert_int_equal(st, CDYN_OK);
                assert_true(residual_of(&mcp, x) <= o.tol);
                assert_true(pb->distance(x) <= pb->distance_tol);
            }
        }
}

/* ---- The KKT MCP with free, fixed, one- and two-sided bounds ------------------------------ */

static void test_kkt_box_mcp(void **state)
{
    (void)state;
    enum { N = TP_KKT_N };
    tp_kkt k;
    tp_kkt_init(&k);
    for (int merit = 0; merit < 2; ++merit)
        for (int sparse = 0; sparse < 2; ++sparse)
            for (int fd = 0; fd < 2; ++fd)
                for (int s = 0; s < 2; ++s) {
                    cdyn_mcp mcp;
                    memset(&mcp, 0, sizeof mcp);
                    mcp.n = N;
                    mcp.lower = TP_KKT_LO;
                    mcp.upper = TP_KKT_UP;
                    mcp.F = tp_kkt_F;
                    mcp.ctx = &k;
                    if (sparse) {
                        mcp.colptr = k.colptr;
                        mcp.rowind = k.rowind;
                        mcp.jac_sparse = tp_kkt_J_sparse;
                    } else {
                        mcp.jac = tp_kkt_J;
                    }
                    double zfb[N], zbm[N];
                    memcpy(zfb, TP_KKT_STARTS[s], sizeof zfb);
                    memcpy(zbm, TP_KKT_STARTS[s], sizeof zbm);
                    cdyn_mcp_options mo;
                    cdyn_mcp_defaults(&mo);
                    mo.jacobian_fd = fd;
                    assert_int_equal(cdyn_mcp_solve(&mcp, &mo, zfb, NULL), CDYN_OK);
                    cdyn_box_merit_options o;
                    cdyn_box_merit_defaults(&o);
                    o.merit = (cdyn_box_merit_kind)merit;
                    o.jacobian_fd = fd;
                    cdyn_report r;
                    const cdyn_status st = cdyn_box_merit_solve(&mcp, &o, zbm, &r);
                    if (st != CDYN_OK)
                        print_error("merit %s sparse %d fd %d start %d: %s\n", merit_name(merit),
                                    sparse, fd, s, r.message);
                    assert_int_equal(st, CDYN_OK);
                    /* the manufactured unique solution, and FB-Newton's */
                    for (int i = 0; i < N; ++i) {
                        assert_true(fabs(zbm[i] - TP_KKT_XSTAR[i]) <= 1e-8);
                        assert_true(fabs(zbm[i] - zfb[i]) <= 1e-8);
                    }
                    assert_true(zbm[4] == 0.5); /* fixed variable exactly at its value */
                    assert_true(zbm[1] == 1.0); /* at its upper bound exactly (projection) */
                }
}

/* ---- Random P-matrix LCPs ------------------------------------------------------------------ */

typedef struct lcp_ctx {
    int n;
    const double *M, *q;
} lcp_ctx;

static int lcp_F(void *ctx, const double *z, double *F)
{
    const lcp_ctx *c = ctx;
    for (int i = 0; i < c->n; ++i) {
        F[i] = c->q[i];
        for (int j = 0; j < c->n; ++j)
            F[i] += c->M[i + (size_t)j * c->n] * z[j];
    }
    return 0;
}

static int lcp_J(void *ctx, const double *z, double *J)
{
    (void)z;
    const lcp_ctx *c = ctx;
    memcpy(J, c->M, (size_t)c->n * (size_t)c->n * sizeof(double));
    return 0;
}

/* M = B B^T + delta I + (S - S^T): its symmetric part is >= delta I, so M is positive definite,
   a P-matrix, the LCP has a unique solution z*, and by §4 of the theory every stationary point
   of either merit function is z*. Error bound (Mathias–Pang 1990, with c(M) >= delta / n in the
   max norm): ||z - z*||_inf <= n (1 + ||M||_inf) / delta * ||min(z, Mz + q)||_inf. */
static void test_random_p_matrix_lcps(void **state)
{
    (void)state;
    enum { NMAX = 24, TRIALS = 12 };
    static double M[NMAX * NMAX], B[NMAX * NMAX], S[NMAX * NMAX], q[NMAX];
    test_rng rng;
    test_rng_seed(&rng, 20240611u);
    const double delta = 0.1;
    for (int t = 0; t < TRIALS; ++t) {
        const int n = 4 + (2 * t) % (NMAX - 3);
        for (size_t i = 0; i < (size_t)n * n; ++i) {
            B[i] = test_rng_range(&rng, -1, 1);
            S[i] = test_rng_range(&rng, -1, 1);
        }
        double mnorm = 0.0;
        for (int i = 0; i < n; ++i) {
            double rowsum = 0.0;
            for (int j = 0; j < n; ++j) {
                double v = (i == j ? delta : 0.0) + S[i + j * n] - S[j + i * n];
                for (int k = 0; k < n; ++k)
                    v += B[i + k * n] * B[j + k * n];
                M[i + j * n] = v;
                rowsum += fabs(v);
            }
            mnorm = fmax(mnorm, rowsum);
            q[i] = test_rng_range(&rng, -3, 3);
        }
        lcp_ctx c = {n, M, q};
        cdyn_mcp mcp;
        memset(&mcp, 0, sizeof mcp);
        mcp.n = n;
        mcp.F = lcp_F;
        mcp.jac = lcp_J;
        mcp.ctx = &c;
        double zfb[NMAX] = {0}, w[NMAX];
        const cdyn_lcp lcp = {n, M, q};
        cdyn_report r;
        assert_int_equal(cdyn_lcp_fb_newton(&lcp, NULL, zfb, w, &r), CDYN_OK);
        const double rfb = r.residual;
        for (int merit = 0; merit < 2; ++merit) {
            double z[NMAX] = {0};
            cdyn_box_merit_options o;
            cdyn_box_merit_defaults(&o);
            o.merit = (cdyn_box_merit_kind)merit;
            const cdyn_status st = cdyn_box_merit_solve(&mcp, &o, z, &r);
            if (st != CDYN_OK)
                print_error("trial %d n %d merit %s: %s\n", t, n, merit_name(merit), r.message);
            assert_int_equal(st, CDYN_OK);
            const double rbm = residual_of(&mcp, z);
            assert_true(rbm <= o.tol);
            const double bound = n * (1.0 + mnorm) / delta * (rbm + rfb);
            assert_true(tp_dist_to(z, zfb, n) <= bound);
        }
    }
}

/* Monotone LCPs with a singular M = B B^T + (S - S^T) (B n-by-r, r < n: positive semidefinite,
   a P0-matrix, not P) and a degenerate solution built in: z* >= 0, w* >= 0 complementary with
   about a fifth of the pairs z*_i = w*_i = 0, q = w* - M z*. The solution set is convex but not
   a single point, so the check is the natural residual recomputed here; by §4 every stationary
   point of the FB merit over the box is a solution for P0 Jacobians, so the FB solver must
   succeed on every instance. (The slack merit needs P; its measured rate is in the docs.) */
static void test_monotone_degenerate_lcps(void **state)
{
    (void)state;
    enum { NMAX = 30, TRIALS = 40 };
    static double M[NMAX * NMAX], B[NMAX * NMAX];
    double q[NMAX], zs[NMAX], z[NMAX];
    test_rng rng;
    test_rng_seed(&rng, 99u);
    for (int t = 0; t < TRIALS; ++t) {
        const int n = 10 + (t % 3) * 10, rank = 2 + t % 5;
        for (int i = 0; i < n * n; ++i)
            B[i] = test_rng_range(&rng, -1, 1);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                double v = (j > i) ? B[i + j * n] : (j < i) ? -B[j + i * n] : 0.0;
                for (int k = 0; k < rank; ++k)
                    v += B[i + k * n] * B[j + k * n];
                M[i + j * n] = v;
            }
        for (int i = 0; i < n; ++i)
            zs[i] = test_rng_uniform(&rng) < 0.4 ? test_rng_range(&rng, 0.1, 2) : 0.0;
        for (int i = 0; i < n; ++i) {
            double mz = 0.0;
            for (int j = 0; j < n; ++j)
                mz += M[i + j * n] * zs[j];
            const double ws =
                (zs[i] > 0.0 || test_rng_uniform(&rng) < 0.3) ? 0.0 : test_rng_range(&rng, 0.1, 2);
            q[i] = ws - mz;
        }
        lcp_ctx c = {n, M, q};
        cdyn_mcp mcp;
        memset(&mcp, 0, sizeof mcp);
        mcp.n = n;
        mcp.F = lcp_F;
        mcp.jac = lcp_J;
        mcp.ctx = &c;
        for (int i = 0; i < n; ++i)
            z[i] = test_rng_range(&rng, 0, 3);
        cdyn_report r;
        const cdyn_status st = cdyn_box_merit_solve(&mcp, NULL, z, &r);
        if (st != CDYN_OK)
            print_error("trial %d n %d rank %d: %s\n", t, n, rank, r.message);
        assert_int_equal(st, CDYN_OK);
        assert_true(residual_of(&mcp, z) <= 1e-10);
    }
}

/* ---- Stationary points known by hand -------------------------------------------------------- */

/* NCP with F(x) = (x - 1)^3 - 1: monotone (F' = 3 (x - 1)^2 >= 0, a P0 "matrix" everywhere), the
   unique solution is x = 2 (F(2) = 0; x = 0 has F(0) = -2 < 0). For the slack merit
   1/2 (F(x) - w)^2 + 1/2 (x w)^2, the point (x, w) = (1, 0) is stationary on the box: the
   x-derivative F'(1) (F - w) + w (x w) = 0 and the w-derivative -(F - w) + x (x w) = 1 >= 0 at
   w = 0; starting from x = 1 (w = max(F(1), 0) = 0) the slack solver must stop there. The FB
   merit has no such point (P0 suffices for it, §4): at x = 1, dPsi/dx = Phi * (1 - 1/sqrt(2))
   != 0, and it converges to 2. */
static int cubic_F(void *ctx, const double *x, double *F)
{
    (void)ctx;
    F[0] = pow(x[0] - 1.0, 3) - 1.0;
    return 0;
}

static int cubic_J(void *ctx, const double *x, double *J)
{
    (void)ctx;
    J[0] = 3.0 * (x[0] - 1.0) * (x[0] - 1.0);
    return 0;
}

/* NCP with F(x) = -1 - x: not P0 (F' = -1) and without a solution (F < 0 on x >= 0). Both merit
   functions are minimized over x >= 0 at x = 0 (FB: Phi(x) = -1 - sqrt(x^2 + (1 + x)^2) is
   decreasing, so 1/2 Phi^2 increases; slack: 1/2 (1 + x + w)^2 + 1/2 (x w)^2 grows in x and w),
   where the natural residual is |0 - max(0, 0 - F(0))| = 1. */
static int neg_F(void *ctx, const double *x, double *F)
{
    (void)ctx;
    F[0] = -1.0 - x[0];
    return 0;
}

static int neg_J(void *ctx, const double *x, double *J)
{
    (void)ctx, (void)x;
    J[0] = -1.0;
    return 0;
}

static void test_stationary_points(void **state)
{
    (void)state;
    cdyn_mcp mcp;
    memset(&mcp, 0, sizeof mcp);
    mcp.n = 1;
    mcp.F = cubic_F;
    mcp.jac = cubic_J;
    cdyn_box_merit_options o;
    cdyn_box_merit_defaults(&o);
    cdyn_report r;
    double x[1] = {1.0};
    o.merit = CDYN_BOX_MERIT_SLACK;
    assert_int_equal(cdyn_box_merit_solve(&mcp, &o, x, &r), CDYN_ENOCONV);
    assert_non_null(strstr(r.message, "stationary point of the merit function that is not a "
                                      "solution"));
    assert_true(x[0] == 1.0);
    /* natural residual at x = 1: |1 - max(0, 1 - F(1))| = |1 - 2| = 1 */
    assert_true(fabs(r.residual - 1.0) <= 1e-15);
    o.merit = CDYN_BOX_MERIT_FB;
    assert_int_equal(cdyn_box_merit_solve(&mcp, &o, x, &r), CDYN_OK);
    assert_true(fabs(x[0] - 2.0) <= 1e-10);

    mcp.F = neg_F;
    mcp.jac = neg_J;
    for (int merit = 0; merit < 2; ++merit) {
        double y[1] = {3.0};
        o.merit = (cdyn_box_merit_kind)merit;
        assert_int_equal(cdyn_box_merit_solve(&mcp, &o, y, &r), CDYN_ENOCONV);
        assert_non_null(strstr(r.message, "stationary point"));
        assert_true(y[0] == 3.0);
        assert_true(fabs(r.residual - 1.0) <= 1e-12);
    }
}

/* ---- White box: residuals and Jacobians of both reformulations ------------------------------ */

enum { KN = TP_KKT_N, KNMAX = 3 * TP_KKT_N };

static void fd_check(const bm_layout *lay, tp_kkt *k, const double *y0)
{
    const int n = lay->n, N = lay->N, m = lay->m;
    static double JR[KNMAX * KNMAX], J[KN * KN];
    double F[KN], R[KNMAX], Rp[KNMAX], Rm[KNMAX], da[KN], db[KN], y[KNMAX];
    tp_kkt_F(k, y0, F);
    tp_kkt_J(k, y0, J);
    cdyn_bm_residual(lay, y0, F, R, da, db);
    cdyn_bm_jacobian(lay, y0, J, da, db, JR);
    const double h = 1e-6;
    for (int j = 0; j < N; ++j) {
        memcpy(y, y0, (size_t)N * sizeof(double));
        y[j] = y0[j] + h;
        tp_kkt_F(k, y, F);
        cdyn_bm_residual(lay, y, F, Rp, NULL, NULL);
        y[j] = y0[j] - h;
        tp_kkt_F(k, y, F);
        cdyn_bm_residual(lay, y, F, Rm, NULL, NULL);
        for (int i = 0; i < m; ++i) {
            const double fdv = (Rp[i] - Rm[i]) / (2 * h);
            /* central differences of a smooth function: error O(h^2) + rounding O(eps/h) */
            assert_true(fabs(fdv - JR[i + (size_t)j * m]) <= 1e-7 * (1.0 + fabs(fdv)));
        }
    }
    (void)n;
}

static void test_reformulation_jacobians(void **state)
{
    (void)state;
    tp_kkt k;
    tp_kkt_init(&k);
    int wi[KN], zi[KN];
    bm_layout lay;

    /* Slack layout of the KKT bounds, counted by hand: x0 [0, inf) -> w; x1 [-1, 1] and
       x2 [-1, 2] -> w, z each; x3 free; x4 fixed (no row, no slack); x5 (-inf, 2] -> z; y0, y1
       free. So 6 slacks, N = 8 + 6 = 14, 7 equation rows, m = 7 + 6 = 13. */
    cdyn_bm_layout_init(&lay, KN, TP_KKT_LO, TP_KKT_UP, CDYN_BOX_MERIT_SLACK, wi, zi);
    assert_int_equal(lay.N, 14);
    assert_int_equal(lay.neq, 7);
    assert_int_equal(lay.m, 13);
    assert_true(wi[4] < 0 && zi[4] < 0 && wi[3] < 0 && zi[3] < 0 && wi[5] < 0 && zi[5] >= 0);
    double lo[KNMAX], up[KNMAX];
    cdyn_bm_box(&lay, lo, up);
    for (int j = KN; j < lay.N; ++j)
        assert_true(lo[j] == 0.0 && up[j] == INFINITY);

    /* a generic interior point: x strictly inside its bounds, slacks positive */
    double y[KNMAX] = {0.4, 0.2, 0.7, -0.3, 0.5, 1.1, 0.6, -0.9};
    for (int j = KN; j < lay.N; ++j)
        y[j] = 0.3 + 0.1 * j;
    fd_check(&lay, &k, y);

    /* At the solution with consistent slacks the residual vanishes (zeros <=> solutions). */
    double F[KN], R[KNMAX];
    memcpy(y, TP_KKT_XSTAR, sizeof TP_KKT_XSTAR);
    tp_kkt_F(&k, y, F);
    cdyn_bm_init_slacks(&lay, F, y);
    cdyn_bm_residual(&lay, y, F, R, NULL, NULL);
    for (int i = 0; i < lay.m; ++i)
        assert_true(fabs(R[i]) <= 1e-14);

    /* FB layout: the residual is Phi itself, Jacobian diag(da) + diag(db) F' (no kinks at a
       generic interior point). */
    cdyn_bm_layout_init(&lay, KN, TP_KKT_LO, TP_KKT_UP, CDYN_BOX_MERIT_FB, NULL, NULL);
    assert_int_equal(lay.N, KN);
    assert_int_equal(lay.m, KN);
    const double x[KN] = {0.4, 0.2, 0.7, -0.3, 0.5, 1.1, 0.6, -0.9};
    fd_check(&lay, &k, x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_literature_analytic_jacobian),
        cmocka_unit_test(test_literature_finite_differences),
        cmocka_unit_test(test_kojima_shindo_both_solutions),
        cmocka_unit_test(test_spg_only),
        cmocka_unit_test(test_kkt_box_mcp),
        cmocka_unit_test(test_random_p_matrix_lcps),
        cmocka_unit_test(test_monotone_degenerate_lcps),
        cmocka_unit_test(test_stationary_points),
        cmocka_unit_test(test_reformulation_jacobians),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
