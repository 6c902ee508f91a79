/* Internal: helpers on the public CSC view (include/cdyn/sparse.h) — structural checks,
 * assembly from triplets, and matrix-vector products. No SuiteSparse here. */
#ifndef CDYN_LINALG_CSC_H
#define CDYN_LINALG_CSC_H

#include "cdyn/alloc.h"
#include "cdyn/sparse.h"

/* cdyn_csc_check without the value test when check_values == 0 (then values may be NULL):
 * what a symbolic analysis needs. */
cdyn_status cdyn_csc_check_pattern(const cdyn_csc *A, int check_values, cdyn_report *report);

/* Nonzero when A's dimensions equal (nrows, ncols) and its pattern equals (colptr, rowind). */
int cdyn_csc_has_pattern(const cdyn_csc *A, int nrows, int ncols, const int *colptr,
                         const int *rowind);

/* Position of entry (i, j) in a pattern whose columns hold sorted row indices (binary search),
 * or -1 when the pattern has no such entry. */
static inline int cdyn_csc_find(const int *colptr, const int *rowind, int i, int j)
{
    int lo = colptr[j], hi = colptr[j + 1] - 1;
    while (lo <= hi) {
        const int mid = lo + (hi - lo) / 2;
        if (rowind[mid] < i)
            lo = mid + 1;
        else if (rowind[mid] > i)
            hi = mid - 1;
        else
            return mid;
    }
    return -1;
}

/* y := alpha*op(A)*x + beta*y with op(A) = A (trans == 0, y has nrows entries) or A^T
 * (y has ncols entries). beta == 0 overwrites y without reading it. A must be valid. */
void cdyn_csc_gemv(int trans, double alpha, const cdyn_csc *A, const double *x, double beta,
                   double *y);

/* y := alpha*S*x + beta*y for the symmetric S whose lower triangle is stored in the square A
 * (entries above the diagonal are ignored, as in the Cholesky wrapper). */
void cdyn_csc_symv_lower(double alpha, const cdyn_csc *A, const double *x, double beta,
                         double *y);

/* ---- assembly from triplets ---------------------------------------------------------------
 * Triplet k contributes tx[k] at (ti[k], tj[k]); repeated positions are summed. The pattern is
 * computed once, and a map from triplets to CSC positions lets every later set of values be
 * assembled in O(ntriplets) without allocation (the Newton-iteration use). */

/* Pattern of an nrows-by-ncols matrix from ntriplets positions, into caller arrays: colptr
 * (ncols + 1), rowind (capacity ntriplets; colptr[ncols] of them are used, sorted within each
 * column, no duplicates), map (ntriplets: position of triplet k in the CSC arrays).
 * Temporary workspace (max(nrows, ncols) + 1 + ntriplets ints) comes from allocator.
 * CDYN_EINVAL for negative sizes, NULL arrays or an index out of range; CDYN_ENOMEM. Outputs are
 * written only on success. */
cdyn_status cdyn_csc_pattern_from_triplets(int nrows, int ncols, int ntriplets, const int *ti,
                                           const int *tj, int *colptr, int *rowind, int *map,
                                           const cdyn_allocator *allocator, cdyn_report *report);

/* values[p] := sum of tx[k] over the triplets with map[k] == p; values has nnz entries. */
void cdyn_csc_values_from_triplets(int ntriplets, const int *map, const double *tx, int nnz,
                                   double *values);

/* An owned CSC matrix built from triplets: the pattern and map at init, values per set_values. */
typedef struct cdyn_csc_assembly {
    cdyn_csc A;        /* view on the arrays below; usable once set_values has run */
    int *colptr;       /* ncols + 1 */
    int *rowind;       /* capacity ntriplets */
    double *values;    /* capacity ntriplets, nnz = colptr[ncols] used */
    int *map;          /* ntriplets */
    int ntriplets;
    const cdyn_allocator *allocator; /* kept for _free; must outlive the assembly */
} cdyn_csc_assembly;

/* Allocate and compute the pattern. On failure *as is zeroed and nothing stays allocated. */
cdyn_status cdyn_csc_assembly_init(cdyn_csc_assembly *as, int nrows, int ncols, int ntriplets,
                                   const int *ti, const int *tj, const cdyn_allocator *allocator,
                                   cdyn_report *report);
/* Assemble values from tx (ntriplets entries, duplicates summed). */
void cdyn_csc_assembly_set_values(cdyn_csc_assembly *as, const double *tx);
/* Free the arrays; accepts NULL and a zeroed struct. */
void cdyn_csc_assembly_free(cdyn_csc_assembly *as);

#endif
