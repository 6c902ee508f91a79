/* Sparse LU (src/linalg/sparse_lu.c, KLU) on unsymmetric model problems with manufactured
 * solutions, plus the refactor / fallback paths and failures.
 *
 * Error bounds used:
 *  - Varah's bound: if every row of A is diagonally dominant with margin
 *    delta = min_i (|a_ii| - sum_{j != i} |a_ij|) > 0, then ||A^{-1}||_inf <= 1/delta
 *    (J. M. Varah, "A lower bound for the smallest singular value of a matrix", Linear Algebra
 *    Appl. 11 (1975) 3-5). The test matrices are dominant by rows and by columns, which bounds
 *    cond_inf of A and of A^T;
 *  - LU with partial pivoting is backward stable with a growth factor <= 2 for diagonally
 *    dominant matrices (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
 *    Thm 9.9): we require eta = ||b - A x|| / (||A|| ||x|| + ||b||) <= 10 N u;
 *  - ||x - x*|| / ||x*|| <= 2 cond eta / (1 - cond eta) (Higham Thm 7.2). */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "linalg/csc.h"
#include "linalg/dense.h"
#include "linalg/sparse_lu.h"
#include "sparse_support.h"
#include "support.h"

#define EPS DBL_EPSILON

/* Infinity-norm backward error of x for A x = b (trans: A^T x = b). */
static double backward_error(const cdyn_csc *A, int trans, const double *x, const double *b)
{
    const int n = A->nrows;
    double *r = malloc(sizeof(double) * n);
    assert_non_null(r);
    if (trans)
        test_csc_mul_t(A, x, r);
    else
        test_csc_mul(A, x, r);
    for (int i = 0; i < n; ++i)
        r[i] = b[i] - r[i];
    double anorm = test_csc_norm_inf(A, 0);
    if (trans) { /* ||A^T||_inf = ||A||_1 */
        anorm = 0.0;
        for (int j = 0; j < A->ncols; ++j) {
            double s = 0.0;
            for (int p = A->colptr[j]; p < A->colptr[j + 1]; ++p)
                s += fabs(A->values[p]);
            anorm = fmax(anorm, s);
        }
    }
    double eta = test_norm_inf(n, r) / (anorm * test_norm_inf(n, x) + test_norm_inf(n, b));
    free(r);
    return eta;
}

/* min_i (|a_ii| - sum_{j != i} |a_ij|) over rows (trans = 0) or columns (trans = 1). */
static double dominance_margin(const cdyn_csc *A, int trans)
{
    const int n = A->nrows;
    double *diag = calloc((size_t)n, sizeof(double)), *off = calloc((size_t)n, sizeof(double));
    assert_true(diag && off);
    for (int j = 0; j < n; ++j)
        for (int p = A->colptr[j]; p < A->colptr[j + 1]; ++p) {
            const int i = A->rowind[p], k = trans ? j : i;
            if (i == j)
                diag[k] += fabs(A->values[p]);
            else
                off[k] += fabs(A->values[p]);
        }
    double m = INFINITY;
    for (int i = 0; i < n; ++i)
        m = fmin(m, diag[i] - off[i]);
    free(diag), free(off);
    return m;
}

/* Solve with the current factor for x* and (transposed) y*; check eta and the forward error
 * against the Varah bound. Returns the larger forward error. */
