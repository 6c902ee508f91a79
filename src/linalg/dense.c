#include "linalg/dense.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>

void cdyn_dense_gemv(int m, int n, double alpha, const double *A, int lda, const double *x,
                     double beta, double *y)
{
    if (m <= 0)
        return;
    if (n <= 0) {
        cblas_dscal(m, beta, y, 1);
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
        cblas_dscal(n, beta, y, 1);
        return;
    }
    cblas_dgemv(CblasColMajor, CblasTrans, m, n, alpha, A, lda, x, 1, beta, y, 1);
}

void cdyn_dense_gemm(int trans_a, int trans_b, int m, int n, int k, double alpha, const double *A,
                     int lda, const double *B, int ldb, double beta, double *C, int ldc)
{
    if (m <= 0 || n <= 0)
        return;
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
    lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, A, lda, ipiv);
    if (info < 0)
        return CDYN_EINVAL;
    return info > 0 ? CDYN_ESINGULAR : CDYN_OK;
}

void cdyn_dense_lu_solve(int trans, int n, const double *LU, int lda, const int *ipiv, int nrhs,
                         double *B, int ldb)
{
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, trans ? 'T' : 'N', n, nrhs, LU, lda, ipiv, B, ldb);
}

double cdyn_dense_lu_det(int n, const double *LU, int lda, const int *ipiv)
{
    double det = 1.0;
    for (int i = 0; i < n; ++i) {
        det *= LU[i + (long)i * lda];
        if (ipiv[i] != i + 1)
            det = -det;
    }
    return det;
}

cdyn_status cdyn_dense_chol(int n, double *A, int lda)
{
    lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, A, lda);
    if (info < 0)
        return CDYN_EINVAL;
    return info > 0 ? CDYN_ESINGULAR : CDYN_OK;
}

void cdyn_dense_chol_solve(int n, const double *L, int lda, int nrhs, double *B, int ldb)
{
    LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, nrhs, L, lda, B, ldb);
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
