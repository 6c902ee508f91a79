/* Internal: sparse Cholesky A = L L^T of a symmetric positive definite matrix (CHOLMOD).
 *
 * Use: create (symbolic analysis of the pattern, once) -> factor (numeric, each time the values
 * change, same pattern) -> solve (any number of times) -> free.
 *
 * A is a square cdyn_csc whose LOWER triangle is used (row >= column); entries above the
 * diagonal, if stored, are ignored, so a full symmetric matrix is accepted as well. The pattern
 * given to create is copied; factor must be given exactly that pattern again (checked).
 *
 * Memory: the handle and the pattern copy come from the cdyn_allocator passed to create (NULL:
 * malloc). CHOLMOD's own objects (factor, workspace) are allocated by SuiteSparse through its
 * process-global SuiteSparse_config hooks, which cdyn never changes: by default malloc/free.
 * Solve keeps CHOLMOD's solution and workspace objects between calls (cholmod_solve2). Measured
 * with SuiteSparse 5.12: a simplicial solve still reallocates its workspace block each call (the
 * solver shrinks it to the columns used), and every cholmod_factorize allocates a temporary
 * permuted copy of A; both are freed before the call returns. cdyn itself allocates only in
 * create.
 *
 * Threads: CHOLMOD's simplicial factorization runs on the calling thread; its supernodal one
 * (chosen by CHOLMOD for dense fill) has OpenMP regions of CHOLMOD_OMP_NUM_THREADS threads (4 in
 * SuiteSparse 5.12, a num_threads clause) and calls BLAS. The thread budget given to create caps
 * those regions (omp_cap.h); where the cap is not available (cdyn not compiled by GCC) a budget
 * below CHOLMOD_OMP_NUM_THREADS keeps the factorization simplicial. BLAS's own threads (OpenBLAS's
 * pool, process-wide) are the caller's to set (docs/api.md, "Threads").
 *
 * Thread safety: one handle per thread; distinct handles are independent. */
#ifndef CDYN_LINALG_SPARSE_CHOL_H
#define CDYN_LINALG_SPARSE_CHOL_H

#include "cdyn/alloc.h"
#include "cdyn/sparse.h"

typedef struct cdyn_sparse_chol cdyn_sparse_chol;

/* Symbolic analysis (AMD fill-reducing ordering, elimination tree, supernodes) of the n-by-n
 * pattern of A; A->values is not read and may be NULL. *out receives the handle (NULL on
 * failure, with nothing left allocated). CDYN_EINVAL (invalid or non-square pattern, n < 1),
 * CDYN_ENOMEM, CDYN_ETOOBIG. */
cdyn_status cdyn_sparse_chol_create(const cdyn_csc *A, const cdyn_allocator *allocator,
                                    cdyn_sparse_chol **out, cdyn_report *report);

/* The same with a thread budget: the most threads a factorization or solve may run on, the
 * calling thread included; 1 (what cdyn_sparse_chol_create uses): no thread is started; 0: no
 * cap (CHOLMOD's own team size). CDYN_EINVAL for threads < 0. */
cdyn_status cdyn_sparse_chol_create_threads(const cdyn_csc *A, const cdyn_allocator *allocator,
                                            int threads, cdyn_sparse_chol **out,
                                            cdyn_report *report);

/* Numeric factorization with the values of A (same pattern as at create, finite values).
 * CDYN_ESINGULAR when A is not positive definite (the message and
 * cdyn_sparse_chol_failed_column name the column, in the caller's numbering, where the
 * factorization broke down) or numerically singular (rcond < machine epsilon).
 * CDYN_EINVAL for a changed pattern or non-finite values (the previous factor, if any, stays
 * usable), CDYN_ENOMEM. After any other failure the handle holds no factor (solve refuses) until
 * a later factor succeeds. */
cdyn_status cdyn_sparse_chol_factor(cdyn_sparse_chol *chol, const cdyn_csc *A,
                                    cdyn_report *report);

/* Solve A X = B for nrhs >= 1 right-hand sides: B and X are n-by-nrhs, column-major with leading
 * dimension n; X may be the same array as B. X is written only on success. CDYN_EINVAL (no
 * factor, bad sizes, NULL, non-finite B), CDYN_ENOMEM. */
cdyn_status cdyn_sparse_chol_solve(cdyn_sparse_chol *chol, int nrhs, const double *B, double *X,
                                   cdyn_report *report);

/* Threshold of the "numerically singular" test of factor: rcond < rcond_min gives
 * CDYN_ESINGULAR (default DBL_EPSILON). 0 disables the test — for interior-point Newton
 * matrices, whose ill-conditioning near the solution is structured and which Cholesky solves
 * well. A negative or NaN value restores the default. Accepts NULL. */
void cdyn_sparse_chol_set_rcond_min(cdyn_sparse_chol *chol, double rcond_min);

/* Order of the matrix. */
int cdyn_sparse_chol_size(const cdyn_sparse_chol *chol);
/* Column (caller's numbering) where the last factorization found A not positive definite,
 * -1 when it did not fail that way. */
int cdyn_sparse_chol_failed_column(const cdyn_sparse_chol *chol);
/* CHOLMOD's rough reciprocal condition estimate of the current factor, (min/max diag L)^2;
 * NAN when there is no factor. */
double cdyn_sparse_chol_rcond(const cdyn_sparse_chol *chol);

/* 1 when the analysis chose CHOLMOD's supernodal factorization, 0 simplicial (or NULL). */
int cdyn_sparse_chol_is_supernodal(const cdyn_sparse_chol *chol);

/* Frees everything; accepts NULL. */
void cdyn_sparse_chol_free(cdyn_sparse_chol *chol);

#endif
