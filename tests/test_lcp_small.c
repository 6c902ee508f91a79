/* Small-problem LCP tools: enumeration of complementary bases and the P-matrix test.
 * Expected values come from hand derivations stated with each case and from classical facts
 * (Cottle–Pang–Stone 2009: M is a P-matrix iff all principal minors are positive; a positive
 * definite matrix, symmetric or not, is a P-matrix). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/lcp.h"
#include "lcp_problems.h"
#include "support.h"

#define SENTINEL 12345.0

static int is_p(int n, const double *M)
{
    int r = -1;
    assert_int_equal(cdyn_lcp_is_pmatrix(n, M, 0.0, &r, NULL, NULL), CDYN_OK);
    return r;
}

/* ---- P-matrix test ---------------------------------------------------------------- */

static void test_pmatrix_known_cases(void **state)
{
    (void)state;
    const double I3[] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    assert_int_equal(is_p(3, I3), 1);
    /* A negative 1x1 principal minor (a diagonal entry). */
    const double neg[] = {1, 0, 0, -2};
    assert_int_equal(is_p(2, neg), 0);
    /* Positive diagonal, but det [1 2; 2 1] = -3 < 0. */
    const double sym[] = {1, 2, 2, 1};
    assert_int_equal(is_p(2, sym), 0);
    /* A zero diagonal entry: a principal minor equal to 0 is not positive. */
    const double zero[] = {0, 1, -1, 1};
    assert_int_equal(is_p(2, zero), 0);
    /* Nonsymmetric positive definite, x^T M x = |x|^2: P. */
    const double pd[] = {1, -5, 5, 1};
    assert_int_equal(is_p(2, pd), 1);
    /* P but not positive definite: [1 -3; 0 1] has minors 1, 1, 1, yet x = (1, 1) gives
       x^T M x = -1. The test is about minors, not definiteness. */
    const double pnotpd[] = {1, 0, -3, 1};
    assert_int_equal(is_p(2, pnotpd), 1);
    /* Murty's triangular matrix (unit diagonal): every principal minor is 1. */
    enum { n = 12 };
    double T[n * n];
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            T[i + j * n] = i == j ? 1.0 : (i < j ? 2.0 : 0.0);
    assert_int_equal(is_p(n, T), 1);
    /* CPS_1's ones(2) is singular (det 0) and CPS_3's bimatrix has zero diagonal. */
    const double ones[] = {1, 1, 1, 1};
    assert_int_equal(is_p(2, ones), 0);
}

/* Generated P-matrices (positive definite by construction, see lcp_problems.h) are P; flipping
 * the sign of one diagonal entry of the SPD part can make a 1x1 minor negative. */
static void test_pmatrix_random(void **state)
{
    (void)state;
    for (int n = 1; n <= CDYN_LCP_SMALL_N; ++n) {
        double M[CDYN_LCP_SMALL_N * CDYN_LCP_SMALL_N], q[CDYN_LCP_SMALL_N];
        test_rng rng;
        test_rng_seed(&rng, 300 + (uint64_t)n);
        lcpgen_pmatrix(&rng, n, M, q);
        assert_int_equal(is_p(n, M), 1);
        M[(n - 1) + (size_t)(n - 1) * n] = -M[(n - 1) + (size_t)(n - 1) * n];
        assert_int_equal(is_p(n, M), 0);
    }
}

