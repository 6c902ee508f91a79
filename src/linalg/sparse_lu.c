/* Sparse LU on KLU: analyze once, factor with pivoting, refactor with the same pivots while they
 * stay stable, solve and transposed solve. */
#include "linalg/sparse_lu.h"

#include <float.h>
#include <klu.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "linalg/csc.h"

/* Refactor keeps the old pivots unless its reciprocal pivot growth drops below this fraction of
 * the growth seen with freshly chosen pivots. */
#define CDYN_KLU_REGROWTH_FRACTION 1e-3

struct cdyn_sparse_lu {
    const cdyn_allocator *allocator;
    int n;
    int *colptr, *rowind; /* copy of the analyzed pattern (KLU takes non-const arrays) */
    klu_common common;    /* per handle: no state shared between handles */
    klu_symbolic *symbolic;
    klu_numeric *numeric; /* NULL when there is no valid factor */
    double rcond;
    double rgrowth_pivoted; /* reciprocal pivot growth of the last full factorization */
    int singular_column;
};

static cdyn_status from_klu(const klu_common *c, cdyn_report *report, const char *what)
{
    switch (c->status) {
    case KLU_OUT_OF_MEMORY:
        return cdyn_fail(report, CDYN_ENOMEM, "%s: KLU ran out of memory", what);
    case KLU_TOO_LARGE:
        return cdyn_fail(report, CDYN_ETOOBIG, "%s: KLU integer overflow (matrix too large)",
                         what);
    case KLU_INVALID:
        return cdyn_fail(report, CDYN_EINVAL, "%s: KLU rejected the input", what);
    default:
        return cdyn_fail(report, CDYN_ENUMERIC, "%s: KLU failed with status %d", what,
                         c->status);
    }
}

void cdyn_sparse_lu_free(cdyn_sparse_lu *lu)
{
    if (lu == NULL)
        return;
    klu_free_numeric(&lu->numeric, &lu->common);
    klu_free_symbolic(&lu->symbolic, &lu->common);
    cdyn_mem_free(lu->allocator, lu->colptr);
    cdyn_mem_free(lu->allocator, lu->rowind);
    cdyn_mem_free(lu->allocator, lu);
}

cdyn_status cdyn_sparse_lu_create(const cdyn_csc *A, const cdyn_allocator *allocator,
                                  cdyn_sparse_lu **out, cdyn_report *report)
{
    cdyn_report_clear(report, "klu");
    if (out == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "klu: output handle pointer is NULL");
    *out = NULL;
    cdyn_status st = cdyn_csc_check_pattern(A, 0, report);
    if (st != CDYN_OK)
        return st;
    if (A->nrows != A->ncols || A->nrows < 1)
        return cdyn_fail(report, CDYN_EINVAL, "klu: matrix is %d x %d, must be square, n >= 1",
                         A->nrows, A->ncols);
    const int n = A->ncols, nnz = A->colptr[n];

    cdyn_sparse_lu *lu = cdyn_mem_alloc(allocator, sizeof *lu);
    if (lu == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "klu: out of memory for the handle");
    memset(lu, 0, sizeof *lu);
    lu->allocator = allocator;
    lu->n = n;
    lu->rcond = NAN;
    lu->singular_column = -1;
    klu_defaults(&lu->common); /* BTF + AMD, max row scaling, halt on a zero pivot */

    lu->colptr = cdyn_mem_array(allocator, (size_t)n + 1, sizeof(int));
    lu->rowind = cdyn_mem_array(allocator, (size_t)nnz, sizeof(int));
    if (lu->colptr == NULL || lu->rowind == NULL) {
        cdyn_sparse_lu_free(lu);
        return cdyn_fail(report, CDYN_ENOMEM, "klu: out of memory for the pattern copy");
    }
    memcpy(lu->colptr, A->colptr, sizeof(int) * ((size_t)n + 1));
    if (nnz > 0)
        memcpy(lu->rowind, A->rowind, sizeof(int) * (size_t)nnz);

    lu->symbolic = klu_analyze(n, lu->colptr, lu->rowind, &lu->common);
    if (lu->symbolic == NULL) {
        st = from_klu(&lu->common, report, "klu_analyze");
        cdyn_sparse_lu_free(lu);
        return st;
    }
    *out = lu;
    return CDYN_OK;
}

