/* Every LCP fixture in tests/data crossed with every LCP solver.
 *
 * Expectations come from tools/lcp_exact.py, an independent enumeration of all
 * complementary bases in exact rational arithmetic: `exact` lists every basic solution of each
 * file. Lemke ends on a nonsingular complementary basis, so its z must be one of them; the
 * enumeration solver must find exactly that set. The solution sets the files' comments state
 * are checked as well (CPS_1: z1 + z2 = 1; Pang: the isolated solution z = (1, 0, 0), see
 * tests/data/README.md). P-matrix flags were computed exactly by the same script (all
 * principal minors positive) and are compared with cdyn_lcp_is_pmatrix. The same script runs
 * Lemke's method (covering vector of ones, lexicographic rule) exactly: its outcome and pivot
 * count are what our floating-point Lemke must reproduce. lcp_exp_murty2.dat is Murty's example
 * on which Lemke needs 2^n pivots (Murty 1988, ch. 6): 64 for n = 6. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/io.h"
#include "cdyn/lcp.h"
#include "cdyn/mcp.h"

#define MAX_N 9
#define MAX_SOL 3

typedef struct fixture {
    const char *file;
    int n;
    int is_p;                           /* exact: every principal minor > 0 */
    int lemke_pivots;                   /* exact Lemke: pivots to the solution (-1: ray) */
    int count;                          /* number of basic solutions */
    double exact[MAX_SOL][MAX_N];       /* the basic solutions, exactly */
} fixture;

static const fixture FIXTURES[] = {
    {"lcp_CPS_1.dat", 2, 0, 2, 2, {{1, 0}, {0, 1}}},
    {"lcp_CPS_2.dat", 3, 0, 5, 1, {{0, 1, 3}}},
    {"lcp_CPS_3.dat", 4, 0, -1, 3,
     {{1.0 / 90, 2.0 / 45, 1.0 / 90, 2.0 / 45}, {0.1, 0, 0.1, 0}, {0, 1.0 / 15, 0, 1.0 / 15}}},
    {"lcp_CPS_4.dat", 4, 0, 5, 1, {{2, 2, 2, 92}}},
    {"lcp_CPS_5.dat", 2, 0, 2, 1, {{0, 1}}},
    {"lcp_Pang_isolated_sol.dat", 3, 0, 3, 1, {{1, 0, 0}}},
    {"lcp_deudeu.dat", 2, 1, 3, 1, {{4.0 / 3, 7.0 / 3}}},
    {"lcp_exp_murty.dat", 6, 1, 2, 1, {{0, 0, 0, 0, 0, 1}}},
    {"lcp_exp_murty2.dat", 6, 1, 64, 1, {{0, 0, 0, 0, 0, 64}}},
    {"lcp_inf_sol_perturbed.dat", 3, 0, 5, 1, {{1, 0, 1e-4}}},
    {"lcp_ortiz.dat", 4, 1, 3, 1, {{2.0 / 3, 0, 1.0 / 3, 0}}},
    {"lcp_trivial.dat", 9, 1, 10, 1,
     {{1, 1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 6, 1.0 / 7, 1.0 / 8, 1.0 / 9}}},
};
#define NFIX (sizeof FIXTURES / sizeof FIXTURES[0])

static cdyn_lcp_file *load(const fixture *f)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", CDYN_TEST_DATA_DIR, f->file);
    cdyn_lcp_file *file = NULL;
    cdyn_report rep;
    cdyn_status st = cdyn_lcp_file_read(path, NULL, &file, &rep);
    if (st != CDYN_OK)
        fail_msg("%s: %s (%s)", f->file, cdyn_status_str(st), rep.message);
    assert_int_equal(file->n, f->n);
    return file;
}

/* Index of the exact basic solution equal to z (within tol), or -1. */
static int match_exact(const fixture *f, const double *z, double tol)
{
    for (int k = 0; k < f->count; ++k) {
        int same = 1;
        for (int i = 0; i < f->n; ++i)
            same &= fabs(z[i] - f->exact[k][i]) <= tol * (1.0 + fabs(f->exact[k][i]));
        if (same)
            return k;
    }
    return -1;
}

