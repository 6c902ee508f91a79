/* Bad input and failure modes of cdyn_mcp_solve / cdyn_mcp_residual: every case returns a
 * status with a message, leaves x unchanged and leaks nothing (the sanitizer build checks the
 * latter for malloc; the failing allocator counts live blocks for injected failures). */
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
#include "support.h"

/* Expect a failure with status st, a message containing `needle` (if not NULL), x unchanged. */
static void expect_fail(const cdyn_mcp *p, const cdyn_mcp_options *o, double *x, int n,
                        cdyn_status st, const char *needle)
{
    double before[64];
    if (x != NULL)
        memcpy(before, x, (size_t)n * sizeof(double));
    cdyn_report r;
    const cdyn_status got = cdyn_mcp_solve(p, o, x, &r);
    if (got != st || (needle && strstr(r.message, needle) == NULL))
        print_error("expected status %d with '%s', got %d: '%s'\n", (int)st, needle ? needle : "",
                    (int)got, r.message);
    assert_int_equal(got, st);
    assert_int_equal(r.status, st);
    assert_true(strlen(r.message) > 0);
    if (needle)
        assert_non_null(strstr(r.message, needle));
    if (x != NULL)
        assert_memory_equal(before, x, (size_t)n * sizeof(double));
}

static void test_null_and_size_arguments(void **state)
{
    (void)state;
    cdyn_mcp_defaults(NULL); /* must not crash */
    double x[2] = {0.5, 0.5};
    cdyn_mcp p = tp_lin_problem(NULL);
    expect_fail(NULL, NULL, x, 2, CDYN_EINVAL, "NULL");
    expect_fail(&p, NULL, NULL, 2, CDYN_EINVAL, "NULL");
    p.n = 0;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "n must be");
    p.n = -3;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "n must be");
    p = tp_lin_problem(NULL);
    p.F = NULL;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "F is NULL");
    p = tp_lin_problem(NULL);
    p.jac = NULL;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "no Jacobian");
    /* ambiguous or incomplete Jacobian descriptions */
    p = tp_lin_problem(NULL);
    p.jac_sparse = tp_lin_J_sparse;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "not both");
    p = tp_lin_problem(NULL);
    p.jac = NULL;
    p.jac_sparse = tp_lin_J_sparse;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "colptr");
    p = tp_lin_problem(NULL);
    p.colptr = TP_DIAG_COLPTR;
    p.rowind = TP_DIAG_ROWIND;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "dense jac");
    p.jac = NULL;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "no Jacobian");
}

static void test_bad_bounds_and_start(void **state)
{
    (void)state;
    double x[2] = {0.5, 0.5};
    cdyn_mcp p = tp_lin_problem(NULL);
    const double lo[2] = {0, 3}, up[2] = {1, 2};
    p.lower = lo;
    p.upper = up;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "lower[1]");
    const double lo_nan[2] = {0, NAN};
    p.lower = lo_nan;
    p.upper = NULL;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "NaN");
    const double up_nan[2] = {NAN, 1};
    p.lower = NULL;
    p.upper = up_nan;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "NaN");
    const double lo_inf[2] = {INFINITY, 0};
    p.lower = lo_inf;
    p.upper = NULL;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "no finite value");
    /* upper = -inf with lower = -inf */
    const double lo_m[2] = {-INFINITY, 0}, up_m[2] = {-INFINITY, 1};
    p.lower = lo_m;
    p.upper = up_m;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "no finite value");
    /* NULL lower means 0: an upper bound below 0 conflicts with it */
    const double up_neg[2] = {1, -1};
    p.lower = NULL;
    p.upper = up_neg;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "lower[1]");

    p = tp_lin_problem(NULL);
    double xn[2] = {NAN, 0};
    expect_fail(&p, NULL, xn, 2, CDYN_EINVAL, "starting point");
    double xi[2] = {0, -INFINITY};
    expect_fail(&p, NULL, xi, 2, CDYN_EINVAL, "starting point");
}

