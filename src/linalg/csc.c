#include "linalg/csc.h"

#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"

cdyn_status cdyn_csc_check_pattern(const cdyn_csc *A, int check_values, cdyn_report *report)
{
    if (A == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "CSC matrix is NULL");
    if (A->nrows < 0 || A->ncols < 0)
        return cdyn_fail(report, CDYN_EINVAL, "CSC size %d x %d is negative", A->nrows,
                         A->ncols);
    if (A->colptr == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "CSC colptr is NULL");
    if (A->colptr[0] != 0)
        return cdyn_fail(report, CDYN_EINVAL, "CSC colptr[0] = %d, must be 0", A->colptr[0]);
    for (int j = 0; j < A->ncols; ++j)
        if (A->colptr[j + 1] < A->colptr[j])
            return cdyn_fail(report, CDYN_EINVAL, "CSC colptr decreases at column %d (%d > %d)",
                             j, A->colptr[j], A->colptr[j + 1]);
    const int nnz = A->colptr[A->ncols];
    if (nnz > 0 && A->rowind == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "CSC rowind is NULL with %d entries", nnz);
    if (check_values && nnz > 0 && A->values == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "CSC values is NULL with %d entries", nnz);
    for (int j = 0; j < A->ncols; ++j) {
        for (int p = A->colptr[j]; p < A->colptr[j + 1]; ++p) {
            const int i = A->rowind[p];
            if (i < 0 || i >= A->nrows)
                return cdyn_fail(report, CDYN_EINVAL,
                                 "CSC row index %d out of range [0, %d) in column %d", i,
                                 A->nrows, j);
            if (p > A->colptr[j] && i <= A->rowind[p - 1])
                return cdyn_fail(report, CDYN_EINVAL,
                                 "CSC row indices not strictly increasing in column %d "
                                 "(%d after %d: unsorted or duplicate)",
                                 j, i, A->rowind[p - 1]);
            if (check_values && !isfinite(A->values[p]))
                return cdyn_fail(report, CDYN_EINVAL, "CSC value at (%d, %d) is not finite", i,
                                 j);
        }
    }
    return CDYN_OK;
}

cdyn_status cdyn_csc_check(const cdyn_csc *A, cdyn_report *report)
{
    cdyn_report_clear(report, "csc_check");
    return cdyn_csc_check_pattern(A, 1, report);
}

int cdyn_csc_has_pattern(const cdyn_csc *A, int nrows, int ncols, const int *colptr,
                         const int *rowind)
{
    if (A->nrows != nrows || A->ncols != ncols)
        return 0;
    if (memcmp(A->colptr, colptr, sizeof(int) * ((size_t)ncols + 1)) != 0)
        return 0;
    const size_t nnz = (size_t)colptr[ncols];
    return nnz == 0 || memcmp(A->rowind, rowind, sizeof(int) * nnz) == 0;
}

static void scale(int n, double beta, double *y)
{
    if (beta == 0.0)
        memset(y, 0, sizeof(double) * (size_t)n);
    else if (beta != 1.0)
        for (int i = 0; i < n; ++i)
            y[i] *= beta;
}

void cdyn_csc_gemv(int trans, double alpha, const cdyn_csc *A, const double *x, double beta,
                   double *y)
{
    const int *cp = A->colptr, *ri = A->rowind;
    const double *v = A->values;
    if (!trans) {
        scale(A->nrows, beta, y);
        for (int j = 0; j < A->ncols; ++j) {
            const double ax = alpha * x[j];
            for (int p = cp[j]; p < cp[j + 1]; ++p)
                y[ri[p]] += v[p] * ax;
        }
    } else {
        for (int j = 0; j < A->ncols; ++j) {
            double s = 0.0;
            for (int p = cp[j]; p < cp[j + 1]; ++p)
                s += v[p] * x[ri[p]];
            y[j] = (beta == 0.0 ? 0.0 : beta * y[j]) + alpha * s;
        }
    }
}

void cdyn_csc_symv_lower(double alpha, const cdyn_csc *A, const double *x, double beta,
                         double *y)
{
    const int *cp = A->colptr, *ri = A->rowind;
    const double *v = A->values;
    scale(A->nrows, beta, y);
    for (int j = 0; j < A->ncols; ++j) {
        double s = 0.0; /* row j of the upper part = column j of the lower part, transposed */
        for (int p = cp[j]; p < cp[j + 1]; ++p) {
            const int i = ri[p];
            if (i < j)
                continue;
            y[i] += alpha * v[p] * x[j];
            if (i > j)
                s += v[p] * x[i];
        }
        y[j] += alpha * s;
    }
}

