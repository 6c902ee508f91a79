/* The KKT MCP of mcp_testproblems.c (free variables, finite two-sided, one-sided and fixed
 * bounds, manufactured unique solution) solved on the dense and on the sparse path (whose
 * pattern lacks the zero diagonal of the multiplier block), with analytic and finite-difference
 * Jacobians and both merit functions, from two starting points. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/mcp.h"
#include "mcp_testproblems.h"

enum { N = TP_KKT_N };

static void test_free_and_bounded_variables(void **state)
{
    (void)state;
    tp_kkt k;
    tp_kkt_init(&k);
    assert_true(k.colptr[N] < N * N);
    for (int sparse = 0; sparse < 2; ++sparse)
        for (int fd = 0; fd < 2; ++fd)
            for (int merit = 0; merit < 2; ++merit)
                for (int s = 0; s < 2; ++s) {
                    cdyn_mcp mcp;
                    memset(&mcp, 0, sizeof mcp);
                    mcp.n = N;
                    mcp.lower = TP_KKT_LO;
                    mcp.upper = TP_KKT_UP;
                    mcp.F = tp_kkt_F;
                    mcp.ctx = &k;
                    if (sparse) {
                        mcp.colptr = k.colptr;
                        mcp.rowind = k.rowind;
                        mcp.jac_sparse = tp_kkt_J_sparse;
                    } else {
                        mcp.jac = tp_kkt_J;
                    }
                    cdyn_mcp_options o;
                    cdyn_mcp_defaults(&o);
                    o.jacobian_fd = fd;
                    o.merit = (cdyn_mcp_merit)merit;
                    double z[N];
                    memcpy(z, TP_KKT_STARTS[s], sizeof z);
                    cdyn_report r;
                    const cdyn_status st = cdyn_mcp_solve(&mcp, &o, z, &r);
                    if (st != CDYN_OK)
                        print_error("sparse %d fd %d merit %d start %d: %s\n", sparse, fd, merit, s,
                                    r.message);
                    assert_int_equal(st, CDYN_OK);
                    for (int i = 0; i < N; ++i)
                        assert_true(fabs(z[i] - TP_KKT_XSTAR[i]) <= 1e-8);
                    /* the fixed variable is exactly at its value */
                    assert_true(z[4] == 0.5);
                }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_free_and_bounded_variables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
