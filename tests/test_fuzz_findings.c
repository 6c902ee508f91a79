/* Regression tests for the fuzzers' findings (tests/fuzz, docs/fuzzing.md): each case is the
 * decoded crashing input (also kept in tests/fuzz/corpus/<target>/) and checks the invariant
 * the fuzz target found broken. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/coneqp.h"
#include "cdyn/lcp.h"
#include "cdyn/mcp.h"
#include "cdyn/ucp.h"

/* fuzz_lcp_solve: Lemke fails, enumeration finds the basis {z0, z1} feasible within its
 * tolerance relative to ||M|| ||z|| (M has a 3e284 entry, z ~ 1e-283) and stores z's small
 * negatives as 0; the stored z then gave w = q, with w0 = -28.25, and cdyn_lcp_solve returned
 * CDYN_OK with residual 28.25. Now the stored z must pass the success test itself. */
static void test_lcp_solve_enumeration_clipping(void **state)
{
    (void)state;
    const double M[4] = {-0.25, -28.25, -2.9744409926179285e+284, -0.25};
    const double q[2] = {-28.25, 0.0};
    const cdyn_lcp lcp = {2, M, q};
    double z[2] = {-1.0, -2.0}, w[2] = {-3.0, -4.0};
    const double z0[2] = {-1.0, -2.0}, w0[2] = {-3.0, -4.0};
    cdyn_report rep;
    cdyn_status st = cdyn_lcp_solve(&lcp, NULL, z, w, &rep);
    assert_int_equal(rep.status, st);
    if (st == CDYN_OK) {
        /* the documented success test, 1e-10 relative (enumeration's tolerance) */
        const double zn = fmax(fabs(z[0]), fabs(z[1]));
        const double mn = fmax(fabs(M[0]) + fabs(M[2]), fabs(M[1]) + fabs(M[3]));
        assert_true(cdyn_lcp_residual(&lcp, z) <= 1e-10 * fmax(28.25, mn * zn));
    } else {
        assert_memory_equal(z, z0, sizeof z);
        assert_memory_equal(w, w0, sizeof w);
    }
}

/* fuzz_lemke: the final basic solution had tiny negative z's (M has a 1e300 entry) that are
 * rounded to 0 on output, but the success tolerance was taken relative to ||M|| ||z|| of the
 * unrounded z: cdyn_lemke returned CDYN_OK with z = 0, w = 0 where M z + q = -10.5. */
static void test_lemke_tolerance_of_rounded_z(void **state)
{
    (void)state;
    const double M[9] = {1, 2, 2, 0, -10.5, 1.0000000000000001e+300, -10.5, -4.2e-10, 11.75};
    const double q[3] = {10.25, -10.5, -10.5};
    const cdyn_lcp lcp = {3, M, q};
    const int warm[3] = {1, 0, 0};
    cdyn_lemke_options o;
    cdyn_lemke_defaults(&o);
    o.tol = 1e-14;
    o.warm_basis = warm;
    double z[3] = {-1, -2, -3}, w[3] = {-4, -5, -6};
    const double z0[3] = {-1, -2, -3}, w0[3] = {-4, -5, -6};
    cdyn_report rep;
    cdyn_status st = cdyn_lemke(&lcp, &o, z, w, &rep);
    assert_int_equal(rep.status, st);
    if (st == CDYN_OK) {
        double zn = 0.0, mn = 0.0;
        for (int i = 0; i < 3; ++i) {
            zn = fmax(zn, fabs(z[i]));
            mn = fmax(mn, fabs(M[i]) + fabs(M[i + 3]) + fabs(M[i + 6]));
            double wi = q[i] + M[i] * z[0] + M[i + 3] * z[1] + M[i + 6] * z[2];
            assert_true(fabs(wi - w[i]) <= 1e-14 * fmax(10.5, mn * zn));
        }
        assert_true(cdyn_lcp_residual(&lcp, z) <= 1e-14 * fmax(10.5, mn * zn));
    } else {
        assert_memory_equal(z, z0, sizeof z);
        assert_memory_equal(w, w0, sizeof w);
    }
}

