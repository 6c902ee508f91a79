/* Randomized certification test (issue 18): every CDYN_OK must pass an independent check.
 *
 * LCPs: n <= 4, entries and q of random sign and magnitude 10^U(-9.5, 9.5) (19 decades), some
 * exact zeros, solved cold and warm (a random guessed basis) by cdyn_lemke and cdyn_lcp_solve.
 * Each OK answer is checked here, by the definition of a solution with the componentwise scale
 * of DESIGN.md: with w = M z + q and s_i = |q_i| + sum_j |M_ij z_j| (long double, row by row),
 * z_i >= 0, w_i >= -tol s_i, |min(z_i, w_i)| <= tol s_i, and the w handed out equal to M z + q
 * within tol s_i. CDYN_EINACCURATE must hand out a finite point; other failures must leave z, w
 * untouched.
 * MCPs: F(x) = A x + b with A = B B^T + I/10 (strongly monotone, so a unique solution exists for
 * every box), random boxes with infinite sides, starts outside the box; every OK answer must lie
 * in the box with natural residual <= tol for F computed here.
 *
 * The short run in ctest uses the default counts; CDYN_CERT_LCPS and CDYN_CERT_MCPS (and
 * CDYN_CERT_SEED) set others for the long run (docs/fuzzing.md). Outcome counts are printed. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/lcp.h"
#include "cdyn/mcp.h"
#include "support.h"

#define SENTINEL 12345.0
/* The check's rounding differs from the library's (row order, not column blocks) by far less
   than this fraction of the tolerance. */
#define CHECK_SLACK 1.001

static long env_count(const char *name, long dflt)
{
    const char *s = getenv(name);
    return s != NULL && *s != '\0' ? strtol(s, NULL, 10) : dflt;
}

static double wide(test_rng *rng)
{
    const double u = test_rng_uniform(rng);
    if (u < 0.1)
        return 0.0;
    const double mag = pow(10.0, test_rng_range(rng, -9.5, 9.5));
    return u < 0.55 ? mag : -mag;
}

/* 1 when (z, w) is a solution by the componentwise test above. */
static int lcp_certified(const cdyn_lcp *lcp, const double *z, const double *w, double tol)
{
    const int n = lcp->n;
    tol *= CHECK_SLACK;
    for (int i = 0; i < n; ++i) {
        long double wi = lcp->q[i], si = fabs(lcp->q[i]);
        for (int j = 0; j < n; ++j) {
            const long double t = (long double)lcp->M[i + (size_t)j * n] * z[j];
            wi += t;
            si += fabsl(t);
        }
        if (!isfinite(z[i]) || !isfinite(w[i]) || !(z[i] >= 0.0))
            return 0;
        if (!(wi >= -tol * si) ||
            !(fabsl(w[i] - wi) <= tol * si + DBL_EPSILON * fabsl(wi) + DBL_TRUE_MIN))
            return 0;
        const long double m = z[i] < wi ? (long double)z[i] : wi;
        if (!(fabsl(m) <= tol * si))
            return 0;
    }
    return 1;
}

typedef struct tally {
    long ok, inaccurate, proven, other;
} tally;

static void check_lcp_outcome(const cdyn_lcp *lcp, cdyn_status st, const cdyn_report *rep,
                              const double *z, const double *w, double tol, tally *t)
{
    const int n = lcp->n;
    assert_int_equal(rep->status, st);
    if (st == CDYN_OK) {
        t->ok++;
        if (!lcp_certified(lcp, z, w, tol))
            fail_msg("OK answer fails the componentwise check (n = %d, method %s)", n,
                     rep->method);
    } else if (st == CDYN_EINACCURATE) {
        t->inaccurate++;
        for (int i = 0; i < n; ++i)
            assert_true(isfinite(z[i]) && isfinite(w[i]));
    } else {
        if (st == CDYN_EINFEASIBLE)
            t->proven += rep->proven;
        t->other++;
        for (int i = 0; i < n; ++i)
            assert_true(z[i] == SENTINEL && w[i] == SENTINEL);
    }
}

