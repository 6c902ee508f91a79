/* Issue 18, LCP side: OK means certified. Regression tests for the answers that certified
 * themselves before (a norm-wise success test that grows with the answer's own size), the
 * proofs of infeasibility, and cdyn_lcp_residual on non-finite data.
 *
 * Every expected value has a stated source: the definition of an LCP solution checked here
 * componentwise in long double (independently of the library's certificate), a hand derivation,
 * or a Farkas vector checked by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/io.h"
#include "cdyn/lcp.h"
#include "solvers/lcp/lcp_internal.h"

#define SENTINEL 12345.0

/* The issue's 3x3 LCP, given by rows there; column-major here. Row 0 is
 * (-208846892.07, 0, 0) with q_0 = -752.04: w_0 = q_0 - 2.1e8 z_0 < 0 for every z >= 0, so no
 * z is feasible. Before, both entry points returned OK with z = (0, 6.6e6, 1.97e12). */
static const double M3[9] = {-208846892.07047102, -216465431898.81171, -0.0068365328052539358,
                             0, -0.11795176632732889, -62209.7817749881,
                             0, 0, 0.20819803779892504};
static const double q3[3] = {-752.04089846762599, 0, 496.74609961946413};

static void test_issue_infeasible_3x3(void **state)
{
    (void)state;
    const cdyn_lcp lcp = {3, M3, q3};
    for (int solver = 0; solver < 2; ++solver) {
        double z[3] = {SENTINEL, SENTINEL, SENTINEL}, w[3] = {SENTINEL, SENTINEL, SENTINEL};
        cdyn_report rep;
        const cdyn_status st = solver == 0 ? cdyn_lemke(&lcp, NULL, z, w, &rep)
                                           : cdyn_lcp_solve(&lcp, NULL, z, w, &rep);
        assert_int_equal(st, CDYN_EINFEASIBLE);
        assert_int_equal(rep.status, CDYN_EINFEASIBLE);
        assert_int_equal(rep.proven, 1);
        assert_non_null(strstr(rep.message, "proven"));
        for (int i = 0; i < 3; ++i)
            assert_true(z[i] == SENTINEL && w[i] == SENTINEL);
    }
}

/* The issue's warm-start case: rows [[1e12, 0], [1e12, 1]], q = (5e12, 0), warm basis {1, 1}.
 * q >= 0, so z = 0, w = q is a solution, and it is the only one: z_0 > 0 would need
 * w_0 = 5e12 + 1e12 z_0 = 0, impossible, and then z_1 > 0 needs w_1 = z_1 = 0. The guessed
 * basis gives z = (-5, 5e12), which the old test accepted as (0, 5e12) with w_1 = 5e12. */
static void test_issue_warm_basis_2x2(void **state)
{
    (void)state;
    const double M[4] = {1e12, 1e12, 0, 1}, q[2] = {5e12, 0};
    const int warm[2] = {1, 1};
    const cdyn_lcp lcp = {2, M, q};
    cdyn_lemke_options o;
    cdyn_lemke_defaults(&o);
    o.warm_basis = warm;
    double z[2], w[2];
    cdyn_report rep;
    assert_int_equal(cdyn_lemke(&lcp, &o, z, w, &rep), CDYN_OK);
    assert_true(z[0] == 0.0 && z[1] == 0.0);
    assert_true(w[0] == 5e12 && w[1] == 0.0);
    cdyn_lcp_options lo;
    cdyn_lcp_defaults(&lo);
    lo.lemke.warm_basis = warm;
    assert_int_equal(cdyn_lcp_solve(&lcp, &lo, z, w, &rep), CDYN_OK);
    assert_true(z[0] == 0.0 && z[1] == 0.0);
}

/* A failure without a certificate never claims a proof: a pivot limit of 1 on M = I,
 * q = (-1, -1), whose solution z = (1, 1) (w = z - 1 = 0) takes more pivots, is CDYN_ENOCONV
 * with report.proven = 0. */
static void test_unproven_failure_is_not_proven(void **state)
{
    (void)state;
    const double M[4] = {1, 0, 0, 1}, q[2] = {-1, -1};
    const cdyn_lcp lcp = {2, M, q};
    cdyn_lemke_options o;
    cdyn_lemke_defaults(&o);
    o.max_pivots = 1;
    double z[2], w[2];
    cdyn_report rep;
    assert_int_equal(cdyn_lemke(&lcp, &o, z, w, &rep), CDYN_ENOCONV);
    assert_int_equal(rep.proven, 0);
}

