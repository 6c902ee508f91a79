/* The MCP's Newton systems H d = b, H = diag(da + mu) + diag(db) J, on the linear-system layer
 * (src/linalg/linsys.h): dense LU for a dense J, KLU for a sparse one. Only the forming of H is
 * the MCP's: densely in the layer's own buffer, sparsely in J's pattern plus the diagonal,
 * built once here and analysed once by the layer.
 *
 * Dense: no scan of H. |H_ij| <= max|db| max|J_ij| + max|da| + mu and rounding is monotone, so
 * a finite bound proves H finite in O(n) (otherwise H is scanned), and the layer asks for ||H||_1
 * and max|H_ij| (dense_norms below) only on its rare paths, recomputed from J, da, db. */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "core/memory.h"
#include "linalg/dense.h"
#include "solvers/mcp/mcp_internal.h"

/* Fill Hp/Hi/jmap/dpos from J's pattern; 0 on success, -1 on a duplicate entry. mark: n ints. */
static int build_pattern(mcp_linsys *s, int n, const int *colptr, const int *rowind, int *mark)
{
    for (int i = 0; i < n; ++i)
        mark[i] = -1;
    int p = 0;
    s->Hp[0] = 0;
    for (int j = 0; j < n; ++j) {
        s->dpos[j] = -1;
        for (int k = colptr[j]; k < colptr[j + 1]; ++k) {
            const int i = rowind[k];
            if (mark[i] == j)
                return -1;
            mark[i] = j;
            if (i == j)
                s->dpos[j] = p;
            s->jmap[k] = p;
            s->Hi[p++] = i;
        }
        if (s->dpos[j] < 0) {
            s->dpos[j] = p;
            s->Hi[p++] = j;
        }
        s->Hp[j + 1] = p;
    }
    return 0;
}

/* The sparse pattern of H and its maps: one block of Hx (doubles), then Hp, Hi, jmap, dpos and
   the mark scratch (ints). */
static cdyn_status sparse_pattern(mcp_linsys *s, const cdyn_allocator *a, int n, const int *colptr,
                                  const int *rowind)
{
    const size_t nnzj = (size_t)colptr[n];
    const size_t cap = nnzj + (size_t)n; /* entries of H at most */
    if (cap > (size_t)INT32_MAX)
        return CDYN_ETOOBIG;
    const size_t nint = (size_t)(n + 1) + cap + nnzj + 2 * (size_t)n;
    s->Hx = cdyn_mem_array(a, cap + (nint * sizeof(int) + 7) / 8, sizeof(double));
    if (s->Hx == NULL)
        return CDYN_ENOMEM;
    s->Hp = (int *)(void *)(s->Hx + cap);
    s->Hi = s->Hp + n + 1;
    s->jmap = s->Hi + cap;
    s->dpos = s->jmap + nnzj;
    return build_pattern(s, n, colptr, rowind, s->dpos + n) == 0 ? CDYN_OK : CDYN_EINVAL;
}

/* ||H||_1 and max|H_ij| (NaN skipped) of the last formed dense H, from its inputs: entry (i, j)
   is computed exactly as cdyn_mcp_linsys_factor forms it. */
static void dense_norms(void *ctx, double *anorm1, double *amax)
{
    const mcp_linsys *s = ctx;
    const int n = s->J->n;
    double anorm = 0.0, hmax = 0.0;
    for (int j = 0; j < n; ++j) {
        const double *jc = s->J->values + (size_t)j * n;
        double colsum = 0.0;
        for (int i = 0; i < n; ++i) {
            const double h = s->db[i] * jc[i];
            const double v = fabs(i == j ? h + (s->da[i] + s->mu) : h);
            colsum += v;
            hmax = v > hmax ? v : hmax;
        }
        if (colsum > anorm)
            anorm = colsum;
    }
    *anorm1 = anorm;
    *amax = hmax;
}

cdyn_status cdyn_mcp_linsys_create(const cdyn_allocator *a, int n, const int *colptr,
                                   const int *rowind, const int *order, mcp_linsys *s)
{
    *s = (mcp_linsys){0};
    cdyn_linsys_spec spec =
        cdyn_linsys_spec_default(colptr != NULL ? CDYN_LINSYS_KLU : CDYN_LINSYS_DENSE_LU, n, a);
    if (colptr != NULL) {
        const cdyn_status st = sparse_pattern(s, a, n, colptr, rowind);
        if (st != CDYN_OK) {
            cdyn_mcp_linsys_free(a, s);
            return st;
        }
        spec.colptr = s->Hp;
        spec.rowind = s->Hi;
        spec.order = order;
    } else {
        spec.dense_norms = dense_norms;
        spec.dense_norms_ctx = s;
    }
    const cdyn_status st = cdyn_linsys_create(&spec, &s->sys, NULL);
    if (st != CDYN_OK)
        cdyn_mcp_linsys_free(a, s);
    return st;
}

cdyn_status cdyn_mcp_linsys_factor(mcp_linsys *s, const mcp_jac *J, double jabsmax,
                                   const double *da, const double *db, double mu)
{
    const int n = J->n;
    if (s->Hx == NULL) {
        s->J = J;
        s->da = da;
        s->db = db;
        s->mu = mu;
        double *H = cdyn_linsys_values(s->sys);
        for (int j = 0; j < n; ++j) {
            const double *jc = J->values + (size_t)j * n;
            double *hc = H + (size_t)j * n;
            for (int i = 0; i < n; ++i)
                hc[i] = db[i] * jc[i];
            hc[j] += da[j] + mu;
        }
        /* OpenBLAS's getrf reports success on NaN input: H must be proven finite here. */
        const double bound =
            cdyn_dense_norm_inf(n, db) * jabsmax + (cdyn_dense_norm_inf(n, da) + mu);
        if (!(bound <= DBL_MAX) && isnan(cdyn_mcp_finite_max_abs((size_t)n * (size_t)n, H)))
            return CDYN_ESINGULAR;
        return cdyn_linsys_factor(s->sys, H, NULL);
    }
    for (int p = 0; p < s->Hp[n]; ++p)
        s->Hx[p] = 0.0;
    for (int j = 0; j < n; ++j)
        for (int k = J->colptr[j]; k < J->colptr[j + 1]; ++k)
            s->Hx[s->jmap[k]] = db[J->rowind[k]] * J->values[k];
    for (int i = 0; i < n; ++i)
        s->Hx[s->dpos[i]] += da[i] + mu;
    return cdyn_linsys_factor(s->sys, s->Hx, NULL);
}

cdyn_status cdyn_mcp_linsys_solve(mcp_linsys *s, double *b)
{
    return cdyn_linsys_solve(s->sys, 0, 1, b, NULL);
}

double cdyn_mcp_linsys_max_abs(const mcp_linsys *s)
{
    return cdyn_linsys_max_abs(s->sys);
}

void cdyn_mcp_linsys_free(const cdyn_allocator *a, mcp_linsys *s)
{
    cdyn_linsys_free(s->sys);
    cdyn_mem_free(a, s->Hx);
    *s = (mcp_linsys){0};
}
