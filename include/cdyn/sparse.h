/* cdyn — sparse matrices in compressed sparse column (CSC) form.
 *
 * cdyn_csc is a view: it points at arrays the caller owns and never copies or frees them.
 * Column j holds the entries  rowind[k], values[k]  for  colptr[j] <= k < colptr[j+1].
 * A valid matrix (what cdyn_csc_check accepts) has
 *   nrows >= 0, ncols >= 0, colptr[0] = 0, colptr nondecreasing (ncols + 1 entries),
 *   nnz = colptr[ncols] entries, row indices in [0, nrows), strictly increasing within each
 *   column (sorted, no duplicates), and finite values.
 * Indices are 0-based ints, as SuiteSparse's int interface expects.
 *
 * Symmetric matrices given to a Cholesky factorization use their lower triangle only (entries
 * with row >= column); entries above the diagonal, if stored, are ignored.
 *
 * Thread safety: cdyn_csc_check only reads its argument. */
#ifndef CDYN_SPARSE_H
#define CDYN_SPARSE_H

#include "cdyn/status.h"

#include "cdyn/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cdyn_csc {
    int nrows, ncols;
    const int *colptr;    /* ncols + 1 */
    const int *rowind;    /* colptr[ncols] */
    const double *values; /* colptr[ncols] */
} cdyn_csc;

/* CDYN_OK when A is a valid CSC matrix as described above, else CDYN_EINVAL with the first
 * offending column / entry in report->message. report may be NULL. */
CDYN_API cdyn_status cdyn_csc_check(const cdyn_csc *A, cdyn_report *report);

#ifdef __cplusplus
}
#endif
#endif
