/* Sparse Cholesky on CHOLMOD: analyze once, factor per value change, solve with reused
 * workspace. CHOLMOD is driven through its int interface; the caller's arrays are wrapped in
 * CHOLMOD headers without copying values. */
#include "linalg/sparse_chol.h"

#include <cholmod.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "linalg/csc.h"
#include "linalg/omp_cap.h"

struct cdyn_sparse_chol {
    const cdyn_allocator *allocator;
    int n;
    int *colptr, *rowind;     /* copy of the analyzed pattern (n + 1 and nnz entries) */
    cholmod_common common;    /* per handle: no state shared between handles */
    cholmod_factor *L;        /* symbolic after create, numeric after a successful factor */
    cholmod_dense *X, *Y, *E; /* cholmod_solve2 solution and workspace, kept between solves */
    int factored;
    int failed_column;
    double rcond;
    double rcond_min; /* factor reports ESINGULAR below this (DBL_EPSILON) */
    int threads;      /* thread budget of create (sparse_chol.h): 0 none, else the cap */
};

/* Whether CHOLMOD may run a supernodal factorization for a budget of `threads`: always when the
 * budget is unlimited or its OpenMP regions can be capped (omp_cap.h), else only when its fixed
 * team of CHOLMOD_OMP_NUM_THREADS fits the budget. */
static int supernodal_allowed(int threads)
{
    return threads == 0 || cdyn_omp_cap_available() || threads >= CHOLMOD_OMP_NUM_THREADS;
}

/* The numeric calls, run under the thread cap when L is supernodal (the simplicial code has no
 * OpenMP region and calls no BLAS). */
typedef struct chol_call {
    cholmod_sparse *A;
    cholmod_dense *B;
    cdyn_sparse_chol *chol;
    int ok;
} chol_call;

static void call_factorize(void *arg)
{
    chol_call *k = arg;
    k->ok = cholmod_factorize(k->A, k->chol->L, &k->chol->common);
}

static void call_solve(void *arg)
{
    chol_call *k = arg;
    cdyn_sparse_chol *ch = k->chol;
    k->ok = cholmod_solve2(CHOLMOD_A, ch->L, k->B, NULL, &ch->X, NULL, &ch->Y, &ch->E,
                           &ch->common);
}

static int run(cdyn_sparse_chol *chol, void (*fn)(void *), chol_call *k)
{
    k->chol = chol;
    if (chol->threads > 0 && chol->L->is_super)
        cdyn_omp_capped(chol->threads, fn, k);
    else
        fn(k);
    return k->ok;
}

static cdyn_status from_cholmod(const cholmod_common *c, cdyn_report *report, const char *what)
{
    switch (c->status) {
    case CHOLMOD_OUT_OF_MEMORY:
        return cdyn_fail(report, CDYN_ENOMEM, "%s: CHOLMOD ran out of memory", what);
    case CHOLMOD_TOO_LARGE:
        return cdyn_fail(report, CDYN_ETOOBIG, "%s: CHOLMOD integer overflow (matrix too large)",
                         what);
    case CHOLMOD_INVALID:
        return cdyn_fail(report, CDYN_EINVAL, "%s: CHOLMOD rejected the input", what);
    default:
        return cdyn_fail(report, CDYN_ENUMERIC, "%s: CHOLMOD failed with status %d", what,
                         c->status);
    }
}

/* CHOLMOD header over the stored pattern and the caller's values (not copied; CHOLMOD only
 * reads an input matrix). stype = -1: symmetric, lower triangle used. */
static cholmod_sparse wrap(const cdyn_sparse_chol *chol, const double *values)
{
    cholmod_sparse S;
    memset(&S, 0, sizeof S);
    S.nrow = S.ncol = (size_t)chol->n;
    S.nzmax = (size_t)chol->colptr[chol->n];
    S.p = chol->colptr;
    S.i = chol->rowind;
    S.x = (void *)values;
    S.stype = -1;
    S.itype = CHOLMOD_INT;
    S.xtype = values != NULL ? CHOLMOD_REAL : CHOLMOD_PATTERN;
    S.dtype = CHOLMOD_DOUBLE;
    S.sorted = 1;
    S.packed = 1;
    return S;
}

void cdyn_sparse_chol_free(cdyn_sparse_chol *chol)
{
    if (chol == NULL)
        return;
    cholmod_common *c = &chol->common;
    cholmod_free_dense(&chol->X, c);
    cholmod_free_dense(&chol->Y, c);
    cholmod_free_dense(&chol->E, c);
    cholmod_free_factor(&chol->L, c);
    cholmod_finish(c);
    cdyn_mem_free(chol->allocator, chol->colptr);
    cdyn_mem_free(chol->allocator, chol->rowind);
    cdyn_mem_free(chol->allocator, chol);
}

