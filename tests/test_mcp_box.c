/* An MCP with free variables, finite two-sided, one-sided and fixed bounds: the KKT system of
 *     minimize 1/2 x'Qx + 0.025 sum x_i^4 + c'x  subject to  A x = b,  l <= x <= u
 * with multipliers y (free) for A x = b:
 *     F_x = Q x + 0.1 x^3 + c - A'y  complementary to  l <= x <= u,
 *     F_y = A x - b                  complementary to  y free.
 * Manufactured solution: we choose x*, y* and the signs of F_x(x*) per bound type, then set
 * c = F_x(x*) - Q x* - 0.1 x*^3 + A'y* and b = A x*. The objective is strictly convex, so x* is
 * the unique minimizer; the variables strictly inside their bounds (2 and 3) see the 2-by-2
 * block A[:, {2,3}] of determinant -3, so y* is unique too. Solved on the dense and on the
 * sparse path (whose pattern lacks the zero diagonal of the multiplier block), with analytic
 * and finite-difference Jacobians and both merit functions, from two starting points. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/mcp.h"

enum { NX = 6, NY = 2, N = NX + NY };

static const double A[NY][NX] = {{1, 0, 2, 1, 0, 1}, {0, 1, 1, -1, 1, 0}};
#define INF INFINITY
/* x0: NCP at its bound; x1: box [-1, 1] at u; x2: box [-1, 2] inside; x3: free; x4: fixed at
   0.5; x5: upper bound only, at u = 2; y0, y1 free. */
static const double LO[N] = {0, -1, -1, -INF, 0.5, -INF, -INF, -INF};
static const double UP[N] = {INF, 1, 2, INF, 0.5, 2, INF, INF};
static const double XSTAR[N] = {0, 1, 0.3, -0.8, 0.5, 2, 0.7, -1.3};
/* F_x(x*) by bound type: > 0 at a lower bound, < 0 at an upper bound, 0 inside or free,
   anything at a fixed variable. */
static const double FSTAR[NX] = {0.8, -0.6, 0, 0, 2.5, -0.4};

typedef struct kkt {
    double c[NX], b[NY];
} kkt;

static double Qx(const double *x, int i)
{
    /* Q = tridiag(-1, 3, -1), symmetric positive definite (diagonally dominant) */
    double s = 3.0 * x[i];
    if (i > 0)
        s -= x[i - 1];
    if (i < NX - 1)
        s -= x[i + 1];
    return s;
}

static void kkt_init(kkt *k)
{
    for (int i = 0; i < NX; ++i) {
        double aty = 0.0;
        for (int r = 0; r < NY; ++r)
            aty += A[r][i] * XSTAR[NX + r];
        k->c[i] = FSTAR[i] - Qx(XSTAR, i) - 0.1 * pow(XSTAR[i], 3) + aty;
    }
    for (int r = 0; r < NY; ++r) {
        k->b[r] = 0.0;
        for (int i = 0; i < NX; ++i)
            k->b[r] += A[r][i] * XSTAR[i];
    }
}

static int kkt_F(void *ctx, const double *z, double *F)
{
    const kkt *k = ctx;
    for (int i = 0; i < NX; ++i) {
        double aty = 0.0;
        for (int r = 0; r < NY; ++r)
            aty += A[r][i] * z[NX + r];
        F[i] = Qx(z, i) + 0.1 * z[i] * z[i] * z[i] + k->c[i] - aty;
    }
    for (int r = 0; r < NY; ++r) {
        F[NX + r] = -k->b[r];
        for (int i = 0; i < NX; ++i)
            F[NX + r] += A[r][i] * z[i];
    }
    return 0;
}

/* Entry (i, j) of the Jacobian. */
static double kkt_Jij(const double *z, int i, int j)
{
    if (i < NX && j < NX) {
        if (i == j)
            return 3.0 + 0.3 * z[i] * z[i];
        return abs(i - j) == 1 ? -1.0 : 0.0;
    }
    if (i < NX && j >= NX)
        return -A[j - NX][i];
    if (i >= NX && j < NX)
        return A[i - NX][j];
    return 0.0;
}

static int kkt_J(void *ctx, const double *z, double *J)
{
    (void)ctx;
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i)
            J[i + N * j] = kkt_Jij(z, i, j);
    return 0;
}

/* Pattern: the structural nonzeros of the Jacobian (no (y, y) block, so no diagonal there). */
static int COLPTR[N + 1], ROWIND[N * N];

static void pattern_init(void)
{
    const double probe[N] = {1, 1, 1, 1, 1, 1, 1, 1};
    int k = 0;
    for (int j = 0; j < N; ++j) {
        COLPTR[j] = k;
        for (int i = 0; i < N; ++i)
            if (kkt_Jij(probe, i, j) != 0.0)
                ROWIND[k++] = i;
    }
    COLPTR[N] = k;
}

static int kkt_J_sparse(void *ctx, const double *z, double *vals)
{
    (void)ctx;
    for (int j = 0; j < N; ++j)
        for (int k = COLPTR[j]; k < COLPTR[j + 1]; ++k)
            vals[k] = kkt_Jij(z, ROWIND[k], j);
    return 0;
}

static void test_free_and_bounded_variables(void **state)
{
    (void)state;
    kkt k;
    kkt_init(&k);
    pattern_init();
    assert_true(COLPTR[N] < N * N);
    const double starts[2][N] = {{0, 0, 0, 0, 0, 0, 0, 0}, {3, -2, 5, 4, -1, -3, 2, 2}};
    for (int sparse = 0; sparse < 2; ++sparse)
        for (int fd = 0; fd < 2; ++fd)
            for (int merit = 0; merit < 2; ++merit)
                for (int s = 0; s < 2; ++s) {
                    cdyn_mcp mcp;
                    memset(&mcp, 0, sizeof mcp);
                    mcp.n = N;
                    mcp.lower = LO;
                    mcp.upper = UP;
                    mcp.F = kkt_F;
                    mcp.ctx = &k;
                    if (sparse) {
                        mcp.colptr = COLPTR;
                        mcp.rowind = ROWIND;
                        mcp.jac_sparse = kkt_J_sparse;
                    } else {
                        mcp.jac = kkt_J;
                    }
                    cdyn_mcp_options o;
                    cdyn_mcp_defaults(&o);
                    o.jacobian_fd = fd;
                    o.merit = (cdyn_mcp_merit)merit;
                    double z[N];
                    memcpy(z, starts[s], sizeof z);
                    cdyn_report r;
                    const cdyn_status st = cdyn_mcp_solve(&mcp, &o, z, &r);
                    if (st != CDYN_OK)
                        print_error("sparse %d fd %d merit %d start %d: %s\n", sparse, fd, merit, s,
                                    r.message);
                    assert_int_equal(st, CDYN_OK);
                    for (int i = 0; i < N; ++i)
                        assert_true(fabs(z[i] - XSTAR[i]) <= 1e-8);
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
