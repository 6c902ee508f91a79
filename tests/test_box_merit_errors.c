/* Bad input and failure modes of cdyn_box_merit_solve: every case returns a status with a
 * message, leaves x unchanged and leaks nothing (the sanitizer build checks malloc; the failing
 * allocator counts live blocks for injected failures). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/boxmerit.h"
#include "mcp_testproblems.h"
#include "support.h"

static void expect_fail(const cdyn_mcp *p, const cdyn_box_merit_options *o, double *x, int n,
                        cdyn_status st, const char *needle)
{
    double before[64];
    if (x != NULL)
        memcpy(before, x, (size_t)n * sizeof(double));
    cdyn_report r;
    const cdyn_status got = cdyn_box_merit_solve(p, o, x, &r);
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
    cdyn_box_merit_defaults(NULL); /* must not crash */
    double x[2] = {0.5, 0.5};
    cdyn_mcp p = tp_lin_problem(NULL);
    expect_fail(NULL, NULL, x, 2, CDYN_EINVAL, "NULL");
    expect_fail(&p, NULL, NULL, 2, CDYN_EINVAL, "NULL");
    p.n = 0;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "n must be");
    p.n = -1;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "n must be");
    p = tp_lin_problem(NULL);
    p.F = NULL;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "F is NULL");
    p = tp_lin_problem(NULL);
    p.jac = NULL;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "no Jacobian");
    p = tp_lin_problem(NULL);
    p.jac_sparse = tp_lin_J_sparse;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "not both");
    p = tp_lin_problem(NULL);
    p.colptr = TP_DIAG_COLPTR;
    p.rowind = TP_DIAG_ROWIND;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "dense jac");
    p.jac = NULL;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "no Jacobian");
    /* duplicate entries in a column of the sparse pattern */
    const int cp_dup[3] = {0, 2, 3}, ri_dup[3] = {1, 1, 1};
    p.colptr = cp_dup;
    p.rowind = ri_dup;
    p.jac_sparse = tp_lin_J_sparse;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "duplicate");
    const int ri_out[2] = {0, 2};
    p.colptr = TP_DIAG_COLPTR;
    p.rowind = ri_out;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "out of range");
}

static void test_bad_bounds_and_start(void **state)
{
    (void)state;
    double x[2] = {0.5, 0.5};
    cdyn_mcp p = tp_lin_problem(NULL);
    const double lo[2] = {0, 3}, up[2] = {1, 2};
    p.lower = lo;
    p.upper = up;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "lower[1]"); /* l > u */
    const double lo_nan[2] = {0, NAN};
    p.lower = lo_nan;
    p.upper = NULL;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "NaN");
    const double lo_inf[2] = {INFINITY, 0};
    p.lower = lo_inf;
    expect_fail(&p, NULL, x, 2, CDYN_EINVAL, "no finite value");
    p = tp_lin_problem(NULL);
    double xn[2] = {NAN, 0};
    expect_fail(&p, NULL, xn, 2, CDYN_EINVAL, "starting point");
    double xi[2] = {0, INFINITY};
    expect_fail(&p, NULL, xi, 2, CDYN_EINVAL, "starting point");
    /* both merit kinds report their method name even on failure */
    cdyn_box_merit_options o;
    cdyn_box_merit_defaults(&o);
    o.merit = CDYN_BOX_MERIT_SLACK;
    cdyn_report r;
    assert_int_equal(cdyn_box_merit_solve(&p, &o, xn, &r), CDYN_EINVAL);
    assert_string_equal(r.method, "box-merit-slack");
}

