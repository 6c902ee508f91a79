/* Argument checks of the friction-cone QP: structure (sizes, dimensions, which H) and values
 * (finite data, mu >= 0, radii, symmetry of H). Every failure names the offending entry. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/report.h"
#include "linalg/csc.h"
#include "linalg/dense.h"
#include "solvers/coneqp/coneqp_internal.h"

int cdyn_cq_dim(const cdyn_coneqp *p, int i)
{
    return p->dims != NULL ? p->dims[i] : p->dim;
}

int cdyn_coneqp_size(const cdyn_coneqp *p)
{
    if (p == NULL || p->ncontacts < 1)
        return -1;
    if (p->dims == NULL && p->dim != 2 && p->dim != 3)
        return -1;
    long long n = 0;
    for (int i = 0; i < p->ncontacts; ++i) {
        const int d = cdyn_cq_dim(p, i);
        if (d != 2 && d != 3)
            return -1;
        n += p->normal != NULL ? d - 1 : d;
        if (n > INT_MAX / 4) /* keeps every index and the cone capacity (<= 3n) in int */
            return -1;
    }
    return (int)n;
}

/* Prefix a message left by a helper with the name of the argument. */
static cdyn_status prefixed(cdyn_report *r, cdyn_status st, const char *what)
{
    if (r != NULL) {
        char msg[CDYN_REPORT_TEXT];
        memcpy(msg, r->message, sizeof msg);
        cdyn_fail(r, st, "%s: %s", what, msg);
    }
    return st;
}

cdyn_status cdyn_cq_check_structure(const cdyn_coneqp *p, int need_values, int *n, cdyn_report *r)
{
    if (p == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "problem is NULL");
    if (p->ncontacts < 1)
        return cdyn_fail(r, CDYN_EINVAL, "ncontacts = %d, must be >= 1", p->ncontacts);
    if (p->dims == NULL && p->dim != 2 && p->dim != 3)
        return cdyn_fail(r, CDYN_EINVAL, "dim = %d, must be 2 or 3 (or give dims)", p->dim);
    if (p->dims != NULL)
        for (int i = 0; i < p->ncontacts; ++i)
            if (p->dims[i] != 2 && p->dims[i] != 3)
                return cdyn_fail(r, CDYN_EINVAL, "dims[%d] = %d, must be 2 or 3", i, p->dims[i]);
    const int nn = cdyn_coneqp_size(p);
    if (nn < 0)
        return cdyn_fail(r, CDYN_ETOOBIG, "too many variables for int indices");
    if ((p->H == NULL) == (p->Hs == NULL))
        return cdyn_fail(r, CDYN_EINVAL, "give exactly one of H (dense) and Hs (sparse)");
    if (p->H != NULL) {
        if ((long long)nn * nn > INT_MAX)
            return cdyn_fail(r, CDYN_ETOOBIG, "dense H limited to n*n <= INT_MAX (n = %d); give Hs",
                             nn);
    } else {
        cdyn_status st = cdyn_csc_check_pattern(p->Hs, need_values, r);
        if (st != CDYN_OK)
            return prefixed(r, st, "Hs");
        if (p->Hs->nrows != nn || p->Hs->ncols != nn)
            return cdyn_fail(r, CDYN_EINVAL, "Hs is %d x %d, the problem has n = %d variables",
                             p->Hs->nrows, p->Hs->ncols, nn);
    }
    *n = nn;
    return CDYN_OK;
}