static void test_bad_sparse_pattern(void **state)
{
    (void)state;
    double x[2] = {0.5, 0.5};
    cdyn_mcp p = tp_lin_problem(NULL);
    p.jac = NULL;
    p.jac_sparse = tp_lin_J_sparse;
    const int cp_bad0[3] = {1, 1, 2}, ri[2] = {0, 1};
    p.colptr = cp_bad0;
    p.rowind = ri;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "colptr[0]");
    const int cp_dec[3] = {0, 2, 1};
    p.colptr = cp_dec;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "decreases");
    const int ri_out[2] = {0, 2}, ri_neg[2] = {-1, 1};
    p.colptr = TP_DIAG_COLPTR;
    p.rowind = ri_out;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "out of range");
    p.rowind = ri_neg;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "out of range");
    p.rowind = NULL;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "rowind");
    const int cp_dup[3] = {0, 2, 3}, ri_dup[3] = {1, 1, 1};
    p.colptr = cp_dup;
    p.rowind = ri_dup;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "duplicate");
}

static void test_bad_options(void **state)
{
    (void)state;
    double x[2] = {0.5, 0.5};
    cdyn_mcp p = tp_lin_problem(NULL);
    cdyn_mcp_options o;
#define BAD_OPTION(field, value)                                                                   \
    do {                                                                                           \
        cdyn_mcp_defaults(&o);                                                                     \
        o.field = value;                                                                           \
        expect_fail(&p, &o, x, 2, CDYN_EINVAL, #field);                                            \
    } while (0)
    BAD_OPTION(tol, 0.0);
    BAD_OPTION(tol, NAN);
    BAD_OPTION(max_iter, 0);
    BAD_OPTION(merit, (cdyn_mcp_merit)7);
    cdyn_mcp_defaults(&o);
    o.merit = CDYN_MCP_FB_PENALIZED;
    o.penalty_lambda = 0.0;
    expect_fail(&p, &o, x, 2, CDYN_EINVAL, "penalty_lambda");
    o.penalty_lambda = 1.5;
    expect_fail(&p, &o, x, 2, CDYN_EINVAL, "penalty_lambda");
    BAD_OPTION(nonmonotone_memory, 0);
    BAD_OPTION(nonmonotone_memory, 65);
    BAD_OPTION(armijo_sigma, 0.5);
    BAD_OPTION(armijo_sigma, -1.0);
    BAD_OPTION(backtrack, 1.0);
    BAD_OPTION(backtrack, 0.0);
    BAD_OPTION(max_backtracks, 0);
    BAD_OPTION(lm_mu0, 0.0);
    BAD_OPTION(lm_mu0, INFINITY);
    BAD_OPTION(fd_step, -1e-8);
    BAD_OPTION(fd_step, 1.0);
    BAD_OPTION(globalize, 2);
    BAD_OPTION(globalize, -1);
#undef BAD_OPTION
}

static void test_callback_failures(void **state)
{
    (void)state;
    double x[2] = {3.0, 3.0};
    /* F fails at the starting point: NaN, Inf, nonzero return */
    for (int kind = 1; kind <= 3; ++kind) {
        tp_ctl c = {0, 0, 0, kind, 0, 0};
        cdyn_mcp p = tp_lin_problem(&c);
        expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "starting point");
    }
    /* Jacobian fails at the starting point */
    for (int kind = 1; kind <= 3; ++kind) {
        tp_ctl c = {0, 0, 0, 0, 0, kind};
        cdyn_mcp p = tp_lin_problem(&c);
        expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "Jacobian");
    }
    /* F fails everywhere after the starting point: no trial point can be evaluated */
    for (int kind = 1; kind <= 3; ++kind) {
        tp_ctl c = {0, 0, 1, kind, 0, 0};
        cdyn_mcp p = tp_lin_problem(&c);
        expect_fail(&p, NULL, x, 2, CDYN_ENUMERIC, "line-search");
    }
    /* The Jacobian fails at the second iterate */
    for (int kind = 1; kind <= 3; ++kind) {
        tp_ctl c = {0, 0, 0, 0, 1, kind};
        cdyn_mcp p = tp_lin_problem(&c);
        double y[2] = {3.0, 3.0e6}; /* far enough that one step does not finish */
        cdyn_mcp_options o;
        cdyn_mcp_defaults(&o);
        o.tol = 1e-300;
        expect_fail(&p, &o, y, 2, CDYN_ENUMERIC, "iteration 1");
    }
    /* Finite differences that cannot be evaluated in either direction */
    {
        tp_ctl c = {0, 0, 1, 1, 0, 0};
        cdyn_mcp p = tp_lin_problem(&c);
        p.jac = NULL;
        cdyn_mcp_options o;
        cdyn_mcp_defaults(&o);
        o.jacobian_fd = 1;
        expect_fail(&p, &o, x, 2, CDYN_EINVAL, "Jacobian");
    }
}

