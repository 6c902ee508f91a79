/* Internal: one linear-system layer for the solvers — A x = b with A square, behind one small
 * function table over four backends:
 *
 *   CDYN_LINSYS_DENSE_LU    LAPACK dgetrf/dgetrs (linsys_dense.c)
 *   CDYN_LINSYS_DENSE_CHOL  LAPACK dpotrf/dpotrs, lower triangle (linsys_dense.c)
 *   CDYN_LINSYS_KLU         KLU, pattern analysed once, refactor while the pivots hold (linsys_klu.c)
 *   CDYN_LINSYS_CHOLMOD     CHOLMOD through sparse_chol.h, lower triangle (linsys_cholmod.c)
 *
 * Use: create (for the sparse kinds: the symbolic analysis of the pattern, once) -> factor with
 * new values as often as they change (KLU: a refactorization with the previous pivot order when
 * there is one) -> solve any number of times -> free.
 *
 * Values: the entries of A in the order of its storage — dense: n*n column-major with leading
 * dimension n (the Cholesky kinds read the lower triangle only); sparse: colptr[n] entries in the
 * order of the pattern given to create. The dense kinds factor in place in their own buffer
 * (cdyn_linsys_values): a caller that forms A there saves a copy; any other array is copied in.
 *
 * Quality check, per backend (docs/theory.md, "Linear algebra"); a failed check is
 * CDYN_ESINGULAR. rcond_min < 0 in the spec takes the default, 0 disables the check:
 *   dense LU  reciprocal 1-norm condition number (dgecon, exact ||A^-1||_1 for n <= 16) below
 *             rcond_min (default 64 eps), computed only when a cheap lower bound on the
 *             condition number (pivot ratio after factor, amplification ||x|| max|u_kk| / ||b||
 *             after solve) exceeds 1e10; an exactly zero pivot or a non-finite A always.
 *   KLU       two policies, chosen by the spec's klu_check:
 *             RCOND (default; BTF + COLAMD or the spec's order): klu_rcond (min/max |u_kk|)
 *             below rcond_min (default 64 eps) after a full factor; a refactor is kept while
 *             klu_rcond >= refactor_rcond (default 1e-8), else the pivots are chosen afresh (a
 *             failed factor keeps its pivot order for the next refactor). Values are not
 *             scanned: a NaN shows in klu_rcond.
 *             GROWTH (sparse_lu.c's refactor; BTF + AMD; order, rcond_min and refactor_rcond
 *             unused): values and right-hand sides must be finite (CDYN_EINVAL); a refactor is
 *             kept while KLU's reciprocal pivot growth (klu_rgrowth) stays >= 1e-3 times the one
 *             of the last full factor and klu_rcond >= eps, else the pivots are chosen afresh; a
 *             full factor below eps is singular and dropped.
 *   dense Cholesky, CHOLMOD  not positive definite always; CHOLMOD's (min/max diag L)^2 below
 *             rcond_min (default eps). The dense Cholesky has no condition test: its one user,
 *             the cone QP, disables it on both paths (interior-point matrices are structurally
 *             ill-conditioned near the solution and Cholesky solves them well).
 *
 * Memory: the layer's own objects come from the spec's allocator in create; factor and solve do
 * not allocate, except inside SuiteSparse (KLU's full factorizations, CHOLMOD's factor and
 * solve workspaces), through SuiteSparse's global hooks as described in sparse_lu.h and
 * sparse_chol.h.
 *
 * Thread safety: one object per thread; distinct objects are independent. */
#ifndef CDYN_LINALG_LINSYS_H
#define CDYN_LINALG_LINSYS_H

#include "cdyn/alloc.h"
#include "cdyn/sparse.h"

typedef enum cdyn_linsys_kind {
    CDYN_LINSYS_DENSE_LU,
    CDYN_LINSYS_DENSE_CHOL,
    CDYN_LINSYS_KLU,
    CDYN_LINSYS_CHOLMOD
} cdyn_linsys_kind;

enum { CDYN_LINSYS_KLU_RCOND = 0, CDYN_LINSYS_KLU_GROWTH = 1 };

