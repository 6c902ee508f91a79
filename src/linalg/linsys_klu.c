/* KLU backend of the linear-system layer: the pattern is analysed once; each factor then
 * refactors with the previous pivot order (klu_refactor, no allocation) while the spec's check
 * accepts it, and otherwise rebuilds the numeric object with a fresh pivot search (klu_factor,
 * which allocates inside KLU). The two checks (linsys.h): RCOND, the MCP's, here (klu_rcond
 * against refactor_rcond; cheap, no values scan; BTF + COLAMD or the caller's order), and
 * GROWTH, sparse_lu.c's refactor (finite values, klu_rgrowth against the last full factor's,
 * klu_rcond against eps; BTF + AMD), which the fc3d Newton methods and the BVP use. */
#include <float.h>
#include <klu.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "linalg/linsys_internal.h"
#include "linalg/sparse_lu.h"

#define KLU_RCOND_MIN (64.0 * DBL_EPSILON)
#define KLU_REFACTOR_RCOND 1e-8

typedef struct klu_be {
    int *Ap, *Ai; /* copy of the pattern (KLU takes non-const arrays) */
    int check;    /* CDYN_LINSYS_KLU_RCOND or _GROWTH */
    /* RCOND: KLU's objects here */
    klu_common common;
    klu_symbolic *sym;
    klu_numeric *num;
    /* GROWTH: the handle of sparse_lu.c */
    cdyn_sparse_lu *lu;
} klu_be;

static cdyn_status klu_fail(cdyn_report *r, const klu_common *c, const char *what)
{
    switch (c->status) {
    case KLU_OUT_OF_MEMORY:
        return cdyn_fail(r, CDYN_ENOMEM, "%s: KLU ran out of memory", what);
    case KLU_TOO_LARGE:
        return cdyn_fail(r, CDYN_ETOOBIG, "%s: KLU integer overflow (matrix too large)", what);
    case KLU_INVALID:
        return cdyn_fail(r, CDYN_EINVAL, "%s: KLU rejected the input", what);
    default:
        return cdyn_fail(r, CDYN_ESINGULAR, "%s: singular (KLU status %d, rcond %.3g)", what,
                         c->status, c->rcond);
    }
}

/* ---- RCOND ---- */

static cdyn_status rcond_full(cdyn_linsys *ls, double *x, cdyn_report *r)
{
    klu_be *s = ls->be;
    if (s->num != NULL)
        klu_free_numeric(&s->num, &s->common);
    s->num = klu_factor(s->Ap, s->Ai, x, s->sym, &s->common);
    if (s->num == NULL || s->common.status != KLU_OK)
        return klu_fail(r, &s->common, "klu_factor");
    if (!klu_rcond(s->sym, s->num, &s->common) || !(s->common.rcond >= ls->rcond_min))
        return cdyn_fail(r, CDYN_ESINGULAR, "klu_factor: numerically singular (rcond %.3g)",
                         s->common.rcond);
    return CDYN_OK;
}

static cdyn_status rcond_factor(cdyn_linsys *ls, double *x, cdyn_report *r)
{
    klu_be *s = ls->be;
    if (s->num == NULL)
        return rcond_full(ls, x, r);
    /* Reuse the pivot order; halt_if_singular makes a zero pivot stop the refactorization. */
    if (klu_refactor(s->Ap, s->Ai, x, s->sym, s->num, &s->common) && s->common.status == KLU_OK &&
        klu_rcond(s->sym, s->num, &s->common) && s->common.rcond >= ls->refactor_rcond)
        return CDYN_OK;
    if (s->common.status == KLU_OUT_OF_MEMORY)
        return klu_fail(r, &s->common, "klu_refactor");
    return rcond_full(ls, x, r);
}

/* ---- GROWTH: sparse_lu.c's refactor ---- */

static cdyn_status growth_factor(cdyn_linsys *ls, double *x, cdyn_report *r)
{
    klu_be *s = ls->be;
    const cdyn_csc A = {ls->n, ls->n, s->Ap, s->Ai, x};
    return cdyn_sparse_lu_refactor(s->lu, &A, r);
}

static cdyn_status klu_factor_values(cdyn_linsys *ls, const double *values, cdyn_report *r)
{
    klu_be *s = ls->be;
    static const double no_entries[1] = {0.0}; /* a pattern without entries may pass NULL */
    double *x = (double *)(values != NULL ? values : no_entries); /* KLU reads only */
    double amax = 0.0;
    for (int p = 0; p < s->Ap[ls->n]; ++p)
        amax = fmax(amax, fabs(x[p]));
    ls->max_abs = amax;
    return s->check == CDYN_LINSYS_KLU_GROWTH ? growth_factor(ls, x, r) : rcond_factor(ls, x, r);
}

