/* KLU backend of the linear-system layer: the pattern is analysed once (BTF + COLAMD, or the
 * caller's order); each factor then refactors with the previous pivot order (klu_refactor, no
 * allocation) and keeps it while klu_rcond >= refactor_rcond. When that order has become poor or
 * meets a zero pivot, the numeric object is rebuilt with a fresh pivot search (klu_factor, which
 * allocates inside KLU), and that factor counts as singular below rcond_min. */
#include <float.h>
#include <klu.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "linalg/linsys_internal.h"

#define KLU_RCOND_MIN (64.0 * DBL_EPSILON)
#define KLU_REFACTOR_RCOND 1e-8

typedef struct klu_be {
    int *Ap, *Ai; /* copy of the pattern (KLU takes non-const arrays) */
    klu_common common;
    klu_symbolic *sym;
    klu_numeric *num;
} klu_be;

static cdyn_status klu_fail(cdyn_report *r, const klu_common *c, const char *what)
{
    if (c->status == KLU_OUT_OF_MEMORY)
        return cdyn_fail(r, CDYN_ENOMEM, "%s: KLU ran out of memory", what);
    return cdyn_fail(r, CDYN_ESINGULAR, "%s: matrix is singular (KLU status %d, rcond %.3g)", what,
                     c->status, c->rcond);
}

static cdyn_status full_factor(cdyn_linsys *ls, double *x, cdyn_report *r)
{
    klu_be *s = ls->be;
    if (s->num != NULL)
        klu_free_numeric(&s->num, &s->common);
    s->num = klu_factor(s->Ap, s->Ai, x, s->sym, &s->common);
    if (s->num == NULL || s->common.status != KLU_OK)
        return klu_fail(r, &s->common, "klu_factor");
    if (!klu_rcond(s->sym, s->num, &s->common) || !(s->common.rcond >= ls->rcond_min))
        return klu_fail(r, &s->common, "klu_factor");
    return CDYN_OK;
}

static cdyn_status klu_factor_values(cdyn_linsys *ls, const double *values, cdyn_report *r)
{
    klu_be *s = ls->be;
    double *x = (double *)values; /* KLU does not write the values; its API is not const */
    double amax = 0.0;
    for (int p = 0; p < s->Ap[ls->n]; ++p)
        amax = fmax(amax, fabs(x[p]));
    ls->max_abs = amax;
    if (s->num == NULL)
        return full_factor(ls, x, r);
    /* Reuse the pivot order; halt_if_singular makes a zero pivot stop the refactorization. */
    if (klu_refactor(s->Ap, s->Ai, x, s->sym, s->num, &s->common) && s->common.status == KLU_OK &&
        klu_rcond(s->sym, s->num, &s->common) && s->common.rcond >= ls->refactor_rcond)
        return CDYN_OK;
    if (s->common.status == KLU_OUT_OF_MEMORY)
        return klu_fail(r, &s->common, "klu_refactor");
    return full_factor(ls, x, r);
}

static cdyn_status klu_solve_rhs(cdyn_linsys *ls, int trans, double *b, cdyn_report *r)
{
    klu_be *s = ls->be;
    const int ok = trans ? klu_tsolve(s->sym, s->num, ls->n, 1, b, &s->common)
                         : klu_solve(s->sym, s->num, ls->n, 1, b, &s->common);
    if (!ok)
        return cdyn_fail(r, CDYN_EINVAL, "klu_solve: no factor (KLU status %d)", s->common.status);
    return CDYN_OK;
}

static double *klu_values(cdyn_linsys *ls)
{
    (void)ls;
    return NULL;
}

static void klu_release(cdyn_linsys *ls)
{
    klu_be *s = ls->be;
    if (s->num != NULL)
        klu_free_numeric(&s->num, &s->common);
    if (s->sym != NULL)
        klu_free_symbolic(&s->sym, &s->common);
    cdyn_mem_free(ls->allocator, s);
}

static const cdyn_linsys_ops klu_ops = {klu_factor_values, klu_solve_rhs, klu_values,
                                        klu_release};

cdyn_status cdyn_linsys_klu_init(cdyn_linsys *ls, const cdyn_linsys_spec *spec, cdyn_report *r)
{
    const int n = spec->n;
    const size_t nnz = (size_t)spec->colptr[n];
    /* One block: the state, then Ap and Ai. */
    const size_t head = (sizeof(klu_be) + sizeof(int) - 1) / sizeof(int);
    int *block = cdyn_mem_array(ls->allocator, head + (size_t)n + 1 + nnz, sizeof(int));
    if (block == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "linear system: out of memory");
    klu_be *s = (klu_be *)(void *)block;
    s->Ap = block + head;
    s->Ai = s->Ap + n + 1;
    memcpy(s->Ap, spec->colptr, sizeof(int) * ((size_t)n + 1));
    if (nnz > 0)
        memcpy(s->Ai, spec->rowind, sizeof(int) * nnz);
    s->num = NULL;
    klu_defaults(&s->common);
    s->common.halt_if_singular = 1;
    s->common.ordering = 1; /* COLAMD */
    /* A given order is applied symmetrically (P = Q keeps a diagonal on the diagonal); KLU then
       only finds the blocks (BTF without the transversal). */
    s->sym = spec->order != NULL ? klu_analyze_given(n, s->Ap, s->Ai, (int *)spec->order,
                                                     (int *)spec->order, &s->common)
                                 : klu_analyze(n, s->Ap, s->Ai, &s->common);
    if (s->sym == NULL) {
        const int oom = s->common.status == KLU_OUT_OF_MEMORY;
        cdyn_mem_free(ls->allocator, block);
        return oom ? cdyn_fail(r, CDYN_ENOMEM, "klu_analyze: KLU ran out of memory")
                   : cdyn_fail(r, CDYN_EINVAL, "klu_analyze: KLU rejected the pattern or order");
    }
    ls->be = s;
    ls->ops = &klu_ops;
    if (ls->rcond_min < 0.0 || isnan(ls->rcond_min))
        ls->rcond_min = KLU_RCOND_MIN;
    if (ls->refactor_rcond < 0.0 || isnan(ls->refactor_rcond))
        ls->refactor_rcond = KLU_REFACTOR_RCOND;
    return CDYN_OK;
}