typedef struct cdyn_linsys_spec {
    cdyn_linsys_kind kind;
    int n;                       /* order, >= 1 */
    const int *colptr, *rowind;  /* sparse kinds: the pattern (copied; values not read) */
    const int *order;            /* KLU: a fill-reducing permutation applied to rows and columns
                                    alike (klu_analyze_given), or NULL for KLU's BTF + COLAMD */
    int threads;                 /* CHOLMOD: thread budget as cdyn_sparse_chol_create_threads */
    double rcond_min;            /* < 0: the backend's default; 0: no condition test */
    double refactor_rcond;       /* KLU RCOND: < 0: default 1e-8 */
    int klu_check;               /* KLU: CDYN_LINSYS_KLU_RCOND or CDYN_LINSYS_KLU_GROWTH */
    /* Dense LU, optional: a caller that vouches for finite values and can give ||A||_1 and
       max|A_ij| from its own inputs (the MCP: from J, da, db) sets this; the layer then skips
       its O(n^2) pass over A before each factor and asks only when the condition test or
       cdyn_linsys_max_abs needs them (rare). NULL: the layer scans A itself. */
    void (*dense_norms)(void *ctx, double *anorm1, double *amax);
    void *dense_norms_ctx;
    const cdyn_allocator *allocator;
} cdyn_linsys_spec;

/* A spec with the defaults: no pattern, no order, threads 1, rcond_min and refactor_rcond -1,
 * KLU's RCOND check, no dense_norms. */
cdyn_linsys_spec cdyn_linsys_spec_default(cdyn_linsys_kind kind, int n,
                                          const cdyn_allocator *allocator);

typedef struct cdyn_linsys cdyn_linsys;

/* CDYN_OK, CDYN_EINVAL (bad spec, duplicate or invalid pattern, order rejected), CDYN_ENOMEM,
 * CDYN_ETOOBIG. *out is NULL on failure with nothing left allocated. */
cdyn_status cdyn_linsys_create(const cdyn_linsys_spec *spec, cdyn_linsys **out,
                               cdyn_report *report);

/* Dense kinds: the n*n buffer the factorization works in (form A here to avoid a copy).
 * Sparse kinds: NULL. */
double *cdyn_linsys_values(cdyn_linsys *ls);

/* Factor A given by its values (see above). CDYN_OK, CDYN_ESINGULAR (singular, numerically
 * singular by the backend's check, not positive definite, or for the LU kinds non-finite), CDYN_EINVAL
 * (the Cholesky kinds: non-finite values), CDYN_ENOMEM. After a failure solve must not be used
 * until a factor succeeds. */
cdyn_status cdyn_linsys_factor(cdyn_linsys *ls, const double *values, cdyn_report *report);

/* B := A^{-1} B (trans == 0) or A^{-T} B (trans != 0; the Cholesky kinds ignore it), B n-by-nrhs
 * column-major (leading dimension n), nrhs >= 1. CDYN_OK; CDYN_ESINGULAR when the dense LU's
 * amplification test finds A numerically singular (B then holds no meaning); CDYN_EINVAL (no
 * factor) / CDYN_ENOMEM from the sparse backends. */
cdyn_status cdyn_linsys_solve(cdyn_linsys *ls, int trans, int nrhs, double *b,
                              cdyn_report *report);

/* KLU: drop the numeric factor, so that the next factor chooses its pivots afresh as on a new
 * object (the analysis stays). The other kinds: nothing to do. */
void cdyn_linsys_forget(cdyn_linsys *ls);

/* max |A_ij| of the values given to the last factor (NaN skipped), for a caller's shift scale;
 * the LU kinds only (NAN for the Cholesky kinds; from dense_norms when the spec gives it). */
double cdyn_linsys_max_abs(const cdyn_linsys *ls);

int cdyn_linsys_size(const cdyn_linsys *ls);
cdyn_linsys_kind cdyn_linsys_get_kind(const cdyn_linsys *ls);

/* Frees everything; accepts NULL. */
void cdyn_linsys_free(cdyn_linsys *ls);

#endif
