/* cdyn_lcp_fb_newton: the LCP as an NCP for the FB-Newton solver.
 * Expected values: hand solutions of small LCPs and the published solution of the PATH/JuMP
 * example. The shared LCP data files are crossed with FB-Newton and Lemke in
 * test_lcp_fixtures.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/mcp.h"
#include "support.h"

static void solve_and_compare(int n, const double *M, const double *q, const double *zstar,
                              double tol)
{
    cdyn_lcp lcp = {n, M, q};
    double z[8] = {0}, w[8];
    cdyn_report r;
    assert_int_equal(cdyn_lcp_fb_newton(&lcp, NULL, z, w, &r), CDYN_OK);
    for (int i = 0; i < n; ++i)
        assert_true(fabs(z[i] - zstar[i]) <= tol);
}

static void test_hand_solutions(void **state)
{
    (void)state;
    /* M = [2 1; 1 2], q = (-5, -6): both z positive, M z = -q gives z = (4/3, 7/3). */
    const double M1[4] = {2, 1, 1, 2}, q1[2] = {-5, -6}, z1[2] = {4.0 / 3.0, 7.0 / 3.0};
    solve_and_compare(2, M1, q1, z1, 1e-10);
    /* Murty's lower-triangular M (1 on, 2 below the diagonal), q = -1: z = e1, since row 1
       gives z1 = 1 and then rows i > 1 give w_i = 1 + z_i > 0, so z_i = 0. */
    double M2[36];
    for (int j = 0; j < 6; ++j)
        for (int i = 0; i < 6; ++i)
            M2[i + 6 * j] = i == j ? 1 : (i > j ? 2 : 0);
    const double q2[6] = {-1, -1, -1, -1, -1, -1}, z2[6] = {1, 0, 0, 0, 0, 0};
    solve_and_compare(6, M2, q2, z2, 1e-10);
    /* The PATH example of the JuMP complementarity tutorial: published z = (2.8, 0, 0.8, 1.2)
       (w = (0, 0.4, 0, 0) by hand). It is the only solution: M + M^T is positive semidefinite,
       so any other solution z' is complementary to w, giving z'2 = 0 and rows 1, 3, 4 of
       M z' + q = 0, whose 3-by-3 matrix in z1, z3, z4 has determinant 10. */
    const double M3[16] = {0, 0, 1, 1, 0, 0, -1, 2, -1, 1, 2, -2, -1, -2, -2, 4};
    const double q3[4] = {2, 2, -2, -6}, z3[4] = {2.8, 0, 0.8, 1.2};
    solve_and_compare(4, M3, q3, z3, 1e-9);
}

/* A kink at the start: Pang's LCP (tests/data/lcp_Pang_isolated_sol.dat) with
   M = [0 -1 -1; 1 0 0; -1 0 0] (rows), q = (0, -1, 1), from z = 0, where row 1 has z_1 = w_1 = 0.
   By hand, with the element of De Luca-Facchinei-Kanzow along z = e_1 (M e_1 = (0, 1, -1), so
   row 1 of H is row 1 of M) and the gradients (1, 2) and (1, 0) of the smooth rows 2 and 3,
   H d = -Phi reads -d2 - d3 = 0, 2 d1 + d2 = 2, d3 = 0: d = (1, 0, 0), the solution
   z* = (1, 0, 0) (w* = 0), reached exactly by the first Newton step. */
static void test_kink_start_one_newton_step(void **state)
{
    (void)state;
    const double M[9] = {0, 1, -1, -1, 0, 0, -1, 0, 0}, q[3] = {0, -1, 1};
    cdyn_lcp lcp = {3, M, q};
    double z[3] = {0, 0, 0}, w[3];
    cdyn_report r;
    assert_int_equal(cdyn_lcp_fb_newton(&lcp, NULL, z, w, &r), CDYN_OK);
    assert_int_equal(r.iterations, 1);
    assert_true(z[0] == 1.0 && z[1] == 0.0 && z[2] == 0.0);
    assert_true(w[0] == 0.0 && w[1] == 0.0 && w[2] == 0.0);
}