static double check_solves(cdyn_sparse_lu *lu, const cdyn_csc *A, uint64_t seed)
{
    const int n = A->nrows;
    double *xs = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
    double *x = malloc(sizeof(double) * n);
    assert_true(xs && b && x);
    test_rng rng;
    test_rng_seed(&rng, seed);
    double worst = 0.0;
    for (int trans = 0; trans < 2; ++trans) {
        for (int i = 0; i < n; ++i)
            xs[i] = test_rng_range(&rng, -1, 1) + (trans ? 2.0 : -1.0);
        if (trans)
            test_csc_mul_t(A, xs, b);
        else
            test_csc_mul(A, xs, b);
        cdyn_report r;
        assert_int_equal(cdyn_sparse_lu_solve(lu, trans, 1, b, x, &r), CDYN_OK);
        const double margin = dominance_margin(A, trans);
        assert_true(margin > 0.0);
        const double anorm = test_csc_norm_inf(A, 0);
        double anorm_t = 0.0; /* ||A^T||_inf for the transposed system */
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int p = A->colptr[j]; p < A->colptr[j + 1]; ++p)
                s += fabs(A->values[p]);
            anorm_t = fmax(anorm_t, s);
        }
        const double cond = (trans ? anorm_t : anorm) / margin;
        const double tol = 10.0 * n * EPS;
        assert_true(backward_error(A, trans, x, b) <= tol);
        double d = 0.0;
        for (int i = 0; i < n; ++i)
            d = fmax(d, fabs(x[i] - xs[i]));
        const double err = d / test_norm_inf(n, xs);
        assert_true(err <= 2.1 * cond * tol);
        worst = fmax(worst, err);
    }
    free(xs), free(b), free(x);
    return worst;
}

/* 2D convection-diffusion-reaction, 60 x 60 grid (3600 unknowns), cell Peclet number 1.8:
 * strongly unsymmetric, dominant by rows and columns with margin sigma = 0.01. */
