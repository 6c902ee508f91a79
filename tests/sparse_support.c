#include "sparse_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void test_csc_free(test_csc *t)
{
    free(t->colptr);
    free(t->rowind);
    free(t->values);
    memset(t, 0, sizeof *t);
}

static void alloc(test_csc *t, int nrows, int ncols, int cap)
{
    t->colptr = calloc((size_t)ncols + 1, sizeof(int));
    t->rowind = malloc(sizeof(int) * (size_t)(cap > 0 ? cap : 1));
    t->values = malloc(sizeof(double) * (size_t)(cap > 0 ? cap : 1));
    if (!t->colptr || !t->rowind || !t->values)
        abort(); /* test harness only */
    t->A.nrows = nrows;
    t->A.ncols = ncols;
    t->A.colptr = t->colptr;
    t->A.rowind = t->rowind;
    t->A.values = t->values;
}

/* Entries are appended column by column in increasing row order. */
static void push(test_csc *t, int *nz, int i, double v)
{
    t->rowind[*nz] = i;
    t->values[*nz] = v;
    (*nz)++;
}

static void tridiag(int n, int lower_only, double corner, test_csc *out)
{
    alloc(out, n, n, 3 * n);
    int nz = 0;
    for (int j = 0; j < n; ++j) {
        if (j > 0 && !lower_only)
            push(out, &nz, j - 1, -1.0);
        push(out, &nz, j, (j == 0 || j == n - 1) ? corner : 2.0);
        if (j + 1 < n)
            push(out, &nz, j + 1, -1.0);
        out->colptr[j + 1] = nz;
    }
}

void test_laplacian_1d(int n, int lower_only, test_csc *out)
{
    tridiag(n, lower_only, 2.0, out);
}

void test_laplacian_1d_neumann(int n, int lower_only, test_csc *out)
{
    tridiag(n, lower_only, 1.0, out);
}

/* Column k = (i, j) of a 5-point stencil: rows k-m, k-1, k, k+1, k+m (sorted). The value at row
 * r is the coefficient of unknown k in equation r: for r = k+1 (the east neighbour of k is r's
 * west neighbour) it is r's west coefficient. */
static void stencil(int m, double diag, double west, double east, double south, double north,
                    int lower_only, test_csc *out)
{
    const int N = m * m;
    alloc(out, N, N, 5 * N);
    int nz = 0;
    for (int k = 0; k < N; ++k) {
        const int i = k % m, j = k / m;
        if (j > 0 && !lower_only)
            push(out, &nz, k - m, north); /* k is the north neighbour of k - m */
        if (i > 0 && !lower_only)
            push(out, &nz, k - 1, east);
        push(out, &nz, k, diag);
        if (i + 1 < m)
            push(out, &nz, k + 1, west);
        if (j + 1 < m)
            push(out, &nz, k + m, south);
        out->colptr[k + 1] = nz;
    }
}

void test_laplacian_2d(int m, double shift, int lower_only, test_csc *out)
{
    stencil(m, 4.0 + shift, -1.0, -1.0, -1.0, -1.0, lower_only, out);
}

void test_convdiff_2d(int m, double gamma, double sigma, test_csc *out)
{
    stencil(m, 4.0 + sigma, -1.0 - gamma, -1.0 + gamma, -1.0 - gamma, -1.0 + gamma, 0, out);
}

void test_diagonal(int n, const double *d, test_csc *out)
{
    alloc(out, n, n, n);
    for (int j = 0; j < n; ++j) {
        out->rowind[j] = j;
        out->values[j] = d[j];
        out->colptr[j + 1] = j + 1;
    }
}

void test_csc_scaled_copy(const cdyn_csc *A, double s, test_csc *out)
{
    const int nnz = A->colptr[A->ncols];
    alloc(out, A->nrows, A->ncols, nnz);
    memcpy(out->colptr, A->colptr, sizeof(int) * ((size_t)A->ncols + 1));
    for (int p = 0; p < nnz; ++p) {
        out->rowind[p] = A->rowind[p];
        out->values[p] = s * A->values[p];
    }
}

void test_csc_mul(const cdyn_csc *A, const double *x, double *y)
{
    for (int i = 0; i < A->nrows; ++i)
        y[i] = 0.0;
    for (int j = 0; j < A->ncols; ++j)
        for (int p = A->colptr[j]; p < A->colptr[j + 1]; ++p)
            y[A->rowind[p]] += A->values[p] * x[j];
}

void test_csc_mul_t(const cdyn_csc *A, const double *x, double *y)
{
    for (int j = 0; j < A->ncols; ++j) {
        y[j] = 0.0;
        for (int p = A->colptr[j]; p < A->colptr[j + 1]; ++p)
            y[j] += A->values[p] * x[A->rowind[p]];
    }
}

void test_csc_mul_symlower(const cdyn_csc *A, const double *x, double *y)
{
    for (int i = 0; i < A->nrows; ++i)
        y[i] = 0.0;
    for (int j = 0; j < A->ncols; ++j)
        for (int p = A->colptr[j]; p < A->colptr[j + 1]; ++p) {
            const int i = A->rowind[p];
            if (i < j)
                continue;
            y[i] += A->values[p] * x[j];
            if (i != j)
                y[j] += A->values[p] * x[i];
        }
}

void test_csc_to_dense(const cdyn_csc *A, double *D)
{
    memset(D, 0, sizeof(double) * (size_t)A->nrows * (size_t)A->ncols);
    for (int j = 0; j < A->ncols; ++j)
        for (int p = A->colptr[j]; p < A->colptr[j + 1]; ++p)
            D[A->rowind[p] + (size_t)j * A->nrows] = A->values[p];
}

double test_csc_norm_inf(const cdyn_csc *A, int sym_lower)
{
    double *rows = calloc((size_t)A->nrows + 1, sizeof(double));
    for (int j = 0; j < A->ncols; ++j)
        for (int p = A->colptr[j]; p < A->colptr[j + 1]; ++p) {
            const int i = A->rowind[p];
            if (sym_lower && i < j)
                continue;
            rows[i] += fabs(A->values[p]);
            if (sym_lower && i != j)
                rows[j] += fabs(A->values[p]);
        }
    double r = 0.0;
    for (int i = 0; i < A->nrows; ++i)
        r = fmax(r, rows[i]);
    free(rows);
    return r;
}

double test_norm2(int n, const double *x)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        s += x[i] * x[i];
    return sqrt(s);
}

double test_norm_inf(int n, const double *x)
{
    double r = 0.0;
    for (int i = 0; i < n; ++i)
        r = fmax(r, fabs(x[i]));
    return r;
}

double test_rel_err2(int n, const double *x, const double *y)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        s += (x[i] - y[i]) * (x[i] - y[i]);
    return sqrt(s) / test_norm2(n, y);
}
