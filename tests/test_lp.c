/* Dense simplex (cdyn_lp_solve, cdyn_lp_adjacent): textbook LPs with published optima,
 * degenerate problems known to cycle, infeasible / unbounded cases, LP duality on random
 * problems, adjacency on polytopes whose vertices are known, and argument checks. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/lp.h"
#include "support.h"

#define TOL 1e-9

/* Build standard form for  maximize f^T x  s.t.  G x <= h, x >= 0  (h >= 0): columns
 * [G I], c = [-f 0]. A is (mr)-by-(nv+mr). */
static void max_le(int mr, int nv, const double *G_rowmajor, const double *h, const double *f,
                   double *A, double *b, double *c)
{
    int n = nv + mr;
    memset(A, 0, sizeof(double) * (size_t)mr * (size_t)n);
    for (int i = 0; i < mr; ++i) {
        for (int j = 0; j < nv; ++j)
            A[i + (size_t)j * mr] = G_rowmajor[i * nv + j];
        A[i + (size_t)(nv + i) * mr] = 1.0;
        b[i] = h[i];
    }
    for (int j = 0; j < n; ++j)
        c[j] = j < nv ? -f[j] : 0.0;
}

/* c^T x = b^T y and c - A^T y >= 0 (LP duality: together with Ax = b, x >= 0 they certify
 * optimality). */
static void assert_duality(const cdyn_lp *lp, const double *x, const double *y, double tol)
{
    double px = 0.0, dy = 0.0;
    for (int j = 0; j < lp->n; ++j)
        px += lp->c[j] * x[j];
    for (int i = 0; i < lp->m; ++i)
        dy += lp->b[i] * y[i];
    assert_true(fabs(px - dy) <= tol * (1.0 + fabs(px)));
    for (int j = 0; j < lp->n; ++j) {
        double red = lp->c[j];
        for (int i = 0; i < lp->m; ++i)
            red -= lp->A[i + (size_t)j * lp->m] * y[i];
        assert_true(red >= -tol);
        assert_true(x[j] >= 0.0);
    }
    for (int i = 0; i < lp->m; ++i) {
        double ax = 0.0;
        for (int j = 0; j < lp->n; ++j)
            ax += lp->A[i + (size_t)j * lp->m] * x[j];
        assert_true(fabs(ax - lp->b[i]) <= tol * (1.0 + fabs(lp->b[i])));
    }
}

/* Chvátal, Linear Programming (1983), ch. 2 (also Vanderbei, Linear Programming, ch. 2):
 * max 5x1+4x2+3x3, 2x1+3x2+x3<=5, 4x1+x2+2x3<=11, 3x1+4x2+2x3<=8: optimum 13 at (2,0,1). */
static void test_chvatal_example(void **state)
{
    (void)state;
    const double G[] = {2, 3, 1, 4, 1, 2, 3, 4, 2}, h[] = {5, 11, 8}, f[] = {5, 4, 3};
    double A[3 * 6], b[3], c[6], x[6], y[3], obj;
    int basis[3];
    max_le(3, 3, G, h, f, A, b, c);
    cdyn_lp lp = {3, 6, A, b, c};
    for (int rule = 0; rule <= 1; ++rule) {
        cdyn_lp_options o;
        cdyn_lp_defaults(&o);
        o.rule = (cdyn_lp_rule)rule;
        cdyn_report rep;
        assert_int_equal(cdyn_lp_solve(&lp, &o, x, y, basis, &obj, &rep), CDYN_OK);
        assert_true(fabs(obj + 13.0) < TOL);
        assert_true(fabs(x[0] - 2.0) < TOL && fabs(x[1]) < TOL && fabs(x[2] - 1.0) < TOL);
        assert_duality(&lp, x, y, 1e-9);
        for (int p = 0; p < 3; ++p)
            assert_true(basis[p] >= 0 && basis[p] < 6);
    }
}

/* Klee & Minty (1972) in Chvátal's form (Linear Programming, ch. 4):
 * max sum_j 10^(n-j) x_j  s.t.  2 sum_{j<i} 10^(i-j) x_j + x_i <= 100^(i-1),  x >= 0.
 * Optimum x = (0,...,0,100^(n-1)); from the slack basis the largest-coefficient (Dantzig) rule
 * visits all 2^n vertices, i.e. makes 2^n - 1 pivots. */