static cdyn_status klu_solve_rhs(cdyn_linsys *ls, int trans, int nrhs, double *b, cdyn_report *r)
{
    klu_be *s = ls->be;
    if (s->lu != NULL)
        return cdyn_sparse_lu_solve(s->lu, trans, nrhs, b, b, r);
    if (s->num == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "klu solve: no valid factorization");
    const int ok = trans ? klu_tsolve(s->sym, s->num, ls->n, nrhs, b, &s->common)
                         : klu_solve(s->sym, s->num, ls->n, nrhs, b, &s->common);
    return ok ? CDYN_OK : klu_fail(r, &s->common, "klu_solve");
}

static void klu_forget(cdyn_linsys *ls)
{
    klu_be *s = ls->be;
    cdyn_sparse_lu_forget(s->lu);
    if (s->num != NULL)
        klu_free_numeric(&s->num, &s->common);
}

static double *klu_values(cdyn_linsys *ls)
{
    (void)ls;
    return NULL;
}

static void klu_release(cdyn_linsys *ls)
{
    klu_be *s = ls->be;
    cdyn_sparse_lu_free(s->lu);
    if (s->num != NULL)
        klu_free_numeric(&s->num, &s->common);
    if (s->sym != NULL)
        klu_free_symbolic(&s->sym, &s->common);
}

static const cdyn_linsys_ops klu_ops = {klu_factor_values, klu_solve_rhs, klu_forget, klu_values,
                                        klu_release};

cdyn_status cdyn_linsys_klu_init(const cdyn_linsys_spec *spec, cdyn_linsys **out,
                                 cdyn_report *r)
{
    const int n = spec->n;
    const size_t nnz = (size_t)spec->colptr[n];
    /* After the object: the state, then Ap and Ai. */
    const size_t head = (sizeof(klu_be) + sizeof(int) - 1) / sizeof(int);
    cdyn_linsys *ls = cdyn_linsys_block(spec, (head + (size_t)n + 1 + nnz) * sizeof(int));
    if (ls == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "linear system: out of memory");
    int *block = ls->be;
    klu_be *s = (klu_be *)(void *)block;
    s->Ap = block + head;
    s->Ai = s->Ap + n + 1;
    memcpy(s->Ap, spec->colptr, sizeof(int) * ((size_t)n + 1));
    if (nnz > 0)
        memcpy(s->Ai, spec->rowind, sizeof(int) * nnz);
    s->check = spec->klu_check;
    s->num = NULL;
    s->sym = NULL;
    s->lu = NULL;
    if (s->check == CDYN_LINSYS_KLU_GROWTH) {
        const cdyn_csc A = {n, n, s->Ap, s->Ai, NULL};
        const cdyn_status st = cdyn_sparse_lu_create(&A, ls->allocator, &s->lu, r);
        if (st != CDYN_OK) {
            cdyn_mem_free(spec->allocator, ls);
            return st;
        }
    } else {
        klu_defaults(&s->common); /* max row scaling, halt on a zero pivot */
        s->common.ordering = 1;   /* COLAMD */
        /* A given order is applied symmetrically (P = Q keeps a diagonal on the diagonal); KLU
           then only finds the blocks (BTF without the transversal). */
        s->sym = spec->order != NULL ? klu_analyze_given(n, s->Ap, s->Ai, (int *)spec->order,
                                                         (int *)spec->order, &s->common)
                                     : klu_analyze(n, s->Ap, s->Ai, &s->common);
        if (s->sym == NULL) {
            const int oom = s->common.status == KLU_OUT_OF_MEMORY;
            cdyn_mem_free(spec->allocator, ls);
            return oom ? cdyn_fail(r, CDYN_ENOMEM, "klu_analyze: KLU ran out of memory")
                       : cdyn_fail(r, CDYN_EINVAL, "klu_analyze: KLU rejected the pattern or "
                                                   "order");
        }
    }
    ls->ops = &klu_ops;
    *out = ls;
    if (ls->rcond_min < 0.0 || isnan(ls->rcond_min))
        ls->rcond_min = KLU_RCOND_MIN;
    if (ls->refactor_rcond < 0.0 || isnan(ls->refactor_rcond))
        ls->refactor_rcond = KLU_REFACTOR_RCOND;
    return CDYN_OK;
}
