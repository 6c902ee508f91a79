#include "linalg/dense.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stddef.h>

/* ipiv and iwork are handed to LAPACKE as lapack_int arrays. */
_Static_assert(sizeof(lapack_int) == sizeof(int), "cdyn needs LAPACKE with 32-bit integers");

/* y := beta*y with the BLAS convention that beta == 0 does not read y (NaN in y is discarded;
 * dscal by 0 does not promise that in every OpenBLAS version). */
static void scale_vector(int n, double beta, double *y)
{
    if (beta == 0.0) {
        for (int i = 0; i < n; ++i)
            y[i] = 0.0;
    } else if (beta != 1.0) {
        cblas_dscal(n, beta, y, 1);
    }
}

void cdyn_dense_gemv(int m, int n, double alpha, const double *A, int lda, const double *x,
                     double beta, double *y)
{
    if (m <= 0)
        return;
    if (n <= 0) {
        scale_vector(m, beta, y);
        return;
    }
    cblas_dgemv(CblasColMajor, CblasNoTrans, m, n, alpha, A, lda, x, 1, beta, y, 1);
}

void cdyn_dense_gemv_t(int m, int n, double alpha, const double *A, int lda, const double *x,
                       double beta, double *y)
{
    if (n <= 0)
        return;
    if (m <= 0) {
        scale_vector(n, beta, y);
        return;
    }
    cblas_dgemv(CblasColMajor, CblasTrans, m, n, alpha, A, lda, x, 1, beta, y, 1);
}

void cdyn_dense_gemm(int trans_a, int trans_b, int m, int n, int k, double alpha, const double *A,
                     int lda, const double *B, int ldb, double beta, double *C, int ldc)
{
    if (m <= 0 || n <= 0)
        return;
    if (k <= 0) { /* empty inner dimension: only the beta part remains */
        for (int j = 0; j < n; ++j)
            scale_vector(m, beta, C + (size_t)j * ldc);
        return;
    }
    cblas_dgemm(CblasColMajor, trans_a ? CblasTrans : CblasNoTrans,
                trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void cdyn_dense_ger(int m, int n, double alpha, const double *x, const double *y, double *A,
                    int lda)
{
    if (m <= 0 || n <= 0)
        return;
    cblas_dger(CblasColMajor, m, n, alpha, x, 1, y, 1, A, lda);
}

cdyn_status cdyn_dense_lu(int n, double *A, int lda, int *ipiv)
{
    /* OpenBLAS's getrf reports success on NaN input, so finiteness is checked here. */
    for (int j = 0; j < n; ++j)
        if (!cdyn_dense_all_finite(n, A + (size_t)j * lda))
            return CDYN_EINVAL;
    lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, A, lda, ipiv);
    if (info < 0)
        return CDYN_EINVAL;
    if (info > 0)
        return CDYN_ESINGULAR;
    for (int i = 0; i < n; ++i) /* growth can overflow for finite but huge input */
        if (!isfinite(A[i + (size_t)i * lda]))
            return CDYN_ENUMERIC;
    return CDYN_OK;
}

void cdyn_dense_lu_solve(int trans, int n, const double *LU, int lda, const int *ipiv, int nrhs,
                         double *B, int ldb)
{
    if (n <= 0 || nrhs <= 0)
        return;
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, trans ? 'T' : 'N', n, nrhs, LU, lda, ipiv, B, ldb);
}

double cdyn_dense_lu_det(int n, const double *LU, int lda, const int *ipiv)
{
    double det = 1.0;
    for (int i = 0; i < n; ++i) {
        det *= LU[i + (size_t)i * lda];
        if (ipiv[i] != i + 1)
            det = -det;
    }
    return det;
}

double cdyn_dense_lu_rcond(int n, const double *LU, int lda, double anorm1, double *work,
                           int *iwork)
{
    if (n <= 0)
        return 1.0;
    for (int i = 0; i < n; ++i)
        if (LU[i + (size_t)i * lda] == 0.0)
            return 0.0;
    double rcond = 0.0;
    lapack_int info =
        LAPACKE_dgecon_work(LAPACK_COL_MAJOR, '1', n, LU, lda, anorm1, &rcond, work, iwork);
    return info == 0 ? rcond : NAN;
}

cdyn_status cdyn_dense_chol(int n, double *A, int lda)
{
    /* OpenBLAS's potrf reports success on NaN input, so finiteness is checked here. */
    for (int j = 0; j < n; ++j)
        if (!cdyn_dense_all_finite(n - j, A + j + (size_t)j * lda))
            return CDYN_EINVAL;
    lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, A, lda);
    if (info < 0)
        return CDYN_EINVAL;
    return info > 0 ? CDYN_ESINGULAR : CDYN_OK;
}

void cdyn_dense_chol_solve(int n, const double *L, int lda, int nrhs, double *B, int ldb)
{
    if (n <= 0 || nrhs <= 0)
        return;
    LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, nrhs, L, lda, B, ldb);
}

void cdyn_dense_chol_lsolve(int n, const double *L, int lda, int nrhs, double *B, int ldb)
{
    if (n <= 0 || nrhs <= 0)
        return;
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n, nrhs, 1.0, L,
                lda, B, ldb);
}

double cdyn_dense_norm1(int m, int n, const double *A, int lda)
{
    if (m <= 0 || n <= 0)
        return 0.0;
    double r = 0.0;
    for (int j = 0; j < n; ++j) {
        double s = cblas_dasum(m, A + (size_t)j * lda, 1);
        if (s > r || isnan(s))
            r = s;
        if (isnan(r))
            return r;
    }
    return r;
}

double cdyn_dense_norm_inf(int n, const double *x)
{
    double r = 0.0;
    for (int i = 0; i < n; ++i) {
        double a = fabs(x[i]);
        if (a > r || isnan(a))
            r = a;
        if (isnan(r))
            return r;
    }
    return r;
}

int cdyn_dense_all_finite(int n, const double *x)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}