static void test_klee_minty(void **state)
{
    (void)state;
    enum { N = 6 };
    double G[N * N] = {0}, h[N], f[N], A[N * 2 * N], b[N], c[2 * N], x[2 * N], y[N], obj;
    for (int i = 0; i < N; ++i) {
        for (int j = 0; j < i; ++j)
            G[i * N + j] = 2.0 * pow(10.0, i - j);
        G[i * N + i] = 1.0;
        h[i] = pow(100.0, i);
        f[i] = pow(10.0, N - 1 - i);
    }
    max_le(N, N, G, h, f, A, b, c);
    cdyn_lp lp = {N, 2 * N, A, b, c};
    cdyn_lp_options o;
    cdyn_lp_defaults(&o);
    cdyn_report rep;
    assert_int_equal(cdyn_lp_solve(&lp, &o, x, y, NULL, &obj, &rep), CDYN_OK);
    assert_int_equal(rep.iterations, (1 << N) - 1);
    assert_true(fabs(obj + pow(100.0, N - 1)) <= 1e-9 * pow(100.0, N - 1));
    for (int j = 0; j < N - 1; ++j)
        assert_true(fabs(x[j]) < 1e-6);
    assert_duality(&lp, x, y, 1e-9);
    o.rule = CDYN_LP_RULE_BLAND;
    assert_int_equal(cdyn_lp_solve(&lp, &o, x, y, NULL, &obj, &rep), CDYN_OK);
    assert_true(fabs(obj + pow(100.0, N - 1)) <= 1e-9 * pow(100.0, N - 1));
}

/* Beale (1955), "Cycling in the dual simplex algorithm", Naval Research Logistics Quarterly 2:
 * max 3/4 x1 - 20 x2 + 1/2 x3 - 6 x4  s.t.  1/4 x1 - 8 x2 - x3 + 9 x4 <= 0,
 * 1/2 x1 - 12 x2 - 1/2 x3 + 3 x4 <= 0,  x3 <= 1.  Optimum 5/4 at x = (1, 0, 1, 0); the dual
 * y = (0, 3/2, 5/4) certifies it (derived by hand: b^T y = 5/4 and A^T y >= f). With
 * Dantzig's rule and ties broken by the lowest row the simplex method cycles (period 6). */
static void beale(double *A, double *b, double *c)
{
    const double G[] = {0.25, -8, -1, 9, 0.5, -12, -0.5, 3, 0, 0, 1, 0}, h[] = {0, 0, 1},
                 f[] = {0.75, -20, 0.5, -6};
    max_le(3, 4, G, h, f, A, b, c);
}

static void test_beale_lexicographic_and_bland(void **state)
{
    (void)state;
    double A[3 * 7], b[3], c[7], x[7], y[3], obj;
    beale(A, b, c);
    cdyn_lp lp = {3, 7, A, b, c};
    for (int rule = 0; rule <= 1; ++rule) {
        cdyn_lp_options o;
        cdyn_lp_defaults(&o);
        o.rule = (cdyn_lp_rule)rule;
        o.max_iterations = 100;
        cdyn_report rep;
        assert_int_equal(cdyn_lp_solve(&lp, &o, x, y, NULL, &obj, &rep), CDYN_OK);
        assert_true(fabs(obj + 1.25) < TOL);
        assert_true(fabs(x[0] - 1.0) < TOL && fabs(x[1]) < TOL && fabs(x[2] - 1.0) < TOL &&
                    fabs(x[3]) < TOL);
        assert_true(fabs(y[0]) < TOL && fabs(y[1] + 1.5) < TOL && fabs(y[2] + 1.25) < TOL);
        assert_duality(&lp, x, y, 1e-9);
    }
}

static void test_beale_cycles_without_anticycling(void **state)
{
    (void)state;
    double A[3 * 7], b[3], c[7], x[7];
    for (int j = 0; j < 7; ++j)
        x[j] = -7.0;
    beale(A, b, c);
    cdyn_lp lp = {3, 7, A, b, c};
    cdyn_lp_options o;
    cdyn_lp_defaults(&o);
    o.rule = CDYN_LP_RULE_TEXTBOOK;
    o.max_iterations = 60; /* ten turns of the 6-cycle */
    cdyn_report rep;
    assert_int_equal(cdyn_lp_solve(&lp, &o, x, NULL, NULL, NULL, &rep), CDYN_ENOCONV);
    assert_int_equal(rep.status, CDYN_ENOCONV);
    for (int j = 0; j < 7; ++j)
        assert_true(x[j] == -7.0); /* failure leaves the output alone */
}