static void test_random_badly_scaled_lcps(void **state)
{
    (void)state;
    const long count = env_count("CDYN_CERT_LCPS", 20000);
    test_rng rng;
    test_rng_seed(&rng, (uint64_t)env_count("CDYN_CERT_SEED", 18));
    tally t[4] = {{0}};
    for (long k = 0; k < count; ++k) {
        const int n = 1 + (int)(test_rng_uniform(&rng) * 4);
        double M[16], q[4], z[4], w[4];
        int warm[4];
        for (int e = 0; e < n * n; ++e)
            M[e] = wide(&rng);
        for (int i = 0; i < n; ++i) {
            q[i] = wide(&rng);
            warm[i] = test_rng_uniform(&rng) < 0.5;
        }
        const cdyn_lcp lcp = {n, M, q};
        for (int mode = 0; mode < 4; ++mode) { /* lemke cold, lemke warm, solve cold, warm */
            cdyn_lcp_options o;
            cdyn_lcp_defaults(&o);
            if (mode & 1)
                o.lemke.warm_basis = warm;
            for (int i = 0; i < n; ++i)
                z[i] = w[i] = SENTINEL;
            cdyn_report rep;
            const cdyn_status st = mode < 2 ? cdyn_lemke(&lcp, &o.lemke, z, w, &rep)
                                            : cdyn_lcp_solve(&lcp, &o, z, w, &rep);
            check_lcp_outcome(&lcp, st, &rep, z, w, o.lemke.tol, &t[mode]);
        }
    }
    const char *names[4] = {"lemke cold", "lemke warm", "lcp_solve cold", "lcp_solve warm"};
    for (int m = 0; m < 4; ++m)
        print_message("%-15s %ld LCPs: %ld OK (all certified), %ld inaccurate, %ld other "
                      "failures (%ld proven infeasible)\n",
                      names[m], count, t[m].ok, t[m].inaccurate, t[m].other, t[m].proven);
}

typedef struct affine {
    int n;
    double A[16], b[4];
} affine;

static int affine_F(void *ctx, const double *x, double *F)
{
    const affine *a = ctx;
    for (int i = 0; i < a->n; ++i) {
        F[i] = a->b[i];
        for (int j = 0; j < a->n; ++j)
            F[i] += a->A[i + 4 * j] * x[j];
    }
    return 0;
}

static int affine_J(void *ctx, const double *x, double *J)
{
    (void)x;
    const affine *a = ctx;
    for (int i = 0; i < a->n; ++i)
        for (int j = 0; j < a->n; ++j)
            J[i + a->n * j] = a->A[i + 4 * j];
    return 0;
}

static void test_random_mcps_started_outside(void **state)
{
    (void)state;
    const long count = env_count("CDYN_CERT_MCPS", 2000);
    test_rng rng;
    test_rng_seed(&rng, (uint64_t)env_count("CDYN_CERT_SEED", 18) + 1);
    long ok = 0, other = 0;
    for (long k = 0; k < count; ++k) {
        affine a;
        a.n = 1 + (int)(test_rng_uniform(&rng) * 4);
        const int n = a.n;
        double B[16], l[4], u[4], x[4], x0[4];
        test_random_spd(&rng, n, 0.1, B);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                a.A[i + 4 * j] = B[i + n * j];
        for (int i = 0; i < n; ++i) {
            a.b[i] = test_rng_range(&rng, -10, 10);
            const double c = test_rng_range(&rng, -5, 5), h = test_rng_range(&rng, 0, 3);
            const double r = test_rng_uniform(&rng);
            l[i] = r < 0.2 ? -INFINITY : c - h;
            u[i] = r > 0.6 ? INFINITY : c + h;
            /* outside: below a finite l, else above a finite u, else anywhere (free) */
            x0[i] = isfinite(l[i])   ? l[i] - test_rng_range(&rng, 1e-3, 10)
                    : isfinite(u[i]) ? u[i] + test_rng_range(&rng, 1e-3, 10)
                                     : test_rng_range(&rng, -10, 10);
            x[i] = x0[i];
        }
        cdyn_mcp p;
        memset(&p, 0, sizeof p);
        p.n = n;
        p.lower = l;
        p.upper = u;
        p.F = affine_F;
        p.jac = affine_J;
        p.ctx = &a;
        cdyn_report rep;
        const cdyn_status st = cdyn_mcp_solve(&p, NULL, x, &rep);
        if (st != CDYN_OK) {
            ++other;
            if (st != CDYN_EINACCURATE)
                for (int i = 0; i < n; ++i)
                    assert_true(x[i] == x0[i]);
            continue;
        }
        ++ok;
        double F[4];
        affine_F(&a, x, F);
        for (int i = 0; i < n; ++i) {
            assert_true(x[i] >= l[i] && x[i] <= u[i]);
            const double proj = fmin(fmax(x[i] - F[i], l[i]), u[i]);
            assert_true(fabs(x[i] - proj) <= 1e-10);
        }
    }
    print_message("%ld MCPs started outside their boxes: %ld OK (all certified), %ld not\n",
                  count, ok, other);
    assert_true(ok >= count * 99 / 100); /* strongly monotone: Newton solves nearly all */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_badly_scaled_lcps),
        cmocka_unit_test(test_random_mcps_started_outside),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
