/* Sparse Newton systems H d = b for the MCP solver, on KLU.
 *
 * H = diag(da + mu) + diag(db) J has J's pattern plus the diagonal. The pattern is built and
 * analyzed (BTF + AMD) once per solve; each Newton iteration then refactors with the previous
 * pivot order (klu_refactor, no allocation). When that order has become poor (crude reciprocal
 * condition estimate below MCP_KLU_REFACTOR_RCOND) or hits a zero pivot, the numeric object is
 * rebuilt with a fresh pivot search (klu_factor, which allocates inside KLU).
 * Note: KLU allocates through SuiteSparse's own malloc, not through the cdyn allocator. */
#include <float.h>
#include <klu.h>
#include <math.h>
#include <stdint.h>

#include "core/memory.h"
#include "solvers/mcp/mcp_internal.h"

#define MCP_KLU_REFACTOR_RCOND 1e-8
#define MCP_KLU_SINGULAR_RCOND (64.0 * DBL_EPSILON)

struct mcp_sparse_lu {
    int n;
    int *Hp, *Hi; /* pattern of H, diagonal last in a column when J lacks it */
    double *Hx;
    int *jmap; /* J entry k sits at Hx[jmap[k]] */
    int *dpos; /* H(i, i) sits at Hx[dpos[i]] */
    klu_common common;
    klu_symbolic *sym;
    klu_numeric *num;
    double hmax;
};

static cdyn_status klu_status(const klu_common *c)
{
    return c->status == KLU_OUT_OF_MEMORY ? CDYN_ENOMEM : CDYN_ESINGULAR;
}

static cdyn_status full_factor(mcp_sparse_lu *s)
{
    if (s->num != NULL)
        klu_free_numeric(&s->num, &s->common);
    s->num = klu_factor(s->Hp, s->Hi, s->Hx, s->sym, &s->common);
    if (s->num == NULL || s->common.status != KLU_OK)
        return klu_status(&s->common);
    if (!klu_rcond(s->sym, s->num, &s->common) || !(s->common.rcond >= MCP_KLU_SINGULAR_RCOND))
        return CDYN_ESINGULAR;
    return CDYN_OK;
}

static cdyn_status sparse_factor(void *self, const mcp_jac *J, double jabsmax, const double *da,
                                 const double *db, double mu)
{
    (void)jabsmax;
    mcp_sparse_lu *s = self;
    const int n = s->n;
    for (int p = 0; p < s->Hp[n]; ++p)
        s->Hx[p] = 0.0;
    for (int j = 0; j < n; ++j)
        for (int k = J->colptr[j]; k < J->colptr[j + 1]; ++k)
            s->Hx[s->jmap[k]] = db[J->rowind[k]] * J->values[k];
    for (int i = 0; i < n; ++i)
        s->Hx[s->dpos[i]] += da[i] + mu;
    double hmax = 0.0;
    for (int p = 0; p < s->Hp[n]; ++p)
        hmax = fmax(hmax, fabs(s->Hx[p]));
    s->hmax = hmax;

    if (s->num == NULL)
        return full_factor(s);
    /* Reuse the pivot order; halt_if_singular makes a zero pivot stop the refactorization. */
    if (klu_refactor(s->Hp, s->Hi, s->Hx, s->sym, s->num, &s->common) &&
        s->common.status == KLU_OK && klu_rcond(s->sym, s->num, &s->common) &&
        s->common.rcond >= MCP_KLU_REFACTOR_RCOND)
        return CDYN_OK;
    if (s->common.status == KLU_OUT_OF_MEMORY)
        return CDYN_ENOMEM;
    return full_factor(s);
}

static cdyn_status sparse_solve(void *self, double *b)
{
    mcp_sparse_lu *s = self;
    klu_solve(s->sym, s->num, s->n, 1, b, &s->common);
    return CDYN_OK;
}

static double sparse_max_abs(void *self)
{
    return ((mcp_sparse_lu *)self)->hmax;
}

/* Fill Hp/Hi/jmap/dpos from J's pattern; 0 on success, -1 on a duplicate entry. mark: n ints. */
static int build_pattern(mcp_sparse_lu *s, const int *colptr, const int *rowind, int *mark)
{
    const int n = s->n;
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

cdyn_status cdyn_mcp_sparse_lu_create(const cdyn_allocator *a, int n, const int *colptr,
                                      const int *rowind, const int *order, mcp_sparse_lu **out,
                                      mcp_linsys *ls)
{
    *out = NULL;
    const size_t nnzj = (size_t)colptr[n];
    const size_t cap = nnzj + (size_t)n; /* entries of H at most */
    if (cap > (size_t)INT32_MAX)
        return CDYN_ETOOBIG;
    /* One block: struct, Hx (doubles), then Hp, Hi, jmap, dpos, mark (ints). */
    const size_t head = (sizeof(mcp_sparse_lu) + sizeof(double) - 1) / sizeof(double);
    const size_t nint = (size_t)(n + 1) + cap + nnzj + 2 * (size_t)n;
    double *block = cdyn_mem_array(a, head + cap + (nint * sizeof(int) + 7) / 8, sizeof(double));
    if (block == NULL)
        return CDYN_ENOMEM;
    mcp_sparse_lu *s = (mcp_sparse_lu *)(void *)block;
    s->n = n;
    s->Hx = block + head;
    s->Hp = (int *)(void *)(s->Hx + cap);
    s->Hi = s->Hp + n + 1;
    s->jmap = s->Hi + cap;
    s->dpos = s->jmap + nnzj;
    int *mark = s->dpos + n;
    s->sym = NULL;
    s->num = NULL;
    s->hmax = 0.0;
    if (build_pattern(s, colptr, rowind, mark) != 0) {
        cdyn_mem_free(a, block);
        return CDYN_EINVAL;
    }
    klu_defaults(&s->common);
    s->common.halt_if_singular = 1;
    s->common.ordering = 1; /* COLAMD */
    /* A given order is applied symmetrically (P = Q keeps H's diagonal, which the pattern
       holds, on the diagonal); KLU then only finds the blocks (BTF without the transversal). */
    s->sym = order != NULL ? klu_analyze_given(n, s->Hp, s->Hi, (int *)order, (int *)order,
                                               &s->common)
                           : klu_analyze(n, s->Hp, s->Hi, &s->common);
    if (s->sym == NULL) {
        const cdyn_status st = s->common.status == KLU_OUT_OF_MEMORY ? CDYN_ENOMEM : CDYN_EINVAL;
        cdyn_mem_free(a, block);
        return st;
    }
    ls->self = s;
    ls->factor = sparse_factor;
    ls->solve = sparse_solve;
    ls->max_abs = sparse_max_abs;
    *out = s;
    return CDYN_OK;
}

void cdyn_mcp_sparse_lu_free(const cdyn_allocator *a, mcp_sparse_lu *s)
{
    if (s == NULL)
        return;
    if (s->num != NULL)
        klu_free_numeric(&s->num, &s->common);
    if (s->sym != NULL)
        klu_free_symbolic(&s->sym, &s->common);
    cdyn_mem_free(a, s);
}
