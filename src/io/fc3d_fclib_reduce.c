/* FCLib's global problems (M v = H r + f, u = H^T v + w) reduced to the local one the solvers
 * take, W = H^T M^-1 H and q = H^T M^-1 f + w; and the entry lists it and fc3d_fclib.c build. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "io/fc3d_fclib.h"
#include "linalg/csc.h"
#include "linalg/sparse_chol.h"

/* ---- entry lists ----------------------------------------------------------------------------- */

void cdyn_triplets_free(const cdyn_allocator *a, triplets *t)
{
    cdyn_mem_free(a, t->row);
    cdyn_mem_free(a, t->col);
    cdyn_mem_free(a, t->x);
    memset(t, 0, sizeof *t);
}

cdyn_status cdyn_triplets_alloc(const cdyn_allocator *a, size_t count, triplets *t,
                                cdyn_report *report)
{
    memset(t, 0, sizeof *t);
    if (count > INT_MAX)
        return cdyn_fail(report, CDYN_ETOOBIG, "fclib_read: %zu matrix entries", count);
    t->count = (int)count;
    t->row = cdyn_mem_array(a, count > 0 ? count : 1, sizeof(int));
    t->col = cdyn_mem_array(a, count > 0 ? count : 1, sizeof(int));
    t->x = cdyn_mem_array(a, count > 0 ? count : 1, sizeof(double));
    if (t->row == NULL || t->col == NULL || t->x == NULL) {
        cdyn_triplets_free(a, t);
        return cdyn_fail(report, CDYN_ENOMEM, "out of memory for %zu matrix entries", count);
    }
    return CDYN_OK;
}

/* ---- diagonal M ------------------------------------------------------------------------------ */

/* Nonzero when every stored entry of M off the diagonal is 0. */
static int is_diagonal(const triplets *M)
{
    for (int e = 0; e < M->count; ++e)
        if (M->row[e] != M->col[e] && M->x[e] != 0.0)
            return 0;
    return 1;
}

static cdyn_status diagonal_of(const triplets *M, int size, double *diag, cdyn_report *report)
{
    memset(diag, 0, sizeof(double) * (size_t)size);
    for (int e = 0; e < M->count; ++e)
        if (M->row[e] == M->col[e])
            diag[M->row[e]] += M->x[e];
    for (int k = 0; k < size; ++k)
        if (!(diag[k] > 0.0))
            return cdyn_fail(report, CDYN_EFORMAT,
                             "fclib_read: M(%d,%d) = %g: M must be positive definite", k, k,
                             diag[k]);
    return CDYN_OK;
}

/* H's entries bucketed by row (velocity), then every pair in a row: the products
 * H(k,a) H(k,b) / M(k,k) whose sums are W(a,b). */
static cdyn_status reduce_global(const triplets *H, int rows, const double *diag,
                                 const cdyn_allocator *a, triplets *W, cdyn_report *report)
{
    int *start = cdyn_mem_array(a, (size_t)rows + 1, sizeof(int));
    int *fill = cdyn_mem_array(a, (size_t)rows, sizeof(int));
    int *order = cdyn_mem_array(a, H->count > 0 ? (size_t)H->count : 1, sizeof(int));
    cdyn_status st = CDYN_OK;
    if (start == NULL || fill == NULL || order == NULL)
        st = cdyn_fail(report, CDYN_ENOMEM, "out of memory reducing a global problem");
    if (st == CDYN_OK) {
        size_t pairs = 0;
        memset(start, 0, sizeof(int) * ((size_t)rows + 1));
        for (int e = 0; e < H->count; ++e)
            start[H->row[e] + 1]++;
        for (int k = 0; k < rows; ++k) {
            pairs += (size_t)start[k + 1] * (size_t)start[k + 1];
            start[k + 1] += start[k];
            fill[k] = start[k];
        }
        for (int e = 0; e < H->count; ++e)
            order[fill[H->row[e]]++] = e;
        st = cdyn_triplets_alloc(a, pairs, W, report);
    }
    if (st == CDYN_OK) {
        size_t p = 0;
        for (int k = 0; k < rows; ++k)
            for (int s = start[k]; s < start[k + 1]; ++s)
                for (int t = start[k]; t < start[k + 1]; ++t, ++p) {
                    const int ea = order[s], eb = order[t];
                    W->row[p] = H->col[ea];
                    W->col[p] = H->col[eb];
                    W->x[p] = H->x[ea] * H->x[eb] / diag[k];
                }
    }
    cdyn_mem_free(a, order);
    cdyn_mem_free(a, fill);
    cdyn_mem_free(a, start);
    return st;
}