/* fuzz_lemke, fuzz_lcp_solve: overflow. M = (4.9e-324), q = (-31) gives z = 31 / M = Inf, and
 * the success test Inf <= tol * ||M|| Inf held: CDYN_OK with z = w = Inf. The second problem
 * reached z2 = 1.6e298, w2 = Inf through the alternate coverings. A solution is finite. */
static void test_lcp_overflow_is_no_solution(void **state)
{
    (void)state;
    const double M1[1] = {4.9406564584124654e-324}, q1[1] = {-31};
    const double M2[4] = {-1, -1, -1.25, 11000000000.0};
    const double q2[2] = {-1.7976931348623157e+308, -1.7976931348623157e+308};
    const cdyn_lcp lcps[2] = {{1, M1, q1}, {2, M2, q2}};
    for (int k = 0; k < 2; ++k) {
        const int n = lcps[k].n;
        for (int solver = 0; solver < 2; ++solver) {
            double z[2] = {-1, -2}, w[2] = {-3, -4};
            cdyn_report rep;
            cdyn_status st = solver == 0 ? cdyn_lemke(&lcps[k], NULL, z, w, &rep)
                                         : cdyn_lcp_solve(&lcps[k], NULL, z, w, &rep);
            assert_int_equal(rep.status, st);
            if (st == CDYN_OK) {
                for (int i = 0; i < n; ++i)
                    assert_true(isfinite(z[i]) && isfinite(w[i]));
                assert_true(isfinite(cdyn_lcp_residual(&lcps[k], z)));
            } else {
                assert_true(z[0] == -1 && w[0] == -3);
            }
        }
    }
}

/* fuzz_lemke: a warm start whose basic values overflow (q holds DBL_MAX) made every ratio of
 * the first pivot NaN, no row was chosen and the pivot wrote at index -1 (ASan: SEGV in
 * tableau_pivot). Now a clean failure, or a finite solution. */
static void test_lemke_warm_start_overflow(void **state)
{
    (void)state;
    const double M[9] = {1, 2, 2, 0, 12.5, -10.5, -10.5, -10.5, -10.5};
    const double q[3] = {-10.5, 1.7976931348623157e+308, 1.7976931348623157e+308};
    const cdyn_lcp lcp = {3, M, q};
    const int warm[3] = {0, 0, 1};
    cdyn_lemke_options o;
    cdyn_lemke_defaults(&o);
    o.tol = 1e-14;
    o.warm_basis = warm;
    double z[3] = {-1, -2, -3}, w[3] = {-4, -5, -6};
    const double z0[3] = {-1, -2, -3}, w0[3] = {-4, -5, -6};
    cdyn_report rep;
    cdyn_status st = cdyn_lemke(&lcp, &o, z, w, &rep);
    assert_int_equal(rep.status, st);
    if (st == CDYN_OK) {
        for (int i = 0; i < 3; ++i)
            assert_true(isfinite(z[i]) && isfinite(w[i]));
    } else {
        assert_memory_equal(z, z0, sizeof z);
        assert_memory_equal(w, w0, sizeof w);
    }
}

/* fuzz_coneqp: a solve whose factorization needed a shifted retry returned CDYN_OK with
 * report.status still CDYN_ESINGULAR from the retry. H = B B^T (n = 6, rank-deficient, with
 * 1e14 entries), c = 0, two spatial contacts. */
static void test_coneqp_report_status_after_retry(void **state)
{
    (void)state;
    const double B[36] = {0, 15, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
                          -25.25, -1.01e14, -1.01e14, -1.01e14, -1.01e14, -1.01e14, -1.01e14,
                          0, 0, 0, 0, 3, 0, 0, 0};
    double H[36];
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            double s = 0.0;
            for (int k = 0; k < 6; ++k)
                s += B[i + 6 * k] * B[j + 6 * k];
            H[i + 6 * j] = s;
        }
    const double c[6] = {0}, mu[2] = {0.5, 0.25};
    cdyn_coneqp p = {0};
    p.ncontacts = 2;
    p.dim = 3;
    p.mu = mu;
    p.H = H;
    p.c = c;
    double x[6], u[6];
    cdyn_coneqp_info info;
    cdyn_report rep;
    cdyn_status st = cdyn_coneqp_solve(&p, NULL, x, u, &info, &rep);
    assert_int_equal(rep.status, st);
    if (st == CDYN_OK)
        assert_string_equal(rep.message, "");
}