cdyn_status cdyn_csc_pattern_from_triplets(int nrows, int ncols, int ntriplets, const int *ti,
                                           const int *tj, int *colptr, int *rowind, int *map,
                                           const cdyn_allocator *allocator, cdyn_report *report)
{
    if (nrows < 0 || ncols < 0 || ntriplets < 0)
        return cdyn_fail(report, CDYN_EINVAL, "triplets: negative size (%d x %d, %d entries)",
                         nrows, ncols, ntriplets);
    if (colptr == NULL ||
        (ntriplets > 0 && (ti == NULL || tj == NULL || rowind == NULL || map == NULL)))
        return cdyn_fail(report, CDYN_EINVAL, "triplets: NULL array");
    for (int k = 0; k < ntriplets; ++k)
        if (ti[k] < 0 || ti[k] >= nrows || tj[k] < 0 || tj[k] >= ncols)
            return cdyn_fail(report, CDYN_EINVAL,
                             "triplet %d at (%d, %d) is outside the %d x %d matrix", k, ti[k],
                             tj[k], nrows, ncols);

    /* Two stable counting sorts (by row, then by column) leave the triplets ordered by column
       and, within a column, by row; equal positions are then adjacent. */
    const int nb = (nrows > ncols ? nrows : ncols) + 1;
    int *work = cdyn_mem_array(allocator, (size_t)nb + (size_t)ntriplets, sizeof(int));
    if (work == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "triplets: out of memory for workspace");
    int *start = work;            /* nb bucket cursors */
    int *by_col = work + nb;      /* ntriplets, the final order */
    int *by_row = map;            /* ntriplets, reuses map until the map is written */

    memset(start, 0, sizeof(int) * (size_t)nb);
    for (int k = 0; k < ntriplets; ++k)
        start[ti[k] + 1]++;
    for (int i = 0; i < nrows; ++i)
        start[i + 1] += start[i];
    for (int k = 0; k < ntriplets; ++k)
        by_row[start[ti[k]]++] = k;

    memset(colptr, 0, sizeof(int) * ((size_t)ncols + 1));
    for (int k = 0; k < ntriplets; ++k)
        colptr[tj[k] + 1]++;
    for (int j = 0; j < ncols; ++j)
        colptr[j + 1] += colptr[j];
    memcpy(start, colptr, sizeof(int) * (size_t)ncols);
    for (int q = 0; q < ntriplets; ++q) {
        const int k = by_row[q];
        by_col[start[tj[k]]++] = k;
    }

    /* Merge duplicates column by column; colptr switches from triplet to entry counts. */
    int nnz = 0, begin = 0;
    for (int j = 0; j < ncols; ++j) {
        const int end = colptr[j + 1];
        const int first = nnz;
        for (int q = begin; q < end; ++q) {
            const int k = by_col[q];
            if (nnz == first || rowind[nnz - 1] != ti[k])
                rowind[nnz++] = ti[k];
            map[k] = nnz - 1;
        }
        colptr[j + 1] = nnz;
        begin = end;
    }
    cdyn_mem_free(allocator, work);
    return CDYN_OK;
}

void cdyn_csc_values_from_triplets(int ntriplets, const int *map, const double *tx, int nnz,
                                   double *values)
{
    if (nnz > 0)
        memset(values, 0, sizeof(double) * (size_t)nnz);
    for (int k = 0; k < ntriplets; ++k)
        values[map[k]] += tx[k];
}

cdyn_status cdyn_csc_assembly_init(cdyn_csc_assembly *as, int nrows, int ncols, int ntriplets,
                                   const int *ti, const int *tj, const cdyn_allocator *allocator,
                                   cdyn_report *report)
{
    cdyn_report_clear(report, "csc_assembly");
    if (as == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "triplets: assembly is NULL");
    memset(as, 0, sizeof *as);
    if (nrows < 0 || ncols < 0 || ntriplets < 0)
        return cdyn_fail(report, CDYN_EINVAL, "triplets: negative size (%d x %d, %d entries)",
                         nrows, ncols, ntriplets);
    cdyn_csc_assembly a = {0};
    a.allocator = allocator;
    a.ntriplets = ntriplets;
    a.colptr = cdyn_mem_array(allocator, (size_t)ncols + 1, sizeof(int));
    a.rowind = cdyn_mem_array(allocator, (size_t)ntriplets, sizeof(int));
    a.values = cdyn_mem_array(allocator, (size_t)ntriplets, sizeof(double));
    a.map = cdyn_mem_array(allocator, (size_t)ntriplets, sizeof(int));
    cdyn_status st = CDYN_ENOMEM;
    if (a.colptr == NULL || a.rowind == NULL || a.values == NULL || a.map == NULL)
        cdyn_fail(report, st, "triplets: out of memory");
    else
        st = cdyn_csc_pattern_from_triplets(nrows, ncols, ntriplets, ti, tj, a.colptr, a.rowind,
                                            a.map, allocator, report);
    if (st != CDYN_OK) {
        cdyn_csc_assembly_free(&a);
        return st;
    }
    a.A.nrows = nrows;
    a.A.ncols = ncols;
    a.A.colptr = a.colptr;
    a.A.rowind = a.rowind;
    a.A.values = a.values;
    memset(a.values, 0, sizeof(double) * (size_t)a.colptr[ncols]);
    *as = a;
    return CDYN_OK;
}

void cdyn_csc_assembly_set_values(cdyn_csc_assembly *as, const double *tx)
{
    cdyn_csc_values_from_triplets(as->ntriplets, as->map, tx, as->colptr[as->A.ncols],
                                  as->values);
}

void cdyn_csc_assembly_free(cdyn_csc_assembly *as)
{
    if (as == NULL)
        return;
    cdyn_mem_free(as->allocator, as->colptr);
    cdyn_mem_free(as->allocator, as->rowind);
    cdyn_mem_free(as->allocator, as->values);
    cdyn_mem_free(as->allocator, as->map);
    memset(as, 0, sizeof *as);
}
