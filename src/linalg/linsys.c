/* The linear-system layer's front: spec validation and dispatch to the backend's table. */
#include "linalg/linsys_internal.h"


#include "core/memory.h"
#include "core/report.h"

cdyn_linsys_spec cdyn_linsys_spec_default(cdyn_linsys_kind kind, int n,
                                          const cdyn_allocator *allocator)
{
    cdyn_linsys_spec s = {kind, n,    NULL, NULL, NULL, 1, -1.0, -1.0, CDYN_LINSYS_KLU_RCOND,
                          NULL, NULL, allocator};
    return s;
}

cdyn_status cdyn_linsys_create(const cdyn_linsys_spec *spec, cdyn_linsys **out,
                               cdyn_report *report)
{
    *out = NULL;
    const int sparse = spec->kind == CDYN_LINSYS_KLU || spec->kind == CDYN_LINSYS_CHOLMOD;
    if (spec->n < 1 || (unsigned)spec->kind > (unsigned)CDYN_LINSYS_CHOLMOD ||
        (sparse && (spec->colptr == NULL || spec->rowind == NULL)))
        return cdyn_fail(report, CDYN_EINVAL, "linear system: bad size, kind or pattern");
    switch (spec->kind) {
    case CDYN_LINSYS_KLU:
        return cdyn_linsys_klu_init(spec, out, report);
    case CDYN_LINSYS_CHOLMOD:
        return cdyn_linsys_cholmod_init(spec, out, report);
    default:
        return cdyn_linsys_dense_init(spec, out, report);
    }
}

double *cdyn_linsys_values(cdyn_linsys *ls)
{
    return ls->ops->values(ls);
}

cdyn_status cdyn_linsys_factor(cdyn_linsys *ls, const double *values, cdyn_report *report)
{
    return ls->ops->factor(ls, values, report);
}

cdyn_status cdyn_linsys_solve(cdyn_linsys *ls, int trans, int nrhs, double *b,
                              cdyn_report *report)
{
    return ls->ops->solve(ls, trans, nrhs, b, report);
}

void cdyn_linsys_forget(cdyn_linsys *ls)
{
    if (ls->ops->forget != NULL)
        ls->ops->forget(ls);
}

double cdyn_linsys_max_abs(const cdyn_linsys *ls)
{
    if (ls->dense_norms != NULL) {
        double anorm = 0.0, amax = 0.0;
        ls->dense_norms(ls->dense_norms_ctx, &anorm, &amax);
        return amax;
    }
    return ls->max_abs;
}

int cdyn_linsys_size(const cdyn_linsys *ls)
{
    return ls->n;
}

cdyn_linsys_kind cdyn_linsys_get_kind(const cdyn_linsys *ls)
{
    return ls->kind;
}

void cdyn_linsys_free(cdyn_linsys *ls)
{
    if (ls == NULL)
        return;
    if (ls->ops->release != NULL)
        ls->ops->release(ls);
    cdyn_mem_free(ls->allocator, ls);
}