/* Position of row i in column j of a CSC matrix with sorted rows, or -1. */
static int find_entry(const cdyn_csc *A, int i, int j)
{
    int lo = A->colptr[j], hi = A->colptr[j + 1] - 1;
    while (lo <= hi) {
        const int mid = lo + (hi - lo) / 2;
        if (A->rowind[mid] == i)
            return mid;
        if (A->rowind[mid] < i)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* Entries stored above the diagonal must mirror the lower triangle (same pattern, values within
 * CQ_SYM_TOL * max|H_ij|). With none stored there is nothing to check. */
static cdyn_status check_sparse_symmetry(const cdyn_csc *A, cdyn_report *r)
{
    long long upper = 0, lower = 0;
    double hmax = 0.0;
    for (int j = 0; j < A->ncols; ++j)
        for (int k = A->colptr[j]; k < A->colptr[j + 1]; ++k) {
            upper += A->rowind[k] < j;
            lower += A->rowind[k] > j;
            hmax = fmax(hmax, fabs(A->values[k]));
        }
    if (upper == 0)
        return CDYN_OK;
    for (int j = 0; j < A->ncols; ++j)
        for (int k = A->colptr[j]; k < A->colptr[j + 1] && A->rowind[k] < j; ++k) {
            const int i = A->rowind[k];
            const int t = find_entry(A, j, i);
            if (t < 0)
                return cdyn_fail(r, CDYN_EINVAL,
                                 "Hs is not symmetric: entry (%d, %d) is stored, (%d, %d) is not",
                                 i, j, j, i);
            if (fabs(A->values[k] - A->values[t]) > CQ_SYM_TOL * hmax)
                return cdyn_fail(r, CDYN_EINVAL,
                                 "Hs is not symmetric: H(%d,%d) = %.17g, H(%d,%d) = %.17g", i, j,
                                 A->values[k], j, i, A->values[t]);
        }
    if (upper != lower)
        return cdyn_fail(r, CDYN_EINVAL,
                         "Hs is not symmetric: %lld entries above the diagonal, %lld below "
                         "(store the lower triangle only, or both)",
                         upper, lower);
    return CDYN_OK;
}

static cdyn_status check_dense_h(const double *H, int n, cdyn_report *r)
{
    const size_t nn = (size_t)n;
    double hmax = 0.0;
    for (size_t j = 0; j < nn; ++j)
        for (size_t i = 0; i < nn; ++i) {
            const double v = H[i + j * nn];
            if (!isfinite(v))
                return cdyn_fail(r, CDYN_EINVAL, "H(%zu,%zu) is not finite", i, j);
            hmax = fmax(hmax, fabs(v));
        }
    for (size_t j = 0; j < nn; ++j)
        for (size_t i = j + 1; i < nn; ++i)
            if (fabs(H[i + j * nn] - H[j + i * nn]) > CQ_SYM_TOL * hmax)
                return cdyn_fail(r, CDYN_EINVAL,
                                 "H is not symmetric: H(%zu,%zu) = %.17g, H(%zu,%zu) = %.17g", i, j,
                                 H[i + j * nn], j, i, H[j + i * nn]);
    return CDYN_OK;
}

cdyn_status cdyn_cq_check_values(const cdyn_coneqp *p, int n, cdyn_report *r)
{
    const int nc = p->ncontacts;
    if (p->mu == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "mu is NULL");
    if (p->c == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "c is NULL");
    for (int i = 0; i < nc; ++i)
        if (!isfinite(p->mu[i]) || p->mu[i] < 0.0)
            return cdyn_fail(r, CDYN_EINVAL, "mu[%d] = %g, must be finite and >= 0", i, p->mu[i]);
    for (int j = 0; j < n; ++j)
        if (!isfinite(p->c[j]))
            return cdyn_fail(r, CDYN_EINVAL, "c[%d] is not finite", j);
    if (p->normal != NULL)
        for (int i = 0; i < nc; ++i) {
            if (!isfinite(p->normal[i]))
                return cdyn_fail(r, CDYN_EINVAL, "normal[%d] is not finite", i);
            if (!isfinite(p->mu[i] * p->normal[i]))
                return cdyn_fail(r, CDYN_EINVAL, "radius mu[%d] * normal[%d] overflows", i, i);
        }
    cdyn_status st = p->H != NULL ? check_dense_h(p->H, n, r) : check_sparse_symmetry(p->Hs, r);
    if (st != CDYN_OK)
        return st;
    if (p->normal != NULL)
        for (int i = 0; i < nc; ++i)
            if (p->mu[i] * p->normal[i] < 0.0)
                return cdyn_fail(r, CDYN_EINFEASIBLE,
                                 "contact %d: disk radius mu * normal = %g * %g < 0 (no tangential "
                                 "force satisfies ||x_t|| <= mu lambda_n)",
                                 i, p->mu[i], p->normal[i]);
    return CDYN_OK;
}