/* Free variables with a singular Jacobian: F = (x1 + x2 - 2, x1 + x2 - s). */
static int sing_F(void *ctx, const double *x, double *F)
{
    const double s = *(const double *)ctx;
    F[0] = x[0] + x[1] - 2.0;
    F[1] = x[0] + x[1] - s;
    return 0;
}

static int sing_J(void *ctx, const double *x, double *J)
{
    (void)ctx, (void)x;
    J[0] = J[1] = J[2] = J[3] = 1.0;
    return 0;
}

static const int FULL_COLPTR[3] = {0, 2, 4};
static const int FULL_ROWIND[4] = {0, 1, 0, 1};

static int sing_J_sparse(void *ctx, const double *x, double *v)
{
    (void)ctx, (void)x;
    v[0] = v[1] = v[2] = v[3] = 1.0;
    return 0;
}

static const double FREE_LO[2] = {-INFINITY, -INFINITY};
static const double FREE_UP[2] = {INFINITY, INFINITY};

static void test_singular_jacobian(void **state)
{
    (void)state;
    /* Consistent (s = 2): every point with x1 + x2 = 2 solves it; the shifted Newton system
       still gives a descent direction and the solver must reach one of them. */
    double s = 2.0;
    cdyn_mcp p;
    memset(&p, 0, sizeof p);
    p.n = 2;
    p.lower = FREE_LO;
    p.upper = FREE_UP;
    p.F = sing_F;
    p.jac = sing_J;
    p.ctx = &s;
    double x[2] = {5.0, -1.0};
    cdyn_report r;
    assert_int_equal(cdyn_mcp_solve(&p, NULL, x, &r), CDYN_OK);
    assert_true(fabs(x[0] + x[1] - 2.0) <= 1e-10);
    /* the same on the sparse path: KLU reports the singular matrix, the shift takes over */
    cdyn_mcp ps = p;
    ps.jac = NULL;
    ps.colptr = FULL_COLPTR;
    ps.rowind = FULL_ROWIND;
    ps.jac_sparse = sing_J_sparse;
    double xs[2] = {5.0, -1.0};
    assert_int_equal(cdyn_mcp_solve(&ps, NULL, xs, &r), CDYN_OK);
    assert_true(fabs(xs[0] + xs[1] - 2.0) <= 1e-10);

    /* Inconsistent (s = 3): no solution; the merit function is minimal on x1 + x2 = 2.5 where
       its gradient vanishes. Expect stagnation, x unchanged. */
    s = 3.0;
    double y[2] = {5.0, -1.0};
    expect_fail(&p, NULL, y, 2, CDYN_ENOCONV, "stagnation");
}