/* Infeasible: x1 + x2 + s1 = 1 and x1 + x2 - s2 = 3 (x1 + x2 <= 1 and >= 3). */
static void test_infeasible(void **state)
{
    (void)state;
    const double A[] = {1, 1, 1, 1, 1, 0, 0, -1}, b[] = {1, 3}, c[] = {0, 0, 0, 0};
    double x[4];
    cdyn_lp lp = {2, 4, A, b, c};
    cdyn_report rep;
    assert_int_equal(cdyn_lp_solve(&lp, NULL, x, NULL, NULL, NULL, &rep), CDYN_EINFEASIBLE);
    assert_true(strlen(rep.message) > 0);
}

/* Unbounded: max x1 s.t. x1 - x2 <= 1 (the ray (1, 1) improves without end). */
static void test_unbounded(void **state)
{
    (void)state;
    const double A[] = {1, -1, 1}, b[] = {1}, c[] = {-1, 0, 0};
    double x[3];
    cdyn_lp lp = {1, 3, A, b, c};
    cdyn_report rep;
    assert_int_equal(cdyn_lp_solve(&lp, NULL, x, NULL, NULL, NULL, &rep), CDYN_EUNBOUNDED);
}

/* Dependent rows (the first equation twice): min -x3 s.t. x1+x2+x3 = 1 (twice), x1 - x2 = 0.
 * Optimum -1 at (0, 0, 1); one row must be reported dependent (-1 in the basis). Also a
 * negative right-hand side (row signs are normalized internally; the duals are in the caller's
 * signs). */
static void test_dependent_rows(void **state)
{
    (void)state;
    const double A[] = {1, 1, 1, -1, 1, 1, -1, -1, 1, 1, 0, -1}, b[] = {1, 1, 0, -1};
    /* rows: x1+x2+x3 = 1, x1+x2+x3 = 1, x1-x2 = 0, -x1-x2-x3 = -1 (three copies of one) */
    const double c[] = {0, 0, -1};
    double x[3], y[4], obj;
    int basis[4];
    cdyn_lp lp = {4, 3, A, b, c};
    cdyn_report rep;
    assert_int_equal(cdyn_lp_solve(&lp, NULL, x, y, basis, &obj, &rep), CDYN_OK);
    assert_true(fabs(obj + 1.0) < TOL);
    assert_true(fabs(x[2] - 1.0) < TOL);
    int dependent = 0;
    for (int p = 0; p < 4; ++p)
        dependent += basis[p] == -1;
    assert_int_equal(dependent, 2);
    assert_duality(&lp, x, y, 1e-9);
}

/* Random LPs made feasible and bounded by construction (b = A x0 with x0 >= 0; c = A^T y0 + s0
 * with s0 >= 0): the answer must satisfy the duality certificate, and the lexicographic and
 * Bland paths (different pivot sequences) must agree on the optimal value. */
static void test_random_duality(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 20240611);
    for (int trial = 0; trial < 40; ++trial) {
        int m = 1 + (int)(test_rng_uniform(&rng) * 15),
            n = m + 1 + (int)(test_rng_uniform(&rng) * 20);
        double *A = malloc(sizeof(double) * (size_t)(m * n)), *b = malloc(sizeof(double) * m),
               *c = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n),
               *y = malloc(sizeof(double) * m), *x0 = malloc(sizeof(double) * n);
        for (int k = 0; k < m * n; ++k)
            A[k] = test_rng_range(&rng, -1, 1);
        for (int j = 0; j < n; ++j)
            x0[j] = test_rng_uniform(&rng) < 0.5 ? 0.0 : test_rng_uniform(&rng);
        for (int i = 0; i < m; ++i) {
            b[i] = 0.0;
            y[i] = test_rng_range(&rng, -1, 1);
            for (int j = 0; j < n; ++j)
                b[i] += A[i + j * m] * x0[j];
        }
        for (int j = 0; j < n; ++j) {
            c[j] = test_rng_uniform(&rng) < 0.3 ? 0.0 : test_rng_uniform(&rng);
            for (int i = 0; i < m; ++i)
                c[j] += A[i + j * m] * y[i];
        }
        cdyn_lp lp = {m, n, A, b, c};
        double f_lex, f_bland;
        cdyn_lp_options o;
        cdyn_lp_defaults(&o);
        assert_int_equal(cdyn_lp_solve(&lp, &o, x, y, NULL, &f_lex, NULL), CDYN_OK);
        assert_duality(&lp, x, y, 1e-8);
        o.rule = CDYN_LP_RULE_BLAND;
        assert_int_equal(cdyn_lp_solve(&lp, &o, x, y, NULL, &f_bland, NULL), CDYN_OK);
        assert_duality(&lp, x, y, 1e-8);
        assert_true(fabs(f_lex - f_bland) <= 1e-8 * (1.0 + fabs(f_lex)));
        free(A), free(b), free(c), free(x), free(y), free(x0);
    }
}

