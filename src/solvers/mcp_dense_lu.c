/* Dense Newton systems H d = b for the MCP solver: LAPACK LU with partial pivoting and a
 * condition estimate, so that numerically singular H is reported instead of used. */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdint.h>

#include "core/memory.h"
#include "linalg/dense.h"
#include "solvers/mcp_internal.h"

/* Below this reciprocal condition number (1-norm estimate) H counts as singular. */
#define MCP_DENSE_RCOND_MIN (64.0 * DBL_EPSILON)

struct mcp_dense_lu {
    int n;
    double *H;    /* n*n: formed, then overwritten by the LU factors */
    double *work; /* 4n for dgecon */
    int *ipiv;    /* n */
    int *iwork;   /* n */
    double hmax;
};

static cdyn_status dense_factor(void *self, const mcp_jac *J, const double *da, const double *db,
                                double mu)
{
    mcp_dense_lu *s = self;
    const int n = s->n;
    double anorm = 0.0, hmax = 0.0;
    for (int j = 0; j < n; ++j) {
        const double *jc = J->values + (size_t)j * n;
        double *hc = s->H + (size_t)j * n;
        double colsum = 0.0;
        for (int i = 0; i < n; ++i) {
            hc[i] = db[i] * jc[i] + (i == j ? da[i] + mu : 0.0);
            colsum += fabs(hc[i]);
            hmax = fmax(hmax, fabs(hc[i]));
        }
        anorm = fmax(anorm, colsum);
    }
    s->hmax = hmax;
    if (cdyn_dense_lu(n, s->H, n, s->ipiv) != CDYN_OK)
        return CDYN_ESINGULAR;
    double rcond = 0.0;
    if (LAPACKE_dgecon_work(LAPACK_COL_MAJOR, '1', n, s->H, n, anorm, &rcond, s->work, s->iwork) !=
        0)
        return CDYN_ESINGULAR;
    return (rcond >= MCP_DENSE_RCOND_MIN) ? CDYN_OK : CDYN_ESINGULAR;
}

static void dense_solve(void *self, double *b)
{
    mcp_dense_lu *s = self;
    cdyn_dense_lu_solve(0, s->n, s->H, s->n, s->ipiv, 1, b, s->n);
}

static double dense_max_abs(void *self)
{
    return ((mcp_dense_lu *)self)->hmax;
}

cdyn_status cdyn_mcp_dense_lu_create(const cdyn_allocator *a, int n, mcp_dense_lu **out,
                                     mcp_linsys *ls)
{
    *out = NULL;
    const size_t nn = cdyn_mem_matrix_len((size_t)n, (size_t)n);
    if (nn == 0 || nn > SIZE_MAX / sizeof(double) - 4 * (size_t)n)
        return CDYN_ENOMEM;
    /* One block: the struct, then the doubles, then the ints (alignment follows from the
       order: the struct and doubles keep 8-byte multiples). */
    const size_t head = (sizeof(mcp_dense_lu) + sizeof(double) - 1) / sizeof(double);
    const size_t ndbl = head + nn + 4 * (size_t)n;
    double *block = cdyn_mem_array(a, ndbl + ((size_t)2 * n * sizeof(int) + 7) / 8, sizeof(double));
    if (block == NULL)
        return CDYN_ENOMEM;
    mcp_dense_lu *s = (mcp_dense_lu *)(void *)block;
    s->n = n;
    s->H = block + head;
    s->work = s->H + nn;
    s->ipiv = (int *)(void *)(s->work + 4 * (size_t)n);
    s->iwork = s->ipiv + n;
    s->hmax = 0.0;
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
