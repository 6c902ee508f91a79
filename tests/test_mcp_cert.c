/* Issue 18, MCP side: FB-Newton returns OK only when the answer projected onto [l, u], with F
 * evaluated afresh there, has natural residual <= tol (plus each row's rounding floor, 16 eps
 * (|F_i| + sum_j |J_ij x_j|): last test). Before, it stopped on the natural
 * residual at its iterate, which may lie outside the box. Each OK answer here is checked
 * independently: inside the box, and F recomputed by the test at the returned point. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/mcp.h"

/* x in [l, u] and ||x - mid(l, u, x - F(x))||_inf <= tol, with F evaluated here. */
static void assert_certified(const cdyn_mcp *p, const double *x, double tol)
{
    double F[8];
    assert_int_equal(p->F(p->ctx, x, F), 0);
    for (int i = 0; i < p->n; ++i) {
        const double l = p->lower != NULL ? p->lower[i] : 0.0;
        const double u = p->upper != NULL ? p->upper[i] : INFINITY;
        assert_true(x[i] >= l && x[i] <= u);
        assert_true(isfinite(F[i]));
        const double proj = fmin(fmax(x[i] - F[i], l), u);
        assert_true(fabs(x[i] - proj) <= tol);
    }
}

/* F(x) = a x + 1 on x >= 0 (NCP): F(0) = 1 > 0, so x = 0 is the solution (unique: x > 0 would
 * need a x + 1 = 0, x = -1/a < 0). Started below the box, Newton converged to x = -5e-11 and
 * returned it, outside the box, as OK (40 of 40 starts in the issue). */
static int affine_F(void *ctx, const double *x, double *F)
{
    F[0] = *(const double *)ctx * x[0] + 1.0;
    return 0;
}

static int affine_J(void *ctx, const double *x, double *J)
{
    (void)x;
    J[0] = *(const double *)ctx;
    return 0;
}

static void test_affine_started_below_the_box(void **state)
{
    (void)state;
    const double slopes[4] = {0.5, 1.0, 2.0, 10.0};
    for (int k = 0; k < 4; ++k) {
        double a = slopes[k];
        cdyn_mcp p;
        memset(&p, 0, sizeof p);
        p.n = 1;
        p.F = affine_F;
        p.jac = affine_J;
        p.ctx = &a;
        for (int s = 1; s <= 10; ++s) {
            double x[1] = {-0.37 * s * s};
            cdyn_report rep;
            assert_int_equal(cdyn_mcp_solve(&p, NULL, x, &rep), CDYN_OK);
            assert_true(x[0] == 0.0); /* the projection of the iterate onto x >= 0 */
            assert_certified(&p, x, 1e-10);
            assert_true(rep.residual <= 1e-10);
        }
    }
}

/* Mathiesen's Walrasian NCP as the literature writes it (Mathiesen 1987, prices normalized by
 * p2 = 1): unknowns (y, p1, p3) >= 0, F = (-p1 + 1 + p3, y - 0.9 (5 + 3 p3) / p1, 3 - y), with
 * a pole at p1 = 0 (no domain guard: the callback returns what the formula gives). Solution, by
 * hand: F3 = 0 gives y = 3, F1 = 0 gives p1 = 1 + p3, F2 = 0 gives 3 p1 = 4.5 + 2.7 p3, so
 * p3 = 5, p1 = 6: (3, 6, 5). From (1, 1e-3, 10) Newton ended at x = (-5.8e-11, -1.7e-12,
 * -4.2e-16), below every bound, where F2 = 2.7e12, and returned OK. Projected onto the box that
 * point is 0, where F2 is not finite: not OK now. From (1, 1, 1) the solution is found and
 * certified. */
static int mathiesen_F(void *ctx, const double *x, double *F)
{
    (void)ctx;
    F[0] = -x[1] + 1.0 + x[2];
    F[1] = x[0] - 0.9 * (5.0 + 3.0 * x[2]) / x[1];
    F[2] = 3.0 - x[0];
    return 0;
}

static int mathiesen_J(void *ctx, const double *x, double *J)
{
    (void)ctx;
    memset(J, 0, 9 * sizeof(double));
    J[0 + 3 * 1] = -1.0;
    J[0 + 3 * 2] = 1.0;
    J[1 + 3 * 0] = 1.0;
    J[1 + 3 * 1] = 0.9 * (5.0 + 3.0 * x[2]) / (x[1] * x[1]);
    J[1 + 3 * 2] = -2.7 / x[1];
    J[2 + 3 * 0] = -1.0;
    return 0;
}