/* m = 0: minimize c^T x over x >= 0. */
static void test_no_rows(void **state)
{
    (void)state;
    const double c1[] = {1, 2}, c2[] = {1, -1};
    double x[2] = {5, 5}, obj;
    cdyn_lp lp = {0, 2, NULL, NULL, c1};
    assert_int_equal(cdyn_lp_solve(&lp, NULL, x, NULL, NULL, &obj, NULL), CDYN_OK);
    assert_true(x[0] == 0.0 && x[1] == 0.0 && obj == 0.0);
    lp.c = c2;
    assert_int_equal(cdyn_lp_solve(&lp, NULL, x, NULL, NULL, &obj, NULL), CDYN_EUNBOUNDED);
}

static int contains(const double *list, int count, int n, const double *v)
{
    for (int k = 0; k < count; ++k) {
        int same = 1;
        for (int j = 0; j < n; ++j)
            if (fabs(list[k * n + j] - v[j]) > 1e-9)
                same = 0;
        if (same)
            return 1;
    }
    return 0;
}

/* Unit cube in standard form (x_j + s_j = 1): the vertex 0 has exactly the 3 neighbours e_j;
 * the vertex (1,1,1) found by max sum x has the 3 neighbours with one coordinate 0. */
static void test_adjacent_cube(void **state)
{
    (void)state;
    double A[3 * 6] = {0}, b[3] = {1, 1, 1}, c[6] = {-1, -1, -1, 0, 0, 0}, x[6], v[20 * 6];
    int basis[3], count = -1;
    for (int i = 0; i < 3; ++i) {
        A[i + i * 3] = 1.0;
        A[i + (3 + i) * 3] = 1.0;
    }
    cdyn_lp lp = {3, 6, A, b, c};
    assert_int_equal(cdyn_lp_solve(&lp, NULL, x, NULL, basis, NULL, NULL), CDYN_OK);
    assert_int_equal(cdyn_lp_adjacent(&lp, basis, NULL, 20, v, &count, NULL), CDYN_OK);
    assert_int_equal(count, 3);
    for (int k = 0; k < 3; ++k) {
        double w[6] = {1, 1, 1, 0, 0, 0};
        w[k] = 0.0;
        w[3 + k] = 1.0;
        assert_true(contains(v, count, 6, w));
    }
    const int slack_basis[3] = {3, 4, 5};
    assert_int_equal(cdyn_lp_adjacent(&lp, slack_basis, NULL, 20, v, &count, NULL), CDYN_OK);
    assert_int_equal(count, 3);
    /* a basis whose vertex is infeasible is refused */
    const int bad[3] = {0, 1, 1};
    assert_int_equal(cdyn_lp_adjacent(&lp, bad, NULL, 20, v, &count, NULL), CDYN_EINVAL);
}

/* Square pyramid: 0 <= z <= min(x, y, 2 - x, 2 - y). Its apex (1,1,1) lies on four facets in
 * R^3 (a degenerate vertex: one basic slack is zero); its adjacent vertices are the four base
 * corners (0,0,0), (2,0,0), (0,2,0), (2,2,0), which one basis alone does not all reach. */
static void test_adjacent_degenerate_apex(void **state)
{
    (void)state;
    /* columns x, y, z, s1..s4; rows z - x + s1 = 0, z - y + s2 = 0, z + x + s3 = 2,
     * z + y + s4 = 2 */
    double A[4 * 7] = {0};
    const double b[4] = {0, 0, 2, 2}, c[7] = {0, 0, -1, 0, 0, 0, 0};
    A[0 + 0 * 4] = -1, A[2 + 0 * 4] = 1;
    A[1 + 1 * 4] = -1, A[3 + 1 * 4] = 1;
    for (int i = 0; i < 4; ++i) {
        A[i + 2 * 4] = 1;
        A[i + (3 + i) * 4] = 1;
    }
    double x[7], v[32 * 7];
    int basis[4], count = -1;
    cdyn_lp lp = {4, 7, A, b, c};
    assert_int_equal(cdyn_lp_solve(&lp, NULL, x, NULL, basis, NULL, NULL), CDYN_OK);
    assert_true(fabs(x[0] - 1) < TOL && fabs(x[1] - 1) < TOL && fabs(x[2] - 1) < TOL);
    assert_int_equal(cdyn_lp_adjacent(&lp, basis, NULL, 32, v, &count, NULL), CDYN_OK);
    assert_int_equal(count, 4);
    const double corners[4][2] = {{0, 0}, {2, 0}, {0, 2}, {2, 2}};
    for (int k = 0; k < 4; ++k) {
        double X = corners[k][0], Y = corners[k][1];
        double w[7] = {X, Y, 0, X, Y, 2 - X, 2 - Y};
        assert_true(contains(v, count, 7, w));
    }
}

