#include "linalg/svd.h"

#include <lapacke.h>

int cdyn_svd_full_lwork(int m, int n)
{
    double a = 0.0, s = 0.0, u = 0.0, vt = 0.0, w = 0.0;
    int lda = m > 1 ? m : 1, ldvt = n > 1 ? n : 1;
    lapack_int info = LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'A', 'A', m, n, &a, lda, &s, &u, lda,
                                          &vt, ldvt, &w, -1);
    if (info != 0 || !(w >= 1.0) || w > 2147483647.0)
        return -1;
    return (int)w;
}

cdyn_status cdyn_svd_full(int m, int n, double *A, int lda, double *s, double *U, int ldu,
                          double *VT, int ldvt, double *work, int lwork)
{
    lapack_int info = LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'A', 'A', m, n, A, lda, s, U, ldu, VT,
                                          ldvt, work, lwork);
    if (info < 0)
        return CDYN_EINVAL;
    return info > 0 ? CDYN_ENUMERIC : CDYN_OK;
}

int cdyn_svd_rank(int k, const double *s, double tol)
{
    if (k <= 0 || !(s[0] > 0.0))
        return 0;
    int r = 0;
    while (r < k && s[r] > tol * s[0])
        ++r;
    return r;
}
