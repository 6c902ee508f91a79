/* The proximal-perturbation restarts of the FB-Newton MCP solver (options.globalize): problems
 * where plain Newton stalls at a stationary point of the merit function that is not a solution,
 * solved with the restarts from several starting points; the literature problems of
 * mcp_testproblems.c from many starting points, where runs that converge without the restarts
 * must be unchanged by them; the dense, sparse and finite-difference paths; the reusable solver
 * (no allocation per run); a problem without solution (failure, x unchanged); and the LCP path on
 * random non-P LCPs.
 *
 * Sources
 * [BI]  S. C. Billups, "Algorithms for complementarity problems and generalized equations", PhD
 *       thesis, Univ. of Wisconsin-Madison (1995); the one-variable NCP F(x) = (x - 1)^2 - 1.01,
 *       x >= 0 (MCPLIB model "billups": S. C. Billups, S. P. Dirkse, M. C. Ferris, "A comparison
 *       of large scale mixed complementarity problem solvers", Comput. Optim. Appl. 7 (1997)
 *       3-25), also M. J. Miranda, P. L. Fackler, "Applied Computational Economics and
 *       Finance", MIT Press (2002), Sec. 3.7, whose sign convention writes it as
 *       f = 1.01 - (1 - x)^2. Solution by hand: F(0) = -0.01 < 0, so x = 0 is not a solution
 *       and x > 0 needs F(x) = 0; of the roots 1 -+ sqrt(1.01) only x* = 1 + sqrt(1.01) is
 *       positive. The FB merit function has a local minimizer near x = -0.005 (the negative
 *       root 1 - sqrt(1.01), where F vanishes just outside the feasible set), which is not a
 *       solution: natural residual 0.005 there. Box variants (ours, same F): on [0, 3] the
 *       solution is x* (inside); on [0, 3/2], F < 0 on the whole box, so the solution is the
 *       upper bound x = 3/2 (F(3/2) = -0.76 <= 0).
 * The other problems (Kojima-Shindo with its degenerate second solution, Josephy, Mathiesen's
 * models, Nash-Cournot, the sign-flipped Billups function) and their sources are in
 * mcp_testproblems.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/lcp.h"
#include "cdyn/mcp.h"
#include "mcp_testproblems.h"
#include "support.h"

#define XSTAR_BI 2.0049875621120890 /* 1 + sqrt(1.01) */

static int bi_F(void *ctx, const double *x, double *F)
{
    (void)ctx;
    F[0] = (x[0] - 1.0) * (x[0] - 1.0) - 1.01;
    return 0;
}

static int bi_J(void *ctx, const double *x, double *J)
{
    (void)ctx;
    J[0] = 2.0 * (x[0] - 1.0);
    return 0;
}

static const int BI_COLPTR[2] = {0, 1}, BI_ROWIND[1] = {0};

static cdyn_mcp billups(const double *lower, const double *upper)
{
    cdyn_mcp p;
    memset(&p, 0, sizeof p);
    p.n = 1;
    p.lower = lower;
    p.upper = upper;
    p.F = bi_F;
    p.jac = bi_J;
    return p;
}

/* Starting points from which plain FB-Newton stalls near x = -0.005, and some from which it
   converges. */
static const double BI_STALL[] = {0.0, 0.01, 0.5, -1.0, 10.0};
static const double BI_EASY[] = {1.0, 1.5, 3.0, -5.0};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static cdyn_status solve(const cdyn_mcp *p, int globalize, int use_fd, double *x, cdyn_report *r)
{
    cdyn_mcp_options o;
    cdyn_mcp_defaults(&o);
    o.globalize = globalize;
    o.jacobian_fd = use_fd;
    return cdyn_mcp_solve(p, &o, x, r);
}

/* Natural residual of x, computed here from F, not taken from the report. */
static double residual(const cdyn_mcp *p, const double *x)
{
    double F[TP_MAXN];
    if (p->F(p->ctx, x, F) != 0)
        return INFINITY;
    return cdyn_mcp_residual(p, x, F);
}