/* fuzz_coneqp: a disk problem with mu = 0 (every x_i fixed at 0) and c = DBL_MAX: the
 * certificate's term r_i ||u_i|| was 0 * Inf = NaN, so CDYN_OK came with gap = NaN. The term is
 * 0 when r_i = 0. */
static void test_coneqp_disk_gap_of_fixed_contacts(void **state)
{
    (void)state;
    const int dims[2] = {2, 3};
    const double mu[2] = {0, 0}, normal[2] = {-29, 0};
    const double big = 1.7976931348623157e+308;
    /* H's lower triangle (n = 3) in CSC, as the fuzz target passed it: -32, -1 / 0 / DBL_MAX
     * (not positive semidefinite, but every variable is fixed, so the test ignores it) */
    const int colptr[4] = {0, 2, 3, 4}, rowind[4] = {0, 2, 1, 2};
    const double values[4] = {-32, -1, 0, big};
    const cdyn_csc Hs = {3, 3, colptr, rowind, values};
    const double c[3] = {big, big, big};
    cdyn_coneqp p = {0};
    p.ncontacts = 2;
    p.dims = dims;
    p.mu = mu;
    p.normal = normal;
    p.Hs = &Hs;
    p.c = c;
    double x[3], u[3];
    cdyn_coneqp_info info;
    cdyn_report rep;
    cdyn_status st = cdyn_coneqp_solve(&p, NULL, x, u, &info, &rep);
    assert_int_equal(rep.status, st);
    if (st == CDYN_OK) {
        assert_false(isnan(info.gap));
        assert_false(isnan(info.dual_objective));
    }
}

/* fuzz_coneqp: one frictionless planar contact with H = [7.25 DBL_MAX; DBL_MAX DBL_MAX] and
 * c = (7.25, DBL_MAX): u = Hx + c overflowed to Inf in its tangential entry and
 * cdyn_coneqp_solve returned CDYN_OK with u_t = Inf (dual residual and gap NaN). */
static void test_coneqp_overflowing_dual(void **state)
{
    (void)state;
    const double big = 1.7976931348623157e+308;
    const double H[4] = {7.25, big, big, big}, c[2] = {7.25, big}, mu[1] = {0};
    cdyn_coneqp p = {0};
    p.ncontacts = 1;
    p.dim = 2;
    p.mu = mu;
    p.H = H;
    p.c = c;
    double x[2] = {-1, -2}, u[2] = {-3, -4};
    cdyn_coneqp_info info;
    cdyn_report rep;
    cdyn_status st = cdyn_coneqp_solve(&p, NULL, x, u, &info, &rep);
    assert_int_equal(rep.status, st);
    if (st == CDYN_OK) {
        assert_true(isfinite(x[0]) && isfinite(x[1]) && isfinite(u[0]) && isfinite(u[1]));
        assert_false(isnan(info.dual_residual) || isnan(info.gap));
    } else {
        assert_true(x[0] == -1 && x[1] == -2 && u[0] == -3 && u[1] == -4);
    }
}

/* fuzz_lcp_fb (the second long run): entries 1e79 and 1e-307, finite differences, penalized
 * merit, max_iter 4. The restarts recovered F as F_eps(x) - eps (x - xbar) with eps ~ 1e78,
 * which cancelled F entirely: z = 0 came back as CDYN_OK with residual 0 where it is 27. Now F
 * is evaluated afresh; a success must pass the residual test recomputed here. */
static void test_lcp_fb_restart_residual(void **state)
{
    (void)state;
    const double M[4] = {-26, 9.7920361550402439e-307, -0.25, -1.482138038399714e+79};
    const double q[2] = {1.5, -27};
    const cdyn_lcp lcp = {2, M, q};
    double z[2] = {7.0641505793809785e-304, 31.25}, w[2] = {-1, -2};
    cdyn_mcp_options o;
    cdyn_mcp_defaults(&o);
    o.merit = CDYN_MCP_FB_PENALIZED;
    o.max_iter = 4;
    o.jacobian_fd = 1;
    cdyn_report rep;
    cdyn_status st = cdyn_lcp_fb_newton(&lcp, &o, z, w, &rep);
    assert_int_equal(rep.status, st);
    if (st == CDYN_OK) {
        assert_true(cdyn_lcp_residual(&lcp, z) <= o.tol);
        assert_true(fabs(rep.residual - cdyn_lcp_residual(&lcp, z)) <= o.tol);
    }
}

