/* Dense Newton systems H d = b for the MCP solver: LAPACK LU with partial pivoting.
 *
 * A numerically singular H is reported instead of used: an exactly zero pivot always, and a
 * reciprocal 1-norm condition number below MCP_DENSE_RCOND_MIN. The condition number (LAPACK's
 * estimate dgecon, or for small n the exact ||H^-1||_1) costs several triangular solves, so
 * it is only computed when a cheap lower bound on it is large: the pivot ratio
 * max|u_kk| / min|u_kk| after the factorization, or the amplification ||d|| max|u_kk| / ||b||
 * of the solve. Well-conditioned iterations, the usual case, pay for neither. */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdint.h>

#include "core/memory.h"
#include "linalg/dense.h"
#include "solvers/mcp/mcp_internal.h"

/* Below this reciprocal 1-norm condition number H counts as singular. */
#define MCP_DENSE_RCOND_MIN (64.0 * DBL_EPSILON)
/* The condition number is computed when the pivot ratio or the amplification exceeds this.
   Both are lower bounds on it (up to the growth of the factorization); on the benchmark and
   test problems (bar the constructed ones of test_mcp_dense_lu.c) 1/rcond stayed within a
   factor 160 of the pivot ratio, and 1e10 is almost four orders of magnitude below the limit
   1/MCP_DENSE_RCOND_MIN = 7e13. */
#define MCP_DENSE_SUSPECT 1e10
/* Up to this order the test computes ||H^-1||_1 exactly instead of calling dgecon, whose
   fixed cost (about 13,000 instructions at n = 2) exceeds the n^3 of the exact inverse. */
#define MCP_DENSE_EXACT_N 16

struct mcp_dense_lu {
    int n;
    double *H;    /* n*n: formed, then overwritten by the LU factors */
    double *work; /* 4n for dgecon, or n*n for the exact inverse when n <= EXACT_N */
    int *ipiv;    /* n */
    int *iwork;   /* n */
    /* The inputs of the last factor, for the norms of H needed only on the rare paths. */
    const mcp_jac *J;
    const double *da, *db;
    double mu;
    double umax;   /* max |u_kk| of the factors */
    int estimated; /* the condition test already accepted these factors */
};

/* Entry (i, j) of H, computed exactly as dense_factor forms it. */
static double h_entry(const mcp_dense_lu *s, int i, int j)
{
    const double h = s->db[i] * s->J->values[i + (size_t)j * s->n];
    return i == j ? h + (s->da[i] + s->mu) : h;
}

/* The condition test on the current factors (1-norm of H recomputed from its inputs). */
static cdyn_status estimate(mcp_dense_lu *s)
{
    const int n = s->n;
    double anorm = 0.0;
    for (int j = 0; j < n; ++j) {
        double colsum = 0.0;
        for (int i = 0; i < n; ++i)
            colsum += fabs(h_entry(s, i, j));
        if (colsum > anorm)
            anorm = colsum;
    }
    double rcond = 0.0;
    if (n <= MCP_DENSE_EXACT_N) {
        /* ||H^-1||_1 itself, from the n columns of H^-1 (one dgetrs call): cheaper than
           dgecon at this size, and dgecon's estimate never exceeds it. */
        double *X = s->work;
        for (size_t k = 0; k < (size_t)n * (size_t)n; ++k)
            X[k] = 0.0;
        for (int j = 0; j < n; ++j)
            X[j + (size_t)j * n] = 1.0;
        cdyn_dense_lu_solve(0, n, s->H, n, s->ipiv, n, X, n);
        rcond = 1.0 / (anorm * cdyn_dense_norm1(n, n, X, n));
    } else {
        rcond = cdyn_dense_lu_rcond(n, s->H, n, anorm, s->work, s->iwork); /* NaN on failure */
    }
    if (!(rcond >= MCP_DENSE_RCOND_MIN))
        return CDYN_ESINGULAR;
    s->estimated = 1;
    return CDYN_OK;
}