static void test_billups_plain_newton_stalls(void **state)
{
    (void)state;
    const cdyn_mcp p = billups(NULL, NULL);
    for (int k = 0; k < COUNT(BI_STALL); ++k) {
        double x[1] = {BI_STALL[k]};
        cdyn_report r;
        assert_int_equal(solve(&p, 0, 0, x, &r), CDYN_ENOCONV);
        assert_non_null(strstr(r.message, "stagnation"));
        assert_true(fabs(r.residual - 0.005) <= 1e-4); /* at the local minimizer near -0.005 */
        assert_true(x[0] == BI_STALL[k]);              /* unchanged on failure */
        assert_string_equal(r.method, "fb-newton");
    }
}

static void test_billups_restarts_solve_it(void **state)
{
    (void)state;
    const cdyn_mcp p = billups(NULL, NULL);
    cdyn_mcp ps = p; /* the same on the sparse path (KLU) */
    ps.jac = NULL;
    ps.colptr = BI_COLPTR;
    ps.rowind = BI_ROWIND;
    ps.jac_sparse = bi_J;
    const cdyn_mcp *paths[2] = {&p, &ps};
    for (int path = 0; path < 2; ++path)
        for (int fd = 0; fd < 2; ++fd)
            for (int k = 0; k < COUNT(BI_STALL); ++k) {
                double x[1] = {BI_STALL[k]};
                cdyn_report r;
                const cdyn_status st = solve(paths[path], 1, fd, x, &r);
                if (st != CDYN_OK || fabs(x[0] - XSTAR_BI) > 1e-9)
                    print_error("billups path %d fd %d start %g: %d it %d x %.17g (%s)\n", path,
                                fd, BI_STALL[k], (int)st, r.iterations, x[0], r.message);
                assert_int_equal(st, CDYN_OK);
                assert_true(fabs(x[0] - XSTAR_BI) <= 1e-9);
                assert_true(residual(&p, x) <= 1e-10);
                assert_string_equal(r.method, "fb-newton+proximal");
                assert_non_null(strstr(r.message, "Newton stalled after"));
                assert_non_null(strstr(r.message, "proximal-perturbation restarts"));
                assert_true(r.iterations <= 200); /* max_iter for each phase */
            }
}

/* Where plain Newton converges, the restarts never start: same result, iterations and
   evaluations with and without them, and no note in the report. */
static void test_converging_runs_unchanged(void **state)
{
    (void)state;
    const cdyn_mcp p = billups(NULL, NULL);
    for (int k = 0; k < COUNT(BI_EASY); ++k) {
        double x0[1] = {BI_EASY[k]}, x1[1] = {BI_EASY[k]};
        cdyn_report r0, r1;
        assert_int_equal(solve(&p, 0, 0, x0, &r0), CDYN_OK);
        assert_int_equal(solve(&p, 1, 0, x1, &r1), CDYN_OK);
        assert_true(fabs(x1[0] - XSTAR_BI) <= 1e-9);
        assert_true(x0[0] == x1[0]);
        assert_int_equal(r0.iterations, r1.iterations);
        assert_int_equal(r0.evaluations, r1.evaluations);
        assert_string_equal(r1.method, "fb-newton");
        assert_string_equal(r1.message, "");
    }
}

/* Box variants: the interior solution x* on [0, 3], the upper bound on [0, 3/2]. */
static void test_billups_on_boxes(void **state)
{
    (void)state;
    const double lo[1] = {0.0}, up3[1] = {3.0}, up15[1] = {1.5};
    const struct {
        const double *up;
        double sol;
    } cases[2] = {{up3, XSTAR_BI}, {up15, 1.5}};
    for (int c = 0; c < 2; ++c) {
        const cdyn_mcp p = billups(lo, cases[c].up);
        const double starts[] = {0.0, 0.01, 0.5, 1.0, 2.9};
        for (int k = 0; k < COUNT(starts); ++k) {
            double x[1] = {starts[k]};
            cdyn_report r;
            const cdyn_status st = solve(&p, 1, 0, x, &r);
            if (st != CDYN_OK || fabs(x[0] - cases[c].sol) > 1e-9)
                print_error("billups box %d start %g: %d x %.17g (%s)\n", c, starts[k], (int)st,
                            x[0], r.message);
            assert_int_equal(st, CDYN_OK);
            assert_true(fabs(x[0] - cases[c].sol) <= 1e-9);
            assert_true(residual(&p, x) <= 1e-10);
        }
        /* from 0.5 plain Newton stalls on both boxes; the report names the restarts */
        double x[1] = {0.5};
        cdyn_report r;
        assert_int_equal(solve(&p, 0, 0, x, &r), CDYN_ENOCONV);
        assert_int_equal(solve(&p, 1, 0, x, &r), CDYN_OK);
        assert_string_equal(r.method, "fb-newton+proximal");
    }
}

