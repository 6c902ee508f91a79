/* CHOLMOD backend of the linear-system layer, on the Cholesky wrapper sparse_chol.h (its thread
 * budget, its memory notes and its (min/max diag L)^2 rcond test with rcond_min). */
#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "linalg/linsys_internal.h"
#include "linalg/sparse_chol.h"

typedef struct cholmod_be {
    cdyn_sparse_chol *chol;
    int *Ap, *Ai; /* copy of the pattern, the view given to every factor */
} cholmod_be;

static cdyn_status cholmod_factor_values(cdyn_linsys *ls, const double *values, cdyn_report *r)
{
    cholmod_be *s = ls->be;
    const cdyn_csc A = {ls->n, ls->n, s->Ap, s->Ai, values};
    return cdyn_sparse_chol_factor(s->chol, &A, r);
}

static cdyn_status cholmod_solve_rhs(cdyn_linsys *ls, int trans, int nrhs, double *b,
                                     cdyn_report *r)
{
    (void)trans;
    return cdyn_sparse_chol_solve(((cholmod_be *)ls->be)->chol, nrhs, b, b, r);
}

static double *cholmod_values(cdyn_linsys *ls)
{
    (void)ls;
    return NULL;
}

static void cholmod_release(cdyn_linsys *ls)
{
    cholmod_be *s = ls->be;
    cdyn_sparse_chol_free(s->chol);
}

static const cdyn_linsys_ops cholmod_ops = {cholmod_factor_values, cholmod_solve_rhs, NULL,
                                            cholmod_values, cholmod_release};

cdyn_status cdyn_linsys_cholmod_init(const cdyn_linsys_spec *spec, cdyn_linsys **out,
                                     cdyn_report *r)
{
    const int n = spec->n;
    const size_t nnz = (size_t)spec->colptr[n];
    const size_t head = (sizeof(cholmod_be) + sizeof(int) - 1) / sizeof(int);
    cdyn_linsys *ls = cdyn_linsys_block(spec, (head + (size_t)n + 1 + nnz) * sizeof(int));
    if (ls == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "linear system: out of memory");
    int *block = ls->be;
    cholmod_be *s = (cholmod_be *)(void *)block;
    s->Ap = block + head;
    s->Ai = s->Ap + n + 1;
    memcpy(s->Ap, spec->colptr, sizeof(int) * ((size_t)n + 1));
    if (nnz > 0)
        memcpy(s->Ai, spec->rowind, sizeof(int) * nnz);
    const cdyn_csc A = {n, n, s->Ap, s->Ai, NULL};
    const cdyn_status st =
        cdyn_sparse_chol_create_threads(&A, ls->allocator, spec->threads, &s->chol, r);
    if (st != CDYN_OK) {
        cdyn_mem_free(spec->allocator, ls);
        return st;
    }
    if (ls->rcond_min >= 0.0)
        cdyn_sparse_chol_set_rcond_min(s->chol, ls->rcond_min);
    ls->ops = &cholmod_ops;
    *out = ls;
    return CDYN_OK;
}