static void test_bad_input(void **state)
{
    (void)state;
    const double M[4] = {2, 1, 1, 2}, q[2] = {-5, -6};
    cdyn_lcp lcp = {2, M, q};
    double z[2] = {0, 0}, w[2] = {7, 7};
    cdyn_report r;
    assert_int_equal(cdyn_lcp_fb_newton(NULL, NULL, z, w, &r), CDYN_EINVAL);
    assert_true(strlen(r.message) > 0);
    assert_int_equal(cdyn_lcp_fb_newton(&lcp, NULL, NULL, w, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_fb_newton(&lcp, NULL, z, NULL, &r), CDYN_EINVAL);
    cdyn_lcp bad = lcp;
    bad.M = NULL;
    assert_int_equal(cdyn_lcp_fb_newton(&bad, NULL, z, w, &r), CDYN_EINVAL);
    bad = lcp;
    bad.q = NULL;
    assert_int_equal(cdyn_lcp_fb_newton(&bad, NULL, z, w, &r), CDYN_EINVAL);
    bad = lcp;
    bad.n = 0;
    assert_int_equal(cdyn_lcp_fb_newton(&bad, NULL, z, w, &r), CDYN_EINVAL);
    const double Mnan[4] = {2, NAN, 1, 2}, qinf[2] = {-5, INFINITY};
    bad = lcp;
    bad.M = Mnan;
    assert_int_equal(cdyn_lcp_fb_newton(&bad, NULL, z, w, &r), CDYN_EINVAL);
    bad = lcp;
    bad.q = qinf;
    assert_int_equal(cdyn_lcp_fb_newton(&bad, NULL, z, w, &r), CDYN_EINVAL);
    double zn[2] = {NAN, 0};
    assert_int_equal(cdyn_lcp_fb_newton(&lcp, NULL, zn, w, &r), CDYN_EINVAL);
    assert_true(isnan(zn[0]) && zn[1] == 0);
    cdyn_mcp_options o;
    cdyn_mcp_defaults(&o);
    o.tol = -1;
    assert_int_equal(cdyn_lcp_fb_newton(&lcp, &o, z, w, &r), CDYN_EINVAL);
    /* outputs untouched by all of the above */
    assert_true(z[0] == 0 && z[1] == 0 && w[0] == 7 && w[1] == 7);
    /* iteration limit: both outputs unchanged (without globalize, whose polish and restarts
       have budgets of their own) */
    cdyn_mcp_defaults(&o);
    o.max_iter = 1;
    o.globalize = 0;
    double zf[2] = {100, -100};
    assert_int_equal(cdyn_lcp_fb_newton(&lcp, &o, zf, w, &r), CDYN_ENOCONV);
    assert_true(zf[0] == 100 && zf[1] == -100 && w[0] == 7 && w[1] == 7);
    /* a NULL report is allowed */
    assert_int_equal(cdyn_lcp_fb_newton(&lcp, NULL, z, w, NULL), CDYN_OK);
}

static void test_allocation_failures(void **state)
{
    (void)state;
    const double M[4] = {2, 1, 1, 2}, q[2] = {-5, -6};
    cdyn_lcp lcp = {2, M, q};
    int succeeded = 0;
    for (int k = 0; k < 8 && !succeeded; ++k) {
        test_failing_alloc fa;
        test_failing_alloc_init(&fa, k);
        cdyn_mcp_options o;
        cdyn_mcp_defaults(&o);
        o.allocator = &fa.allocator;
        double z[2] = {0, 0}, w[2] = {7, 7};
        cdyn_report r;
        const cdyn_status st = cdyn_lcp_fb_newton(&lcp, &o, z, w, &r);
        assert_int_equal(fa.live, 0);
        if (st == CDYN_OK)
            succeeded = 1;
        else {
            assert_int_equal(st, CDYN_ENOMEM);
            assert_true(z[0] == 0 && w[0] == 7);
        }
    }
    assert_true(succeeded);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_solutions),
        cmocka_unit_test(test_kink_start_one_newton_step),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
