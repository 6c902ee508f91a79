/* Dense backends of the linear-system layer: LU with partial pivoting and Cholesky (LAPACK).
 *
 * LU: a numerically singular A is reported instead of used — an exactly zero pivot always, and a
 * reciprocal 1-norm condition number below rcond_min. The condition number (LAPACK's estimate
 * dgecon, or for small n the exact ||A^-1||_1) costs several triangular solves, so it is only
 * computed when a cheap lower bound on it is large: the pivot ratio max|u_kk| / min|u_kk| after
 * the factorization, or the amplification ||x|| max|u_kk| / ||b|| of a solve. Well-conditioned
 * systems, the usual case, pay for neither. ||A||_1 and max|A_ij| are taken in the one pass that
 * also proves A finite (OpenBLAS's getrf reports success on NaN input), unless the caller gives
 * them (spec.dense_norms, finite values vouched for): then nothing scans A. */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"
#include "linalg/linsys_internal.h"

#define DENSE_RCOND_MIN (64.0 * DBL_EPSILON)
/* The condition number is computed when the pivot ratio or the amplification exceeds this.
   Both are lower bounds on it (up to the growth of the factorization); on the MCP's benchmark
   and test problems 1/rcond stayed within a factor 160 of the pivot ratio, and 1e10 is almost
   four orders of magnitude below 1/DENSE_RCOND_MIN = 7e13. */
#define DENSE_SUSPECT 1e10
/* Up to this order the test computes ||A^-1||_1 exactly instead of calling dgecon, whose fixed
   cost (about 13,000 instructions at n = 2) exceeds the n^3 of the exact inverse. */
#define DENSE_EXACT_N 16

typedef struct dense_be {
    double *A;    /* n*n: the values, then the factors */
    double *work; /* 4n for dgecon, or n*n for the exact inverse when n <= EXACT_N */
    int *ipiv;    /* n */
    int *iwork;   /* n */
    double anorm; /* ||A||_1 of the last factor's values */
    double umax;  /* max |u_kk| */
    int estimated; /* the condition test already accepted these factors */
} dense_be;

static double *dense_values(cdyn_linsys *ls)
{
    return ((dense_be *)ls->be)->A;
}

static void take_values(cdyn_linsys *ls, const double *values)
{
    dense_be *s = ls->be;
    if (values != NULL && values != s->A)
        memcpy(s->A, values, sizeof(double) * (size_t)ls->n * (size_t)ls->n);
}

/* The condition test on the current LU factors. */
static cdyn_status estimate(cdyn_linsys *ls, cdyn_report *r)
{
    dense_be *s = ls->be;
    const int n = ls->n;
    if (ls->dense_norms != NULL) {
        double amax = 0.0;
        ls->dense_norms(ls->dense_norms_ctx, &s->anorm, &amax);
    }
    double rcond = 0.0;
    if (n <= DENSE_EXACT_N) {
        /* ||A^-1||_1 itself, from the n columns of A^-1 (one dgetrs call): cheaper than dgecon
           at this size, and dgecon's estimate never exceeds it. */
        double *X = s->work;
        for (size_t k = 0; k < (size_t)n * (size_t)n; ++k)
            X[k] = 0.0;
        for (int j = 0; j < n; ++j)
            X[j + (size_t)j * n] = 1.0;
        cdyn_dense_lu_solve(0, n, s->A, n, s->ipiv, n, X, n);
        rcond = 1.0 / (s->anorm * cdyn_dense_norm1(n, n, X, n));
    } else {
        rcond = cdyn_dense_lu_rcond(n, s->A, n, s->anorm, s->work, s->iwork); /* NaN on failure */
    }
    if (!(rcond >= ls->rcond_min))
        return cdyn_fail(r, CDYN_ESINGULAR, "numerically singular (rcond %.3g)", rcond);
    s->estimated = 1;
    return CDYN_OK;
}

/* ||A||_1 and max|A_ij| (NaN skipped) of the values in A, in one pass; 0 when A is not finite. */
static int scan(cdyn_linsys *ls)
{
    dense_be *s = ls->be;
    const int n = ls->n;
    double anorm = 0.0, amax = 0.0;
    int finite = 1;
    for (int j = 0; j < n; ++j) {
        const double *c = s->A + (size_t)j * n;
        double colsum = 0.0;
        for (int i = 0; i < n; ++i) {
            const double a = fabs(c[i]);
            colsum += a;
            amax = a > amax ? a : amax;
            finite &= a <= DBL_MAX;
        }
        if (colsum > anorm)
            anorm = colsum;
    }
    s->anorm = anorm;
    ls->max_abs = amax;
    return finite;
}