/* q = H^T M^-1 f + w */
static void reduce_q(const triplets *H, const double *diag, const double *f, const double *w, int m,
                     double *q)
{
    memcpy(q, w, sizeof(double) * (size_t)m);
    for (int e = 0; e < H->count; ++e)
        q[H->col[e]] += H->x[e] * (f[H->row[e]] / diag[H->row[e]]);
}

/* ---- general M: a sparse Cholesky factor of M ------------------------------------------------ */

/* Append (r, c, x) to a triplet list of capacity *cap, doubling it when full. */
static int push_triplet(const cdyn_allocator *a, triplets *t, int *cap, int r, int c, double x)
{
    if (t->count == *cap) {
        if (*cap > INT_MAX / 2)
            return 0;
        triplets bigger;
        if (cdyn_triplets_alloc(a, 2 * (size_t)*cap, &bigger, NULL) != CDYN_OK)
            return 0;
        memcpy(bigger.row, t->row, sizeof(int) * (size_t)t->count);
        memcpy(bigger.col, t->col, sizeof(int) * (size_t)t->count);
        memcpy(bigger.x, t->x, sizeof(double) * (size_t)t->count);
        bigger.count = t->count;
        cdyn_triplets_free(a, t);
        *t = bigger;
        *cap *= 2;
    }
    t->row[t->count] = r;
    t->col[t->count] = c;
    t->x[t->count++] = x;
    return 1;
}

/* M as stored must be symmetric (the factorization reads its lower triangle only, so a matrix
 * stored by one triangle, or not symmetric, would be misread). */
static cdyn_status check_symmetric(const cdyn_csc *A, cdyn_report *report)
{
    for (int j = 0; j < A->ncols; ++j)
        for (int k = A->colptr[j]; k < A->colptr[j + 1]; ++k) {
            const int i = A->rowind[k];
            double mirror = 0.0;
            for (int l = A->colptr[i]; l < A->colptr[i + 1]; ++l)
                if (A->rowind[l] == j)
                    mirror = A->values[l];
            const double v = A->values[k];
            if (fabs(v - mirror) > 1e-12 * fmax(fabs(v), fabs(mirror)))
                return cdyn_fail(report, CDYN_EFORMAT,
                                 "fclib_read: M(%d,%d) = %g but M(%d,%d) = %g: M must be stored "
                                 "whole and symmetric",
                                 i, j, v, j, i, mirror);
        }
    return CDYN_OK;
}

typedef struct general_work {
    cdyn_csc_assembly M, H;
    cdyn_sparse_chol *chol;
    double *B;   /* nv x BATCH right-hand sides */
    double *col; /* m: one column of W */
} general_work;

enum { BATCH = 16 };

static cdyn_status general_setup(const triplets *M, const triplets *H, int nv, int m,
                                 const cdyn_allocator *a, general_work *g, cdyn_report *report)
{
    cdyn_status st = cdyn_csc_assembly_init(&g->M, nv, nv, M->count, M->row, M->col, a, report);
    if (st != CDYN_OK)
        return st;
    cdyn_csc_assembly_set_values(&g->M, M->x);
    if ((st = check_symmetric(&g->M.A, report)) != CDYN_OK)
        return st;
    if ((st = cdyn_csc_assembly_init(&g->H, nv, m, H->count, H->row, H->col, a, report)) != CDYN_OK)
        return st;
    cdyn_csc_assembly_set_values(&g->H, H->x);
    if ((st = cdyn_sparse_chol_create(&g->M.A, a, &g->chol, report)) != CDYN_OK)
        return st;
    st = cdyn_sparse_chol_factor(g->chol, &g->M.A, report);
    if (st == CDYN_ESINGULAR || st == CDYN_EINVAL)
        return cdyn_fail(report, CDYN_EFORMAT, "fclib_read: M is not positive definite");
    if (st != CDYN_OK)
        return st;
    g->B = cdyn_mem_array(a, (size_t)nv * BATCH, sizeof(double));
    g->col = cdyn_mem_array(a, (size_t)m, sizeof(double));
    if (g->B == NULL || g->col == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "out of memory reducing a global problem");
    return CDYN_OK;
}