static void test_convection_diffusion(void **state)
{
    (void)state;
    test_csc C;
    test_convdiff_2d(60, 0.9, 0.01, &C);
    cdyn_sparse_lu *lu = NULL;
    cdyn_report r;
    assert_int_equal(cdyn_sparse_lu_create(&C.A, NULL, &lu, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_lu_size(lu), 3600);
    assert_true(isnan(cdyn_sparse_lu_rcond(lu)));
    assert_int_equal(cdyn_sparse_lu_factor(lu, &C.A, &r), CDYN_OK);
    assert_string_equal(r.method, "klu_factor");
    const double rc = cdyn_sparse_lu_rcond(lu);
    assert_true(rc > 0.0 && rc <= 1.0);
    double err = check_solves(lu, &C.A, 1);
    print_message("convection-diffusion N=3600: forward error %.2e, KLU rcond %.3g\n", err, rc);

    /* Refactor with other coefficients on the same pattern (reversed convection, more
       reaction): the reused pivots stay good, the solution is right. */
    test_csc C2;
    test_convdiff_2d(60, -0.5, 0.1, &C2);
    assert_int_equal(cdyn_sparse_lu_refactor(lu, &C2.A, &r), CDYN_OK);
    assert_string_equal(r.method, "klu_refactor");
    check_solves(lu, &C2.A, 2);
    /* Scaled values: the solution of (2A) x = b is x* / 2 for b = A x*. */
    test_csc C3;
    test_csc_scaled_copy(&C.A, 2.0, &C3);
    assert_int_equal(cdyn_sparse_lu_refactor(lu, &C3.A, &r), CDYN_OK);
    assert_string_equal(r.method, "klu_refactor");
    const int n = 3600;
    double *xs = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
    assert_true(xs && b);
    for (int i = 0; i < n; ++i)
        xs[i] = cos(0.003 * i);
    test_csc_mul(&C.A, xs, b);
    assert_int_equal(cdyn_sparse_lu_solve(lu, 0, 1, b, b, &r), CDYN_OK); /* in place */
    const double cond = test_csc_norm_inf(&C3.A, 0) / dominance_margin(&C3.A, 0);
    for (int i = 0; i < n; ++i)
        assert_true(fabs(b[i] - 0.5 * xs[i]) <= 2.1 * cond * 10.0 * n * EPS * 0.5);
    free(xs), free(b);
    cdyn_sparse_lu_free(lu);
    test_csc_free(&C);
    test_csc_free(&C2);
    test_csc_free(&C3);
}

/* A random sparse matrix assembled from triplets with repeated positions, then made dominant
 * by rows and columns with margin >= 1: diagonal = sum of |off-diagonal triplets| in its row and
 * in its column + 1 (duplicates can only lower the true off-diagonal sums). */
static void test_random_diagonally_dominant(void **state)
{
    (void)state;
    const int n = 1000, per_col = 4, nt = n * (per_col + 1);
    int *ti = malloc(sizeof(int) * nt), *tj = malloc(sizeof(int) * nt);
    double *tx = malloc(sizeof(double) * nt), *rows = calloc((size_t)n, sizeof(double));
    double *cols = calloc((size_t)n, sizeof(double));
    assert_true(ti && tj && tx && rows && cols);
    test_rng rng;
    test_rng_seed(&rng, 4242);
    int k = 0;
    for (int j = 0; j < n; ++j)
        for (int q = 0; q < per_col; ++q) {
            int i = (int)(test_rng_uniform(&rng) * n);
            if (i == j)
                i = (i + 1) % n;
            ti[k] = i, tj[k] = j, tx[k] = test_rng_range(&rng, -1, 1);
            rows[i] += fabs(tx[k]);
            cols[j] += fabs(tx[k]);
            k++;
        }
    for (int j = 0; j < n; ++j, ++k)
        ti[k] = j, tj[k] = j, tx[k] = rows[j] + cols[j] + 1.0;
    cdyn_csc_assembly as;
    assert_int_equal(cdyn_csc_assembly_init(&as, n, n, nt, ti, tj, NULL, NULL), CDYN_OK);
    cdyn_csc_assembly_set_values(&as, tx);
    /* margin 1 up to the rounding of sums taken in a different order */
    assert_true(dominance_margin(&as.A, 0) >= 1.0 - 1e-12 &&
                dominance_margin(&as.A, 1) >= 1.0 - 1e-12);

    cdyn_sparse_lu *lu = NULL;
    cdyn_report r;
    assert_int_equal(cdyn_sparse_lu_create(&as.A, NULL, &lu, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_lu_factor(lu, &as.A, &r), CDYN_OK);
    check_solves(lu, &as.A, 3);
    /* New random off-diagonal values through the same triplet map: refactor. */
    for (int q = 0; q < n * per_col; ++q)
        tx[q] = -0.5 * tx[q];
    cdyn_csc_assembly_set_values(&as, tx);
    assert_int_equal(cdyn_sparse_lu_refactor(lu, &as.A, &r), CDYN_OK);
    assert_string_equal(r.method, "klu_refactor");
    check_solves(lu, &as.A, 4);
    cdyn_sparse_lu_free(lu);
    cdyn_csc_assembly_free(&as);
    free(ti), free(tj), free(tx), free(rows), free(cols);
}

/* A general (not dominant) random sparse matrix: KLU against LAPACK's dense LU. Both are
 * backward stable, so the solutions agree to about cond * eta; cond from dgecon, which
 * underestimates by at most a factor ~3 in practice (Higham 1988), allowed for with 10. */
static void test_against_dense_lu(void **state)
{
    (void)state;
    enum { N = 60 };
    test_rng rng;
    test_rng_seed(&rng, 8);
    double D[N * N], F[N * N], b[N], x1[N], x2[N];
    int colptr[N + 1], rowind[N * N], ipiv[N];
    double values[N * N];
    int nz = 0;
    colptr[0] = 0;
    for (int j = 0; j < N; ++j) {
        for (int i = 0; i < N; ++i) {
            double v = 0.0;
            if (test_rng_uniform(&rng) < 0.12 || i == (j * 7) % N) /* a permuted "diagonal" */
                v = test_rng_range(&rng, -1, 1);
            D[i + j * N] = v;
            if (v != 0.0) {
                rowind[nz] = i;
                values[nz++] = v;
            }
        }
        colptr[j + 1] = nz;
    }
    cdyn_csc A = {N, N, colptr, rowind, values};
    for (int i = 0; i < N; ++i)
        b[i] = test_rng_range(&rng, -1, 1);
    memcpy(F, D, sizeof F);
    assert_int_equal(cdyn_dense_lu(N, F, N, ipiv), CDYN_OK);
    double work[4 * N];
    int iwork[N];
    const double rc = cdyn_dense_lu_rcond(N, F, N, cdyn_dense_norm1(N, N, D, N), work, iwork);
    assert_true(rc > 1e-10); /* the comparison below is only meaningful if well posed */
    memcpy(x2, b, sizeof b);
    cdyn_dense_lu_solve(0, N, F, N, ipiv, 1, x2, N);

    cdyn_sparse_lu *lu = NULL;
    assert_int_equal(cdyn_sparse_lu_create(&A, NULL, &lu, NULL), CDYN_OK);
    assert_int_equal(cdyn_sparse_lu_factor(lu, &A, NULL), CDYN_OK);
    assert_int_equal(cdyn_sparse_lu_solve(lu, 0, 1, b, x1, NULL), CDYN_OK);
    double d = 0.0;
    for (int i = 0; i < N; ++i)
        d = fmax(d, fabs(x1[i] - x2[i]));
    assert_true(d / cdyn_dense_norm_inf(N, x2) <= 10.0 / rc * 2.0 * 10.0 * N * EPS);
    /* transposed */
    memcpy(x2, b, sizeof b);
    cdyn_dense_lu_solve(1, N, F, N, ipiv, 1, x2, N);
    assert_int_equal(cdyn_sparse_lu_solve(lu, 1, 1, b, x1, NULL), CDYN_OK);
    d = 0.0;
    for (int i = 0; i < N; ++i)
        d = fmax(d, fabs(x1[i] - x2[i]));
    assert_true(d / cdyn_dense_norm_inf(N, x2) <= 10.0 / rc * 2.0 * 10.0 * N * EPS);
    cdyn_sparse_lu_free(lu);
}

/* 2 x 2 cases where the pivots of the first factorization go bad (column-major values on the
 * full pattern {(0,0), (1,0), (0,1), (1,1)}). */
static void test_refactor_fallback(void **state)
{
    (void)state;
    int colptr[3] = {0, 2, 4}, rowind[4] = {0, 1, 0, 1};
    double v[4] = {2, 1, 1, 2}; /* [2 1; 1 2]: KLU keeps the diagonal pivots */
    cdyn_csc A = {2, 2, colptr, rowind, v};
    cdyn_sparse_lu *lu = NULL;
    cdyn_report r;
    assert_int_equal(cdyn_sparse_lu_create(&A, NULL, &lu, &r), CDYN_OK);
    /* refactor without a factor: a full factorization */
    assert_int_equal(cdyn_sparse_lu_refactor(lu, &A, &r), CDYN_OK);
    assert_string_equal(r.method, "klu_factor");

    /* [0 1; 1 0]: a zero on the reused diagonal pivot. New pivots: x = (b1, b0) exactly. */
    v[0] = 0, v[1] = 1, v[2] = 1, v[3] = 0;
    assert_int_equal(cdyn_sparse_lu_refactor(lu, &A, &r), CDYN_OK);
    assert_string_equal(r.method, "klu_factor");
    double b[2] = {3, 5}, x[2];
    assert_int_equal(cdyn_sparse_lu_solve(lu, 0, 1, b, x, &r), CDYN_OK);
    assert_true(x[0] == 5.0 && x[1] == 3.0);

    /* Back to [2 1; 1 2] (diagonal pivots again), then [1e-14 1; 1 1e-14]: the reused diagonal
       pivot 1e-14 would give a pivot growth ~1e14 and lose ~14 digits; the fallback picks the
       off-diagonal pivots. x* = (1, 2): b = (1e-14 + 2, 1 + 2e-14); cond ~ 1, so x is correct
       to a few ulps. */
    v[0] = 2, v[1] = 1, v[2] = 1, v[3] = 2;
    assert_int_equal(cdyn_sparse_lu_factor(lu, &A, &r), CDYN_OK);
    v[0] = 1e-14, v[1] = 1, v[2] = 1, v[3] = 1e-14;
    assert_int_equal(cdyn_sparse_lu_refactor(lu, &A, &r), CDYN_OK);
    assert_string_equal(r.method, "klu_factor");
    double c[2] = {1e-14 + 2.0, 1.0 + 2e-14};
    assert_int_equal(cdyn_sparse_lu_solve(lu, 0, 1, c, x, &r), CDYN_OK);
    assert_true(fabs(x[0] - 1.0) <= 8 * EPS && fabs(x[1] - 2.0) <= 8 * EPS);

    /* Singular values on refactor: the fallback factorization also fails -> ESINGULAR, and the
       handle holds no factor. */
    v[0] = 1, v[1] = 2, v[2] = 2, v[3] = 4;
    assert_int_equal(cdyn_sparse_lu_refactor(lu, &A, &r), CDYN_ESINGULAR);
    assert_true(isnan(cdyn_sparse_lu_rcond(lu)));
    x[0] = x[1] = 9.0;
    assert_int_equal(cdyn_sparse_lu_solve(lu, 0, 1, b, x, &r), CDYN_EINVAL);
    assert_true(x[0] == 9.0 && x[1] == 9.0);
    cdyn_sparse_lu_free(lu);
}

static void test_singular(void **state)
{
    (void)state;
    cdyn_report r;
    cdyn_sparse_lu *lu = NULL;
    /* [1 2; 2 4]: KLU's max-row scaling gives rows (1/2, 1) and (1/2, 1): the second pivot is
       exactly zero. */
    int cp[3] = {0, 2, 4}, ri[4] = {0, 1, 0, 1};
    double v[4] = {1, 2, 2, 4};
    cdyn_csc A = {2, 2, cp, ri, v};
    assert_int_equal(cdyn_sparse_lu_create(&A, NULL, &lu, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_lu_factor(lu, &A, &r), CDYN_ESINGULAR);
    assert_non_null(strstr(r.message, "singular"));
    const int col = cdyn_sparse_lu_singular_column(lu);
    assert_true(col == 0 || col == 1);
    cdyn_sparse_lu_free(lu);

    /* No entries at all (values may then be NULL). */
    int cp0[3] = {0, 0, 0};
    cdyn_csc Z = {2, 2, cp0, NULL, NULL};
    assert_int_equal(cdyn_sparse_lu_create(&Z, NULL, &lu, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_lu_factor(lu, &Z, &r), CDYN_ESINGULAR);
    assert_int_equal(cdyn_sparse_lu_refactor(lu, &Z, &r), CDYN_ESINGULAR);
    cdyn_sparse_lu_free(lu);

    /* Structurally singular: column 1 is empty. */
    int cp2[4] = {0, 2, 2, 4}, ri2[4] = {0, 2, 1, 2};
    double v2[4] = {1, 1, 1, 1};
    cdyn_csc B = {3, 3, cp2, ri2, v2};
    assert_int_equal(cdyn_sparse_lu_create(&B, NULL, &lu, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_lu_factor(lu, &B, &r), CDYN_ESINGULAR);
    cdyn_sparse_lu_free(lu);

    /* [1 2 3; 4 5 6; 7 8 9] is singular (row 1 = (row 0 + row 2)/2), but in floating point its
       last pivot is of rounding size rather than zero: the factorization may "succeed". What
       must hold is that the reported pivot ratio exposes it (a few eps at most; nonsingular
       3 x 3 matrices with such entries are far from that). */
    int cp3[4] = {0, 3, 6, 9}, ri3[9] = {0, 1, 2, 0, 1, 2, 0, 1, 2};
    double v3[9] = {1, 4, 7, 2, 5, 8, 3, 6, 9};
    cdyn_csc C = {3, 3, cp3, ri3, v3};
    assert_int_equal(cdyn_sparse_lu_create(&C, NULL, &lu, &r), CDYN_OK);
    cdyn_status st = cdyn_sparse_lu_factor(lu, &C, &r);
    assert_true(st == CDYN_ESINGULAR || (st == CDYN_OK && cdyn_sparse_lu_rcond(lu) <= 8 * EPS));
    cdyn_sparse_lu_free(lu);
}

static void test_rcond(void **state)
{
    (void)state;
    cdyn_sparse_lu *lu = NULL;
    /* Diagonal: max-row scaling turns it into I, so min/max |diag U| = 1. */
    const double d[4] = {1, 10, 100, -1000};
    test_csc D;
    test_diagonal(4, d, &D);
    assert_int_equal(cdyn_sparse_lu_create(&D.A, NULL, &lu, NULL), CDYN_OK);
    assert_int_equal(cdyn_sparse_lu_factor(lu, &D.A, NULL), CDYN_OK);
    assert_true(cdyn_sparse_lu_rcond(lu) == 1.0);
    cdyn_sparse_lu_free(lu);
    /* [1 1; 1 1+t], t = 1e-8: scaled rows (1, 1) and (1/(1+t), 1); U = [1 1; 0 t/(1+t)] with the
       diagonal pivot (either symmetric ordering gives the same), so rcond = t/(1+t). */
    int cp[3] = {0, 2, 4}, ri[4] = {0, 1, 0, 1};
    double v[4] = {1, 1, 1, 1 + 1e-8};
    cdyn_csc A = {2, 2, cp, ri, v};
    assert_int_equal(cdyn_sparse_lu_create(&A, NULL, &lu, NULL), CDYN_OK);
    assert_int_equal(cdyn_sparse_lu_factor(lu, &A, NULL), CDYN_OK);
    const double expected = 1e-8 / (1 + 1e-8);
    /* 1 - 1/(1+t) cancels: relative error up to u / t */
    assert_true(fabs(cdyn_sparse_lu_rcond(lu) - expected) <= 4 * EPS / 1e-8 * expected);
    cdyn_sparse_lu_free(lu);
    test_csc_free(&D);
}

static void test_invalid_arguments(void **state)
{
    (void)state;
    test_csc C, F;
    test_convdiff_2d(4, 0.5, 1.0, &C);
    test_laplacian_2d(4, 0.0, 1, &F); /* different pattern */
    cdyn_sparse_lu *lu = (cdyn_sparse_lu *)&C;
    cdyn_report r;
    assert_int_equal(cdyn_sparse_lu_create(NULL, NULL, &lu, &r), CDYN_EINVAL);
    assert_null(lu);
    assert_int_equal(cdyn_sparse_lu_create(&C.A, NULL, NULL, &r), CDYN_EINVAL);
    int cp[3] = {0, 1, 2}, ri[2] = {0, 1};
    cdyn_csc rect = {3, 2, cp, ri, NULL};
    assert_int_equal(cdyn_sparse_lu_create(&rect, NULL, &lu, &r), CDYN_EINVAL);
    int cpz[1] = {0};
    cdyn_csc empty = {0, 0, cpz, NULL, NULL};
    assert_int_equal(cdyn_sparse_lu_create(&empty, NULL, &lu, &r), CDYN_EINVAL);

    assert_int_equal(cdyn_sparse_lu_create(&C.A, NULL, &lu, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_lu_factor(lu, &F.A, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "pattern differs"));
    assert_int_equal(cdyn_sparse_lu_refactor(lu, &F.A, &r), CDYN_EINVAL);
    const double saved = C.values[3];
    C.values[3] = NAN;
    assert_int_equal(cdyn_sparse_lu_factor(lu, &C.A, &r), CDYN_EINVAL);
    C.values[3] = saved;
    assert_int_equal(cdyn_sparse_lu_factor(NULL, &C.A, &r), CDYN_EINVAL);
    double b[16], x[16];
    for (int i = 0; i < 16; ++i)
        b[i] = 1.0, x[i] = 5.0;
    assert_int_equal(cdyn_sparse_lu_solve(lu, 0, 1, b, x, &r), CDYN_EINVAL); /* no factor */
    assert_int_equal(cdyn_sparse_lu_factor(lu, &C.A, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_lu_solve(lu, 0, 0, b, x, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_sparse_lu_solve(lu, 0, 1, b, NULL, &r), CDYN_EINVAL);
    b[7] = NAN;
    assert_int_equal(cdyn_sparse_lu_solve(lu, 1, 1, b, x, &r), CDYN_EINVAL);
    for (int i = 0; i < 16; ++i)
        assert_true(x[i] == 5.0);
    /* A rejected refactor keeps the previous factor: the solve still matches A x = b. */
    b[7] = 1.0;
    const double saved0 = C.values[0];
    C.values[0] = INFINITY;
    assert_int_equal(cdyn_sparse_lu_refactor(lu, &C.A, &r), CDYN_EINVAL);
    C.values[0] = saved0;
    assert_int_equal(cdyn_sparse_lu_solve(lu, 0, 1, b, x, &r), CDYN_OK);
    assert_true(backward_error(&C.A, 0, x, b) <= 10.0 * 16 * EPS);
    cdyn_sparse_lu_free(lu);
    cdyn_sparse_lu_free(NULL);
    test_csc_free(&C);
    test_csc_free(&F);
}

/* Several right-hand sides at once equal separate solves. */
static void test_multiple_rhs(void **state)
{
    (void)state;
    test_csc C;
    test_convdiff_2d(20, 0.7, 0.05, &C);
    const int n = 400, R = 5;
    double *B = malloc(sizeof(double) * n * R), *X = malloc(sizeof(double) * n * R);
    double *x = malloc(sizeof(double) * n);
    assert_true(B && X && x);
    test_rng rng;
    test_rng_seed(&rng, 12);
    for (int i = 0; i < n * R; ++i)
        B[i] = test_rng_range(&rng, -1, 1);
    cdyn_sparse_lu *lu = NULL;
    assert_int_equal(cdyn_sparse_lu_create(&C.A, NULL, &lu, NULL), CDYN_OK);
    assert_int_equal(cdyn_sparse_lu_factor(lu, &C.A, NULL), CDYN_OK);
    for (int trans = 0; trans < 2; ++trans) {
        assert_int_equal(cdyn_sparse_lu_solve(lu, trans, R, B, X, NULL), CDYN_OK);
        for (int c = 0; c < R; ++c) {
            assert_int_equal(cdyn_sparse_lu_solve(lu, trans, 1, B + c * n, x, NULL), CDYN_OK);
            for (int i = 0; i < n; ++i) /* same arithmetic per column, up to blocking */
                assert_true(fabs(x[i] - X[i + c * n]) <= 1e3 * EPS * (1 + fabs(x[i])));
            assert_true(backward_error(&C.A, trans, x, B + c * n) <= 10.0 * n * EPS);
        }
    }
    cdyn_sparse_lu_free(lu);
    test_csc_free(&C);
    free(B), free(X), free(x);
}

static void test_allocation_failures(void **state)
{
    (void)state;
    test_csc C;
    test_convdiff_2d(6, 0.3, 1.0, &C);
    int failures = 0;
    for (int fail_after = 0;; ++fail_after) {
        test_failing_alloc fa;
        test_failing_alloc_init(&fa, fail_after);
        cdyn_sparse_lu *lu = NULL;
        cdyn_report r;
        cdyn_status st = cdyn_sparse_lu_create(&C.A, &fa.allocator, &lu, &r);
        if (st == CDYN_OK) {
            assert_int_equal(cdyn_sparse_lu_factor(lu, &C.A, &r), CDYN_OK);
            cdyn_sparse_lu_free(lu);
            assert_int_equal(fa.live, 0);
            break;
        }
        assert_int_equal(st, CDYN_ENOMEM);
        assert_null(lu);
        assert_int_equal(fa.live, 0);
        failures++;
    }
    assert_int_equal(failures, 3); /* handle, colptr copy, rowind copy */
    test_csc_free(&C);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convection_diffusion),
        cmocka_unit_test(test_random_diagonally_dominant),
        cmocka_unit_test(test_against_dense_lu),
        cmocka_unit_test(test_refactor_fallback),
        cmocka_unit_test(test_singular),
        cmocka_unit_test(test_rcond),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_multiple_rhs),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