/* The literature problems from their two published-style starts and 12 seeded random ones
   (uniform in [0, 3]^n and [0, 10]^n): every solve must reach a known solution; the runs that
   converge without the restarts must be identical with them. Counts the solves that needed
   the globalization (one: Josephy's problem from a random start, where plain Newton creeps
   with tiny steps to the iteration limit, natural residual 0.4; Josephy-Newton iterations
   from there solve it, before the restarts were needed). */
static void test_literature_problems_many_starts(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 7);
    int needed = 0, solves = 0;
    for (int k = 0; k < TP_NPROB; ++k) {
        const tp_problem *pb = &TP_PROBLEMS[k];
        cdyn_mcp p;
        memset(&p, 0, sizeof p);
        p.n = pb->n;
        p.lower = pb->lower;
        p.upper = pb->upper;
        p.F = pb->F;
        p.jac = pb->J;
        for (int s = 0; s < 14; ++s) {
            double x0[TP_MAXN] = {0};
            if (s < 2)
                memcpy(x0, pb->start[s], sizeof x0);
            else
                for (int i = 0; i < pb->n; ++i)
                    x0[i] = test_rng_range(&rng, 0.0, s < 8 ? 3.0 : 10.0);
            double xp[TP_MAXN], xg[TP_MAXN];
            memcpy(xp, x0, sizeof xp);
            memcpy(xg, x0, sizeof xg);
            cdyn_report rp, rg;
            const cdyn_status sp = solve(&p, 0, 0, xp, &rp);
            const cdyn_status sg = solve(&p, 1, 0, xg, &rg);
            const double dist = pb->distance(xg);
            if (sg != CDYN_OK || !(dist <= pb->distance_tol))
                print_error("%s start %d: status %d (%s) it %d dist %g\n", pb->name, s, (int)sg,
                            rg.message, rg.iterations, dist);
            assert_int_equal(sg, CDYN_OK);
            assert_true(dist <= pb->distance_tol);
            assert_true(residual(&p, xg) <= 1e-10);
            ++solves;
            if (sp == CDYN_OK) {
                assert_int_equal(rp.iterations, rg.iterations);
                assert_int_equal(rp.evaluations, rg.evaluations);
                assert_memory_equal(xp, xg, (size_t)pb->n * sizeof(double));
                assert_string_equal(rg.method, "fb-newton");
            } else {
                ++needed;
                assert_string_equal(rg.method, "fb-newton+josephy");
            }
        }
    }
    assert_int_equal(solves, 14 * TP_NPROB);
    assert_int_equal(needed, 1);
}

/* Wider starts: 200 seeded random ones per problem, uniform in [-2, 12]^n (the numeraire of the
   Walras model fixed at 6). Some lie outside F's domain (CDYN_EINVAL at the start, for both).
   Measured: plain FB-Newton ends with CDYN_ENOCONV from 19 starts of Kojima-Shindo, 81 of
   Josephy and 25 of the modified Mathiesen problem; the natural-map polish, the Josephy-Newton
   iterations and the restarts solve all of the first two and 18 of the third (without the
   Josephy-Newton iterations: 13; the restarts alone: 11). Every other run is unchanged. */
