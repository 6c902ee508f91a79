/* Sparse Cholesky (src/linalg/sparse_chol.c, CHOLMOD) on model problems with manufactured
 * solutions.
 *
 * Error bounds used:
 *  - eigenvalues of the Dirichlet Laplacians: 1D tridiag(-1, 2, -1) of order n has
 *    lambda_k = 4 sin^2(k pi / (2(n+1))); the 2D 5-point matrix on an m-by-m grid has
 *    lambda = 4 sin^2(k pi/(2(m+1))) + 4 sin^2(l pi/(2(m+1))). Both give
 *    cond_2 = cot^2(pi / (2(m+1))) (R. J. LeVeque, Finite Difference Methods for Ordinary and
 *    Partial Differential Equations, SIAM 2007, Secs. 2.10 and 3.4);
 *  - Cholesky is backward stable: normwise backward error
 *    eta = ||b - A x|| / (||A|| ||x|| + ||b||) = O(N u) (Higham, Accuracy and Stability of
 *    Numerical Algorithms, 2nd ed., Thm 10.4); we require eta <= 10 N u;
 *  - perturbation theory: ||x - x*|| / ||x*|| <= 2 cond eta / (1 - cond eta) (Higham Thm 7.2),
 *    so with eta <= 10 N u the forward error is below 2.1 cond 10 N u. */
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
#include "linalg/sparse_chol.h"
#include "sparse_support.h"
#include "support.h"

#define EPS DBL_EPSILON
#define PI 3.14159265358979323846

static double cot2(double t)
{
    double c = cos(t) / sin(t);
    return c * c;
}

/* eta in the 2-norm, with ||A||_2 <= ||A||_inf for symmetric A (computed from the lower
 * triangle). */
static double backward_error(const cdyn_csc *L, const double *x, const double *b)
{
    const int n = L->nrows;
    double *r = malloc(sizeof(double) * n);
    assert_non_null(r);
    test_csc_mul_symlower(L, x, r);
    for (int i = 0; i < n; ++i)
        r[i] = b[i] - r[i];
    double eta = test_norm2(n, r) /
                 (test_csc_norm_inf(L, 1) * test_norm2(n, x) + test_norm2(n, b));
    free(r);
    return eta;
}

/* Manufactured x*: smooth plus a little noise, never zero. */
static void manufactured(int n, double *x, uint64_t seed)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    for (int i = 0; i < n; ++i)
        x[i] = 1.0 + sin(0.01 * i) + 0.1 * test_rng_range(&rng, -1, 1);
}

/* Factor and solve A x = A x* for a lower-stored SPD A of known cond_2; check eta and the
 * forward error. Returns the forward error. */
