/* The dense Newton systems of the MCP method (mcp_newton_sys.c on the linear-system layer's
 * dense LU, src/linalg/linsys_dense.c): H = diag(da + mu) +
 * diag(db) J is factored, and a numerically singular H is reported (CDYN_ESINGULAR) by the
 * factorization or by the solve, on both of its condition tests (the exact ||H^-1||_1 for
 * n <= 16, LAPACK's estimate above).
 * Expected values: condition numbers known in closed form, exact rank deficiency, and the
 * residual of the solve. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "solvers/mcp/mcp_internal.h"
#include "support.h"

/* Factor H = J (da = 0, db = 1, mu = 0) with a fresh solver object; the status of factor, and of
   the solve of H d = b when the factorization succeeded (d into b). */
typedef struct outcome {
    cdyn_status factor, solve;
} outcome;

static outcome factor_and_solve(int n, double *J, double *b)
{
    double *da = calloc((size_t)n, sizeof(double)), *db = malloc(sizeof(double) * (size_t)n);
    assert_non_null(da);
    assert_non_null(db);
    for (int i = 0; i < n; ++i)
        db[i] = 1.0;
    mcp_linsys ls;
    assert_int_equal(cdyn_mcp_linsys_create(NULL, n, NULL, NULL, NULL, &ls), CDYN_OK);
    const mcp_jac jac = {n, 0, NULL, NULL, (size_t)n * (size_t)n, J};
    double jmax = 0.0;
    for (int k = 0; k < n * n; ++k)
        jmax = fmax(jmax, fabs(J[k]));
    outcome o = {cdyn_mcp_linsys_factor(&ls, &jac, jmax, da, db, 0.0), CDYN_ESINGULAR};
    if (o.factor == CDYN_OK)
        o.solve = cdyn_mcp_linsys_solve(&ls, b);
    cdyn_mcp_linsys_free(NULL, &ls);
    free(da);
    free(db);
    return o;
}

/* T = I - c N, N the strictly upper triangular matrix of ones: (T^-1)_ij = c (1 + c)^(j-i-1)
   for j > i, so ||T||_1 = 1 + c (n - 1) and ||T^-1||_1 = (1 + c)^(n-1). Its LU factors are T
   itself, every pivot is 1: the pivot ratio hides the conditioning, only the solve shows it. */
static void upper_ones(int n, double c, double *T)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            T[i + j * n] = (i == j) ? 1.0 : (i < j ? -c : 0.0);
}