/* W's columns H^T M^-1 H e_j, BATCH at a time, kept by their nonzeros. */
static cdyn_status general_columns(general_work *g, int nv, int m, const cdyn_allocator *a,
                                   triplets *W, cdyn_report *report)
{
    int cap = 1024;
    cdyn_status st = cdyn_triplets_alloc(a, (size_t)cap, W, report);
    W->count = 0;
    for (int j0 = 0; st == CDYN_OK && j0 < m; j0 += BATCH) {
        const int nb = m - j0 < BATCH ? m - j0 : BATCH;
        memset(g->B, 0, sizeof(double) * (size_t)nv * (size_t)nb);
        for (int j = 0; j < nb; ++j)
            for (int k = g->H.A.colptr[j0 + j]; k < g->H.A.colptr[j0 + j + 1]; ++k)
                g->B[g->H.A.rowind[k] + (size_t)nv * j] = g->H.A.values[k];
        if ((st = cdyn_sparse_chol_solve(g->chol, nb, g->B, g->B, report)) != CDYN_OK)
            break;
        for (int j = 0; j < nb && st == CDYN_OK; ++j) {
            cdyn_csc_gemv(1, 1.0, &g->H.A, g->B + (size_t)nv * j, 0.0, g->col);
            for (int i = 0; i < m; ++i)
                if (g->col[i] != 0.0 && !push_triplet(a, W, &cap, i, j0 + j, g->col[i]))
                    st = cdyn_fail(report, CDYN_ENOMEM, "out of memory for the entries of W");
        }
    }
    return st;
}

/* W = H^T M^-1 H, q = H^T M^-1 f + w for a symmetric positive definite M. */
static cdyn_status reduce_general(const triplets *M, const triplets *H, int nv, int m,
                                  const double *f, const double *w, const cdyn_allocator *a,
                                  triplets *W, double *q, cdyn_report *report)
{
    general_work g;
    memset(&g, 0, sizeof g);
    cdyn_status st = general_setup(M, H, nv, m, a, &g, report);
    if (st == CDYN_OK)
        st = general_columns(&g, nv, m, a, W, report);
    if (st == CDYN_OK && (st = cdyn_sparse_chol_solve(g.chol, 1, f, g.B, report)) == CDYN_OK) {
        memcpy(q, w, sizeof(double) * (size_t)m);
        cdyn_csc_gemv(1, 1.0, &g.H.A, g.B, 1.0, q);
    }
    cdyn_mem_free(a, g.col);
    cdyn_mem_free(a, g.B);
    cdyn_sparse_chol_free(g.chol);
    cdyn_csc_assembly_free(&g.H);
    cdyn_csc_assembly_free(&g.M);
    return st;
}

cdyn_status cdyn_fclib_reduce(const triplets *M, const triplets *H, int nv, int m, const double *f,
                              const double *w, const cdyn_allocator *a, triplets *W, double *q,
                              cdyn_report *report)
{
    if (!is_diagonal(M))
        return reduce_general(M, H, nv, m, f, w, a, W, q, report);
    double *diag = cdyn_mem_array(a, (size_t)nv, sizeof(double));
    if (diag == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "out of memory reducing a global problem");
    cdyn_status st = diagonal_of(M, nv, diag, report);
    if (st == CDYN_OK)
        st = reduce_global(H, nv, diag, a, W, report);
    if (st == CDYN_OK)
        reduce_q(H, diag, f, w, m, q);
    cdyn_mem_free(a, diag);
    return st;
}