static void test_pmatrix_bad_input(void **state)
{
    (void)state;
    double M[13 * 13] = {0};
    int r = 7;
    cdyn_report rep;
    assert_int_equal(cdyn_lcp_is_pmatrix(13, M, 0.0, &r, NULL, &rep), CDYN_ETOOBIG);
    assert_true(strlen(rep.message) > 0);
    assert_int_equal(cdyn_lcp_is_pmatrix(0, M, 0.0, &r, NULL, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_is_pmatrix(-1, M, 0.0, &r, NULL, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_is_pmatrix(2, NULL, 0.0, &r, NULL, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_is_pmatrix(2, M, 0.0, NULL, NULL, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_is_pmatrix(2, M, NAN, &r, NULL, &rep), CDYN_EINVAL);
    M[3] = NAN;
    assert_int_equal(cdyn_lcp_is_pmatrix(2, M, 0.0, &r, NULL, &rep), CDYN_EINVAL);
    assert_true(strlen(rep.message) > 0);
    assert_int_equal(r, 7);
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, 0);
    const double I2[] = {1, 0, 0, 1};
    assert_int_equal(cdyn_lcp_is_pmatrix(2, I2, 0.0, &r, &fa.allocator, &rep), CDYN_ENOMEM);
    assert_int_equal(fa.live, 0);
    assert_int_equal(r, 7);
}

/* ---- enumeration ---------------------------------------------------------------------- */

/* CPS_1 (Cottle–Pang–Stone 2009, Remark 4.1.14): M = ones(2), q = (-1, -1). Bases {z1, w2} and
 * {w1, z2} give (1, 0) and (0, 1); {w1, w2} gives w = q < 0; {z1, z2} is singular. So exactly
 * the two vertices of the solution set {z1 + z2 = 1, z >= 0}. */
static void test_enumerate_cps1(void **state)
{
    (void)state;
    const double M[] = {1, 1, 1, 1}, q[] = {-1, -1};
    cdyn_lcp lcp = {2, M, q};
    double sol[6];
    for (int i = 0; i < 6; ++i)
        sol[i] = SENTINEL;
    int count = 0;
    cdyn_report rep;
    assert_int_equal(cdyn_lcp_enumerate(&lcp, sol, 2, &count, NULL, &rep), CDYN_OK);
    assert_int_equal(count, 2);
    int has10 = 0, has01 = 0;
    for (int k = 0; k < 2; ++k) {
        has10 |= fabs(sol[2 * k] - 1.0) <= 1e-15 && sol[2 * k + 1] == 0.0;
        has01 |= sol[2 * k] == 0.0 && fabs(sol[2 * k + 1] - 1.0) <= 1e-15;
    }
    assert_true(has10 && has01);
    assert_true(sol[4] == SENTINEL && sol[5] == SENTINEL);
    assert_true(strlen(rep.message) > 0); /* one basis was skipped as singular */
    /* Room for one: the count still says two, only the first is stored. */
    sol[2] = sol[3] = SENTINEL;
    assert_int_equal(cdyn_lcp_enumerate(&lcp, sol, 1, &count, NULL, NULL), CDYN_OK);
    assert_int_equal(count, 2);
    assert_true(sol[2] == SENTINEL && sol[3] == SENTINEL);
    assert_int_equal(cdyn_lcp_enumerate(&lcp, NULL, 0, &count, NULL, NULL), CDYN_OK);
    assert_int_equal(count, 2);
}

/* A P-matrix LCP has exactly one solution for every q. */
static void test_enumerate_pmatrix_unique(void **state)
{
    (void)state;
    for (int n = 1; n <= 8; ++n) {
        double M[64], q[8], sol[8], z[8], w[8];
        test_rng rng;
        test_rng_seed(&rng, 40 + (uint64_t)n);
        lcpgen_pmatrix(&rng, n, M, q);
        cdyn_lcp lcp = {n, M, q};
        int count = 0;
        assert_int_equal(cdyn_lcp_enumerate(&lcp, sol, 1, &count, NULL, NULL), CDYN_OK);
        assert_int_equal(count, 1);
        assert_true(cdyn_lcp_residual(&lcp, sol) <= 1e-12);
        for (int i = 0; i < n; ++i)
            assert_true(sol[i] >= 0.0);
        /* Lemke is an independent method for the same unique solution. */
        assert_int_equal(cdyn_lemke(&lcp, NULL, z, w, NULL), CDYN_OK);
        for (int i = 0; i < n; ++i)
            assert_true(fabs(z[i] - sol[i]) <= 1e-12);
    }
}

/* Pang's isolated solution (lcp_Pang_isolated_sol.dat): the only solution is z = (1, 0, 0)
 * (derived in test_lemke.c); its nonsingular basis {z1, z2, w3} is found. */
static void test_enumerate_pang(void **state)
{
    (void)state;
    const double M[] = {0, 1, -1, -1, 0, 0, -1, 0, 0}, q[] = {0, -1, 1};
    cdyn_lcp lcp = {3, M, q};
    double sol[3];
    int count = 0;
    assert_int_equal(cdyn_lcp_enumerate(&lcp, sol, 1, &count, NULL, NULL), CDYN_OK);
    assert_int_equal(count, 1);
    assert_true(fabs(sol[0] - 1.0) <= 1e-15 && sol[1] == 0.0 && sol[2] == 0.0);
}

/* q >= 0: the all-w basis gives z = 0; M = I (a P-matrix) makes it the only one. */
static void test_enumerate_trivial_and_infeasible(void **state)
{
    (void)state;
    const double I2[] = {1, 0, 0, 1}, q[] = {0, 3};
    cdyn_lcp lcp = {2, I2, q};
    double sol[2] = {SENTINEL, SENTINEL};
    int count = -1;
    assert_int_equal(cdyn_lcp_enumerate(&lcp, sol, 1, &count, NULL, NULL), CDYN_OK);
    assert_int_equal(count, 1);
    assert_true(sol[0] == 0.0 && sol[1] == 0.0);
    /* M = -1, q = -1: no solution (w = -z - 1 < 0). */
    const double m1[] = {-1}, q1[] = {-1};
    cdyn_lcp bad = {1, m1, q1};
    assert_int_equal(cdyn_lcp_enumerate(&bad, sol, 1, &count, NULL, NULL), CDYN_OK);
    assert_int_equal(count, 0);
}

static void test_enumerate_bad_input(void **state)
{
    (void)state;
    double M[13 * 13] = {0}, q[13] = {0}, sol[13];
    cdyn_lcp lcp = {13, M, q};
    int count = 5;
    cdyn_report rep;
    assert_int_equal(cdyn_lcp_enumerate(&lcp, sol, 1, &count, NULL, &rep), CDYN_ETOOBIG);
    assert_true(strlen(rep.message) > 0);
    lcp.n = 2;
    assert_int_equal(cdyn_lcp_enumerate(NULL, sol, 1, &count, NULL, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_enumerate(&lcp, sol, 1, NULL, NULL, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_enumerate(&lcp, NULL, 1, &count, NULL, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_enumerate(&lcp, sol, -1, &count, NULL, &rep), CDYN_EINVAL);
    lcp.n = 0;
    assert_int_equal(cdyn_lcp_enumerate(&lcp, sol, 1, &count, NULL, &rep), CDYN_EINVAL);
    lcp.n = 2;
    q[1] = NAN;
    assert_int_equal(cdyn_lcp_enumerate(&lcp, sol, 1, &count, NULL, &rep), CDYN_EINVAL);
    q[1] = 0.0;
    M[0] = INFINITY;
    assert_int_equal(cdyn_lcp_enumerate(&lcp, sol, 1, &count, NULL, &rep), CDYN_EINVAL);
    M[0] = 0.0;
    lcp.M = NULL;
    assert_int_equal(cdyn_lcp_enumerate(&lcp, sol, 1, &count, NULL, &rep), CDYN_EINVAL);
    assert_int_equal(count, 5);

    const double M1[] = {1, 1, 1, 1}, q1[] = {-1, -1};
    cdyn_lcp ok = {2, M1, q1};
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, 0);
    sol[0] = SENTINEL;
    assert_int_equal(cdyn_lcp_enumerate(&ok, sol, 1, &count, &fa.allocator, &rep), CDYN_ENOMEM);
    assert_int_equal(fa.live, 0);
    assert_int_equal(count, 5);
    assert_true(sol[0] == SENTINEL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pmatrix_known_cases),
        cmocka_unit_test(test_pmatrix_random),
        cmocka_unit_test(test_pmatrix_bad_input),
        cmocka_unit_test(test_enumerate_cps1),
        cmocka_unit_test(test_enumerate_pmatrix_unique),
        cmocka_unit_test(test_enumerate_pang),
        cmocka_unit_test(test_enumerate_trivial_and_infeasible),
        cmocka_unit_test(test_enumerate_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