static void test_bad_input(void **state)
{
    (void)state;
    const double A[] = {1, 1}, b[] = {1}, c[] = {1, 1};
    double x[2] = {9, 9};
    cdyn_report rep;
    cdyn_lp lp = {1, 2, A, b, c};
    assert_int_equal(cdyn_lp_solve(NULL, NULL, x, NULL, NULL, NULL, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_lp_solve(&lp, NULL, NULL, NULL, NULL, NULL, &rep), CDYN_EINVAL);
    cdyn_lp bad = lp;
    bad.n = 0;
    assert_int_equal(cdyn_lp_solve(&bad, NULL, x, NULL, NULL, NULL, &rep), CDYN_EINVAL);
    bad = lp;
    bad.m = -1;
    assert_int_equal(cdyn_lp_solve(&bad, NULL, x, NULL, NULL, NULL, &rep), CDYN_EINVAL);
    bad = lp;
    bad.A = NULL;
    assert_int_equal(cdyn_lp_solve(&bad, NULL, x, NULL, NULL, NULL, &rep), CDYN_EINVAL);
    const double An[] = {1, NAN}, bn[] = {INFINITY}, cn[] = {NAN, 0};
    bad = lp;
    bad.A = An;
    assert_int_equal(cdyn_lp_solve(&bad, NULL, x, NULL, NULL, NULL, &rep), CDYN_EINVAL);
    assert_true(strstr(rep.message, "NaN") != NULL);
    bad = lp;
    bad.b = bn;
    assert_int_equal(cdyn_lp_solve(&bad, NULL, x, NULL, NULL, NULL, &rep), CDYN_EINVAL);
    bad = lp;
    bad.c = cn;
    assert_int_equal(cdyn_lp_solve(&bad, NULL, x, NULL, NULL, NULL, &rep), CDYN_EINVAL);
    cdyn_lp_options o;
    cdyn_lp_defaults(&o);
    o.rule = (cdyn_lp_rule)7;
    assert_int_equal(cdyn_lp_solve(&lp, &o, x, NULL, NULL, NULL, &rep), CDYN_EINVAL);
    assert_true(x[0] == 9 && x[1] == 9);
    int count;
    assert_int_equal(cdyn_lp_adjacent(&lp, NULL, NULL, 0, NULL, &count, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_lp_solve(&lp, NULL, x, NULL, NULL, NULL, NULL), CDYN_OK);
}

/* Allocation failure: CDYN_ENOMEM, nothing leaked, outputs untouched (support.c's driver fails
 * each allocation of a successful solve in turn). */
typedef struct alloc_case {
    double A[3 * 7], b[3], c[7], x[7];
} alloc_case;

static cdyn_status alloc_case_run(void *ctx, const cdyn_allocator *a)
{
    alloc_case *ac = ctx;
    const cdyn_lp lp = {3, 7, ac->A, ac->b, ac->c};
    cdyn_lp_options o;
    cdyn_lp_defaults(&o);
    o.allocator = a;
    for (int j = 0; j < 7; ++j)
        ac->x[j] = 42.0;
    return cdyn_lp_solve(&lp, &o, ac->x, NULL, NULL, NULL, NULL);
}

static int alloc_case_unchanged(void *ctx)
{
    const alloc_case *ac = ctx;
    for (int j = 0; j < 7; ++j)
        if (ac->x[j] != 42.0)
            return 0;
    return 1;
}

static void test_alloc_failure(void **state)
{
    (void)state;
    alloc_case ac;
    beale(ac.A, ac.b, ac.c);
    test_alloc_case tc = {"cdyn_lp_solve", alloc_case_run, alloc_case_unchanged, NULL, &ac};
    assert_true(test_alloc_every_failure(&tc) >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chvatal_example),
        cmocka_unit_test(test_klee_minty),
        cmocka_unit_test(test_beale_lexicographic_and_bland),
        cmocka_unit_test(test_beale_cycles_without_anticycling),
        cmocka_unit_test(test_infeasible),
        cmocka_unit_test(test_unbounded),
        cmocka_unit_test(test_dependent_rows),
        cmocka_unit_test(test_random_duality),
        cmocka_unit_test(test_no_rows),
        cmocka_unit_test(test_adjacent_cube),
        cmocka_unit_test(test_adjacent_degenerate_apex),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
