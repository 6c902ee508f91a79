/* Internal: sparse LU of a square unsymmetric matrix (KLU).
 *
 * Use: create (symbolic analysis of the pattern: BTF + AMD ordering, once) -> factor (numeric
 * with partial pivoting) or refactor (new values, same pivot order; much cheaper, the Newton-
 * iteration case) -> solve / transposed solve -> free.
 *
 * The pattern given to create is copied; factor/refactor must be given exactly that pattern
 * again (checked). Memory: as for the Cholesky wrapper (src/linalg/sparse_chol.h) — the handle
 * and pattern copy from the cdyn_allocator, KLU's objects from SuiteSparse's global hooks
 * (malloc by default; cdyn never changes them).
 *
 * Thread safety: one handle per thread; distinct handles are independent. */
#ifndef CDYN_LINALG_SPARSE_LU_H
#define CDYN_LINALG_SPARSE_LU_H

#include "cdyn/alloc.h"
#include "cdyn/sparse.h"

typedef struct cdyn_sparse_lu cdyn_sparse_lu;

/* Symbolic analysis of the n-by-n pattern of A (A->values not read, may be NULL). *out receives
 * the handle (NULL on failure, nothing left allocated). CDYN_EINVAL, CDYN_ENOMEM, CDYN_ETOOBIG. */
cdyn_status cdyn_sparse_lu_create(const cdyn_csc *A, const cdyn_allocator *allocator,
                                  cdyn_sparse_lu **out, cdyn_report *report);

/* Full numeric factorization with pivoting (klu_factor). report->method = "klu_factor".
 * CDYN_ESINGULAR when a pivot is exactly zero (the message names the caller's column) or the
 * matrix is numerically singular (rcond < machine epsilon); CDYN_EINVAL for a changed pattern
 * or non-finite values (the previous factor, if any, stays usable); CDYN_ENOMEM. After any other
 * failure the handle holds no factor (solve refuses) until a later factorization succeeds. */
cdyn_status cdyn_sparse_lu_factor(cdyn_sparse_lu *lu, const cdyn_csc *A, cdyn_report *report);

/* New values, same pattern: klu_refactor reuses the pivot order of the last full factorization.
 * Falls back to a full factorization when there is no factor yet, when refactor meets a zero
 * pivot, when the reused pivots became unstable (reciprocal pivot growth below 1e-3 times the
 * one of the last full factorization) or when the pivot ratio drops below machine epsilon.
 * report->method says which produced the factor: "klu_refactor" or "klu_factor". Statuses as
 * cdyn_sparse_lu_factor. No allocation on the refactor path (KLU's refactor reuses the factor's
 * memory); the fallback allocates a new factor. */
cdyn_status cdyn_sparse_lu_refactor(cdyn_sparse_lu *lu, const cdyn_csc *A, cdyn_report *report);

/* Solve A X = B (trans == 0) or A^T X = B (trans != 0) for nrhs >= 1 right-hand sides, B and X
 * n-by-nrhs column-major with leading dimension n; X may be the same array as B. X is written
 * only on success. CDYN_EINVAL: no factor, bad sizes, NULL, non-finite B. */
cdyn_status cdyn_sparse_lu_solve(cdyn_sparse_lu *lu, int trans, int nrhs, const double *B,
                                 double *X, cdyn_report *report);

/* Drop the numeric factor (KLU frees it): the next refactor chooses its pivots afresh, exactly as
 * on a new handle, and allocates a new factor. The symbolic analysis stays. Accepts NULL. */
void cdyn_sparse_lu_forget(cdyn_sparse_lu *lu);

/* Order of the matrix. */
int cdyn_sparse_lu_size(const cdyn_sparse_lu *lu);
/* KLU's cheap reciprocal condition estimate of the current factor: min|diag U| / max|diag U|
 * (of the row-scaled matrix); NAN when there is no factor. */
double cdyn_sparse_lu_rcond(const cdyn_sparse_lu *lu);
/* Column (caller's numbering) of the zero pivot found by the last factorization, -1 if none. */
int cdyn_sparse_lu_singular_column(const cdyn_sparse_lu *lu);

/* Frees everything; accepts NULL. */
void cdyn_sparse_lu_free(cdyn_sparse_lu *lu);

#endif