static double solve_manufactured(cdyn_sparse_chol *chol, const cdyn_csc *A, double cond,
                                 uint64_t seed)
{
    const int n = A->nrows;
    double *xs = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
    double *x = malloc(sizeof(double) * n);
    assert_true(xs && b && x);
    manufactured(n, xs, seed);
    test_csc_mul_symlower(A, xs, b);
    cdyn_report r;
    assert_int_equal(cdyn_sparse_chol_factor(chol, A, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_chol_solve(chol, 1, b, x, &r), CDYN_OK);
    const double tol = 10.0 * n * EPS;
    assert_true(backward_error(A, x, b) <= tol);
    const double err = test_rel_err2(n, x, xs);
    assert_true(err <= 2.1 * cond * tol);
    free(xs), free(b), free(x);
    return err;
}

static void test_laplacian_1d_1000(void **state)
{
    (void)state;
    const int n = 1000;
    test_csc T;
    test_laplacian_1d(n, 1, &T);
    cdyn_sparse_chol *chol = NULL;
    cdyn_report r;
    assert_int_equal(cdyn_sparse_chol_create(&T.A, NULL, &chol, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_chol_size(chol), n);
    assert_true(isnan(cdyn_sparse_chol_rcond(chol))); /* analyzed, not factored */
    solve_manufactured(chol, &T.A, cot2(PI / (2.0 * (n + 1))), 1);
    /* rcond = (min diag L / max diag L)^2: for this matrix in natural order the pivots are
       d_k = (k+1)/k, so it lies in (1/4, 1); AMD may reorder, but min/max of an SPD factor's
       diagonal squared never exceeds 1 nor drops below 1/cond_2. */
    const double rc = cdyn_sparse_chol_rcond(chol);
    assert_true(rc > 1.0 / cot2(PI / (2.0 * (n + 1))) && rc <= 1.0);
    cdyn_sparse_chol_free(chol);
    test_csc_free(&T);
}

/* 100 x 100 grid, 10,000 unknowns; then new values with the same pattern (3 A), whose solution
 * for the same right-hand side is x* / 3. */
static void test_laplacian_2d_and_refactor(void **state)
{
    (void)state;
    const int m = 100, N = m * m;
    const double cond = cot2(PI / (2.0 * (m + 1)));
    test_csc L, L3;
    test_laplacian_2d(m, 0.0, 1, &L);
    test_csc_scaled_copy(&L.A, 3.0, &L3);
    cdyn_sparse_chol *chol = NULL;
    cdyn_report r;
    assert_int_equal(cdyn_sparse_chol_create(&L.A, NULL, &chol, &r), CDYN_OK);
    double err = solve_manufactured(chol, &L.A, cond, 2);
    print_message("2D Laplacian N=%d: forward error %.2e (bound %.2e)\n", N, err,
                  2.1 * cond * 10.0 * N * EPS);

    double *xs = malloc(sizeof(double) * N), *b = malloc(sizeof(double) * N);
    double *x = malloc(sizeof(double) * N);
    assert_true(xs && b && x);
    manufactured(N, xs, 2);
    test_csc_mul_symlower(&L.A, xs, b);
    assert_int_equal(cdyn_sparse_chol_factor(chol, &L3.A, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_chol_solve(chol, 1, b, x, &r), CDYN_OK);
    for (int i = 0; i < N; ++i)
        xs[i] /= 3.0;
    assert_true(test_rel_err2(N, x, xs) <= 2.1 * cond * 10.0 * N * EPS);
    /* and back to A: the handle is reusable in both directions */
    solve_manufactured(chol, &L.A, cond, 3);
    free(xs), free(b), free(x);
    cdyn_sparse_chol_free(chol);
    test_csc_free(&L);
    test_csc_free(&L3);
}

/* Full symmetric storage: the upper triangle is ignored, the answer is the same. */
static void test_full_storage_and_multiple_rhs(void **state)
{
    (void)state;
    const int m = 30, N = m * m, R = 3;
    const double cond = cot2(PI / (2.0 * (m + 1)));
    test_csc L, F;
    test_laplacian_2d(m, 0.0, 1, &L);
    test_laplacian_2d(m, 0.0, 0, &F);
    double *xs = malloc(sizeof(double) * N * R), *B = malloc(sizeof(double) * N * R);
    double *X = malloc(sizeof(double) * N * R);
    assert_true(xs && B && X);
    for (int c = 0; c < R; ++c) {
        manufactured(N, xs + c * N, 10 + c);
        test_csc_mul_symlower(&L.A, xs + c * N, B + c * N);
    }
    cdyn_sparse_chol *chol = NULL;
    cdyn_report r;
    assert_int_equal(cdyn_sparse_chol_create(&F.A, NULL, &chol, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_chol_factor(chol, &F.A, &r), CDYN_OK);
    const double tol = 2.1 * cond * 10.0 * N * EPS;
    /* nrhs 3, then 1 (workspace resized), then 3 again, in place (X == B). */
    assert_int_equal(cdyn_sparse_chol_solve(chol, R, B, X, &r), CDYN_OK);
    for (int c = 0; c < R; ++c)
        assert_true(test_rel_err2(N, X + c * N, xs + c * N) <= tol);
    assert_int_equal(cdyn_sparse_chol_solve(chol, 1, B + N, X, &r), CDYN_OK);
    assert_true(test_rel_err2(N, X, xs + N) <= tol);
    assert_int_equal(cdyn_sparse_chol_solve(chol, R, B, B, &r), CDYN_OK);
    for (int c = 0; c < R; ++c)
        assert_true(test_rel_err2(N, B + c * N, xs + c * N) <= tol);
    free(xs), free(B), free(X);
    cdyn_sparse_chol_free(chol);
    test_csc_free(&L);
    test_csc_free(&F);
}

/* A dense random SPD matrix stored as a sparse lower triangle: CHOLMOD and LAPACK agree.
 * A = B B^T + I has lambda_min >= 1 and ||A||_2 <= ||A||_1, so cond_2 <= ||A||_1. */
static void test_against_dense_cholesky(void **state)
{
    (void)state;
    enum { N = 40 };
    test_rng rng;
    test_rng_seed(&rng, 11);
    double A[N * N], F[N * N], b[N], x1[N], x2[N];
    test_random_spd(&rng, N, 1.0, A);
    int colptr[N + 1], rowind[N * (N + 1) / 2];
    double values[N * (N + 1) / 2];
    int nz = 0;
    colptr[0] = 0;
    for (int j = 0; j < N; ++j) {
        for (int i = j; i < N; ++i) {
            rowind[nz] = i;
            values[nz++] = A[i + j * N];
        }
        colptr[j + 1] = nz;
    }
    cdyn_csc S = {N, N, colptr, rowind, values};
    for (int i = 0; i < N; ++i)
        b[i] = test_rng_range(&rng, -1, 1);
    cdyn_sparse_chol *chol = NULL;
    assert_int_equal(cdyn_sparse_chol_create(&S, NULL, &chol, NULL), CDYN_OK);
    assert_int_equal(cdyn_sparse_chol_factor(chol, &S, NULL), CDYN_OK);
    assert_int_equal(cdyn_sparse_chol_solve(chol, 1, b, x1, NULL), CDYN_OK);
    memcpy(F, A, sizeof F);
    assert_int_equal(cdyn_dense_chol(N, F, N), CDYN_OK);
    memcpy(x2, b, sizeof b);
    cdyn_dense_chol_solve(N, F, N, 1, x2, N);
    const double cond = cdyn_dense_norm1(N, N, A, N);
    assert_true(test_rel_err2(N, x1, x2) <= 2.0 * 2.1 * cond * 10.0 * N * EPS);
    cdyn_sparse_chol_free(chol);
}

/* Not positive definite: diag(1, ..., 1, -1 at column 537, 1, ...). Whatever the ordering, the
 * only failing pivot is that column. The handle then refuses to solve, and recovers with valid
 * values. */
static void test_not_positive_definite(void **state)
{
    (void)state;
    const int n = 1000, bad = 537;
    double *d = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
    double *x = malloc(sizeof(double) * n);
    assert_true(d && b && x);
    for (int i = 0; i < n; ++i)
        d[i] = 1.0 + i, b[i] = 1.0, x[i] = 42.0;
    d[bad] = -1.0;
    test_csc D;
    test_diagonal(n, d, &D);
    cdyn_sparse_chol *chol = NULL;
    cdyn_report r;
    assert_int_equal(cdyn_sparse_chol_create(&D.A, NULL, &chol, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_chol_factor(chol, &D.A, &r), CDYN_ESINGULAR);
    assert_int_equal(r.status, CDYN_ESINGULAR);
    assert_int_equal(cdyn_sparse_chol_failed_column(chol), bad);
    assert_non_null(strstr(r.message, "not positive definite"));
    assert_non_null(strstr(r.message, "column 537"));
    assert_int_equal(cdyn_sparse_chol_solve(chol, 1, b, x, &r), CDYN_EINVAL);
    assert_true(x[0] == 42.0 && x[n - 1] == 42.0); /* untouched */
    D.values[bad] = 4.0;
    assert_int_equal(cdyn_sparse_chol_factor(chol, &D.A, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_chol_failed_column(chol), -1);
    assert_int_equal(cdyn_sparse_chol_solve(chol, 1, b, x, &r), CDYN_OK);
    assert_true(fabs(x[bad] - 0.25) <= EPS && fabs(x[0] - 1.0) <= EPS);
    cdyn_sparse_chol_free(chol);
    test_csc_free(&D);
    free(d), free(b), free(x);
}

/* Indefinite: the 2D Laplacian shifted by -0.5 (its smallest eigenvalue is
 * 8 sin^2(pi/62) ~ 0.0205 for m = 30, so A - 0.5 I has negative eigenvalues), and the singular
 * positive semidefinite Neumann Laplacian: both are ESINGULAR, never a crash or a print. */
static void test_indefinite_and_semidefinite(void **state)
{
    (void)state;
    test_csc S, N;
    test_laplacian_2d(30, -0.5, 1, &S);
    cdyn_sparse_chol *chol = NULL;
    cdyn_report r;
    assert_int_equal(cdyn_sparse_chol_create(&S.A, NULL, &chol, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_chol_factor(chol, &S.A, &r), CDYN_ESINGULAR);
    const int col = cdyn_sparse_chol_failed_column(chol);
    assert_true(col >= 0 && col < 900);
    cdyn_sparse_chol_free(chol);

    /* No entries at all (values may then be NULL): zero diagonal, not positive definite. */
    int cp0[3] = {0, 0, 0};
    cdyn_csc Z = {2, 2, cp0, NULL, NULL};
    assert_int_equal(cdyn_sparse_chol_create(&Z, NULL, &chol, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_chol_factor(chol, &Z, &r), CDYN_ESINGULAR);
    cdyn_sparse_chol_free(chol);

    test_laplacian_1d_neumann(200, 1, &N);
    assert_int_equal(cdyn_sparse_chol_create(&N.A, NULL, &chol, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_chol_factor(chol, &N.A, &r), CDYN_ESINGULAR);
    assert_true(isnan(cdyn_sparse_chol_rcond(chol)));
    cdyn_sparse_chol_free(chol);
    test_csc_free(&S);
    test_csc_free(&N);
}

static void test_invalid_arguments(void **state)
{
    (void)state;
    test_csc T, U;
    test_laplacian_1d(5, 1, &T);
    test_laplacian_1d(5, 0, &U); /* same matrix, different (full) pattern */
    cdyn_sparse_chol *chol = (cdyn_sparse_chol *)&T; /* must be overwritten with NULL */
    cdyn_report r;
    assert_int_equal(cdyn_sparse_chol_create(NULL, NULL, &chol, &r), CDYN_EINVAL);
    assert_null(chol);
    assert_int_equal(cdyn_sparse_chol_create(&T.A, NULL, NULL, &r), CDYN_EINVAL);
    int cp[3] = {0, 1, 2}, ri[2] = {0, 1};
    cdyn_csc rect = {3, 2, cp, ri, NULL};
    assert_int_equal(cdyn_sparse_chol_create(&rect, NULL, &chol, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "square"));
    int cp_bad[3] = {0, 2, 2}, ri_bad[2] = {1, 0}; /* column 0 lists row 1 before row 0 */
    cdyn_csc unsorted = {2, 2, cp_bad, ri_bad, NULL};
    assert_int_equal(cdyn_sparse_chol_create(&unsorted, NULL, &chol, &r), CDYN_EINVAL);

    assert_int_equal(cdyn_sparse_chol_create(&T.A, NULL, &chol, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_chol_factor(NULL, &T.A, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_sparse_chol_factor(chol, &U.A, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "pattern differs"));
    T.values[2] = NAN;
    assert_int_equal(cdyn_sparse_chol_factor(chol, &T.A, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "not finite"));
    T.values[2] = 2.0;
    double b[5] = {1, 1, 1, 1, 1}, x[5] = {7, 7, 7, 7, 7};
    assert_int_equal(cdyn_sparse_chol_solve(chol, 1, b, x, &r), CDYN_EINVAL); /* no factor */
    assert_int_equal(cdyn_sparse_chol_factor(chol, &T.A, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_chol_solve(chol, 0, b, x, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_sparse_chol_solve(chol, 1, NULL, x, &r), CDYN_EINVAL);
    b[3] = INFINITY;
    assert_int_equal(cdyn_sparse_chol_solve(chol, 1, b, x, &r), CDYN_EINVAL);
    assert_true(x[0] == 7.0 && x[4] == 7.0);
    /* tridiag(-1,2,-1) of order 5 times (1,2,3,4,5) = (0,0,0,0,6). */
    double c[5] = {0, 0, 0, 0, 6};
    assert_int_equal(cdyn_sparse_chol_solve(chol, 1, c, x, &r), CDYN_OK);
    for (int i = 0; i < 5; ++i)
        assert_true(fabs(x[i] - (i + 1)) <= 100 * EPS);
    /* A rejected factor call keeps the previous factor. */
    T.values[0] = NAN;
    assert_int_equal(cdyn_sparse_chol_factor(chol, &T.A, &r), CDYN_EINVAL);
    T.values[0] = 2.0;
    assert_int_equal(cdyn_sparse_chol_solve(chol, 1, c, x, &r), CDYN_OK);
    for (int i = 0; i < 5; ++i)
        assert_true(fabs(x[i] - (i + 1)) <= 100 * EPS);
    cdyn_sparse_chol_free(chol);
    cdyn_sparse_chol_free(NULL);
    test_csc_free(&T);
    test_csc_free(&U);
}

/* CHOLMOD's rcond of an LL' factor is (min diag L / max diag L)^2: diag(1, 4) has
 * L = diag(1, 2), so 1/4. */
static void test_rcond_diagonal(void **state)
{
    (void)state;
    const double d[2] = {1.0, 4.0};
    test_csc D;
    test_diagonal(2, d, &D);
    cdyn_sparse_chol *chol = NULL;
    assert_int_equal(cdyn_sparse_chol_create(&D.A, NULL, &chol, NULL), CDYN_OK);
    assert_int_equal(cdyn_sparse_chol_factor(chol, &D.A, NULL), CDYN_OK);
    assert_true(cdyn_sparse_chol_rcond(chol) == 0.25);
    cdyn_sparse_chol_free(chol);
    test_csc_free(&D);
}

/* Each of cdyn's own allocations failing in turn: ENOMEM, no handle, nothing leaked. */
static void test_allocation_failures(void **state)
{
    (void)state;
    test_csc T;
    test_laplacian_1d(50, 1, &T);
    int failures = 0;
    for (int fail_after = 0;; ++fail_after) {
        test_failing_alloc fa;
        test_failing_alloc_init(&fa, fail_after);
        cdyn_sparse_chol *chol = NULL;
        cdyn_report r;
        cdyn_status st = cdyn_sparse_chol_create(&T.A, &fa.allocator, &chol, &r);
        if (st == CDYN_OK) {
            assert_int_equal(cdyn_sparse_chol_factor(chol, &T.A, &r), CDYN_OK);
            cdyn_sparse_chol_free(chol);
            assert_int_equal(fa.live, 0);
            break;
        }
        assert_int_equal(st, CDYN_ENOMEM);
        assert_null(chol);
        assert_int_equal(fa.live, 0);
        failures++;
    }
    assert_int_equal(failures, 3); /* handle, colptr copy, rowind copy */
    test_csc_free(&T);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_laplacian_1d_1000),
        cmocka_unit_test(test_laplacian_2d_and_refactor),
        cmocka_unit_test(test_full_storage_and_multiple_rhs),
        cmocka_unit_test(test_against_dense_cholesky),
        cmocka_unit_test(test_not_positive_definite),
        cmocka_unit_test(test_indefinite_and_semidefinite),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_rcond_diagonal),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
