/* Classic nonlinear complementarity test problems with known solutions (mcp_testproblems.c,
 * which cites the sources and derives the solution sets), each solved from two starting points,
 * with the analytic and the finite-difference Jacobian, with the plain and the penalized
 * Fischer–Burmeister function. Every solve must also reach the natural residual tolerance
 * (computed independently of the solver by cdyn_mcp_residual). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/mcp.h"
#include "mcp_testproblems.h"

static void solve_all(int use_fd, cdyn_mcp_merit merit)
{
    for (int k = 0; k < TP_NPROB; ++k) {
        const tp_problem *pb = &TP_PROBLEMS[k];
        for (int s = 0; s < 2; ++s) {
            cdyn_mcp mcp;
            memset(&mcp, 0, sizeof mcp);
            mcp.n = pb->n;
            mcp.lower = pb->lower;
            mcp.upper = pb->upper;
            mcp.F = pb->F;
            mcp.jac = pb->J;
            cdyn_mcp_options o;
            cdyn_mcp_defaults(&o);
            o.jacobian_fd = use_fd;
            o.merit = merit;
            double x[TP_MAXN];
            memcpy(x, pb->start[s], sizeof x);
            cdyn_report r;
            const cdyn_status st = cdyn_mcp_solve(&mcp, &o, x, &r);
            double F[TP_MAXN];
            const int fok = pb->F(NULL, x, F) == 0;
            const double res = fok ? cdyn_mcp_residual(&mcp, x, F) : INFINITY;
            const double dist = pb->distance(x);
            if (st != CDYN_OK || !(res <= o.tol) || !(dist <= pb->distance_tol))
                print_error("%s start %d fd %d merit %d: status %d (%s) it %d res %g dist %g\n",
                            pb->name, s, use_fd, (int)merit, (int)st, r.message, r.iterations, res,
                            dist);
            assert_int_equal(st, CDYN_OK);
            assert_true(res <= o.tol);
            assert_true(r.residual <= o.tol);
            assert_true(dist <= pb->distance_tol);
            assert_true(r.evaluations > 0);
        }
    }
}

static void test_fb_analytic_jacobian(void **state)
{
    (void)state;
    solve_all(0, CDYN_MCP_FB);
}

static void test_fb_finite_differences(void **state)
{
    (void)state;
    solve_all(1, CDYN_MCP_FB);
}

static void test_penalized_fb(void **state)
{
    (void)state;
    solve_all(0, CDYN_MCP_FB_PENALIZED);
}

static void test_nonmonotone_line_search(void **state)
{
    (void)state;
    /* Same problems with a Grippo–Lampariello–Lucidi reference over 5 merit values. */
    for (int k = 0; k < TP_NPROB; ++k) {
        const tp_problem *pb = &TP_PROBLEMS[k];
        cdyn_mcp mcp;
        memset(&mcp, 0, sizeof mcp);
        mcp.n = pb->n;
        mcp.lower = pb->lower;
        mcp.upper = pb->upper;
        mcp.F = pb->F;
        mcp.jac = pb->J;
        cdyn_mcp_options o;
        cdyn_mcp_defaults(&o);
        o.nonmonotone_memory = 5;
        for (int s = 0; s < 2; ++s) {
            double x[TP_MAXN];
            memcpy(x, pb->start[s], sizeof x);
            cdyn_report r;
            assert_int_equal(cdyn_mcp_solve(&mcp, &o, x, &r), CDYN_OK);
            assert_true(pb->distance(x) <= pb->distance_tol);
        }
    }
}

/* Both solutions of Kojima–Shindo are reachable: started 0.05 away from either (including the
   degenerate one, x3 = F3 = 0), the iteration converges to that solution. */
static void test_kojima_shindo_both_solutions(void **state)
{
    (void)state;
    const double *sols[2] = {TP_KS_SOL1, TP_KS_SOL2};
    for (int k = 0; k < 2; ++k) {
        cdyn_mcp mcp;
        memset(&mcp, 0, sizeof mcp);
        mcp.n = 4;
        mcp.F = tp_ks_F;
        mcp.jac = tp_ks_J;
        double x[4];
        for (int i = 0; i < 4; ++i)
            x[i] = sols[k][i] + 0.05;
        cdyn_report r;
        assert_int_equal(cdyn_mcp_solve(&mcp, NULL, x, &r), CDYN_OK);
        assert_true(tp_dist_to(x, sols[k], 4) <= 1e-9);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fb_analytic_jacobian),
        cmocka_unit_test(test_fb_finite_differences),
        cmocka_unit_test(test_penalized_fb),
        cmocka_unit_test(test_nonmonotone_line_search),
        cmocka_unit_test(test_kojima_shindo_both_solutions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
