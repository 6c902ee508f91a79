/* Test-side sparse matrices: builders for the model problems and plain reference products,
 * written independently of src/linalg/csc.c so they can serve as references. */
#ifndef CDYN_TEST_SPARSE_SUPPORT_H
#define CDYN_TEST_SPARSE_SUPPORT_H

#include "cdyn/sparse.h"

/* A CSC matrix owning its arrays (malloc). */
typedef struct test_csc {
    cdyn_csc A;
    int *colptr, *rowind;
    double *values;
} test_csc;

void test_csc_free(test_csc *t);

/* 1D Laplacian tridiag(-1, 2, -1) of order n. lower_only: store only row >= column. */
void test_laplacian_1d(int n, int lower_only, test_csc *out);
/* 1D Laplacian with Neumann ends (corner entries 1): symmetric positive semidefinite, singular
 * (constant null vector). */
void test_laplacian_1d_neumann(int n, int lower_only, test_csc *out);
/* 2D 5-point Laplacian (4 on the diagonal, -1 to the grid neighbours) on an m-by-m grid,
 * N = m*m unknowns, unknown (i, j) at k = i + m*j; diagonal shifted by `shift`. */
void test_laplacian_2d(int m, double shift, int lower_only, test_csc *out);
/* 2D convection-diffusion-reaction, central differences, scaled by h^2: diagonal 4 + sigma,
 * east/north -1 + gamma, west/south -1 - gamma (gamma = cell Peclet number / 2). For
 * |gamma| <= 1 every row and column is diagonally dominant with margin >= sigma. */
void test_convdiff_2d(int m, double gamma, double sigma, test_csc *out);
/* Diagonal matrix. */
void test_diagonal(int n, const double *d, test_csc *out);
/* Copy of A's pattern with every value multiplied by s. */
void test_csc_scaled_copy(const cdyn_csc *A, double s, test_csc *out);

/* y = A x (plain loop), y = A^T x, and y = S x for S symmetric given by its lower triangle. */
void test_csc_mul(const cdyn_csc *A, const double *x, double *y);
void test_csc_mul_t(const cdyn_csc *A, const double *x, double *y);
void test_csc_mul_symlower(const cdyn_csc *A, const double *x, double *y);
/* Dense column-major copy (nrows x ncols). */
void test_csc_to_dense(const cdyn_csc *A, double *D);
/* ||A||_inf (max absolute row sum); sym_lower: of the symmetric matrix the lower triangle
 * represents. */
double test_csc_norm_inf(const cdyn_csc *A, int sym_lower);

/* ||x - y||_2 / ||y||_2 and ||x||_2. */
double test_rel_err2(int n, const double *x, const double *y);
double test_norm2(int n, const double *x);
double test_norm_inf(int n, const double *x);

#endif