/* The solution sets stated in the files' comments and the data README. For both files the
 * distance to the set is at most the LCP residual (CPS_1: w1 = w2 = z1 + z2 - 1; Pang:
 * w2 = z1 - 1 = -w3 and w1 = -z2 - z3), so tol is the residual the solver guarantees. */
static void check_stated_set(const fixture *f, const double *z, double tol)
{
    if (strcmp(f->file, "lcp_CPS_1.dat") == 0)
        assert_true(fabs(z[0] + z[1] - 1.0) <= tol);
    if (strcmp(f->file, "lcp_Pang_isolated_sol.dat") == 0)
        assert_true(fabs(z[0] - 1.0) <= tol && fabs(z[1]) <= tol && fabs(z[2]) <= tol);
}

static void check_solution(const fixture *f, const cdyn_lcp *lcp, const double *z, const double *w)
{
    assert_true(cdyn_lcp_residual(lcp, z) <= 1e-10);
    for (int i = 0; i < f->n; ++i) {
        double wi = lcp->q[i];
        for (int j = 0; j < f->n; ++j)
            wi += lcp->M[i + j * f->n] * z[j];
        assert_true(fabs(wi - w[i]) <= 1e-10 * (1.0 + fabs(wi)));
    }
    if (match_exact(f, z, 1e-10) < 0)
        fail_msg("%s: z is not one of the exact basic solutions", f->file);
    check_stated_set(f, z, 1e-12); /* a vertex, computed by an LU solve */
}

static void test_default_solver_solves_every_fixture(void **state)
{
    (void)state;
    for (size_t k = 0; k < NFIX; ++k) {
        const fixture *f = &FIXTURES[k];
        cdyn_lcp_file *file = load(f);
        cdyn_lcp lcp = cdyn_lcp_file_problem(file);
        double z[MAX_N], w[MAX_N];
        cdyn_report rep;
        cdyn_status st = cdyn_lcp_solve(&lcp, NULL, z, w, &rep);
        if (st != CDYN_OK)
            fail_msg("%s: %s (%s)", f->file, cdyn_status_str(st), rep.message);
        assert_int_equal(rep.status, CDYN_OK);
        assert_true(rep.residual <= 1e-10);
        assert_true(strlen(rep.method) > 0);
        check_solution(f, &lcp, z, w);
        cdyn_lcp_file_free(file);
    }
}

/* Plain Lemke (covering vector of ones) follows the exact run: it solves every fixture except the
 * bimatrix game, where M = [0 A; B 0] is not copositive-plus and the ray comes after the first
 * pivot; pivot counts agree with the exact lexicographic path. */
static void test_lemke_on_every_fixture(void **state)
{
    (void)state;
    for (size_t k = 0; k < NFIX; ++k) {
        const fixture *f = &FIXTURES[k];
        cdyn_lcp_file *file = load(f);
        cdyn_lcp lcp = cdyn_lcp_file_problem(file);
        double z[MAX_N], w[MAX_N];
        cdyn_report rep;
        cdyn_status st = cdyn_lemke(&lcp, NULL, z, w, &rep);
        if (f->lemke_pivots < 0) {
            assert_int_equal(st, CDYN_ERAY);
        } else {
            if (st != CDYN_OK)
                fail_msg("%s: %s (%s)", f->file, cdyn_status_str(st), rep.message);
            if (rep.iterations != f->lemke_pivots)
                fail_msg("%s: %d pivots, exact Lemke %d", f->file, rep.iterations, f->lemke_pivots);
            check_solution(f, &lcp, z, w);
        }
        cdyn_lcp_file_free(file);
    }
}

