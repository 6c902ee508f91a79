/* Internal: dense column-major linear algebra on BLAS/LAPACKE.
 * Matrices are column-major with a leading dimension; sizes are int (LAPACK's). Functions that
 * factorize return CDYN_ESINGULAR for singular / not positive definite input and never print. */
#ifndef CDYN_LINALG_DENSE_H
#define CDYN_LINALG_DENSE_H

#include "cdyn/status.h"

/* y := alpha*A*x + beta*y, A m-by-n. */
void cdyn_dense_gemv(int m, int n, double alpha, const double *A, int lda, const double *x,
                     double beta, double *y);
/* y := alpha*A^T*x + beta*y, A m-by-n. */
void cdyn_dense_gemv_t(int m, int n, double alpha, const double *A, int lda, const double *x,
                       double beta, double *y);
/* C := alpha*op(A)*op(B) + beta*C with op = transpose when the flag is nonzero; C m-by-n. */
void cdyn_dense_gemm(int trans_a, int trans_b, int m, int n, int k, double alpha, const double *A,
                     int lda, const double *B, int ldb, double beta, double *C, int ldc);
/* A := A + alpha*x*y^T, A m-by-n. */
void cdyn_dense_ger(int m, int n, double alpha, const double *x, const double *y, double *A,
                    int lda);

/* LU with partial pivoting in place (ipiv: n entries, LAPACK's 1-based convention). */
cdyn_status cdyn_dense_lu(int n, double *A, int lda, int *ipiv);
/* Solve A X = B (trans = 0) or A^T X = B (trans != 0) with the factors of cdyn_dense_lu. */
void cdyn_dense_lu_solve(int trans, int n, const double *LU, int lda, const int *ipiv, int nrhs,
                         double *B, int ldb);
/* Determinant from LU factors (product of the diagonal with the permutation's sign). */
double cdyn_dense_lu_det(int n, const double *LU, int lda, const int *ipiv);

/* Cholesky A = L L^T in place (lower triangle used and overwritten). */
cdyn_status cdyn_dense_chol(int n, double *A, int lda);
/* Solve A X = B with the factor of cdyn_dense_chol. */
void cdyn_dense_chol_solve(int n, const double *L, int lda, int nrhs, double *B, int ldb);

/* ||x||_inf; 0 for n <= 0. NaN entries propagate (the result is NaN). */
double cdyn_dense_norm_inf(int n, const double *x);
/* Nonzero when every entry of x is finite. */
int cdyn_dense_all_finite(int n, const double *x);

#endif