/* Free variables with a rank-deficient J = U V^T (n-by-k factors, k < n): F(x) = J (x - xs).
   Unlike the all-ones matrix above, rounding leaves tiny nonzero pivots, so only the condition
   test of the dense solver (exact for n <= 16, LAPACK's estimate above) can see that the
   Newton matrix is singular. */
typedef struct lowrank {
    int n;
    double J[30 * 30], xs[30];
} lowrank;

static int lowrank_F(void *ctx, const double *x, double *F)
{
    const lowrank *p = ctx;
    for (int i = 0; i < p->n; ++i) {
        F[i] = 0.0;
        for (int j = 0; j < p->n; ++j)
            F[i] += p->J[i + j * p->n] * (x[j] - p->xs[j]);
    }
    return 0;
}

static int lowrank_J(void *ctx, const double *x, double *J)
{
    const lowrank *p = ctx;
    (void)x;
    memcpy(J, p->J, sizeof(double) * (size_t)(p->n * p->n));
    return 0;
}

static void test_numerically_singular_jacobian(void **state)
{
    (void)state;
    static lowrank lr;
    test_rng rng;
    test_rng_seed(&rng, 3);
    const int sizes[][2] = {{6, 3}, {30, 12}};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; ++t) {
        const int n = sizes[t][0], k = sizes[t][1];
        double U[30 * 12], V[30 * 12], x[30], F[30];
        for (int i = 0; i < n * k; ++i) {
            U[i] = test_rng_range(&rng, -1, 1);
            V[i] = test_rng_range(&rng, -1, 1);
        }
        lr.n = n;
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                double v = 0.0;
                for (int q = 0; q < k; ++q)
                    v += U[i + q * n] * V[j + q * n];
                lr.J[i + j * n] = v;
            }
        for (int i = 0; i < n; ++i) {
            lr.xs[i] = test_rng_range(&rng, -1, 1);
            x[i] = test_rng_range(&rng, -1, 1);
        }
        double lo[30], up[30];
        for (int i = 0; i < n; ++i) {
            lo[i] = -INFINITY;
            up[i] = INFINITY;
        }
        cdyn_mcp p;
        memset(&p, 0, sizeof p);
        p.n = n;
        p.lower = lo;
        p.upper = up;
        p.F = lowrank_F;
        p.jac = lowrank_J;
        p.ctx = &lr;
        /* Consistent (xs is a solution, and so is every point of xs + null(J)): the shifted
           Newton steps reach one; the natural residual of free variables is ||F||_inf. */
        cdyn_report r;
        assert_int_equal(cdyn_mcp_solve(&p, NULL, x, &r), CDYN_OK);
        lowrank_F(&lr, x, F);
        for (int i = 0; i < n; ++i)
            assert_true(fabs(F[i]) <= 1e-10);
    }
}

static int const_F(void *ctx, const double *x, double *F)
{
    (void)ctx, (void)x;
    F[0] = 1.0;
    return 0;
}

static int zero_J(void *ctx, const double *x, double *J)
{
    (void)ctx, (void)x;
    J[0] = 0.0;
    return 0;
}

static void test_zero_jacobian_and_iteration_limit(void **state)
{
    (void)state;
    cdyn_mcp p;
    memset(&p, 0, sizeof p);
    p.n = 1;
    p.lower = FREE_LO;
    p.upper = FREE_UP;
    p.F = const_F;
    p.jac = zero_J;
    double z[1] = {0.0};
    expect_fail(&p, NULL, z, 1, CDYN_ENOCONV, "stationary point");

    /* Iteration limit: from far away one FB-Newton step cannot reach tol (Phi is not linear
       there), so max_iter = 1 must end with CDYN_ENOCONV. Without globalize: the polish and
       the restarts after a stall have budgets of their own (and solve this linear problem). */
    cdyn_mcp q = tp_lin_problem(NULL);
    cdyn_mcp_options o;
    cdyn_mcp_defaults(&o);
    o.max_iter = 1;
    o.globalize = 0;
    double x[2] = {1e3, -1e3};
    expect_fail(&q, &o, x, 2, CDYN_ENOCONV, "iteration limit");
}