static void test_bad_options(void **state)
{
    (void)state;
    double x[2] = {0.5, 0.5};
    cdyn_mcp p = tp_lin_problem(NULL);
    cdyn_box_merit_options o;
#define BAD_OPTION(field, value)                                                                   \
    do {                                                                                           \
        cdyn_box_merit_defaults(&o);                                                               \
        o.field = value;                                                                           \
        expect_fail(&p, &o, x, 2, CDYN_EINVAL, #field);                                            \
    } while (0)
    BAD_OPTION(tol, 0.0);
    BAD_OPTION(tol, NAN);
    BAD_OPTION(tol, INFINITY);
    BAD_OPTION(max_iter, 0);
    BAD_OPTION(merit, (cdyn_box_merit_kind)5);
    BAD_OPTION(gtol, -1e-12);
    BAD_OPTION(gtol, 1.0);
    BAD_OPTION(gtol, NAN);
    BAD_OPTION(nonmonotone_memory, 0);
    BAD_OPTION(nonmonotone_memory, 65);
    BAD_OPTION(armijo_sigma, 0.5);
    BAD_OPTION(armijo_sigma, 0.0);
    BAD_OPTION(max_backtracks, 0);
    BAD_OPTION(lm_mu, 0.0);
    BAD_OPTION(lm_mu, INFINITY);
    BAD_OPTION(active_eps, -1.0);
    BAD_OPTION(active_eps, NAN);
    BAD_OPTION(fd_step, -1e-8);
    BAD_OPTION(fd_step, 1.0);
#undef BAD_OPTION
}

static void test_callback_failures(void **state)
{
    (void)state;
    for (int merit = 0; merit < 2; ++merit) {
        cdyn_box_merit_options o;
        cdyn_box_merit_defaults(&o);
        o.merit = (cdyn_box_merit_kind)merit;
        double x[2] = {3.0, 3.0};
        for (int kind = 1; kind <= 3; ++kind) {
            /* F fails (NaN, Inf, nonzero) at the starting point */
            tp_ctl c1 = {0, 0, 0, kind, 0, 0};
            cdyn_mcp p = tp_lin_problem(&c1);
            expect_fail(&p, &o, x, 2, CDYN_EINVAL, "starting point");
            /* the Jacobian fails at the starting point */
            tp_ctl c2 = {0, 0, 0, 0, 0, kind};
            p = tp_lin_problem(&c2);
            expect_fail(&p, &o, x, 2, CDYN_EINVAL, "Jacobian");
            /* F fails at every point after the start: no trial point can be evaluated */
            tp_ctl c3 = {0, 0, 1, kind, 0, 0};
            p = tp_lin_problem(&c3);
            expect_fail(&p, &o, x, 2, CDYN_ENUMERIC, "line-search");
            /* the Jacobian fails at the second iterate (far start: one step cannot finish) */
            tp_ctl c4 = {0, 0, 0, 0, 1, kind};
            p = tp_lin_problem(&c4);
            double y[2] = {3.0, 3.0e6};
            cdyn_box_merit_options o4 = o;
            o4.tol = 1e-300;
            expect_fail(&p, &o4, y, 2, CDYN_ENUMERIC, "iteration 1");
        }
    }
}

/* F = atan(x) on a free variable, undefined (NaN) for x < -1. From x = 2 the Newton step
   2 - atan(2) * 5 = -3.5 leaves the domain; the line search must step around it (t = 1/2 gives
   -0.77) and converge to the root x = 0. */
typedef struct dom {
    int nan_calls;
} dom;

static int atan_F(void *ctx, const double *x, double *F)
{
    dom *d = ctx;
    if (x[0] < -1.0) {
        ++d->nan_calls;
        F[0] = NAN;
        return 0;
    }
    F[0] = atan(x[0]);
    return 0;
}

static int atan_J(void *ctx, const double *x, double *J)
{
    (void)ctx;
    J[0] = 1.0 / (1.0 + x[0] * x[0]);
    return 0;
}

static void test_nan_inside_the_iteration(void **state)
{
    (void)state;
    static const double lo[1] = {-INFINITY}, up[1] = {INFINITY};
    for (int merit = 0; merit < 2; ++merit) {
        dom d = {0};
        cdyn_mcp p;
        memset(&p, 0, sizeof p);
        p.n = 1;
        p.lower = lo;
        p.upper = up;
        p.F = atan_F;
        p.jac = atan_J;
        p.ctx = &d;
        cdyn_box_merit_options o;
        cdyn_box_merit_defaults(&o);
        o.merit = (cdyn_box_merit_kind)merit;
        double x[1] = {2.0};
        cdyn_report r;
        assert_int_equal(cdyn_box_merit_solve(&p, &o, x, &r), CDYN_OK);
        assert_true(fabs(x[0]) <= 1e-10);
        assert_true(d.nan_calls >= 1);
    }
}

static void test_limits_and_trivial_cases(void **state)
{
    (void)state;
    /* iteration limit: one iteration from far away cannot reach tol */
    cdyn_mcp p = tp_lin_problem(NULL);
    cdyn_box_merit_options o;
    cdyn_box_merit_defaults(&o);
    o.max_iter = 1;
    double x[2] = {1e3, 1e3};
    expect_fail(&p, &o, x, 2, CDYN_ENOCONV, "iteration limit");

    /* a start that already solves the problem: 0 iterations, one F call, x untouched */
    double s[2] = {1.0, 0.5};
    cdyn_report r;
    assert_int_equal(cdyn_box_merit_solve(&p, NULL, s, &r), CDYN_OK);
    assert_int_equal(r.iterations, 0);
    assert_int_equal(r.evaluations, 1);
    assert_true(s[0] == 1.0 && s[1] == 0.5);
    assert_string_equal(r.method, "box-merit-fb");

    /* a start outside the box is projected: x = (-5, -5) -> (0, 0) */
    double out[2] = {-5.0, -5.0};
    assert_int_equal(cdyn_box_merit_solve(&p, NULL, out, &r), CDYN_OK);
    assert_true(fabs(out[0] - 1.0) <= 1e-10 && fabs(out[1] - 0.5) <= 1e-10);

    /* NULL report */
    double z[2] = {3.0, 3.0};
    assert_int_equal(cdyn_box_merit_solve(&p, NULL, z, NULL), CDYN_OK);
    assert_true(fabs(z[0] - 1.0) <= 1e-10);
    p.F = NULL;
    assert_int_equal(cdyn_box_merit_solve(&p, NULL, z, NULL), CDYN_EINVAL);

    /* dense size limit: n = 50000 has n^2 > INT_MAX, refused before any allocation */
    enum { BIG = 50000 };
    double *big = calloc(BIG, sizeof(double));
    assert_non_null(big);
    cdyn_mcp q = tp_lin_problem(NULL);
    q.n = BIG;
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    o.allocator = &fa.allocator;
    assert_int_equal(cdyn_box_merit_solve(&q, &o, big, &r), CDYN_ETOOBIG);
    assert_int_equal(fa.allocations, 0);
    free(big);
}

static void test_allocation(void **state)
{
    (void)state;
    /* One block per call: allocation failure number 0 gives CDYN_ENOMEM with nothing leaked
       and x unchanged; allowing one allocation succeeds, and no second one is made however
       many iterations run. Dense and sparse, analytic and finite-difference Jacobians, both
       merit functions. */
    for (int merit = 0; merit < 2; ++merit)
        for (int sparse = 0; sparse < 2; ++sparse)
            for (int fd = 0; fd < 2; ++fd)
                for (int k = 0; k < 2; ++k) {
                    test_failing_alloc fa;
                    test_failing_alloc_init(&fa, k);
                    cdyn_mcp p = tp_lin_problem(NULL);
                    if (sparse) {
                        p.jac = NULL;
                        p.colptr = TP_DIAG_COLPTR;
                        p.rowind = TP_DIAG_ROWIND;
                        p.jac_sparse = tp_lin_J_sparse;
                    }
                    cdyn_box_merit_options o;
                    cdyn_box_merit_defaults(&o);
                    o.allocator = &fa.allocator;
                    o.jacobian_fd = fd;
                    o.merit = (cdyn_box_merit_kind)merit;
                    double x[2] = {4.0, 4.0};
                    cdyn_report r;
                    const cdyn_status st = cdyn_box_merit_solve(&p, &o, x, &r);
                    assert_int_equal(fa.live, 0);
                    if (k == 0) {
                        assert_int_equal(st, CDYN_ENOMEM);
                        assert_true(x[0] == 4.0 && x[1] == 4.0);
                        assert_non_null(strstr(r.message, "workspace"));
                    } else {
                        assert_int_equal(st, CDYN_OK);
                        assert_int_equal(fa.allocations, 1);
                        assert_true(r.iterations > 1);
                        assert_true(fabs(x[0] - 1.0) <= 1e-10 && fabs(x[1] - 0.5) <= 1e-10);
                    }
                }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_and_size_arguments),
        cmocka_unit_test(test_bad_bounds_and_start),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_callback_failures),
        cmocka_unit_test(test_nan_inside_the_iteration),
        cmocka_unit_test(test_limits_and_trivial_cases),
        cmocka_unit_test(test_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