static void test_enumeration_finds_exactly_the_basic_solutions(void **state)
{
    (void)state;
    for (size_t k = 0; k < NFIX; ++k) {
        const fixture *f = &FIXTURES[k];
        cdyn_lcp_file *file = load(f);
        cdyn_lcp lcp = cdyn_lcp_file_problem(file);
        double sols[8 * MAX_N];
        int count = -1;
        cdyn_report rep;
        assert_int_equal(cdyn_lcp_enumerate(&lcp, sols, 8, &count, NULL, &rep), CDYN_OK);
        if (count != f->count)
            fail_msg("%s: %d solutions, expected %d", f->file, count, f->count);
        int seen[MAX_SOL] = {0};
        for (int s = 0; s < count; ++s) {
            int m = match_exact(f, &sols[s * f->n], 1e-10);
            assert_true(m >= 0);
            seen[m]++;
        }
        for (int m = 0; m < f->count; ++m)
            assert_int_equal(seen[m], 1);
        cdyn_lcp_file_free(file);
    }
}

/* The solution is unique for a P-matrix (Cottle–Pang–Stone, Thm 3.3.7) and for Pang's problem
 * (w2 = z1 - 1 and w3 = 1 - z1 force z1 = 1, then w1 = -z2 - z3 >= 0 forces z2 = z3 = 0). */
static int unique_solution(const fixture *f)
{
    return f->is_p || strcmp(f->file, "lcp_Pang_isolated_sol.dat") == 0;
}

/* FB-Newton (plain and penalized merit, from z = 0) agrees with Lemke on every fixture: its z
 * solves the LCP (the solution set is exactly the set of zero residuals), satisfies the stated
 * solution sets, and equals Lemke's z wherever the solution is unique. FB-Newton need not end
 * on a vertex, so on files with several solutions the two may pick different members. */
static void test_fb_newton_agrees_with_lemke(void **state)
{
    (void)state;
    for (size_t k = 0; k < NFIX; ++k) {
        const fixture *f = &FIXTURES[k];
        cdyn_lcp_file *file = load(f);
        cdyn_lcp lcp = cdyn_lcp_file_problem(file);
        double zl[MAX_N], wl[MAX_N];
        assert_int_equal(cdyn_lcp_solve(&lcp, NULL, zl, wl, NULL), CDYN_OK);
        for (int merit = 0; merit < 2; ++merit) {
            cdyn_mcp_options o;
            cdyn_mcp_defaults(&o);
            o.merit = merit ? CDYN_MCP_FB_PENALIZED : CDYN_MCP_FB;
            double z[MAX_N] = {0}, w[MAX_N];
            cdyn_report rep;
            cdyn_status st = cdyn_lcp_fb_newton(&lcp, &o, z, w, &rep);
            if (st != CDYN_OK)
                fail_msg("%s merit %d: %s (%s)", f->file, merit, cdyn_status_str(st), rep.message);
            assert_true(cdyn_lcp_residual(&lcp, z) <= 1e-10);
            check_stated_set(f, z, 1e-10);
            if (unique_solution(f))
                for (int i = 0; i < f->n; ++i)
                    assert_true(fabs(z[i] - zl[i]) <= 1e-8 * (1.0 + fabs(zl[i])));
        }
        cdyn_lcp_file_free(file);
    }
}

static void test_pmatrix_flags(void **state)
{
    (void)state;
    for (size_t k = 0; k < NFIX; ++k) {
        const fixture *f = &FIXTURES[k];
        cdyn_lcp_file *file = load(f);
        int is_p = -1;
        assert_int_equal(cdyn_lcp_is_pmatrix(file->n, file->M, 0.0, &is_p, NULL, NULL), CDYN_OK);
        if (is_p != f->is_p)
            fail_msg("%s: P-matrix test says %d, exact %d", f->file, is_p, f->is_p);
        cdyn_lcp_file_free(file);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_solver_solves_every_fixture),
        cmocka_unit_test(test_lemke_on_every_fixture),
        cmocka_unit_test(test_enumeration_finds_exactly_the_basic_solutions),
        cmocka_unit_test(test_pmatrix_flags),
        cmocka_unit_test(test_fb_newton_agrees_with_lemke),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