/* F = 1e4 atan(x), free: from x = 10 the Newton step overshoots to -139 and the gradient
   step (length ~1e6) is worse still; with one backtrack allowed no trial point decreases the
   merit function, so plain Newton must report stagnation (not a numeric failure). The
   proximal-perturbation restarts (the default) then solve it: the perturbed map
   F + eps (x - 10) has shorter Newton steps. */
static int atan_F(void *ctx, const double *x, double *F)
{
    (void)ctx;
    F[0] = 1e4 * atan(x[0]);
    return 0;
}

static int atan_J(void *ctx, const double *x, double *J)
{
    (void)ctx;
    J[0] = 1e4 / (1.0 + x[0] * x[0]);
    return 0;
}

static void test_line_search_stagnation(void **state)
{
    (void)state;
    cdyn_mcp p;
    memset(&p, 0, sizeof p);
    p.n = 1;
    p.lower = FREE_LO;
    p.upper = FREE_UP;
    p.F = atan_F;
    p.jac = atan_J;
    cdyn_mcp_options o;
    cdyn_mcp_defaults(&o);
    o.max_backtracks = 1;
    o.globalize = 0;
    double x[1] = {10.0};
    expect_fail(&p, &o, x, 1, CDYN_ENOCONV, "no sufficient decrease");
    o.globalize = 1;
    cdyn_report rg;
    double xg[1] = {10.0};
    assert_int_equal(cdyn_mcp_solve(&p, &o, xg, &rg), CDYN_OK);
    assert_true(fabs(xg[0]) <= 1e-12);
    assert_string_equal(rg.method, "fb-newton+proximal");
    assert_non_null(strstr(rg.message, "Newton stalled after 0 iterations"));
    /* with the default number of backtracks the same start converges to x = 0 */
    cdyn_report r;
    assert_int_equal(cdyn_mcp_solve(&p, NULL, x, &r), CDYN_OK);
    assert_true(fabs(x[0]) <= 1e-12);
}

static void test_already_solved_start(void **state)
{
    (void)state;
    /* x = (1, 1/2) solves the linear NCP: 0 iterations, x untouched, one F call. */
    cdyn_mcp p = tp_lin_problem(NULL);
    double x[2] = {1.0, 0.5};
    cdyn_report r;
    assert_int_equal(cdyn_mcp_solve(&p, NULL, x, &r), CDYN_OK);
    assert_int_equal(r.iterations, 0);
    assert_int_equal(r.evaluations, 1);
    assert_true(x[0] == 1.0 && x[1] == 0.5);
    assert_string_equal(r.method, "fb-newton");
}

static void test_null_report_is_allowed(void **state)
{
    (void)state;
    cdyn_mcp p = tp_lin_problem(NULL);
    double x[2] = {3.0, 3.0};
    assert_int_equal(cdyn_mcp_solve(&p, NULL, x, NULL), CDYN_OK);
    assert_true(fabs(x[0] - 1.0) <= 1e-10);
    p.F = NULL;
    assert_int_equal(cdyn_mcp_solve(&p, NULL, x, NULL), CDYN_EINVAL);
    tp_ctl c = {0, 0, 1, 1, 0, 0};
    cdyn_mcp q = tp_lin_problem(&c);
    double y[2] = {3.0, 3.0};
    assert_int_equal(cdyn_mcp_solve(&q, NULL, y, NULL), CDYN_ENUMERIC);
    assert_true(y[0] == 3.0 && y[1] == 3.0);
}

static void test_dense_size_limit(void **state)
{
    (void)state;
    enum { BIG = 50000 }; /* BIG^2 > INT_MAX */
    double *x = calloc(BIG, sizeof(double));
    cdyn_mcp p = tp_lin_problem(NULL);
    p.n = BIG;
    cdyn_report r;
    assert_int_equal(cdyn_mcp_solve(&p, NULL, x, &r), CDYN_ETOOBIG);
    assert_non_null(strstr(r.message, "sparse"));
    free(x);
}

