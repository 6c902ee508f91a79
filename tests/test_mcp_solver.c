/* The reusable MCP solver (cdyn_mcp_solver_*): many problems of one structure give the answers
 * of cdyn_mcp_solve, runs allocate nothing, and a problem of another structure is refused. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/mcp.h"
#include "support.h"

/* F(x) = M x + q + c x^3 (componentwise) with M tridiagonal (4 on the diagonal, -1 beside):
 * strictly diagonally dominant, so a P-function and the NCP has one solution. The cubic makes
 * the Jacobian change from iterate to iterate (a genuinely nonlinear problem). */
#define N 40
typedef struct tri {
    double q[N];
    double c;
} tri;

static int tri_F(void *ctx, const double *x, double *F)
{
    const tri *t = ctx;
    for (int i = 0; i < N; i++) {
        F[i] = 4 * x[i] + t->q[i] + t->c * x[i] * x[i] * x[i];
        if (i > 0)
            F[i] -= x[i - 1];
        if (i + 1 < N)
            F[i] -= x[i + 1];
    }
    return 0;
}

static int colptr[N + 1], rowind[3 * N];

static void tri_pattern(void)
{
    int k = 0;
    for (int j = 0; j < N; j++) {
        colptr[j] = k;
        for (int i = j - 1; i <= j + 1; i++)
            if (i >= 0 && i < N)
                rowind[k++] = i;
    }
    colptr[N] = k;
}

static int tri_J_sparse(void *ctx, const double *x, double *v)
{
    const tri *t = ctx;
    int k = 0;
    for (int j = 0; j < N; j++)
        for (int i = j - 1; i <= j + 1; i++)
            if (i >= 0 && i < N)
                v[k++] = i == j ? 4 + 3 * t->c * x[j] * x[j] : -1.0;
    return 0;
}

static int tri_J_dense(void *ctx, const double *x, double *J)
{
    const tri *t = ctx;
    memset(J, 0, sizeof(double) * N * N);
    for (int j = 0; j < N; j++)
        for (int i = j - 1; i <= j + 1; i++)
            if (i >= 0 && i < N)
                J[i + j * N] = i == j ? 4 + 3 * t->c * x[j] * x[j] : -1.0;
    return 0;
}

static cdyn_mcp tri_problem(tri *t, int sparse)
{
    cdyn_mcp p = {0};
    p.n = N;
    p.F = tri_F;
    p.ctx = t;
    if (sparse) {
        p.colptr = colptr;
        p.rowind = rowind;
        p.jac_sparse = tri_J_sparse;
    } else {
        p.jac = tri_J_dense;
    }
    return p;
}

static void run_many(int sparse)
{
    tri_pattern();
    test_rng rng;
    test_rng_seed(&rng, 7);
    tri t = {{0}, 0.5};
    cdyn_mcp p = tri_problem(&t, sparse);
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    cdyn_mcp_options o;
    cdyn_mcp_defaults(&o);
    o.allocator = &fa.allocator;
    cdyn_mcp_solver *s = NULL;
    cdyn_report rep;
    assert_int_equal(cdyn_mcp_solver_create(&p, &o, &s, &rep), CDYN_OK);
    const int after_create = fa.allocations;
    for (int run = 0; run < 20; run++) {
        for (int i = 0; i < N; i++)
            t.q[i] = test_rng_range(&rng, -3, 3);
        double x[N] = {0}, y[N] = {0}, F[N];
        assert_int_equal(cdyn_mcp_solver_solve(s, &p, x, &rep), CDYN_OK);
        const int it = rep.iterations;
        /* The certificate: natural residual of the returned point. */
        tri_F(&t, x, F);
        assert_true(cdyn_mcp_residual(&p, x, F) <= o.tol);
        /* The one-shot solver on the same problem (create + solve + free, the same algorithm and
           arithmetic): the same answer bit for bit. */
        assert_int_equal(cdyn_mcp_solve(&p, NULL, y, &rep), CDYN_OK);
        assert_int_equal(rep.iterations, it);
        assert_memory_equal(x, y, sizeof x);
    }
    /* KLU allocates through SuiteSparse's own malloc; cdyn's allocator saw nothing after create */
    assert_int_equal(fa.allocations, after_create);
    cdyn_mcp_solver_free(s);
    assert_int_equal(fa.live, 0);
}

