/* CSC view helpers (src/linalg/csc.c, cdyn_csc_check): validation, triplet assembly with
 * duplicates, products. References: hand-worked small cases (derivations in comments) and
 * dense computations with plain loops (tests/sparse_support.c). */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/sparse.h"
#include "linalg/csc.h"
#include "sparse_support.h"
#include "support.h"

#define EPS DBL_EPSILON

/* ---- cdyn_csc_check ------------------------------------------------------------------- */

/* 3 x 3:  [1 0 0; 2 3 0; 0 4 5]: columns {0:1, 1:2}, {1:3, 2:4}, {2:5}. */
static int cp0[4] = {0, 2, 4, 5};
static int ri0[5] = {0, 1, 1, 2, 2};
static double v0[5] = {1, 2, 3, 4, 5};

static cdyn_csc good(void)
{
    cdyn_csc A = {3, 3, cp0, ri0, v0};
    return A;
}

static void expect_einval(const cdyn_csc *A, const char *fragment)
{
    cdyn_report r;
    assert_int_equal(cdyn_csc_check(A, &r), CDYN_EINVAL);
    assert_int_equal(r.status, CDYN_EINVAL);
    assert_non_null(strstr(r.message, fragment));
}

static void test_check_valid(void **state)
{
    (void)state;
    cdyn_report r;
    cdyn_csc A = good();
    assert_int_equal(cdyn_csc_check(&A, &r), CDYN_OK);
    assert_string_equal(r.message, "");
    assert_int_equal(cdyn_csc_check(&A, NULL), CDYN_OK);
    /* Empty matrices and empty columns are valid; arrays may be NULL when nnz = 0. */
    int cp[3] = {0, 0, 0};
    cdyn_csc E = {4, 2, cp, NULL, NULL};
    assert_int_equal(cdyn_csc_check(&E, &r), CDYN_OK);
    cdyn_csc Z = {0, 0, cp, NULL, NULL};
    assert_int_equal(cdyn_csc_check(&Z, &r), CDYN_OK);
    /* Rectangular. */
    int cpr[3] = {0, 1, 3};
    int rir[3] = {4, 0, 2};
    double vr[3] = {1, -1, 2};
    cdyn_csc R = {5, 2, cpr, rir, vr};
    assert_int_equal(cdyn_csc_check(&R, &r), CDYN_OK);
}

static void test_check_invalid(void **state)
{
    (void)state;
    expect_einval(NULL, "NULL");
    cdyn_csc A = good();
    A.nrows = -1;
    expect_einval(&A, "negative");
    A = good();
    A.colptr = NULL;
    expect_einval(&A, "colptr is NULL");
    int cp_start[4] = {1, 2, 4, 5};
    A = good();
    A.colptr = cp_start;
    expect_einval(&A, "colptr[0]");
    int cp_dec[4] = {0, 3, 2, 5};
    A = good();
    A.colptr = cp_dec;
    expect_einval(&A, "decreases at column 1");
    int ri_range[5] = {0, 3, 1, 2, 2};
    A = good();
    A.rowind = ri_range;
    expect_einval(&A, "row index 3 out of range");
    int ri_neg[5] = {0, 1, -1, 2, 2};
    A = good();
    A.rowind = ri_neg;
    expect_einval(&A, "row index -1 out of range");
    int ri_unsorted[5] = {1, 0, 1, 2, 2};
    A = good();
    A.rowind = ri_unsorted;
    expect_einval(&A, "column 0");
    int ri_dup[5] = {0, 1, 2, 2, 2};
    A = good();
    A.rowind = ri_dup;
    expect_einval(&A, "duplicate");
    double v_nan[5] = {1, 2, NAN, 4, 5};
    A = good();
    A.values = v_nan;
    expect_einval(&A, "(1, 1) is not finite");
    double v_inf[5] = {1, 2, 3, 4, -INFINITY};
    A = good();
    A.values = v_inf;
    expect_einval(&A, "(2, 2) is not finite");
    A = good();
    A.rowind = NULL;
    expect_einval(&A, "rowind is NULL");
    A = good();
    A.values = NULL;
    expect_einval(&A, "values is NULL");
    /* The pattern-only variant accepts NULL values and NaN (symbolic analysis needs neither). */
    A = good();
    A.values = NULL;
    assert_int_equal(cdyn_csc_check_pattern(&A, 0, NULL), CDYN_OK);
}

