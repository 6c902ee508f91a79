/* Dense helpers (src/linalg/dense.c) against known results.
 *
 * Sources of the expected values:
 *  - small products and solves: computed by hand in the comments;
 *  - Pascal matrix P_ij = C(i+j, i) (0-based): P = L L^T with the lower Pascal matrix
 *    L_ij = C(i, j), so det P = 1, chol(P) = L, and P^{-1} = L^{-T} L^{-1} with
 *    (L^{-1})_ij = (-1)^(i+j) C(i, j) (Edelman & Strang, "Pascal matrices",
 *    Amer. Math. Monthly 111 (2004) 189-197);
 *  - Hilbert matrix H_ij = 1/(i+j-1) (1-based): det H_n = c_n^4 / c_2n with c_n = prod_{k<n} k!,
 *    and (H^{-1})_ij = (-1)^(i+j) (i+j-1) C(n+i-1, n-j) C(n+j-1, n-i) C(i+j-2, i-1)^2
 *    (M.-D. Choi, "Tricks or treats with the Hilbert matrix", Amer. Math. Monthly 90 (1983)
 *    301-312);
 *  - random matrices: the normwise backward error of LU with partial pivoting and of Cholesky is
 *    O(n u) (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Thms 9.4, 10.3),
 *    and the forward error of a backward-stable solve is bounded by cond * backward error. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "linalg/dense.h"
#include "support.h"

#define EPS DBL_EPSILON

/* Binomial coefficient, exact in double for the small arguments used here. */
static double binom(int n, int k)
{
    if (k < 0 || k > n)
        return 0.0;
    double r = 1.0;
    for (int i = 1; i <= k; ++i)
        r = r * (n - k + i) / i;
    return round(r);
}

static double max_abs_diff(int n, const double *a, const double *b)
{
    double r = 0.0;
    for (int i = 0; i < n; ++i)
        r = fmax(r, fabs(a[i] - b[i]));
    return r;
}

static void identity(int n, double *I)
{
    memset(I, 0, sizeof(double) * (size_t)n * (size_t)n);
    for (int i = 0; i < n; ++i)
        I[i + (size_t)i * n] = 1.0;
}

/* ---- products ------------------------------------------------------------------------ */

/* A = [1 2 3; 4 5 6] column-major. */
static const double A23[6] = {1, 4, 2, 5, 3, 6};

static void test_gemv_hand(void **state)
{
    (void)state;
    /* A x with x = (1, -1, 2): (1 - 2 + 6, 4 - 5 + 12) = (5, 11); 2 A x - y0 with y0 = (1, 1)
       is (9, 21). */
    const double x[3] = {1, -1, 2};
    double y[2] = {1, 1};
    cdyn_dense_gemv(2, 3, 2.0, A23, 2, x, -1.0, y);
    assert_true(y[0] == 9.0 && y[1] == 21.0);
    /* beta = 0 must not read y: NaN in y is discarded. */
    double z[2] = {NAN, NAN};
    cdyn_dense_gemv(2, 3, 1.0, A23, 2, x, 0.0, z);
    assert_true(z[0] == 5.0 && z[1] == 11.0);
    /* A^T w with w = (1, 2): (1 + 8, 2 + 10, 3 + 12) = (9, 12, 15). */
    const double w[2] = {1, 2};
    double t[3] = {NAN, NAN, NAN};
    cdyn_dense_gemv_t(2, 3, 1.0, A23, 2, w, 0.0, t);
    assert_true(t[0] == 9.0 && t[1] == 12.0 && t[2] == 15.0);
    /* Empty inner dimension: y := beta y, and beta = 0 clears NaN. */
    double e[2] = {NAN, 3.0};
    cdyn_dense_gemv(2, 0, 1.0, A23, 2, x, 0.0, e);
    assert_true(e[0] == 0.0 && e[1] == 0.0);
    double f[3] = {1.0, 2.0, 3.0};
    cdyn_dense_gemv_t(0, 3, 1.0, A23, 1, w, 2.0, f);
    assert_true(f[0] == 2.0 && f[1] == 4.0 && f[2] == 6.0);
}

