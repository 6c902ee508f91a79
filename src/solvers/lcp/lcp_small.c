/* Exponential-cost tools for small LCPs (n <= CDYN_LCP_SMALL_N): enumeration of complementary
 * bases and the principal-minor P-matrix test. Used as a last resort by cdyn_lcp_solve and as an
 * independent check of the pivoting methods in tests. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cdyn/lcp.h"
#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"
#include "solvers/lcp/lcp_internal.h"

/* A basis whose block has a reciprocal condition number (1-norm) below this is singular. */
#define ENUM_RCOND_MIN 1e-12
/* Feasibility of a basic solution: z, w >= -ENUM_FEAS_TOL * max(||q||, ||M|| ||z||). */
#define ENUM_FEAS_TOL 1e-10
/* Two solutions are the same when ||z1 - z2||_inf <= ENUM_SAME_TOL * max(||z1||, ||z2||). */
#define ENUM_SAME_TOL 1e-9

/* Gather A = M[S, S] (k-by-k) for the index list S. */
static void principal_block(int n, const double *M, const int *S, int k, double *A)
{
    for (int b = 0; b < k; ++b)
        for (int a = 0; a < k; ++a)
            A[a + (size_t)b * k] = M[S[a] + (size_t)S[b] * n];
}

cdyn_status cdyn_lcp_enumerate_ex(const cdyn_lcp *lcp, double *solutions, int max_solutions,
                                  int *count, int *singular, const cdyn_allocator *allocator,
                                  cdyn_report *report)
{
    cdyn_report_clear(report, "enumeration");
    double mnorm = 0.0;
    cdyn_status st = cdyn_lcp_validate(lcp, &mnorm, report);
    if (st != CDYN_OK)
        return st;
    if (count == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "count is NULL");
    if (max_solutions < 0 || (max_solutions > 0 && solutions == NULL))
        return cdyn_fail(report, CDYN_EINVAL, "need max_solutions >= 0 and room for them");
    const int n = lcp->n;
    if (n > CDYN_LCP_SMALL_N)
        return cdyn_fail(report, CDYN_ETOOBIG, "n = %d exceeds %d for enumeration", n,
                         CDYN_LCP_SMALL_N);
    const int nbases = 1 << n;
    /* Every distinct solution is kept for deduplication: at most 2^n of them. */
    const size_t nd = (size_t)n * n + 7 * (size_t)n + (size_t)nbases * n;
    double *block = cdyn_mem_array(allocator, nd + 2 * (size_t)n, sizeof(double));
    if (block == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "cannot allocate the enumeration workspace");
    double *A = block, *z = A + (size_t)n * n, *w = z + n, *rhs = w + n, *work = rhs + n;
    double *found = work + 4 * (size_t)n;
    int *S = (int *)(found + (size_t)nbases * n), *ipiv = S + n, *iwork = ipiv + n;

    const double qnorm = cdyn_dense_norm_inf(n, lcp->q);
    int nfound = 0, nsingular = 0;
    for (int mask = 0; mask < nbases; ++mask) {
        int k = 0;
        for (int i = 0; i < n; ++i)
            if (mask & (1 << i))
                S[k++] = i;
        memset(z, 0, sizeof(double) * (size_t)n);
        if (k > 0) {
            principal_block(n, lcp->M, S, k, A);
            const double anorm = cdyn_dense_norm1(k, k, A, k);
            if (cdyn_dense_lu(k, A, k, ipiv) != CDYN_OK ||
                !(cdyn_dense_lu_rcond(k, A, k, anorm, work, iwork) >= ENUM_RCOND_MIN)) {
                ++nsingular;
                continue;
            }
            for (int a = 0; a < k; ++a)
                rhs[a] = -lcp->q[S[a]];
            cdyn_dense_lu_solve(0, k, A, k, ipiv, 1, rhs, k);
            for (int a = 0; a < k; ++a)
                z[S[a]] = rhs[a];
        }
        memcpy(w, lcp->q, sizeof(double) * (size_t)n);
        cdyn_dense_gemv(n, n, 1.0, lcp->M, n, z, 1.0, w);
        const double atol = ENUM_FEAS_TOL * fmax(qnorm, mnorm * cdyn_dense_norm_inf(n, z));
        int feasible = 1;
        for (int i = 0; i < n && feasible; ++i)
            feasible = (mask & (1 << i)) ? z[i] >= -atol : w[i] >= -atol;
        if (!feasible)
            continue;
        for (int i = 0; i < n; ++i)
            z[i] = fmax(z[i], 0.0);
        const double zn = cdyn_dense_norm_inf(n, z);
        int dup = 0;
        for (int f = 0; f < nfound && !dup; ++f) {
            const double *zf = found + (size_t)f * n;
            double diff = 0.0;
            for (int i = 0; i < n; ++i)
                diff = fmax(diff, fabs(z[i] - zf[i]));
            dup = diff <= ENUM_SAME_TOL * fmax(zn, cdyn_dense_norm_inf(n, zf));
        }
        if (!dup)
            memcpy(found + (size_t)(nfound++) * n, z, sizeof(double) * (size_t)n);
    }
    const int stored = nfound < max_solutions ? nfound : max_solutions;
    if (stored > 0)
        memcpy(solutions, found, sizeof(double) * (size_t)stored * n);
    *count = nfound;
    if (singular != NULL)
        *singular = nsingular;
    if (report != NULL) {
        report->iterations = nbases;
        if (nsingular > 0)
            snprintf(report->message, sizeof report->message,
                     "%d of %d complementary bases skipped as singular", nsingular, nbases);
    }
    cdyn_mem_free(allocator, block);
    return CDYN_OK;
}