/* ---- triplets ------------------------------------------------------------------------- */

static void test_triplets_hand(void **state)
{
    (void)state;
    /* 3 x 3 triplets: (0,0,1) (2,0,2) (0,0,3) (1,2,4) (2,0,-2) (1,1,5).
       Column 0: row 0 gets 1 + 3 = 4, row 2 gets 2 - 2 = 0 (an entry that sums to zero stays
       an entry: the pattern must not depend on values). Column 1: row 1 = 5. Column 2: row 1
       = 4. So colptr {0,2,3,4}, rowind {0,2,1,1}, values {4,0,5,4}, and the map sends the
       triplets to positions {0,1,0,3,1,2}. */
    const int ti[6] = {0, 2, 0, 1, 2, 1}, tj[6] = {0, 0, 0, 2, 0, 1};
    const double tx[6] = {1, 2, 3, 4, -2, 5};
    int colptr[4], rowind[6], map[6];
    double values[6];
    cdyn_report r;
    assert_int_equal(
        cdyn_csc_pattern_from_triplets(3, 3, 6, ti, tj, colptr, rowind, map, NULL, &r),
        CDYN_OK);
    const int ecp[4] = {0, 2, 3, 4}, eri[4] = {0, 2, 1, 1}, emap[6] = {0, 1, 0, 3, 1, 2};
    assert_memory_equal(colptr, ecp, sizeof ecp);
    assert_memory_equal(rowind, eri, sizeof eri);
    assert_memory_equal(map, emap, sizeof emap);
    cdyn_csc_values_from_triplets(6, map, tx, colptr[3], values);
    const double ev[4] = {4, 0, 5, 4};
    assert_memory_equal(values, ev, sizeof ev);

    /* No triplets: all columns empty. */
    int cp2[3] = {-1, -1, -1};
    assert_int_equal(
        cdyn_csc_pattern_from_triplets(5, 2, 0, NULL, NULL, cp2, NULL, NULL, NULL, &r),
        CDYN_OK);
    assert_true(cp2[0] == 0 && cp2[1] == 0 && cp2[2] == 0);
}

/* Random triplets with many repeats against a dense accumulation. */
static void test_triplets_random_against_dense(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 31);
    const int m = 37, n = 23, nt = 900; /* ~ 851 positions: plenty of duplicates */
    int *ti = malloc(sizeof(int) * nt), *tj = malloc(sizeof(int) * nt);
    double *tx = malloc(sizeof(double) * nt), *D = calloc((size_t)m * n, sizeof(double));
    double *Dabs = calloc((size_t)m * n, sizeof(double)), *E = malloc(sizeof(double) * m * n);
    int *hit = calloc((size_t)m * n, sizeof(int));
    assert_true(ti && tj && tx && D && Dabs && E && hit);
    for (int k = 0; k < nt; ++k) {
        ti[k] = (int)(test_rng_uniform(&rng) * m);
        tj[k] = (int)(test_rng_uniform(&rng) * n);
        tx[k] = test_rng_range(&rng, -1, 1);
        D[ti[k] + tj[k] * m] += tx[k];
        Dabs[ti[k] + tj[k] * m] += fabs(tx[k]);
        hit[ti[k] + tj[k] * m] = 1;
    }
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    cdyn_csc_assembly as;
    cdyn_report r;
    assert_int_equal(cdyn_csc_assembly_init(&as, m, n, nt, ti, tj, &fa.allocator, &r), CDYN_OK);
    cdyn_csc_assembly_set_values(&as, tx);
    assert_int_equal(cdyn_csc_check(&as.A, &r), CDYN_OK); /* sorted, no duplicates */
    int positions = 0;
    for (int p = 0; p < m * n; ++p)
        positions += hit[p];
    assert_int_equal(as.A.colptr[n], positions); /* one entry per distinct position */
    test_csc_to_dense(&as.A, E);
    for (int p = 0; p < m * n; ++p) /* summation order may differ: bound |error| by nt u sum|x| */
        assert_true(fabs(E[p] - D[p]) <= nt * EPS * Dabs[p]);
    /* New values through the same map: no allocation, same result as a fresh dense sum. */
    const int before = fa.allocations;
    for (int k = 0; k < nt; ++k)
        tx[k] *= -3.0;
    cdyn_csc_assembly_set_values(&as, tx);
    assert_int_equal(fa.allocations, before);
    test_csc_to_dense(&as.A, E);
    for (int p = 0; p < m * n; ++p)
        assert_true(fabs(E[p] + 3.0 * D[p]) <= 3.0 * nt * EPS * Dabs[p]);
    cdyn_csc_assembly_free(&as);
    assert_int_equal(fa.live, 0);
    cdyn_csc_assembly_free(&as); /* a freed (zeroed) assembly may be freed again */
    cdyn_csc_assembly_free(NULL);
    free(ti), free(tj), free(tx), free(D), free(Dabs), free(E), free(hit);
}