static void test_gemm_ger_hand(void **state)
{
    (void)state;
    /* A A^T = [1+4+9, 4+10+18; ., 16+25+36] = [14 32; 32 77]. */
    double C[4] = {NAN, NAN, NAN, NAN};
    cdyn_dense_gemm(0, 1, 2, 2, 3, 1.0, A23, 2, A23, 2, 0.0, C, 2);
    const double AAt[4] = {14, 32, 32, 77};
    assert_true(max_abs_diff(4, C, AAt) == 0.0);
    /* A^T A: column dot products 17 22 27 / 29 36 / 45. */
    double D[9];
    cdyn_dense_gemm(1, 0, 3, 3, 2, 1.0, A23, 2, A23, 2, 0.0, D, 3);
    const double AtA[9] = {17, 22, 27, 22, 29, 36, 27, 36, 45};
    assert_true(max_abs_diff(9, D, AtA) == 0.0);
    /* k = 0: C := beta C. */
    cdyn_dense_gemm(0, 0, 2, 2, 0, 1.0, A23, 2, A23, 1, 0.5, C, 2);
    const double half[4] = {7, 16, 16, 38.5};
    assert_true(max_abs_diff(4, C, half) == 0.0);
    /* ger: 0 + (1, 2)(3, 4)^T = [3 4; 6 8]. */
    double G[4] = {0, 0, 0, 0};
    const double u[2] = {1, 2}, v[2] = {3, 4};
    cdyn_dense_ger(2, 2, 1.0, u, v, G, 2);
    const double uvT[4] = {3, 6, 4, 8};
    assert_true(max_abs_diff(4, G, uvT) == 0.0);
}

/* All four transpose combinations against a plain triple loop, with leading dimensions larger
 * than the row counts. Bound: |fl(a.b) - a.b| <= k u |a|.|b| (Higham Eq. 3.5). */
static void test_gemm_random_against_loops(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 7);
    const int m = 7, n = 5, k = 9, ld = 11;
    double A[11 * 11], B[11 * 11], C[11 * 11], R[7 * 5];
    for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 2; ++tb) {
            for (int i = 0; i < ld * ld; ++i) {
                A[i] = test_rng_range(&rng, -1, 1);
                B[i] = test_rng_range(&rng, -1, 1);
                C[i] = test_rng_range(&rng, -1, 1);
            }
            double bound = 0.0;
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < m; ++i) {
                    double s = 0.0, sa = 0.0;
                    for (int p = 0; p < k; ++p) {
                        double a = ta ? A[p + i * ld] : A[i + p * ld];
                        double b = tb ? B[j + p * ld] : B[p + j * ld];
                        s += a * b;
                        sa += fabs(a * b);
                    }
                    R[i + j * m] = 2.0 * s - 0.5 * C[i + j * ld];
                    bound = fmax(bound, 2.0 * sa + 0.5 * fabs(C[i + j * ld]));
                }
            cdyn_dense_gemm(ta, tb, m, n, k, 2.0, A, ld, B, ld, -0.5, C, ld);
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < m; ++i)
                    assert_true(fabs(C[i + j * ld] - R[i + j * m]) <= 2.0 * (k + 2) * EPS * bound);
        }
}

static void test_norms(void **state)
{
    (void)state;
    /* [1 -2; 3 4]: column sums 4 and 6. */
    const double A[4] = {1, 3, -2, 4};
    assert_true(cdyn_dense_norm1(2, 2, A, 2) == 6.0);
    assert_true(cdyn_dense_norm1(0, 2, A, 2) == 0.0);
    const double x[3] = {1, -7, 3};
    assert_true(cdyn_dense_norm_inf(3, x) == 7.0);
    const double y[3] = {1, NAN, 30};
    assert_true(isnan(cdyn_dense_norm_inf(3, y)));
    assert_false(cdyn_dense_all_finite(3, y));
    assert_true(cdyn_dense_all_finite(3, x));
}

/* ---- LU ------------------------------------------------------------------------------ */