static cdyn_status dense_factor(void *self, const mcp_jac *J, double jabsmax, const double *da,
                                const double *db, double mu)
{
    mcp_dense_lu *s = self;
    const int n = s->n;
    s->J = J;
    s->da = da;
    s->db = db;
    s->mu = mu;
    s->estimated = 0;
    for (int j = 0; j < n; ++j) {
        const double *jc = J->values + (size_t)j * n;
        double *hc = s->H + (size_t)j * n;
        for (int i = 0; i < n; ++i)
            hc[i] = db[i] * jc[i];
        hc[j] += da[j] + mu;
    }
    /* OpenBLAS's getrf reports success on NaN input. |H_ij| <= max|db| max|J| + max|da| + mu,
       and rounding is monotone, so a finite bound proves H finite without reading it;
       otherwise (huge or unknown entries) H is scanned. */
    const double bound = cdyn_dense_norm_inf(n, db) * jabsmax + (cdyn_dense_norm_inf(n, da) + mu);
    if (!(bound <= DBL_MAX) && isnan(cdyn_mcp_finite_max_abs((size_t)n * (size_t)n, s->H)))
        return CDYN_ESINGULAR;
    if (LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, s->H, n, s->ipiv) != 0)
        return CDYN_ESINGULAR; /* info > 0: an exactly zero pivot */
    double umin = INFINITY, umax = 0.0;
    for (int k = 0; k < n; ++k) {
        const double u = fabs(s->H[k + (size_t)k * n]);
        if (!(u <= DBL_MAX))
            return CDYN_ESINGULAR; /* growth overflowed for finite but huge input */
        umin = u < umin ? u : umin;
        umax = u > umax ? u : umax;
    }
    s->umax = umax;
    if (umax > MCP_DENSE_SUSPECT * umin)
        return estimate(s);
    return CDYN_OK;
}

static cdyn_status dense_solve(void *self, double *b)
{
    mcp_dense_lu *s = self;
    const int n = s->n;
    const double bnorm = cdyn_dense_norm_inf(n, b);
    cdyn_dense_lu_solve(0, n, s->H, n, s->ipiv, 1, b, n);
    /* A large ||d|| / ||b|| shows a large ||H^-1||; a non-finite d is suspect too. */
    if (!s->estimated && !(cdyn_dense_norm_inf(n, b) * s->umax <= MCP_DENSE_SUSPECT * bnorm))
        return estimate(s);
    return CDYN_OK;
}

/* max |H_ij| of the last formed H, from its inputs (the factors have overwritten H). Only the
   singular path needs it, once per Newton step. NaN entries are skipped, as fmax would. */
static double dense_max_abs(void *self)
{
    const mcp_dense_lu *s = self;
    const int n = s->n;
    double hmax = 0.0;
    for (int j = 0; j < n; ++j) {
        const double *jc = s->J->values + (size_t)j * n;
        for (int i = 0; i < j; ++i) {
            const double a = fabs(s->db[i] * jc[i]);
            hmax = a > hmax ? a : hmax;
        }
        const double d = fabs(h_entry(s, j, j));
        hmax = d > hmax ? d : hmax;
        for (int i = j + 1; i < n; ++i) {
            const double a = fabs(s->db[i] * jc[i]);
            hmax = a > hmax ? a : hmax;
        }
    }
    return hmax;
}

cdyn_status cdyn_mcp_dense_lu_create(const cdyn_allocator *a, int n, mcp_dense_lu **out,
                                     mcp_linsys *ls)
{
    *out = NULL;
    const size_t nn = cdyn_mem_matrix_len((size_t)n, (size_t)n);
    const size_t nwork = (n <= MCP_DENSE_EXACT_N && nn > 4 * (size_t)n) ? nn : 4 * (size_t)n;
    if (nn == 0 || nn > SIZE_MAX / sizeof(double) - 4 * (size_t)n)
        return CDYN_ENOMEM;
    /* One block: the struct, then the doubles, then the ints (alignment follows from the
       order: the struct and doubles keep 8-byte multiples). */
    const size_t head = (sizeof(mcp_dense_lu) + sizeof(double) - 1) / sizeof(double);
    const size_t ndbl = head + nn + nwork;
    double *block = cdyn_mem_array(a, ndbl + ((size_t)2 * n * sizeof(int) + 7) / 8, sizeof(double));
    if (block == NULL)
        return CDYN_ENOMEM;
    mcp_dense_lu *s = (mcp_dense_lu *)(void *)block;
    s->n = n;
    s->H = block + head;
    s->work = s->H + nn;
    s->ipiv = (int *)(void *)(s->work + nwork);
    s->iwork = s->ipiv + n;
    s->J = NULL;
    s->da = s->db = NULL;
    s->mu = 0.0;
    s->umax = 0.0;
    s->estimated = 0;
    ls->self = s;
    ls->factor = dense_factor;
    ls->solve = dense_solve;
    ls->max_abs = dense_max_abs;
    *out = s;
    return CDYN_OK;
}

void cdyn_mcp_dense_lu_free(const cdyn_allocator *a, mcp_dense_lu *s)
{
    cdyn_mem_free(a, s);
}