static void test_triplets_invalid(void **state)
{
    (void)state;
    const int ti[2] = {0, 3}, tj[2] = {0, 1};
    int colptr[3] = {7, 7, 7}, rowind[2] = {7, 7}, map[2] = {7, 7};
    cdyn_report r;
    assert_int_equal(
        cdyn_csc_pattern_from_triplets(3, 2, 2, ti, tj, colptr, rowind, map, NULL, &r),
        CDYN_EINVAL);
    assert_non_null(strstr(r.message, "triplet 1 at (3, 1)"));
    assert_true(colptr[0] == 7 && rowind[0] == 7 && map[0] == 7); /* outputs untouched */
    const int tneg[2] = {0, -1};
    assert_int_equal(
        cdyn_csc_pattern_from_triplets(3, 2, 2, ti, tneg, colptr, rowind, map, NULL, &r),
        CDYN_EINVAL);
    assert_int_equal(
        cdyn_csc_pattern_from_triplets(-1, 2, 2, ti, tj, colptr, rowind, map, NULL, &r),
        CDYN_EINVAL);
    assert_int_equal(
        cdyn_csc_pattern_from_triplets(3, 2, 2, NULL, tj, colptr, rowind, map, NULL, &r),
        CDYN_EINVAL);
    cdyn_csc_assembly as;
    assert_int_equal(cdyn_csc_assembly_init(&as, 3, 2, 2, ti, tj, NULL, &r), CDYN_EINVAL);
    assert_null(as.colptr);
    assert_int_equal(cdyn_csc_assembly_init(NULL, 3, 2, 2, ti, tj, NULL, &r), CDYN_EINVAL);
}

/* Every allocation of the assembly failing in turn: ENOMEM and nothing left allocated. */
static void test_triplets_allocation_failures(void **state)
{
    (void)state;
    const int ti[4] = {0, 1, 1, 0}, tj[4] = {0, 1, 1, 2};
    int failures = 0;
    for (int fail_after = 0;; ++fail_after) {
        test_failing_alloc fa;
        test_failing_alloc_init(&fa, fail_after);
        cdyn_csc_assembly as;
        cdyn_report r;
        cdyn_status st = cdyn_csc_assembly_init(&as, 2, 3, 4, ti, tj, &fa.allocator, &r);
        if (st == CDYN_OK) {
            assert_int_equal(as.A.colptr[3], 3);
            cdyn_csc_assembly_free(&as);
            assert_int_equal(fa.live, 0);
            break;
        }
        assert_int_equal(st, CDYN_ENOMEM);
        assert_int_equal(fa.live, 0);
        assert_null(as.colptr);
        failures++;
    }
    assert_int_equal(failures, 5); /* four arrays plus the sorting workspace */
}

/* ---- products ------------------------------------------------------------------------- */

static void test_gemv_hand(void **state)
{
    (void)state;
    /* A = [1 0 0; 2 3 0; 0 4 5], x = (1, -1, 2): A x = (1, 2 - 3, -4 + 10) = (1, -1, 6);
       A^T x = (1 - 2, -3 + 8, 10) = (-1, 5, 10). 2 A x + y0 with y0 = (1, 1, 1): (3, -1, 13). */
    cdyn_csc A = good();
    const double x[3] = {1, -1, 2};
    double y[3] = {NAN, NAN, NAN};
    cdyn_csc_gemv(0, 1.0, &A, x, 0.0, y);
    assert_true(y[0] == 1 && y[1] == -1 && y[2] == 6);
    double z[3] = {1, 1, 1};
    cdyn_csc_gemv(0, 2.0, &A, x, 1.0, z);
    assert_true(z[0] == 3 && z[1] == -1 && z[2] == 13);
    double t[3] = {NAN, NAN, NAN};
    cdyn_csc_gemv(1, 1.0, &A, x, 0.0, t);
    assert_true(t[0] == -1 && t[1] == 5 && t[2] == 10);
    /* As the lower triangle of S = [1 2 0; 2 3 4; 0 4 5]: S x = (1 - 2, 2 - 3 + 8, -4 + 10). */
    double s[3] = {NAN, NAN, NAN};
    cdyn_csc_symv_lower(1.0, &A, x, 0.0, s);
    assert_true(s[0] == -1 && s[1] == 7 && s[2] == 6);
}