static void test_lu_hand(void **state)
{
    (void)state;
    /* A = [2 1 1; 4 -6 0; -2 7 2], x = (1, 1, 2): b = (2+1+2, 4-6+0, -2+7+4) = (5, -2, 9).
       det A by the first row: 2(-12 - 0) - 1(8 - 0) + 1(28 - 12) = -16.
       A^T y with y = (1, 2, 3): (2+8-6, 1-12+21, 1+0+6) = (4, 10, 7). */
    double A[9] = {2, 4, -2, 1, -6, 7, 1, 0, 2};
    int ipiv[3];
    assert_int_equal(cdyn_dense_lu(3, A, 3, ipiv), CDYN_OK);
    double b[3] = {5, -2, 9};
    cdyn_dense_lu_solve(0, 3, A, 3, ipiv, 1, b, 3);
    const double x[3] = {1, 1, 2};
    assert_true(max_abs_diff(3, b, x) <= 8 * EPS);
    double c[3] = {4, 10, 7};
    cdyn_dense_lu_solve(1, 3, A, 3, ipiv, 1, c, 3);
    const double y[3] = {1, 2, 3};
    assert_true(max_abs_diff(3, c, y) <= 8 * EPS);
    assert_true(fabs(cdyn_dense_lu_det(3, A, 3, ipiv) + 16.0) <= 16 * 8 * EPS);
}

/* P_ij = C(i+j, i); its inverse from the Pascal factorization (see the file comment). */
static void pascal(int n, double *P, double *Pinv, double *L)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            P[i + j * n] = binom(i + j, i);
            L[i + j * n] = binom(i, j);
            double s = 0.0; /* (L^{-T} L^{-1})_ij = sum_k (L^{-1})_ki (L^{-1})_kj */
            for (int k = 0; k < n; ++k)
                s += (((k + i) % 2) ? -1.0 : 1.0) * binom(k, i) * (((k + j) % 2) ? -1.0 : 1.0) *
                     binom(k, j);
            Pinv[i + j * n] = s;
        }
}

static double max_abs(int n, const double *x)
{
    return cdyn_dense_norm_inf(n, x);
}

static void test_pascal(void **state)
{
    (void)state;
    enum { N = 8 };
    double P[N * N], Pinv[N * N], Lx[N * N], F[N * N], X[N * N];
    int ipiv[N];
    pascal(N, P, Pinv, Lx);
    /* Exact 1-norm condition number from the exact inverse. */
    const double kappa = cdyn_dense_norm1(N, N, P, N) * cdyn_dense_norm1(N, N, Pinv, N);
    const double tol = 10.0 * N * kappa * EPS;

    memcpy(F, P, sizeof F);
    assert_int_equal(cdyn_dense_lu(N, F, N, ipiv), CDYN_OK);
    assert_true(fabs(cdyn_dense_lu_det(N, F, N, ipiv) - 1.0) <= tol);
    identity(N, X);
    cdyn_dense_lu_solve(0, N, F, N, ipiv, N, X, N);
    assert_true(max_abs_diff(N * N, X, Pinv) <= tol * max_abs(N * N, Pinv));
    double work[4 * N];
    int iwork[N];
    double rc = cdyn_dense_lu_rcond(N, F, N, cdyn_dense_norm1(N, N, P, N), work, iwork);
    /* dgecon's estimate of ||A^-1||_1 is a lower bound (Hager/Higham), so rcond >= 1/kappa, and
       the estimator is documented as almost always within a factor 3 (Higham 1988). */
    assert_true(rc >= (1.0 - 1e-6) / kappa && rc <= 3.0 / kappa);

    memcpy(F, P, sizeof F);
    assert_int_equal(cdyn_dense_chol(N, F, N), CDYN_OK);
    for (int j = 0; j < N; ++j) /* the lower triangle of F is the lower Pascal matrix */
        for (int i = j; i < N; ++i)
            assert_true(fabs(F[i + j * N] - Lx[i + j * N]) <= tol * max_abs(N * N, Lx));
    identity(N, X);
    cdyn_dense_chol_solve(N, F, N, N, X, N);
    assert_true(max_abs_diff(N * N, X, Pinv) <= tol * max_abs(N * N, Pinv));
}

