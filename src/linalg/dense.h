/* Internal: dense column-major linear algebra on BLAS/LAPACKE.
 * Matrices are column-major with a leading dimension; sizes are int (LAPACK's). The callers are
 * cdyn's own modules, which validate sizes; these helpers do not re-check them. Functions that
 * factorize return a status and never print. See docs/theory.md. */
#ifndef CDYN_LINALG_DENSE_H
#define CDYN_LINALG_DENSE_H

#include "cdyn/status.h"

/* y := alpha*A*x + beta*y, A m-by-n. beta == 0 overwrites y without reading it (BLAS rule). */
void cdyn_dense_gemv(int m, int n, double alpha, const double *A, int lda, const double *x,
                     double beta, double *y);
/* y := alpha*A^T*x + beta*y, A m-by-n (y has n entries). beta == 0 as above. */
void cdyn_dense_gemv_t(int m, int n, double alpha, const double *A, int lda, const double *x,
                       double beta, double *y);
/* C := alpha*op(A)*op(B) + beta*C with op = transpose when the flag is nonzero; C m-by-n,
 * op(A) m-by-k, op(B) k-by-n. beta == 0 overwrites C without reading it. */
void cdyn_dense_gemm(int trans_a, int trans_b, int m, int n, int k, double alpha, const double *A,
                     int lda, const double *B, int ldb, double beta, double *C, int ldc);
/* A := A + alpha*x*y^T, A m-by-n. */
void cdyn_dense_ger(int m, int n, double alpha, const double *x, const double *y, double *A,
                    int lda);

/* LU with partial pivoting in place (ipiv: n entries, LAPACK's 1-based convention).
 * CDYN_EINVAL: an entry of A is NaN/Inf (A untouched). CDYN_ESINGULAR: an exactly zero pivot
 * (LAPACK's definition; nearly singular matrices factor "successfully" — judge them with
 * cdyn_dense_lu_rcond). CDYN_ENUMERIC: the factor overflowed. A is overwritten on every path but
 * the first. */
cdyn_status cdyn_dense_lu(int n, double *A, int lda, int *ipiv);
/* Solve A X = B (trans = 0) or A^T X = B (trans != 0) with the factors of cdyn_dense_lu. */
void cdyn_dense_lu_solve(int trans, int n, const double *LU, int lda, const int *ipiv, int nrhs,
                         double *B, int ldb);
/* Determinant from LU factors (product of the diagonal with the permutation's sign). */
double cdyn_dense_lu_det(int n, const double *LU, int lda, const int *ipiv);
/* Estimate of the reciprocal 1-norm condition number 1/(||A||_1 ||A^-1||_1) from the LU factors
 * (LAPACK dgecon). anorm1 = ||A||_1 of the matrix before factorization (cdyn_dense_norm1).
 * work: 4n doubles, iwork: n ints (caller-owned so that nothing is allocated here). Returns 0 for
 * a factor with a zero pivot. */
double cdyn_dense_lu_rcond(int n, const double *LU, int lda, double anorm1, double *work,
                           int *iwork);

/* Cholesky A = L L^T in place (lower triangle used and overwritten; the strict upper triangle is
 * neither read nor written). CDYN_EINVAL: a NaN/Inf in the lower triangle (A untouched).
 * CDYN_ESINGULAR: not positive definite. */
cdyn_status cdyn_dense_chol(int n, double *A, int lda);
/* Solve A X = B with the factor of cdyn_dense_chol. */
void cdyn_dense_chol_solve(int n, const double *L, int lda, int nrhs, double *B, int ldb);
/* B := L^{-1} B with the factor of cdyn_dense_chol (half a solve). With Y = L^{-1} J^T,
 * J A^{-1} J^T = Y^T Y: the Delassus-type products of the contact formulations. */
void cdyn_dense_chol_lsolve(int n, const double *L, int lda, int nrhs, double *B, int ldb);

/* ||A||_1 (largest absolute column sum) of an m-by-n matrix; 0 when m or n <= 0. */
double cdyn_dense_norm1(int m, int n, const double *A, int lda);
/* ||x||_inf; 0 for n <= 0. NaN entries propagate (the result is NaN). */
double cdyn_dense_norm_inf(int n, const double *x);
/* Nonzero when every entry of x is finite. */
int cdyn_dense_all_finite(int n, const double *x);

#endif