static void test_literature_problems_wide_starts(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 99);
    const struct {
        const char *name;
        int stalls, rescued;
    } expect[] = {{"kojima-shindo", 19, 19}, {"josephy", 81, 81}, {"mathiesen-modified", 25, 18}};
    for (int k = 0; k < TP_NPROB; ++k) {
        const tp_problem *pb = &TP_PROBLEMS[k];
        cdyn_mcp p;
        memset(&p, 0, sizeof p);
        p.n = pb->n;
        p.lower = pb->lower;
        p.upper = pb->upper;
        p.F = pb->F;
        p.jac = pb->J;
        int stalls = 0, rescued = 0;
        for (int s = 0; s < 200; ++s) {
            double x0[TP_MAXN] = {0};
            for (int i = 0; i < pb->n; ++i)
                x0[i] = test_rng_range(&rng, -2.0, 12.0);
            if (pb->lower != NULL && pb->lower[1] == pb->upper[1])
                x0[1] = pb->lower[1];
            double xp[TP_MAXN], xg[TP_MAXN];
            memcpy(xp, x0, sizeof xp);
            memcpy(xg, x0, sizeof xg);
            cdyn_report rp, rg;
            const cdyn_status sp = solve(&p, 0, 0, xp, &rp);
            const cdyn_status sg = solve(&p, 1, 0, xg, &rg);
            if (sg == CDYN_OK) {
                assert_true(pb->distance(xg) <= pb->distance_tol);
                assert_true(residual(&p, xg) <= 1e-10);
            } else {
                assert_memory_equal(xg, x0, sizeof xg);
            }
            if (sp != CDYN_ENOCONV) {
                assert_int_equal(sp, sg);
                assert_int_equal(rp.iterations, rg.iterations);
                assert_memory_equal(xp, xg, sizeof xp);
                continue;
            }
            ++stalls;
            rescued += sg == CDYN_OK;
        }
        int want_stalls = 0, want_rescued = 0;
        for (int e = 0; e < COUNT(expect); ++e)
            if (strcmp(expect[e].name, pb->name) == 0) {
                want_stalls = expect[e].stalls;
                want_rescued = expect[e].rescued;
            }
        if (stalls != want_stalls || rescued != want_rescued)
            print_error("%s: %d plain failures, %d solved by the restarts\n", pb->name, stalls,
                        rescued);
        assert_int_equal(stalls, want_stalls);
        assert_int_equal(rescued, want_rescued);
    }
}

/* The reusable solver: the restarts work in the workspace of create, so run allocates nothing
   (an allocator that fails every allocation after create proves it). */
static void test_reusable_solver_allocates_nothing(void **state)
{
    (void)state;
    const cdyn_mcp p = billups(NULL, NULL);
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    cdyn_mcp_options o;
    cdyn_mcp_defaults(&o);
    o.allocator = &fa.allocator;
    cdyn_mcp_solver *s = NULL;
    assert_int_equal(cdyn_mcp_solver_create(&p, &o, &s, NULL), CDYN_OK);
    fa.fail_after = fa.allocations;
    for (int k = 0; k < COUNT(BI_STALL); ++k) {
        double x[1] = {BI_STALL[k]};
        cdyn_report r;
        assert_int_equal(cdyn_mcp_solver_solve(s, &p, x, &r), CDYN_OK);
        assert_true(fabs(x[0] - XSTAR_BI) <= 1e-9);
        assert_string_equal(r.method, "fb-newton+proximal");
        /* the same run through cdyn_mcp_solve gives the same answer and counts */
        double y[1] = {BI_STALL[k]};
        cdyn_report ry;
        assert_int_equal(solve(&p, 1, 0, y, &ry), CDYN_OK);
        assert_true(x[0] == y[0]);
        assert_int_equal(r.iterations, ry.iterations);
        assert_int_equal(r.evaluations, ry.evaluations);
    }
    /* a converging run right after a restarted one is plain again */
    double x[1] = {3.0};
    cdyn_report r;
    assert_int_equal(cdyn_mcp_solver_solve(s, &p, x, &r), CDYN_OK);
    assert_string_equal(r.method, "fb-newton");
    cdyn_mcp_solver_free(s);
    assert_int_equal(fa.live, 0);

    /* switched off, the solver reports the stall */
    o.globalize = 0;
    o.allocator = NULL;
    assert_int_equal(cdyn_mcp_solver_create(&p, &o, &s, NULL), CDYN_OK);
    double z[1] = {0.0};
    assert_int_equal(cdyn_mcp_solver_solve(s, &p, z, &r), CDYN_ENOCONV);
    assert_true(z[0] == 0.0);
    cdyn_mcp_solver_free(s);
}

/* No solution: F(x) = -1 - x^2 < 0 on x >= 0. The restarts push x to the right until their
   budget is spent; the call fails with both messages and leaves x unchanged. */