static void hilbert(int n, double *H, double *Hinv)
{
    for (int j = 1; j <= n; ++j)
        for (int i = 1; i <= n; ++i) {
            H[(i - 1) + (j - 1) * n] = 1.0 / (i + j - 1);
            double c = binom(i + j - 2, i - 1);
            Hinv[(i - 1) + (j - 1) * n] = (((i + j) % 2) ? -1.0 : 1.0) * (i + j - 1) *
                                          binom(n + i - 1, n - j) * binom(n + j - 1, n - i) * c *
                                          c;
        }
}

static void test_hilbert(void **state)
{
    (void)state;
    enum { N = 6 };
    double H[N * N], Hinv[N * N], F[N * N], X[N * N];
    int ipiv[N];
    hilbert(N, H, Hinv);
    const double kappa = cdyn_dense_norm1(N, N, H, N) * cdyn_dense_norm1(N, N, Hinv, N);
    const double tol = 10.0 * N * kappa * EPS;
    /* det H_n = c_n^4 / c_2n, c_m = prod_{k=1}^{m-1} k!. */
    double cn = 1.0, c2n = 1.0, fact = 1.0;
    for (int k = 1; k < 2 * N; ++k) {
        fact *= k;
        c2n *= fact;
        if (k < N)
            cn *= fact;
    }
    const double det = cn * cn * cn * cn / c2n;

    memcpy(F, H, sizeof F);
    assert_int_equal(cdyn_dense_lu(N, F, N, ipiv), CDYN_OK);
    assert_true(fabs(cdyn_dense_lu_det(N, F, N, ipiv) - det) <= tol * det);
    identity(N, X);
    cdyn_dense_lu_solve(0, N, F, N, ipiv, N, X, N);
    assert_true(max_abs_diff(N * N, X, Hinv) <= tol * max_abs(N * N, Hinv));
    double work[4 * N];
    int iwork[N];
    double rc = cdyn_dense_lu_rcond(N, F, N, cdyn_dense_norm1(N, N, H, N), work, iwork);
    assert_true(rc >= (1.0 - 1e-6) / kappa && rc <= 3.0 / kappa);

    memcpy(F, H, sizeof F);
    assert_int_equal(cdyn_dense_chol(N, F, N), CDYN_OK);
    identity(N, X);
    cdyn_dense_chol_solve(N, F, N, N, X, N);
    assert_true(max_abs_diff(N * N, X, Hinv) <= tol * max_abs(N * N, Hinv));
}

static void test_lu_singular_and_invalid(void **state)
{
    (void)state;
    /* [1 2; 2 4]: pivot 2, multiplier 1/2, second pivot 2 - (1/2)4 = 0 exactly. */
    double A[4] = {1, 2, 2, 4};
    int ipiv[3];
    assert_int_equal(cdyn_dense_lu(2, A, 2, ipiv), CDYN_ESINGULAR);
    /* A zero column gives a zero pivot whatever the row order. */
    double B[9] = {1, 2, 3, 0, 0, 0, 4, 5, 7};
    assert_int_equal(cdyn_dense_lu(3, B, 3, ipiv), CDYN_ESINGULAR);
    /* A singular factor has reciprocal condition 0. */
    double work[12];
    int iwork[3];
    assert_true(cdyn_dense_lu_rcond(3, B, 3, 10.0, work, iwork) == 0.0);
    /* NaN: rejected before LAPACK touches the matrix. */
    double C[4] = {1, NAN, 0, 1};
    assert_int_equal(cdyn_dense_lu(2, C, 2, ipiv), CDYN_EINVAL);
    assert_true(C[0] == 1.0 && isnan(C[1]) && C[2] == 0.0 && C[3] == 1.0);
    double D[4] = {1, 0, INFINITY, 1};
    assert_int_equal(cdyn_dense_lu(2, D, 2, ipiv), CDYN_EINVAL);
}

/* ---- Cholesky ------------------------------------------------------------------------ */