static void test_mathiesen_with_pole(void **state)
{
    (void)state;
    cdyn_mcp p;
    memset(&p, 0, sizeof p);
    p.n = 3;
    p.F = mathiesen_F;
    p.jac = mathiesen_J;
    cdyn_mcp_options o;
    cdyn_mcp_defaults(&o);
    double x[3] = {1.0, 1e-3, 10.0};
    cdyn_report rep;
    const cdyn_status st = cdyn_mcp_solve(&p, &o, x, &rep);
    assert_int_not_equal(st, CDYN_OK);
    if (st == CDYN_OK || st == CDYN_EINACCURATE)
        fail_msg("not expected: %s", rep.message);
    assert_true(x[0] == 1.0 && x[1] == 1e-3 && x[2] == 10.0); /* failed: x untouched */
    double y[3] = {1.0, 1.0, 1.0};
    assert_int_equal(cdyn_mcp_solve(&p, &o, y, &rep), CDYN_OK);
    assert_certified(&p, y, 1e-10);
    assert_true(fabs(y[0] - 3) <= 1e-8 && fabs(y[1] - 6) <= 1e-8 && fabs(y[2] - 5) <= 1e-8);
}

/* The reusable solver has the same certificate. */
/* A row whose rounding floor lies above tol: F(x) = K (x^2 - a), K = 1e8, a = 0.090000001, x
 * free. No double comes closer to the root than |F| = 1.39e-9 (checked here over the 17
 * doubles around sqrt(a)), so tol = 1e-10 alone cannot be met: before the floor the solver
 * ended with CDYN_ENOCONV (a stiff contact row of the implicit step, 7.5e6 N/m at 0.3 m, is
 * such a row). The floor 16 eps (|F| + |J x|) = 6.4e-8 admits x within a few ulps of the
 * root, and no further: the answer must be sqrt(a) to 4 ulps. */
static int square_F(void *ctx, const double *x, double *F)
{
    (void)ctx;
    F[0] = 1e8 * (x[0] * x[0] - 0.090000001);
    return 0;
}

static int square_J(void *ctx, const double *x, double *J)
{
    (void)ctx;
    J[0] = 2e8 * x[0];
    return 0;
}

static void test_rounding_floor_above_tol(void **state)
{
    (void)state;
    const double lo = -INFINITY, hi = INFINITY, root = sqrt(0.090000001);
    double best = INFINITY, v = root;
    for (int k = 0; k < 8; ++k)
        v = nextafter(v, 0.0);
    for (int k = 0; k <= 16; ++k, v = nextafter(v, 1.0)) {
        double F;
        square_F(NULL, &v, &F);
        best = fmin(best, fabs(F));
    }
    assert_true(best > 1e-10); /* tol alone is out of reach */
    const cdyn_mcp p = {.n = 1, .lower = &lo, .upper = &hi, .F = square_F, .jac = square_J};
    cdyn_mcp_options o;
    cdyn_mcp_defaults(&o);
    double x[1] = {1.0};
    cdyn_report r;
    assert_int_equal(cdyn_mcp_solve(&p, &o, x, &r), CDYN_OK);
    assert_true(fabs(x[0] - root) <= 4 * (nextafter(root, 1.0) - root));
    assert_certified(&p, x, 16 * 2.220446049250313e-16 * 2e8 * x[0] * x[0]);
}

static void test_solver_object_certifies(void **state)
{
    (void)state;
    double a = 2.0;
    cdyn_mcp p;
    memset(&p, 0, sizeof p);
    p.n = 1;
    p.F = affine_F;
    p.jac = affine_J;
    p.ctx = &a;
    cdyn_mcp_solver *s = NULL;
    assert_int_equal(cdyn_mcp_solver_create(&p, NULL, &s, NULL), CDYN_OK);
    double x[1] = {-3.0};
    assert_int_equal(cdyn_mcp_solver_solve(s, &p, x, NULL), CDYN_OK);
    assert_true(x[0] == 0.0);
    assert_certified(&p, x, 1e-10);
    cdyn_mcp_solver_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_affine_started_below_the_box),
        cmocka_unit_test(test_mathiesen_with_pole),
        cmocka_unit_test(test_solver_object_certifies),
        cmocka_unit_test(test_rounding_floor_above_tol),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