static cdyn_status lu_factor(cdyn_linsys *ls, const double *values, cdyn_report *r)
{
    dense_be *s = ls->be;
    const int n = ls->n;
    take_values(ls, values);
    s->estimated = 0;
    if (ls->dense_norms == NULL && !scan(ls))
        return cdyn_fail(r, CDYN_ESINGULAR, "not finite (NaN or Inf)");
    if (LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, s->A, n, s->ipiv) != 0)
        return cdyn_fail(r, CDYN_ESINGULAR, "singular (zero pivot, LAPACK dgetrf)");
    double umin = INFINITY, umax = 0.0;
    for (int k = 0; k < n; ++k) {
        const double u = fabs(s->A[k + (size_t)k * n]);
        if (!(u <= DBL_MAX))
            return cdyn_fail(r, CDYN_ESINGULAR, "LU factor overflowed");
        umin = u < umin ? u : umin;
        umax = u > umax ? u : umax;
    }
    s->umax = umax;
    if (ls->rcond_min > 0.0 && umax > DENSE_SUSPECT * umin)
        return estimate(ls, r);
    return CDYN_OK;
}

static cdyn_status lu_solve(cdyn_linsys *ls, int trans, int nrhs, double *b, cdyn_report *r)
{
    dense_be *s = ls->be;
    const int n = ls->n;
    const int nb = n * nrhs;
    const double bnorm = cdyn_dense_norm_inf(nb, b);
    cdyn_dense_lu_solve(trans, n, s->A, n, s->ipiv, nrhs, b, n);
    /* A large ||x|| / ||b|| shows a large ||A^-1||; a non-finite x is suspect too. */
    if (ls->rcond_min > 0.0 && !s->estimated &&
        !(cdyn_dense_norm_inf(nb, b) * s->umax <= DENSE_SUSPECT * bnorm))
        return estimate(ls, r);
    return CDYN_OK;
}

static cdyn_status chol_factor(cdyn_linsys *ls, const double *values, cdyn_report *r)
{
    dense_be *s = ls->be;
    take_values(ls, values);
    const cdyn_status st = cdyn_dense_chol(ls->n, s->A, ls->n);
    if (st == CDYN_ESINGULAR)
        return cdyn_fail(r, st, "not positive definite (LAPACK dpotrf)");
    if (st != CDYN_OK)
        return cdyn_fail(r, CDYN_EINVAL, "contains NaN or Inf");
    return CDYN_OK;
}

static cdyn_status chol_solve(cdyn_linsys *ls, int trans, int nrhs, double *b, cdyn_report *r)
{
    (void)trans;
    (void)r;
    cdyn_dense_chol_solve(ls->n, ((dense_be *)ls->be)->A, ls->n, nrhs, b, ls->n);
    return CDYN_OK;
}

static const cdyn_linsys_ops lu_ops = {lu_factor, lu_solve, NULL, dense_values, NULL};
static const cdyn_linsys_ops chol_ops = {chol_factor, chol_solve, NULL, dense_values, NULL};

cdyn_status cdyn_linsys_dense_init(const cdyn_linsys_spec *spec, cdyn_linsys **out,
                                   cdyn_report *r)
{
    const int n = spec->n;
    const int lu = spec->kind == CDYN_LINSYS_DENSE_LU;
    const size_t nn = cdyn_mem_matrix_len((size_t)n, (size_t)n);
    size_t nwork = 0;
    if (lu)
        nwork = (n <= DENSE_EXACT_N && nn > 4 * (size_t)n) ? nn : 4 * (size_t)n;
    if (nn == 0 || nn > SIZE_MAX / sizeof(double) - 4 * (size_t)n)
        return cdyn_fail(r, CDYN_ENOMEM, "linear system: %d-by-%d matrix too large", n, n);
    /* After the object: the state, the doubles, then the ints (the order keeps the alignment). */
    const size_t head = (sizeof(dense_be) + sizeof(double) - 1) / sizeof(double);
    const size_t nint = lu ? 2 * (size_t)n : 0;
    const size_t ndbl = head + nn + nwork + (nint * sizeof(int) + 7) / 8;
    cdyn_linsys *ls = ndbl <= SIZE_MAX / sizeof(double)
                          ? cdyn_linsys_block(spec, ndbl * sizeof(double))
                          : NULL;
    if (ls == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "linear system: out of memory");
    double *block = ls->be;
    dense_be *s = (dense_be *)(void *)block;
    s->A = block + head;
    s->work = s->A + nn;
    s->ipiv = (int *)(void *)(s->work + nwork);
    s->iwork = s->ipiv + n;
    s->anorm = s->umax = 0.0;
    s->estimated = 0;
    ls->ops = lu ? &lu_ops : &chol_ops;
    if (ls->rcond_min < 0.0 || isnan(ls->rcond_min))
        ls->rcond_min = lu ? DENSE_RCOND_MIN : 0.0;
    *out = ls;
    return CDYN_OK;
}