static void test_chol_hand(void **state)
{
    (void)state;
    /* A = [4 2; 2 3] = L L^T with L = [2 0; 1 sqrt(2)] (4 = 2^2, 2 = 2*1, 3 = 1 + 2).
       b = A (1, -1) = (2, -1). The strict upper triangle is not read: it holds NaN. */
    double A[4] = {4, 2, NAN, 3};
    assert_int_equal(cdyn_dense_chol(2, A, 2), CDYN_OK);
    assert_true(A[0] == 2.0 && A[1] == 1.0 && fabs(A[3] - sqrt(2.0)) <= EPS);
    assert_true(isnan(A[2]));
    double b[2] = {2, -1};
    cdyn_dense_chol_solve(2, A, 2, 1, b, 2);
    assert_true(fabs(b[0] - 1.0) <= 4 * EPS && fabs(b[1] + 1.0) <= 4 * EPS);
    /* Half solve: L^{-1} (2, 1+sqrt 2) = (1, 1) since L (1, 1) = (2, 1 + sqrt 2). */
    double c[2] = {2, 1 + sqrt(2.0)};
    cdyn_dense_chol_lsolve(2, A, 2, 1, c, 2);
    assert_true(fabs(c[0] - 1.0) <= 4 * EPS && fabs(c[1] - 1.0) <= 4 * EPS);
}

static void test_chol_not_positive_definite(void **state)
{
    (void)state;
    /* [1 2; 2 1] has eigenvalues 3 and -1: the second pivot is 1 - 2^2 = -3. */
    double A[4] = {1, 2, 2, 1};
    assert_int_equal(cdyn_dense_chol(2, A, 2), CDYN_ESINGULAR);
    /* Positive semidefinite but singular: [1 1; 1 1], second pivot 1 - 1 = 0. */
    double B[4] = {1, 1, 1, 1};
    assert_int_equal(cdyn_dense_chol(2, B, 2), CDYN_ESINGULAR);
    /* A large SPD matrix with one negative diagonal entry in a late column (blocked code path):
       diag(n) + 0.01 off the diagonal is diagonally dominant except at the modified entry. */
    enum { N = 300 };
    double *G = malloc(sizeof(double) * N * N);
    assert_non_null(G);
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i)
            G[i + j * N] = (i == j) ? N : 0.01;
    G[250 + 250 * N] = -5.0;
    assert_int_equal(cdyn_dense_chol(N, G, N), CDYN_ESINGULAR);
    /* NaN in the lower triangle: rejected, matrix untouched (OpenBLAS alone reports success). */
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i)
            G[i + j * N] = (i == j) ? N : 0.01;
    G[251 + 250 * N] = NAN;
    assert_int_equal(cdyn_dense_chol(N, G, N), CDYN_EINVAL);
    assert_true(G[0] == N && isnan(G[251 + 250 * N]));
    free(G);
}

/* ---- random systems: backward error ---------------------------------------------------- */

/* eta = ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf), computed with a plain loop. */
static double backward_error(int n, const double *A, const double *x, const double *b)
{
    double r = 0.0, an = 0.0;
    for (int i = 0; i < n; ++i) {
        double s = b[i], row = 0.0;
        for (int j = 0; j < n; ++j) {
            s -= A[i + (size_t)j * n] * x[j];
            row += fabs(A[i + (size_t)j * n]);
        }
        r = fmax(r, fabs(s));
        an = fmax(an, row);
    }
    return r / (an * cdyn_dense_norm_inf(n, x) + cdyn_dense_norm_inf(n, b));
}

static void test_random_spd_residuals(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 2024);
    const int sizes[3] = {1, 17, 80};
    for (int s = 0; s < 3; ++s) {
        const int n = sizes[s];
        double *A = malloc(sizeof(double) * n * n), *F = malloc(sizeof(double) * n * n);
        double *b = malloc(sizeof(double) * n * 3), *x = malloc(sizeof(double) * n * 3);
        int *ipiv = malloc(sizeof(int) * n);
        assert_true(A && F && b && x && ipiv);
        test_random_spd(&rng, n, 1e-2, A);
        for (int i = 0; i < 3 * n; ++i)
            b[i] = test_rng_range(&rng, -1, 1);

        memcpy(F, A, sizeof(double) * n * n);
        assert_int_equal(cdyn_dense_chol(n, F, n), CDYN_OK);
        memcpy(x, b, sizeof(double) * n * 3);
        cdyn_dense_chol_solve(n, F, n, 3, x, n);
        for (int r = 0; r < 3; ++r)
            assert_true(backward_error(n, A, x + r * n, b + r * n) <= 10.0 * n * EPS);

        memcpy(F, A, sizeof(double) * n * n);
        assert_int_equal(cdyn_dense_lu(n, F, n, ipiv), CDYN_OK);
        memcpy(x, b, sizeof(double) * n * 3);
        cdyn_dense_lu_solve(0, n, F, n, ipiv, 3, x, n);
        for (int r = 0; r < 3; ++r)
            assert_true(backward_error(n, A, x + r * n, b + r * n) <= 10.0 * n * EPS);
        free(A), free(F), free(b), free(x), free(ipiv);
    }
}