/* cdyn_lcp_residual promises NaN for invalid arguments: non-finite q, M or z. Before, q with
 * -Inf gave +Inf and q with +Inf gave 0 ("solved"). */
static void test_residual_nonfinite_is_nan(void **state)
{
    (void)state;
    const double M[4] = {2, 1, 1, 2}, z[2] = {1, 1};
    const double qbad[3][2] = {{-INFINITY, 0}, {INFINITY, 0}, {NAN, 0}};
    for (int k = 0; k < 3; ++k) {
        const cdyn_lcp lcp = {2, M, qbad[k]};
        assert_true(isnan(cdyn_lcp_residual(&lcp, z)));
    }
    const double q[2] = {-3, -3};
    const cdyn_lcp good = {2, M, q};
    assert_true(cdyn_lcp_residual(&good, z) == 0.0); /* M z + q = 0: solved */
    const double Minf[4] = {2, INFINITY, 1, 2}, zero[2] = {0, 0};
    const cdyn_lcp bad_m = {2, Minf, q};
    assert_true(isnan(cdyn_lcp_residual(&bad_m, zero))); /* Inf * 0 would be NaN anyway */
    assert_true(isnan(cdyn_lcp_residual(&bad_m, z)));
    const double zinf[2] = {INFINITY, 0};
    assert_true(isnan(cdyn_lcp_residual(&good, zinf)));
}

/* tests/data/pyramid/far_rows_seed2.dat (origin in the file): a friction-pyramid LCP whose
 * normal rows of contacts far apart have q up to 319 next to contact velocities of 3.8e-3;
 * Lemke's tie band, relative to its largest basic value, then swallowed genuine small velocities, and every
 * attempt of cdyn_lcp_solve failed the certificate (best violation 3.08e-10). The pyramid step
 * now solves such LCPs with those q_i capped (src/step/pyramid_lcp.c, cap_far): here every
 * q_i > 1 is set to 1; the answer must leave the capped rows unloaded (z_i = 0), and then it
 * passes the certificate of the LCP as is, the argument of cap_far. Whatever cdyn_lcp_solve
 * returns on the LCP as is must be certified when it says OK. */
static void test_pyramid_far_rows_capped(void **state)
{
    (void)state;
    cdyn_lcp_file *f = NULL;
    cdyn_report rep;
    assert_int_equal(cdyn_lcp_file_read(CDYN_TEST_DATA_DIR "/pyramid/far_rows_seed2.dat", NULL, &f,
                                        &rep),
                     CDYN_OK);
    const int n = f->n;
    assert_int_equal(n, 90);
    double q[90], z[90], w[90], zo[90], wo[90];
    int capped = 0;
    for (int i = 0; i < n; ++i) {
        q[i] = f->q[i] > 1.0 ? 1.0 : f->q[i];
        capped += q[i] < f->q[i];
    }
    assert_true(capped > 0);
    const cdyn_lcp as_is = {n, f->M, f->q}, cap = {n, f->M, q};
    if (cdyn_lcp_solve(&as_is, NULL, z, w, &rep) == CDYN_OK)
        assert_true(cdyn_lcp_certify(&as_is, z, 1e-10, zo, wo, NULL) <= 1e-10);
    assert_int_equal(cdyn_lcp_solve(&cap, NULL, z, w, &rep), CDYN_OK);
    assert_true(cdyn_lcp_certify(&cap, z, 1e-10, zo, wo, NULL) <= 1e-10);
    for (int i = 0; i < n; ++i)
        if (q[i] < f->q[i])
            assert_true(z[i] == 0.0);
    assert_true(cdyn_lcp_certify(&as_is, z, 1e-10, zo, wo, NULL) <= 1e-10);
    cdyn_lcp_file_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_issue_infeasible_3x3),
        cmocka_unit_test(test_issue_warm_basis_2x2),
        cmocka_unit_test(test_unproven_failure_is_not_proven),
        cmocka_unit_test(test_residual_nonfinite_is_nan),
        cmocka_unit_test(test_pyramid_far_rows_capped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