/* fuzz_lcp_fb (a CI smoke run that spun for minutes): n = 4, a 1e300 entry in M, default
 * options. Plain FB-Newton stalls; the proximal-perturbation restarts then ran perturbed
 * problems and trials that ended without an accepted step, consuming none of the iteration
 * budget, forever. The restarts are now capped; the call must return within its budget of
 * max_iter plain plus max_iter restart iterations, and a success must pass the residual test. */
static void test_lcp_fb_restarts_end(void **state)
{
    (void)state;
    const double M[16] = {4, -1, 0, 0, -1, 4, -1, 31.25, 1e300, -1, 0, 4, -18.5, 2, -1, 4};
    const double q[4] = {-1, 11, -3, 1};
    const cdyn_lcp lcp = {4, M, q};
    double z[4] = {0, 0, 0, 0}, w[4] = {-11, -12, -13, -14};
    cdyn_mcp_options o;
    cdyn_mcp_defaults(&o);
    cdyn_report rep;
    cdyn_status st = cdyn_lcp_fb_newton(&lcp, &o, z, w, &rep);
    assert_int_equal(rep.status, st);
    assert_true(rep.iterations <= 2 * o.max_iter);
    if (st == CDYN_OK)
        assert_true(cdyn_lcp_residual(&lcp, z) <= o.tol * 1.0000001);
    else
        assert_true(z[0] == 0 && z[3] == 0 && w[0] == -11 && w[3] == -14);
}

/* fuzz_ucp: extreme joint data (Jt = DBL_MAX, Jn = DBL_MIN, mu = DBL_MAX) made the recovered
 * object velocity Inf and NaN; the accuracy check, a fmax over residuals, dropped the NaN terms
 * and cdyn_ucp_solve returned CDYN_OK with qdot = (Inf, NaN, NaN). */
static void test_ucp_nonfinite_recovery(void **state)
{
    (void)state;
    const double big = 1.7976931348623157e+308;
    const double Wn[3] = {-20, 10.75, -29.75}, Wt[3] = {-20, 0, 10.75};
    const double Jn[1] = {2.2250738585072014e-308}, Jt[1] = {big}, mu[1] = {big};
    const int alpha[1] = {1};
    const double theta_dot[1] = {-20}, tau[1] = {0.5}, g_man[1] = {0}, g_obj[3] = {0, 0, 0};
    const cdyn_ucp_problem p = {1, 3, 1, Wn, Wt, Jn, Jt, mu, alpha, theta_dot, tau, g_obj, g_man};
    cdyn_ucp_options o;
    cdyn_ucp_defaults(&o);
    o.escape = CDYN_UCP_ESCAPE_PAPER;
    o.seed = 0;
    o.max_pairs = 1;
    o.max_restarts = 0;
    double out[15];
    for (int k = 0; k < 15; ++k)
        out[k] = -7.0;
    cdyn_ucp_solution sol = {out, out + 3, out + 6, out + 7, out + 8, out + 9, out + 10,
                             out + 13, out + 14};
    cdyn_report rep;
    cdyn_status st = cdyn_ucp_solve(&p, &o, &sol, NULL, &rep);
    assert_int_equal(rep.status, st);
    for (int k = 0; k < 15; ++k)
        assert_true(st == CDYN_OK ? isfinite(out[k]) : out[k] == -7.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lcp_solve_enumeration_clipping),
        cmocka_unit_test(test_lemke_tolerance_of_rounded_z),
        cmocka_unit_test(test_lcp_overflow_is_no_solution),
        cmocka_unit_test(test_lemke_warm_start_overflow),
        cmocka_unit_test(test_coneqp_report_status_after_retry),
        cmocka_unit_test(test_coneqp_disk_gap_of_fixed_contacts),
        cmocka_unit_test(test_coneqp_overflowing_dual),
        cmocka_unit_test(test_lcp_fb_restart_residual),
        cmocka_unit_test(test_lcp_fb_restarts_end),
        cmocka_unit_test(test_ucp_nonfinite_recovery),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