/* Unsymmetric random matrix: LU solve and transposed solve have O(n u) backward error. */
static void test_random_lu_transpose(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 99);
    enum { N = 40 };
    double A[N * N], At[N * N], F[N * N], b[N], x[N];
    int ipiv[N];
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i)
            A[i + j * N] = test_rng_range(&rng, -1, 1);
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i)
            At[i + j * N] = A[j + i * N];
    for (int i = 0; i < N; ++i)
        b[i] = test_rng_range(&rng, -1, 1);
    memcpy(F, A, sizeof F);
    assert_int_equal(cdyn_dense_lu(N, F, N, ipiv), CDYN_OK);
    memcpy(x, b, sizeof x);
    cdyn_dense_lu_solve(0, N, F, N, ipiv, 1, x, N);
    assert_true(backward_error(N, A, x, b) <= 10.0 * N * EPS);
    memcpy(x, b, sizeof x);
    cdyn_dense_lu_solve(1, N, F, N, ipiv, 1, x, N);
    assert_true(backward_error(N, At, x, b) <= 10.0 * N * EPS);
}

/* Y = L^{-1} J^T gives Y^T Y = J A^{-1} J^T; the reference uses a full Cholesky solve. */
static void test_chol_lsolve_delassus(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 5);
    enum { N = 12, M = 4 };
    double A[N * N], F[N * N], Jt[N * M], Y[N * M], Z[N * M], W1[M * M], W2[M * M];
    test_random_spd(&rng, N, 0.5, A);
    for (int i = 0; i < N * M; ++i)
        Jt[i] = test_rng_range(&rng, -1, 1);
    memcpy(F, A, sizeof F);
    assert_int_equal(cdyn_dense_chol(N, F, N), CDYN_OK);
    memcpy(Y, Jt, sizeof Y);
    cdyn_dense_chol_lsolve(N, F, N, M, Y, N);
    cdyn_dense_gemm(1, 0, M, M, N, 1.0, Y, N, Y, N, 0.0, W1, M);
    memcpy(Z, Jt, sizeof Z);
    cdyn_dense_chol_solve(N, F, N, M, Z, N);
    cdyn_dense_gemm(1, 0, M, M, N, 1.0, Jt, N, Z, N, 0.0, W2, M);
    /* Both come from the same factor through backward-stable steps, so they differ by a modest
       multiple of cond(A) u |W|. A = B B^T + 0.5 I has lambda_min >= 0.5 and, being symmetric,
       ||A||_2 <= ||A||_1, so cond_2(A) <= 2 ||A||_1. */
    const double kappa = 2.0 * cdyn_dense_norm1(N, N, A, N);
    assert_true(max_abs_diff(M * M, W1, W2) <= 10.0 * N * kappa * EPS * max_abs(M * M, W2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemv_hand),
        cmocka_unit_test(test_gemm_ger_hand),
        cmocka_unit_test(test_gemm_random_against_loops),
        cmocka_unit_test(test_norms),
        cmocka_unit_test(test_lu_hand),
        cmocka_unit_test(test_pascal),
        cmocka_unit_test(test_hilbert),
        cmocka_unit_test(test_lu_singular_and_invalid),
        cmocka_unit_test(test_chol_hand),
        cmocka_unit_test(test_chol_not_positive_definite),
        cmocka_unit_test(test_random_spd_residuals),
        cmocka_unit_test(test_random_lu_transpose),
        cmocka_unit_test(test_chol_lsolve_delassus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