static void test_allocation_failures_leak_nothing(void **state)
{
    (void)state;
    /* Dense and sparse paths: fail the k-th allocation for k = 0, 1, ... until the solve
       succeeds; every failure must be CDYN_ENOMEM with nothing left allocated. */
    for (int sparse = 0; sparse < 2; ++sparse)
        for (int fd = 0; fd < 2; ++fd) {
            int succeeded = 0;
            for (int k = 0; k < 16 && !succeeded; ++k) {
                test_failing_alloc fa;
                test_failing_alloc_init(&fa, k);
                cdyn_mcp p = tp_lin_problem(NULL);
                if (sparse) {
                    p.jac = NULL;
                    p.colptr = TP_DIAG_COLPTR;
                    p.rowind = TP_DIAG_ROWIND;
                    p.jac_sparse = tp_lin_J_sparse;
                }
                cdyn_mcp_options o;
                cdyn_mcp_defaults(&o);
                o.allocator = &fa.allocator;
                o.jacobian_fd = fd;
                double x[2] = {4.0, 4.0};
                cdyn_report r;
                const cdyn_status st = cdyn_mcp_solve(&p, &o, x, &r);
                assert_int_equal(fa.live, 0);
                if (st == CDYN_OK) {
                    succeeded = 1;
                    assert_true(fabs(x[0] - 1.0) <= 1e-10 && fabs(x[1] - 0.5) <= 1e-10);
                } else {
                    assert_int_equal(st, CDYN_ENOMEM);
                    assert_true(x[0] == 4.0 && x[1] == 4.0);
                    assert_true(strlen(r.message) > 0);
                }
            }
            assert_true(succeeded);
        }
}

static void test_residual_bad_input(void **state)
{
    (void)state;
    const double x[2] = {1, 1}, F[2] = {0, 0};
    cdyn_mcp p = tp_lin_problem(NULL);
    assert_true(isnan(cdyn_mcp_residual(NULL, x, F)));
    assert_true(isnan(cdyn_mcp_residual(&p, NULL, F)));
    assert_true(isnan(cdyn_mcp_residual(&p, x, NULL)));
    p.n = 0;
    assert_true(isnan(cdyn_mcp_residual(&p, x, F)));
    p.n = 2;
    const double lo[2] = {0, 2}, up[2] = {1, 1};
    p.lower = lo;
    p.upper = up;
    assert_true(isnan(cdyn_mcp_residual(&p, x, F)));
    const double lo_nan[2] = {NAN, 0};
    p.lower = lo_nan;
    p.upper = NULL;
    assert_true(isnan(cdyn_mcp_residual(&p, x, F)));
    const double Fn[2] = {0, NAN};
    p.lower = NULL;
    assert_true(isnan(cdyn_mcp_residual(&p, x, Fn)));
    /* valid input: x = (1, 1), F = 0 on the NCP is a solution */
    assert_true(cdyn_mcp_residual(&p, x, F) == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_and_size_arguments),
        cmocka_unit_test(test_bad_bounds_and_start),
        cmocka_unit_test(test_bad_sparse_pattern),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_callback_failures),
        cmocka_unit_test(test_singular_jacobian),
        cmocka_unit_test(test_numerically_singular_jacobian),
        cmocka_unit_test(test_zero_jacobian_and_iteration_limit),
        cmocka_unit_test(test_line_search_stagnation),
        cmocka_unit_test(test_already_solved_start),
        cmocka_unit_test(test_null_report_is_allowed),
        cmocka_unit_test(test_dense_size_limit),
        cmocka_unit_test(test_allocation_failures_leak_nothing),
        cmocka_unit_test(test_residual_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