/* Stand-in for values == NULL, which a valid matrix may have when it has no entries. */
static const double no_entries[1] = {0.0};

/* Shared checks of factor/refactor; on success the old factor's validity is cleared. */
static cdyn_status check_values(cdyn_sparse_lu *lu, const cdyn_csc *A, cdyn_report *report)
{
    if (lu == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "klu: handle is NULL");
    cdyn_status st = cdyn_csc_check_pattern(A, 1, report);
    if (st != CDYN_OK)
        return st;
    if (!cdyn_csc_has_pattern(A, lu->n, lu->n, lu->colptr, lu->rowind))
        return cdyn_fail(report, CDYN_EINVAL,
                         "klu: the pattern differs from the one given at create");
    lu->rcond = NAN;
    lu->singular_column = -1;
    return CDYN_OK;
}

static cdyn_status singular(cdyn_sparse_lu *lu, cdyn_report *report)
{
    lu->singular_column = lu->common.singular_col;
    klu_free_numeric(&lu->numeric, &lu->common);
    return cdyn_fail(report, CDYN_ESINGULAR, "klu: matrix is singular (zero pivot in column %d)",
                     lu->singular_column);
}

/* rcond of a fresh factor; numerically singular factors are dropped. */
static cdyn_status finish(cdyn_sparse_lu *lu, cdyn_report *report)
{
    if (!klu_rcond(lu->symbolic, lu->numeric, &lu->common)) {
        klu_free_numeric(&lu->numeric, &lu->common);
        return from_klu(&lu->common, report, "klu_rcond");
    }
    /* A pivot ratio below eps means no correct digit in a solution. */
    if (!(lu->common.rcond >= DBL_EPSILON)) {
        double rc = lu->common.rcond;
        klu_free_numeric(&lu->numeric, &lu->common);
        return cdyn_fail(report, CDYN_ESINGULAR,
                         "klu: matrix is numerically singular (pivot ratio %.3g < eps)", rc);
    }
    lu->rcond = lu->common.rcond;
    return CDYN_OK;
}

static cdyn_status full_factor(cdyn_sparse_lu *lu, double *values, cdyn_report *report)
{
    cdyn_report_method(report, "klu_factor");
    klu_common *c = &lu->common;
    klu_free_numeric(&lu->numeric, c);
    lu->numeric = klu_factor(lu->colptr, lu->rowind, values, lu->symbolic, c);
    if (lu->numeric == NULL || c->status == KLU_SINGULAR)
        return c->status == KLU_SINGULAR ? singular(lu, report)
                                         : from_klu(c, report, "klu_factor");
    if (!klu_rgrowth(lu->colptr, lu->rowind, values, lu->symbolic, lu->numeric, c)) {
        klu_free_numeric(&lu->numeric, c);
        return from_klu(c, report, "klu_rgrowth");
    }
    lu->rgrowth_pivoted = c->rgrowth;
    return finish(lu, report);
}

cdyn_status cdyn_sparse_lu_factor(cdyn_sparse_lu *lu, const cdyn_csc *A, cdyn_report *report)
{
    cdyn_report_clear(report, "klu_factor");
    cdyn_status st = check_values(lu, A, report);
    if (st != CDYN_OK)
        return st;
    /* KLU does not write its input values; its prototypes are just not const. */
    return full_factor(lu, (double *)(A->values != NULL ? A->values : no_entries), report);
}