static void test_ill_conditioned_triangle_is_caught_by_the_solve(void **state)
{
    (void)state;
    /* (n, c, singular?): kappa_1 = (1 + c (n-1)) (1 + c)^(n-1) against the limit
       1 / (64 eps) = 7.0e13: 12 * 2^11 = 2.5e4 and 60 * 2^59 = 3.5e19 for c = 1, and
       331 * 31^11 = 8.4e18 for n = 12, c = 30. n = 12 takes the exact test, n = 60 dgecon. */
    const struct {
        int n;
        double c;
        int singular;
    } cases[] = {{12, 1.0, 0}, {12, 30.0, 1}, {60, 1.0, 1}, {60, 1.0 / 64.0, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const int n = cases[k].n;
        double *T = malloc(sizeof(double) * (size_t)(n * n)), *b = malloc(sizeof(double) * n);
        double *d = malloc(sizeof(double) * (size_t)n);
        assert_non_null(T);
        assert_non_null(b);
        assert_non_null(d);
        upper_ones(n, cases[k].c, T);
        /* b = e_n: d = T^-1 e_n, the column of T^-1 with the largest entries. */
        for (int i = 0; i < n; ++i)
            b[i] = d[i] = (i == n - 1) ? 1.0 : 0.0;
        const outcome o = factor_and_solve(n, T, d);
        assert_int_equal(o.factor, CDYN_OK);
        assert_int_equal(o.solve, cases[k].singular ? CDYN_ESINGULAR : CDYN_OK);
        if (!cases[k].singular) {
            /* T^-1 e_n = (c (1 + c)^(n-2-i), ..., c, 1): check T d = b. */
            upper_ones(n, cases[k].c, T);
            for (int i = 0; i < n; ++i) {
                double s = 0.0;
                for (int j = 0; j < n; ++j)
                    s += T[i + j * n] * d[j];
                assert_true(fabs(s - b[i]) <= 1e-12 * fabs(d[0]));
            }
        }
        free(T);
        free(b);
        free(d);
    }
}

/* Rank-deficient J = U V^T (U, V random n-by-k, k < n): the factorization leaves rounding-size
   pivots (or an exact zero), and factor reports the matrix singular; the same J made
   diagonally dominant is well conditioned and solves accurately. */
static void test_rank_deficient_is_caught_by_the_factorization(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 5);
    const int sizes[][2] = {{5, 2}, {16, 9}, {40, 30}};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; ++t) {
        const int n = sizes[t][0], k = sizes[t][1];
        double *U = malloc(sizeof(double) * (size_t)(n * k));
        double *V = malloc(sizeof(double) * (size_t)(n * k));
        double *J = malloc(sizeof(double) * (size_t)(n * n));
        double *b = malloc(sizeof(double) * (size_t)n), *d = malloc(sizeof(double) * (size_t)n);
        assert_non_null(U);
        assert_non_null(V);
        assert_non_null(J);
        assert_non_null(b);
        assert_non_null(d);
        for (int i = 0; i < n * k; ++i) {
            U[i] = test_rng_range(&rng, -1, 1);
            V[i] = test_rng_range(&rng, -1, 1);
        }
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                double s = 0.0;
                for (int p = 0; p < k; ++p)
                    s += U[i + p * n] * V[j + p * n];
                J[i + j * n] = s;
            }
        for (int i = 0; i < n; ++i)
            b[i] = d[i] = test_rng_range(&rng, -1, 1);
        assert_int_equal(factor_and_solve(n, J, d).factor, CDYN_ESINGULAR);

        /* J + s I with s = 1 + max_i sum_j |J_ij| is strictly row diagonally dominant with
           margin 1, so ||(J + s I)^-1||_inf <= 1 (Varah): the solve must reproduce b. */
        double shift = 0.0;
        for (int i = 0; i < n; ++i) {
            double row = 0.0;
            for (int j = 0; j < n; ++j)
                row += fabs(J[i + j * n]);
            shift = fmax(shift, row);
        }
        for (int i = 0; i < n; ++i)
            J[i + i * n] += 1.0 + shift;
        for (int i = 0; i < n; ++i)
            d[i] = b[i];
        const outcome o = factor_and_solve(n, J, d);
        assert_int_equal(o.factor, CDYN_OK);
        assert_int_equal(o.solve, CDYN_OK);
        for (int i = 0; i < n; ++i) {
            double s = 0.0;
            for (int j = 0; j < n; ++j)
                s += J[i + j * n] * d[j];
            assert_true(fabs(s - b[i]) <= 1e-10);
        }
        free(U);
        free(V);
        free(J);
        free(b);
        free(d);
    }
}

/* H must be finite: an entry overflowing in db J (finite J, huge db) makes it singular. */
static void test_overflowing_matrix_is_singular(void **state)
{
    (void)state;
    enum { N = 3 };
    double J[N * N] = {1, 0, 0, 0, 1e300, 0, 0, 0, 1}, da[N] = {0, 0, 0}, db[N] = {1, 1e10, 1};
    mcp_linsys ls;
    assert_int_equal(cdyn_mcp_linsys_create(NULL, N, NULL, NULL, NULL, &ls), CDYN_OK);
    const mcp_jac jac = {N, 0, NULL, NULL, N * N, J};
    assert_int_equal(cdyn_mcp_linsys_factor(&ls, &jac, 1e300, da, db, 0.0), CDYN_ESINGULAR);
    /* the same with the bound unknown (INFINITY): H is scanned */
    assert_int_equal(cdyn_mcp_linsys_factor(&ls, &jac, INFINITY, da, db, 0.0), CDYN_ESINGULAR);
    /* and a harmless db: the identity-like matrix factors */
    db[1] = 1e-300;
    assert_int_equal(cdyn_mcp_linsys_factor(&ls, &jac, 1e300, da, db, 0.0), CDYN_OK);
    cdyn_mcp_linsys_free(NULL, &ls);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ill_conditioned_triangle_is_caught_by_the_solve),
        cmocka_unit_test(test_rank_deficient_is_caught_by_the_factorization),
        cmocka_unit_test(test_overflowing_matrix_is_singular),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
