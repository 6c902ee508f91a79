/* KLU backend of the linear-system layer: the pattern is analysed once (BTF + COLAMD or AMD, or
 * the caller's order); each factor then refactors with the previous pivot order (klu_refactor,
 * no allocation) while the spec's check accepts it, and otherwise rebuilds the numeric object
 * with a fresh pivot search (klu_factor, which allocates inside KLU). The two checks (linsys.h):
 * RCOND, the MCP's (klu_rcond against refactor_rcond; cheap, no values scan), and GROWTH (finite
 * values, klu_rgrowth against the last full factor's and klu_rcond against rcond_min), which
 * the fc3d Newton methods and the BVP use. */
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
/* GROWTH: refactor keeps the old pivots unless its reciprocal pivot growth drops below this
   fraction of the growth seen with freshly chosen pivots. */
#define KLU_REGROWTH_FRACTION 1e-3

typedef struct klu_be {
    int *Ap, *Ai; /* copy of the pattern (KLU takes non-const arrays) */
    int check;    /* CDYN_LINSYS_KLU_RCOND or _GROWTH */
    klu_common common;
    klu_symbolic *sym;
    klu_numeric *num;
    double rgrowth_pivoted; /* GROWTH: reciprocal pivot growth of the last full factor */
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

/* ---- GROWTH ---- */

/* Drop the factor after a failure: solve refuses until a factor succeeds. */
static cdyn_status drop(klu_be *s, cdyn_status st)
{
    klu_free_numeric(&s->num, &s->common);
    return st;
}

static cdyn_status growth_full(cdyn_linsys *ls, double *x, cdyn_report *r)
{
    klu_be *s = ls->be;
    klu_common *c = &s->common;
    klu_free_numeric(&s->num, c);
    s->num = klu_factor(s->Ap, s->Ai, x, s->sym, c);
    if (s->num == NULL || c->status != KLU_OK)
        return drop(s, klu_fail(r, c, "klu_factor"));
    if (!klu_rgrowth(s->Ap, s->Ai, x, s->sym, s->num, c) || !klu_rcond(s->sym, s->num, c))
        return drop(s, klu_fail(r, c, "klu_rgrowth"));
    s->rgrowth_pivoted = c->rgrowth;
    /* A pivot ratio below eps means no correct digit in a solution. */
    if (!(c->rcond >= ls->rcond_min))
        return drop(s, cdyn_fail(r, CDYN_ESINGULAR,
                                 "klu_factor: numerically singular (pivot ratio %.3g)", c->rcond));
    return CDYN_OK;
}

static cdyn_status growth_factor(cdyn_linsys *ls, double *x, cdyn_report *r)
{
    klu_be *s = ls->be;
    klu_common *c = &s->common;
    for (int p = 0; p < s->Ap[ls->n]; ++p)
        if (!isfinite(x[p]))
            return cdyn_fail(r, CDYN_EINVAL, "klu: value %d is not finite", p);
    if (s->num == NULL)
        return growth_full(ls, x, r);
    int ok = klu_refactor(s->Ap, s->Ai, x, s->sym, s->num, c);
    if (ok && c->status == KLU_OK)
        ok = klu_rgrowth(s->Ap, s->Ai, x, s->sym, s->num, c);
    if (!ok || c->status != KLU_OK) {
        if (c->status != KLU_SINGULAR)
            return drop(s, klu_fail(r, c, "klu_refactor"));
        return growth_full(ls, x, r); /* a zero pivot: choose new pivots */
    }
    if (!(c->rgrowth >= KLU_REGROWTH_FRACTION * s->rgrowth_pivoted))
        return growth_full(ls, x, r); /* the old pivots became unstable */
    if (!klu_rcond(s->sym, s->num, c))
        return drop(s, klu_fail(r, c, "klu_rcond"));
    if (!(c->rcond >= ls->rcond_min))
        return growth_full(ls, x, r); /* maybe only the reused pivots are to blame */
    return CDYN_OK;
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
    if (s->num == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "klu solve: no valid factorization");
    const int ok = trans ? klu_tsolve(s->sym, s->num, ls->n, nrhs, b, &s->common)
                         : klu_solve(s->sym, s->num, ls->n, nrhs, b, &s->common);
    return ok ? CDYN_OK : klu_fail(r, &s->common, "klu_solve");
}

static void klu_forget(cdyn_linsys *ls)
{
    klu_be *s = ls->be;
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
    klu_free_numeric(&s->num, &s->common);
    klu_free_symbolic(&s->sym, &s->common);
    cdyn_mem_free(ls->allocator, s);
}

static const cdyn_linsys_ops klu_ops = {klu_factor_values, klu_solve_rhs, klu_forget, klu_values,
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
    s->check = spec->klu_check;
    s->num = NULL;
    s->rgrowth_pivoted = 0.0;
    klu_defaults(&s->common); /* max row scaling, halt on a zero pivot */
    s->common.ordering = spec->klu_colamd ? 1 : 0;
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
    const int growth = s->check == CDYN_LINSYS_KLU_GROWTH;
    if (ls->rcond_min < 0.0 || isnan(ls->rcond_min))
        ls->rcond_min = growth ? DBL_EPSILON : KLU_RCOND_MIN;
    if (ls->refactor_rcond < 0.0 || isnan(ls->refactor_rcond))
        ls->refactor_rcond = KLU_REFACTOR_RCOND;
    return CDYN_OK;
}