cdyn_status cdyn_sparse_chol_create(const cdyn_csc *A, const cdyn_allocator *allocator,
                                    cdyn_sparse_chol **out, cdyn_report *report)
{
    return cdyn_sparse_chol_create_threads(A, allocator, 1, out, report);
}

cdyn_status cdyn_sparse_chol_create_threads(const cdyn_csc *A, const cdyn_allocator *allocator,
                                            int threads, cdyn_sparse_chol **out,
                                            cdyn_report *report)
{
    cdyn_report_clear(report, "cholmod");
    if (out == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cholmod: output handle pointer is NULL");
    *out = NULL;
    if (threads < 0)
        return cdyn_fail(report, CDYN_EINVAL, "cholmod: threads = %d, must be >= 0", threads);
    cdyn_status st = cdyn_csc_check_pattern(A, 0, report);
    if (st != CDYN_OK)
        return st;
    if (A->nrows != A->ncols || A->nrows < 1)
        return cdyn_fail(report, CDYN_EINVAL, "cholmod: matrix is %d x %d, must be square, n >= 1",
                         A->nrows, A->ncols);
    const int n = A->ncols, nnz = A->colptr[n];

    cdyn_sparse_chol *chol = cdyn_mem_alloc(allocator, sizeof *chol);
    if (chol == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "cholmod: out of memory for the handle");
    memset(chol, 0, sizeof *chol);
    chol->allocator = allocator;
    chol->n = n;
    chol->failed_column = -1;
    chol->rcond = NAN;
    chol->rcond_min = DBL_EPSILON;
    chol->threads = threads;
    cholmod_start(&chol->common); /* sets defaults, allocates nothing */
    cholmod_common *c = &chol->common;
    c->print = 0;                /* CHOLMOD would print warnings such as "not positive definite" */
    c->error_handler = NULL;
    c->useGPU = 0;
    /* LL' also in the simplicial case: a simplicial LDL' would accept indefinite matrices. */
    c->final_ll = 1;
    c->quick_return_if_not_posdef = 1;
    /* AMD only: deterministic, cheap to compute, and keeps METIS (whose memory-failure handling
       is not under our control) out of the call path. */
    c->nmethods = 1;
    c->method[0].ordering = CHOLMOD_AMD;
    c->postorder = 1;
    /* CHOLMOD_AUTO (its default) goes supernodal when flop / nnz(L) >= supernodal_switch (40):
       dense fill, where the supernodes' BLAS-3 kernels win (a 500 x 500 factor with 119 000
       nonzeros: 1.4 ms supernodal on one thread, 8.4 ms simplicial); below, simplicial. */
    c->supernodal = supernodal_allowed(threads) ? CHOLMOD_AUTO : CHOLMOD_SIMPLICIAL;

    chol->colptr = cdyn_mem_array(allocator, (size_t)n + 1, sizeof(int));
    chol->rowind = cdyn_mem_array(allocator, (size_t)nnz, sizeof(int));
    if (chol->colptr == NULL || chol->rowind == NULL) {
        cdyn_sparse_chol_free(chol);
        return cdyn_fail(report, CDYN_ENOMEM, "cholmod: out of memory for the pattern copy");
    }
    memcpy(chol->colptr, A->colptr, sizeof(int) * ((size_t)n + 1));
    if (nnz > 0)
        memcpy(chol->rowind, A->rowind, sizeof(int) * (size_t)nnz);

    cholmod_sparse S = wrap(chol, NULL);
    chol->L = cholmod_analyze(&S, c);
    if (chol->L == NULL) {
        st = from_cholmod(c, report, "cholmod_analyze");
        cdyn_sparse_chol_free(chol);
        return st;
    }
    *out = chol;
    return CDYN_OK;
}

cdyn_status cdyn_sparse_chol_factor(cdyn_sparse_chol *chol, const cdyn_csc *A,
                                    cdyn_report *report)
{
    cdyn_report_clear(report, "cholmod");
    if (chol == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cholmod: handle is NULL");
    cdyn_status st = cdyn_csc_check_pattern(A, 1, report);
    if (st != CDYN_OK)
        return st;
    if (!cdyn_csc_has_pattern(A, chol->n, chol->n, chol->colptr, chol->rowind))
        return cdyn_fail(report, CDYN_EINVAL,
                         "cholmod: the pattern differs from the one given at create");
    chol->factored = 0;
    chol->failed_column = -1;
    chol->rcond = NAN;
    cholmod_common *c = &chol->common;
    static const double no_entries = 0.0; /* values may be NULL when nnz = 0 */
    cholmod_sparse S = wrap(chol, A->values != NULL ? A->values : &no_entries);
    chol_call call = {&S, NULL, NULL, 0};
    if (!run(chol, call_factorize, &call))
        return from_cholmod(c, report, "cholmod_factorize");
    if (c->status == CHOLMOD_NOT_POSDEF || chol->L->minor < chol->L->n) {
        /* L->minor counts in the permuted order; Perm maps it back to the caller's column. */
        const size_t k = chol->L->minor;
        const int *perm = chol->L->Perm;
        chol->failed_column = perm != NULL ? perm[k] : (int)k;
        return cdyn_fail(report, CDYN_ESINGULAR,
                         "cholmod: matrix is not positive definite (factorization broke down at "
                         "column %d, step %zu of %d)",
                         chol->failed_column, k, chol->n);
    }
    if (c->status != CHOLMOD_OK && c->status != CHOLMOD_DSMALL)
        return from_cholmod(c, report, "cholmod_factorize");
    chol->rcond = cholmod_rcond(chol->L, c);
    /* Positive pivots that small give solutions without a single correct digit. */
    if (chol->rcond_min > 0.0 && !(chol->rcond >= chol->rcond_min))
        return cdyn_fail(report, CDYN_ESINGULAR,
                         "cholmod: matrix is numerically singular (rcond %.3g < %.3g)",
                         chol->rcond, chol->rcond_min);
    chol->factored = 1;
    return CDYN_OK;
}

cdyn_status cdyn_sparse_chol_solve(cdyn_sparse_chol *chol, int nrhs, const double *B, double *X,
                                   cdyn_report *report)
{
    cdyn_report_clear(report, "cholmod");
    if (chol == NULL || B == NULL || X == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cholmod solve: NULL argument");
    if (!chol->factored)
        return cdyn_fail(report, CDYN_EINVAL, "cholmod solve: no valid factorization");
    if (nrhs < 1)
        return cdyn_fail(report, CDYN_EINVAL, "cholmod solve: nrhs = %d, must be >= 1", nrhs);
    const size_t n = (size_t)chol->n;
    if ((size_t)nrhs > SIZE_MAX / sizeof(double) / n)
        return cdyn_fail(report, CDYN_ETOOBIG, "cholmod solve: too many right-hand sides");
    const size_t len = n * (size_t)nrhs;
    for (size_t k = 0; k < len; ++k)
        if (!isfinite(B[k]))
            return cdyn_fail(report, CDYN_EINVAL, "cholmod solve: B[%zu] is not finite", k);

    cholmod_dense Bd;
    memset(&Bd, 0, sizeof Bd);
    Bd.nrow = n;
    Bd.ncol = (size_t)nrhs;
    Bd.nzmax = len;
    Bd.d = n;
    Bd.x = (void *)B; /* read only */
    Bd.xtype = CHOLMOD_REAL;
    Bd.dtype = CHOLMOD_DOUBLE;
    cholmod_common *c = &chol->common;
    chol_call call = {NULL, &Bd, NULL, 0};
    if (!run(chol, call_solve, &call))
        return from_cholmod(c, report, "cholmod_solve2");
    const double *x = chol->X->x;
    for (int r = 0; r < nrhs; ++r)
        memcpy(X + (size_t)r * n, x + (size_t)r * chol->X->d, sizeof(double) * n);
    return CDYN_OK;
}

void cdyn_sparse_chol_set_rcond_min(cdyn_sparse_chol *chol, double rcond_min)
{
    if (chol != NULL)
        chol->rcond_min = rcond_min >= 0.0 ? rcond_min : DBL_EPSILON;
}

int cdyn_sparse_chol_size(const cdyn_sparse_chol *chol)
{
    return chol != NULL ? chol->n : 0;
}

int cdyn_sparse_chol_failed_column(const cdyn_sparse_chol *chol)
{
    return chol != NULL ? chol->failed_column : -1;
}

double cdyn_sparse_chol_rcond(const cdyn_sparse_chol *chol)
{
    return chol != NULL && chol->factored ? chol->rcond : NAN;
}

int cdyn_sparse_chol_is_supernodal(const cdyn_sparse_chol *chol)
{
    return chol != NULL && chol->L != NULL && chol->L->is_super;
}
