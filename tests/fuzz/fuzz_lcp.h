/* LCP decoding and the solution check shared by the LCP solver targets. */
#ifndef CDYN_FUZZ_LCP_H
#define CDYN_FUZZ_LCP_H

#include "fuzz_common.h"

#include "cdyn/lcp.h"

#define FZ_LCP_MAX_N 16

typedef struct fz_lcp {
    int n;
    double M[FZ_LCP_MAX_N * FZ_LCP_MAX_N];
    double q[FZ_LCP_MAX_N];
    cdyn_lcp lcp;
} fz_lcp;

/* n in 1..max_n, M column by column, then q. */
static inline void fz_lcp_decode(fz_reader *f, int max_n, fz_lcp *p)
{
    p->n = 1 + (int)(fz_byte(f) % (unsigned)max_n);
    fz_doubles(f, p->M, (size_t)p->n * (size_t)p->n);
    fz_doubles(f, p->q, (size_t)p->n);
    p->lcp = (cdyn_lcp){p->n, p->M, p->q};
}

/* A relative tolerance from one byte: 0 (the solver's default) or 10^-k. */
static inline double fz_tol(fz_reader *f)
{
    unsigned b = fz_byte(f) % 20;
    return b < 4 ? 0.0 : pow(10.0, -(double)b);
}

/* ||M||_inf as the solvers measure it (largest absolute row sum). */
static inline double fz_lcp_mnorm(const fz_lcp *p)
{
    double m = 0.0;
    for (int i = 0; i < p->n; ++i) {
        double s = 0.0;
        for (int j = 0; j < p->n; ++j)
            s += fabs(p->M[i + (size_t)j * p->n]);
        m = fmax(m, s);
    }
    return m;
}

/* On success: z, w finite; w = M z + q (up to the negatives within atol the solvers set to 0);
 * the natural residual, recomputed by cdyn_lcp_residual, within rel * max(||q||, ||M|| ||z||)
 * + abs_tol. A rounding allowance of 8 n eps times the size of the products is added. */
static inline void fz_lcp_check_solution(const fz_lcp *p, const double *z, const double *w,
                                         double rel, double abs_tol)
{
    const int n = p->n;
    FZ_CHECK(fz_all_finite((size_t)n, z));
    FZ_CHECK(fz_all_finite((size_t)n, w));
    const double zn = fz_norm_inf((size_t)n, z), qn = fz_norm_inf((size_t)n, p->q);
    const double mz = zn == 0.0 ? 0.0 : fz_lcp_mnorm(p) * zn; /* ||M|| may overflow to Inf */
    const double round = 8.0 * n * DBL_EPSILON * (mz + qn + zn);
    const double bound = (rel > 0.0 ? rel * fmax(qn, mz) : 0.0) + abs_tol + round; /* no 0*Inf */
    if (!(bound < INFINITY)) /* the products overflow: finiteness is all that can be checked */
        return;
    for (int i = 0; i < n; ++i) {
        double wi = p->q[i];
        for (int j = 0; j < n; ++j)
            wi += p->M[i + (size_t)j * n] * z[j];
        FZ_CHECK(fabs(wi - w[i]) <= bound);
    }
    const double r = cdyn_lcp_residual(&p->lcp, z);
    FZ_CHECK(r <= bound);
}

/* The certificate behind Lemke's and cdyn_lcp_solve's CDYN_OK (lcp.h; DESIGN.md "OK means
 * certified"), recomputed row by row: with w = M z + q and s_i = |q_i| + sum_j |M_ij z_j| in long
 * double, z_i >= 0, w_i >= -tol s_i, |min(z_i, w_i)| <= tol s_i, and the returned w within
 * tol s_i of M z + q (plus its rounding to double). The library sums by column blocks, this
 * check by rows: an allowance of 4 (n + 2) long-double epsilons of s_i covers the difference. */
static inline void fz_lcp_check_certified(const fz_lcp *p, const double *z, const double *w,
                                          double tol)
{
    const int n = p->n;
    FZ_CHECK(fz_all_finite((size_t)n, z));
    FZ_CHECK(fz_all_finite((size_t)n, w));
    for (int i = 0; i < n; ++i) {
        long double wi = p->q[i], si = fabs(p->q[i]);
        for (int j = 0; j < n; ++j) {
            const long double t = (long double)p->M[i + (size_t)j * n] * z[j];
            wi += t;
            si += fabsl(t);
        }
        const long double bound = (tol + 4.0L * (n + 2) * LDBL_EPSILON) * si;
        FZ_CHECK(z[i] >= 0.0);
        FZ_CHECK(wi >= -bound);
        /* w is rounded to double, and flushes to 0 below the subnormal range */
        FZ_CHECK(fabsl(w[i] - wi) <= bound + DBL_EPSILON * fabsl(wi) + DBL_TRUE_MIN);
        FZ_CHECK(fabsl(z[i] < wi ? (long double)z[i] : wi) <= bound);
    }
}

#endif