cdyn_status cdyn_lcp_enumerate(const cdyn_lcp *lcp, double *solutions, int max_solutions,
                               int *count, const cdyn_allocator *allocator, cdyn_report *report)
{
    return cdyn_lcp_enumerate_ex(lcp, solutions, max_solutions, count, NULL, allocator, report);
}

cdyn_status cdyn_lcp_is_pmatrix(int n, const double *M, double tol, int *is_p,
                                const cdyn_allocator *allocator, cdyn_report *report)
{
    cdyn_report_clear(report, "pmatrix");
    if (M == NULL || is_p == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "%s is NULL", M == NULL ? "M" : "is_p");
    if (n <= 0)
        return cdyn_fail(report, CDYN_EINVAL, "n = %d must be positive", n);
    if (isnan(tol))
        return cdyn_fail(report, CDYN_EINVAL, "tol is NaN");
    if (n > CDYN_LCP_SMALL_N)
        return cdyn_fail(report, CDYN_ETOOBIG, "n = %d exceeds %d for the P-matrix test", n,
                         CDYN_LCP_SMALL_N);
    if (!cdyn_dense_all_finite(n * n, M))
        return cdyn_fail(report, CDYN_EINVAL, "M has a NaN or infinite entry");
    if (!(tol > 0.0))
        tol = 1e-12;
    double *A = cdyn_mem_array(allocator, (size_t)n * n + (size_t)n, sizeof(double));
    if (A == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "cannot allocate the P-matrix workspace");
    int *S = (int *)(A + (size_t)n * n), *ipiv = S + n;
    int result = 1;
    for (int mask = 1; mask < (1 << n) && result; ++mask) {
        int k = 0;
        for (int i = 0; i < n; ++i)
            if (mask & (1 << i))
                S[k++] = i;
        principal_block(n, M, S, k, A);
        /* Hadamard's bound |det A| <= prod ||row_a||_2 sets the scale of "zero". */
        double bound = 1.0;
        for (int a = 0; a < k; ++a) {
            double s = 0.0;
            for (int b = 0; b < k; ++b)
                s += A[a + (size_t)b * k] * A[a + (size_t)b * k];
            bound *= sqrt(s);
        }
        if (cdyn_dense_lu(k, A, k, ipiv) != CDYN_OK)
            result = 0;
        else if (!(cdyn_dense_lu_det(k, A, k, ipiv) > tol * bound))
            result = 0;
    }
    if (report != NULL)
        report->iterations = 0;
    *is_p = result;
    cdyn_mem_free(allocator, A);
    return CDYN_OK;
}