static int nosol_F(void *ctx, const double *x, double *F)
{
    (void)ctx;
    F[0] = -1.0 - x[0] * x[0];
    return 0;
}

static int nosol_J(void *ctx, const double *x, double *J)
{
    (void)ctx;
    J[0] = -2.0 * x[0];
    return 0;
}

static void test_no_solution_fails_cleanly(void **state)
{
    (void)state;
    cdyn_mcp p;
    memset(&p, 0, sizeof p);
    p.n = 1;
    p.F = nosol_F;
    p.jac = nosol_J;
    double x[1] = {0.5};
    cdyn_report r;
    const cdyn_status st = solve(&p, 1, 0, x, &r);
    assert_true(st == CDYN_ENOCONV || st == CDYN_ENUMERIC);
    assert_true(x[0] == 0.5);
    if (st == CDYN_ENOCONV)
        assert_non_null(strstr(r.message, "proximal-perturbation restarts failed too"));
    assert_string_equal(r.method, "fb-newton");
}

/* The LCP path (cdyn_lcp_fb_newton, fixed Jacobian M): 3000 seeded random LCPs of order 2-4 with
   entries of M, q uniform in [-1, 1] (mostly not P-matrices) and starts in [0, 2]^n. Among
   those where plain FB-Newton fails although Lemke finds a solution (measured: 120; of all 1536
   plain failures 86% end at the iteration limit, creeping), the restarts must solve most
   (measured: 83); every
   claimed solution must have ||min(z, Mz + q)|| <= tol, and runs that converge plain must be
   unchanged. */
static void test_lcp_random_non_p(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 11);
    int failures = 0, rescued = 0;
    for (int t = 0; t < 3000; ++t) {
        const int n = 2 + t % 3;
        double M[16], q[4], z0[4] = {0};
        for (int i = 0; i < n * n; ++i)
            M[i] = test_rng_range(&rng, -1, 1);
        for (int i = 0; i < n; ++i) {
            q[i] = test_rng_range(&rng, -1, 1);
            z0[i] = test_rng_range(&rng, 0, 2);
        }
        const cdyn_lcp lcp = {n, M, q};
        cdyn_mcp_options o;
        cdyn_mcp_defaults(&o);
        double zp[4], zg[4], w[4];
        memcpy(zp, z0, sizeof zp);
        memcpy(zg, z0, sizeof zg);
        cdyn_report rp, rg;
        o.globalize = 0;
        const cdyn_status sp = cdyn_lcp_fb_newton(&lcp, &o, zp, w, &rp);
        o.globalize = 1;
        const cdyn_status sg = cdyn_lcp_fb_newton(&lcp, &o, zg, w, &rg);
        if (sp == CDYN_OK) {
            assert_int_equal(sg, CDYN_OK);
            assert_int_equal(rp.iterations, rg.iterations);
            assert_memory_equal(zp, zg, (size_t)n * sizeof(double));
            continue;
        }
        if (sg == CDYN_OK) {
            assert_true(cdyn_lcp_residual(&lcp, zg) <= o.tol);
            assert_true(strcmp(rg.method, "fb-newton+proximal") == 0 ||
                        strcmp(rg.method, "fb-newton+polish") == 0);
        } else {
            assert_memory_equal(zg, z0, (size_t)n * sizeof(double));
        }
        double zl[4] = {0}, wl[4];
        if (cdyn_lcp_solve(&lcp, NULL, zl, wl, NULL) != CDYN_OK)
            continue;
        ++failures;
        rescued += sg == CDYN_OK;
    }
    if (failures != 120 || rescued < 80)
        print_error("plain failures with a solution %d, rescued %d\n", failures, rescued);
    assert_int_equal(failures, 120);
    assert_true(rescued >= 80);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_billups_plain_newton_stalls),
        cmocka_unit_test(test_billups_restarts_solve_it),
        cmocka_unit_test(test_converging_runs_unchanged),
        cmocka_unit_test(test_billups_on_boxes),
        cmocka_unit_test(test_literature_problems_many_starts),
        cmocka_unit_test(test_literature_problems_wide_starts),
        cmocka_unit_test(test_reusable_solver_allocates_nothing),
        cmocka_unit_test(test_no_solution_fails_cleanly),
        cmocka_unit_test(test_lcp_random_non_p),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