cdyn_status cdyn_sparse_lu_refactor(cdyn_sparse_lu *lu, const cdyn_csc *A, cdyn_report *report)
{
    cdyn_report_clear(report, "klu_refactor");
    cdyn_status st = check_values(lu, A, report);
    if (st != CDYN_OK)
        return st;
    double *values = (double *)(A->values != NULL ? A->values : no_entries); /* read only */
    if (lu->numeric == NULL)
        return full_factor(lu, values, report);
    klu_common *c = &lu->common;
    int ok = klu_refactor(lu->colptr, lu->rowind, values, lu->symbolic, lu->numeric, c);
    if (ok && c->status == KLU_OK)
        ok = klu_rgrowth(lu->colptr, lu->rowind, values, lu->symbolic, lu->numeric, c);
    if (!ok || c->status != KLU_OK) {
        if (c->status != KLU_SINGULAR) {
            klu_free_numeric(&lu->numeric, c);
            return from_klu(c, report, "klu_refactor");
        }
        return full_factor(lu, values, report); /* a zero pivot: choose new pivots */
    }
    if (!(c->rgrowth >= CDYN_KLU_REGROWTH_FRACTION * lu->rgrowth_pivoted))
        return full_factor(lu, values, report); /* the old pivots became unstable */
    if (!klu_rcond(lu->symbolic, lu->numeric, c)) {
        klu_free_numeric(&lu->numeric, c);
        return from_klu(c, report, "klu_rcond");
    }
    if (!(c->rcond >= DBL_EPSILON))
        return full_factor(lu, values, report); /* maybe only the reused pivots are to blame */
    lu->rcond = c->rcond;
    return CDYN_OK;
}

cdyn_status cdyn_sparse_lu_solve(cdyn_sparse_lu *lu, int trans, int nrhs, const double *B,
                                 double *X, cdyn_report *report)
{
    cdyn_report_clear(report, "klu");
    if (lu == NULL || B == NULL || X == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "klu solve: NULL argument");
    if (lu->numeric == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "klu solve: no valid factorization");
    if (nrhs < 1)
        return cdyn_fail(report, CDYN_EINVAL, "klu solve: nrhs = %d, must be >= 1", nrhs);
    const size_t n = (size_t)lu->n;
    if ((size_t)nrhs > SIZE_MAX / sizeof(double) / n)
        return cdyn_fail(report, CDYN_ETOOBIG, "klu solve: too many right-hand sides");
    const size_t len = n * (size_t)nrhs;
    for (size_t k = 0; k < len; ++k)
        if (!isfinite(B[k]))
            return cdyn_fail(report, CDYN_EINVAL, "klu solve: B[%zu] is not finite", k);
    /* KLU solves in place. Its only failure modes are invalid arguments, all excluded above, so
       X cannot be left half-written. */
    if (X != B)
        memcpy(X, B, sizeof(double) * len);
    int ok = trans ? klu_tsolve(lu->symbolic, lu->numeric, lu->n, nrhs, X, &lu->common)
                   : klu_solve(lu->symbolic, lu->numeric, lu->n, nrhs, X, &lu->common);
    if (!ok)
        return from_klu(&lu->common, report, trans ? "klu_tsolve" : "klu_solve");
    return CDYN_OK;
}

void cdyn_sparse_lu_forget(cdyn_sparse_lu *lu)
{
    if (lu == NULL)
        return;
    klu_free_numeric(&lu->numeric, &lu->common);
    lu->rcond = NAN;
    lu->singular_column = -1;
}

int cdyn_sparse_lu_size(const cdyn_sparse_lu *lu)
{
    return lu != NULL ? lu->n : 0;
}

double cdyn_sparse_lu_rcond(const cdyn_sparse_lu *lu)
{
    return lu != NULL && lu->numeric != NULL ? lu->rcond : NAN;
}

int cdyn_sparse_lu_singular_column(const cdyn_sparse_lu *lu)
{
    return lu != NULL ? lu->singular_column : -1;
}
