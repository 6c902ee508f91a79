/* Internal: full singular value decomposition on LAPACK (dgesvd), for rank decisions, null
 * spaces and minimum-norm least-squares solutions of small dense matrices. */
#ifndef CDYN_LINALG_SVD_H
#define CDYN_LINALG_SVD_H

#include "cdyn/status.h"

/* Doubles of workspace cdyn_svd_full needs for an m-by-n matrix (a LAPACK workspace query);
 * -1 if the query fails. */
int cdyn_svd_full_lwork(int m, int n);

/* A = U diag(s) V^T with U m-by-m, VT = V^T n-by-n, s min(m, n) values in decreasing order.
 * A is overwritten. CDYN_ENUMERIC if LAPACK's iteration fails, CDYN_EINVAL for bad arguments. */
cdyn_status cdyn_svd_full(int m, int n, double *A, int lda, double *s, double *U, int ldu,
                          double *VT, int ldvt, double *work, int lwork);

/* Numerical rank: singular values above tol * s[0] (s from cdyn_svd_full, k = min(m, n)). */
int cdyn_svd_rank(int k, const double *s, double tol);

#endif