static void test_gemv_random_against_dense(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 77);
    const int m = 41, n = 29, nt = 300;
    int ti[300], tj[300];
    double tx[300];
    for (int k = 0; k < nt; ++k) {
        ti[k] = (int)(test_rng_uniform(&rng) * m);
        tj[k] = (int)(test_rng_uniform(&rng) * n);
        tx[k] = test_rng_range(&rng, -2, 2);
    }
    cdyn_csc_assembly as;
    assert_int_equal(cdyn_csc_assembly_init(&as, m, n, nt, ti, tj, NULL, NULL), CDYN_OK);
    cdyn_csc_assembly_set_values(&as, tx);
    double *D = malloc(sizeof(double) * m * n);
    assert_non_null(D);
    test_csc_to_dense(&as.A, D);
    double x[41], y[41], y0[41], ref[41];
    for (int i = 0; i < m; ++i)
        y0[i] = test_rng_range(&rng, -1, 1);
    for (int trans = 0; trans < 2; ++trans) {
        const int lx = trans ? m : n, ly = trans ? n : m;
        for (int i = 0; i < lx; ++i)
            x[i] = test_rng_range(&rng, -1, 1);
        double bound = 0.0;
        for (int i = 0; i < ly; ++i) {
            double s = 0.0, sa = 0.0;
            for (int k = 0; k < lx; ++k) {
                double a = trans ? D[k + i * m] : D[i + k * m];
                s += a * x[k];
                sa += fabs(a * x[k]);
            }
            ref[i] = -1.5 * s + 0.25 * y0[i];
            bound = fmax(bound, 1.5 * sa + 0.25 * fabs(y0[i]));
        }
        memcpy(y, y0, sizeof y);
        cdyn_csc_gemv(trans, -1.5, &as.A, x, 0.25, y);
        for (int i = 0; i < ly; ++i) /* |fl(a.b) - a.b| <= (k+2) u sum|a_i b_i| */
            assert_true(fabs(y[i] - ref[i]) <= (lx + 2) * EPS * bound);
    }
    cdyn_csc_assembly_free(&as);
    free(D);
}

static void test_symv_lower_against_dense(void **state)
{
    (void)state;
    /* The 2D Laplacian stored as its lower triangle times x equals the full-stored product. */
    test_csc L, F;
    test_laplacian_2d(9, 0.3, 1, &L);
    test_laplacian_2d(9, 0.3, 0, &F);
    const int N = 81;
    double x[81], y[81], ref[81];
    test_rng rng;
    test_rng_seed(&rng, 3);
    for (int i = 0; i < N; ++i)
        x[i] = test_rng_range(&rng, -1, 1), y[i] = NAN;
    test_csc_mul(&F.A, x, ref);
    cdyn_csc_symv_lower(1.0, &L.A, x, 0.0, y);
    for (int i = 0; i < N; ++i) /* at most 5 terms of size <= 4.3 per row */
        assert_true(fabs(y[i] - ref[i]) <= 8 * EPS * 8.3);
    /* Entries above the diagonal are ignored: the full storage gives the same product. */
    cdyn_csc_symv_lower(1.0, &F.A, x, 0.0, y);
    for (int i = 0; i < N; ++i)
        assert_true(fabs(y[i] - ref[i]) <= 8 * EPS * 8.3);
    test_csc_free(&L);
    test_csc_free(&F);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_valid),
        cmocka_unit_test(test_check_invalid),
        cmocka_unit_test(test_triplets_hand),
        cmocka_unit_test(test_triplets_random_against_dense),
        cmocka_unit_test(test_triplets_invalid),
        cmocka_unit_test(test_triplets_allocation_failures),
        cmocka_unit_test(test_gemv_hand),
        cmocka_unit_test(test_gemv_random_against_dense),
        cmocka_unit_test(test_symv_lower_against_dense),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