static void test_sparse_runs(void **unused)
{
    (void)unused;
    run_many(1);
}

static void test_dense_runs(void **unused)
{
    (void)unused;
    run_many(0);
}

static void test_refusals(void **unused)
{
    (void)unused;
    tri_pattern();
    tri t = {{0}, 0.5};
    cdyn_mcp p = tri_problem(&t, 1);
    cdyn_mcp_solver *s = (cdyn_mcp_solver *)&s;
    cdyn_report rep;
    assert_int_equal(cdyn_mcp_solver_create(&p, NULL, NULL, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_mcp_solver_create(NULL, NULL, &s, &rep), CDYN_EINVAL);
    assert_null(s);
    cdyn_mcp_options o;
    cdyn_mcp_defaults(&o);
    o.tol = -1;
    assert_int_equal(cdyn_mcp_solver_create(&p, &o, &s, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_mcp_solver_create(&p, NULL, &s, &rep), CDYN_OK);

    double x[N] = {0};
    assert_int_equal(cdyn_mcp_solver_solve(NULL, &p, x, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_mcp_solver_solve(s, &p, NULL, &rep), CDYN_EINVAL);
    cdyn_mcp dense = tri_problem(&t, 0);
    assert_int_equal(cdyn_mcp_solver_solve(s, &dense, x, &rep), CDYN_EINVAL);
    assert_non_null(strstr(rep.message, "sparsity pattern"));
    /* the same sizes with another pattern: the tridiagonal one without its last entry */
    int cp2[N + 1];
    memcpy(cp2, colptr, sizeof cp2);
    cp2[N] = colptr[N] - 1;
    cdyn_mcp other = p;
    other.colptr = cp2;
    assert_int_equal(cdyn_mcp_solver_solve(s, &other, x, &rep), CDYN_EINVAL);
    x[3] = NAN;
    assert_int_equal(cdyn_mcp_solver_solve(s, &p, x, &rep), CDYN_EINVAL);
    cdyn_mcp_solver_free(s);
    cdyn_mcp_solver_free(NULL);
}

/* The progress callback sees every iteration with the residual the report ends with, and a
 * nonzero return stops the solve cleanly (x untouched). */
typedef struct progress_log {
    int calls, last_it, stop_at;
    double last_res;
} progress_log;

static int on_progress(void *ctx, int it, double res)
{
    progress_log *l = ctx;
    l->calls++;
    assert_int_equal(it, l->last_it + 1);
    l->last_it = it;
    l->last_res = res;
    return l->stop_at > 0 && it >= l->stop_at;
}

static void test_progress(void **unused)
{
    (void)unused;
    tri_pattern();
    tri t = {{0}, 0.5};
    for (int i = 0; i < N; i++)
        t.q[i] = (i % 3) - 1.0;
    cdyn_mcp p = tri_problem(&t, 1);
    progress_log log = {0, 0, 0, 0};
    cdyn_mcp_options o;
    cdyn_mcp_defaults(&o);
    o.progress = on_progress;
    o.progress_ctx = &log;
    double x[N] = {0};
    cdyn_report rep;
    assert_int_equal(cdyn_mcp_solve(&p, &o, x, &rep), CDYN_OK);
    assert_true(rep.iterations >= 2);
    assert_int_equal(log.calls, rep.iterations);
    assert_true(log.last_res == rep.residual);

    progress_log stop = {0, 0, 1, 0};
    o.progress_ctx = &stop;
    double y[N] = {0};
    assert_int_equal(cdyn_mcp_solve(&p, &o, y, &rep), CDYN_ENOCONV);
    assert_non_null(strstr(rep.message, "stopped by the progress callback"));
    assert_int_equal(stop.calls, 1);
    for (int i = 0; i < N; i++)
        assert_true(y[i] == 0.0);
}

/* A compliant impact step (regression): backward Euler for a unit mass hitting a floor of
 * stiffness k = 1e4 N/m at 3.3 m/s, h = 2 ms, unknowns (z, v, lambda) with
 * 0 <= lambda ⊥ z + lambda / k >= 0. Eliminating z and v leaves a one-dimensional LCP with the
 * solution lambda = max(0, -(z0 + h v0 - h^2 g) / (1/k + h^2/m)). The force (about 47 N) and the
 * residuals (1e-3 m) differ by five orders of magnitude: the old, unit-dependent descent test
 * rejected every Newton direction and the solver crawled to its iteration limit. */
typedef struct impact {
    double z0, v0, h, m, k;
} impact;

static int impact_F(void *ctx, const double *y, double *F)
{
    const impact *c = ctx;
    F[0] = y[0] - c->z0 - c->h * y[1];
    F[1] = y[1] - c->v0 - c->h * (-9.81 + y[2] / c->m);
    F[2] = y[0] + y[2] / c->k;
    return 0;
}

static int impact_J(void *ctx, const double *y, double *J)
{
    const impact *c = ctx;
    (void)y;
    memset(J, 0, 9 * sizeof(double));
    J[0] = 1, J[3] = -c->h;
    J[4] = 1, J[7] = -c->h / c->m;
    J[2] = 1, J[8] = 1 / c->k;
    return 0;
}

static void test_impact_scaling(void **unused)
{
    (void)unused;
    impact c = {0.0017173599999995067, -3.2759200000000113, 0.002, 1.0, 1e4};
    const double lo[3] = {-INFINITY, -INFINITY, 0}, up[3] = {INFINITY, INFINITY, INFINITY};
    cdyn_mcp p = {0};
    p.n = 3;
    p.lower = lo;
    p.upper = up;
    p.F = impact_F;
    p.jac = impact_J;
    p.ctx = &c;
    double y[3] = {c.z0, c.v0, 0};
    cdyn_report rep;
    assert_int_equal(cdyn_mcp_solve(&p, NULL, y, &rep), CDYN_OK);
    assert_true(rep.iterations <= 10);
    const double lam = fmax(0, -(c.z0 + c.h * c.v0 - c.h * c.h * 9.81) / (1 / c.k + c.h * c.h / c.m));
    assert_true(lam > 40);
    assert_true(fabs(y[2] - lam) <= 1e-9 * lam);
}

/* Every allocation of create failing in turn: CDYN_ENOMEM and nothing leaked. */
static void test_create_enomem(void **unused)
{
    (void)unused;
    tri_pattern();
    tri t = {{0}, 0.5};
    for (int sparse = 0; sparse <= 1; sparse++) {
        cdyn_mcp p = tri_problem(&t, sparse);
        test_failing_alloc fa;
        test_failing_alloc_init(&fa, -1);
        cdyn_mcp_options o;
        cdyn_mcp_defaults(&o);
        o.allocator = &fa.allocator;
        cdyn_mcp_solver *s = NULL;
        cdyn_report rep;
        assert_int_equal(cdyn_mcp_solver_create(&p, &o, &s, &rep), CDYN_OK);
        const int total = fa.allocations;
        cdyn_mcp_solver_free(s);
        for (int k = 0; k < total; k++) {
            test_failing_alloc_init(&fa, k);
            assert_int_equal(cdyn_mcp_solver_create(&p, &o, &s, &rep), CDYN_ENOMEM);
            assert_null(s);
            assert_int_equal(fa.live, 0);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_runs),
        cmocka_unit_test(test_dense_runs),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_create_enomem),
        cmocka_unit_test(test_progress),
        cmocka_unit_test(test_impact_scaling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
