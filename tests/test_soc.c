/* White-box tests of the second-order-cone block algebra (src/solvers/coneqp/soc.c). Every expected
 * value comes from the defining identity (W z = W^{-1} s, lambda o (lambda <> r) = r, ...) or
 * from a plain bisection on cone membership, never from the code under test. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "solvers/coneqp/soc.h"
#include "support.h"

#define LD CDYN_SOC_MAX

/* Random point of int Q^m: v0 = ||v1|| + margin, margin in (1e-3, 2) times a scale. */
static void random_interior(test_rng *g, int m, double *v)
{
    double t = 0.0;
    for (int i = 1; i < m; ++i) {
        v[i] = test_rng_range(g, -3.0, 3.0);
        t += v[i] * v[i];
    }
    v[0] = sqrt(t) + test_rng_range(g, 1e-3, 2.0);
}

/* A random pair s, z of int Q^m; every third one (rep % 3 == 0) badly scaled, as met near the
 * end of an interior-point run. */
static void random_pair(test_rng *g, int m, int rep, double *s, double *z)
{
    random_interior(g, m, s);
    random_interior(g, m, z);
    if (rep % 3 == 0)
        for (int i = 0; i < m; ++i)
            s[i] *= 1e-6, z[i] *= 1e4;
}

static int member(int m, const double *v) /* v in Q^m, plain definition */
{
    double t = 0.0;
    for (int i = 1; i < m; ++i)
        t += v[i] * v[i];
    return v[0] >= 0.0 && v[0] * v[0] >= t;
}

static void test_det_and_interior(void **state)
{
    (void)state;
    const double a[3] = {5.0, 3.0, 4.0}; /* boundary: det = 0 */
    const double b[3] = {13.0, 5.0, 0.0};
    const double c[2] = {-1.0, 0.0};
    assert_true(cdyn_soc_det_sqrt(3, a) == 0.0);
    assert_false(cdyn_soc_interior(3, a));
    assert_true(fabs(cdyn_soc_det_sqrt(3, b) - 12.0) <= 1e-14); /* 13^2 - 5^2 = 144 */
    assert_true(cdyn_soc_interior(3, b));
    assert_false(cdyn_soc_interior(2, c));
    const double one[1] = {2.5};
    assert_true(fabs(cdyn_soc_det_sqrt(1, one) - 2.5) <= 1e-15);
    const double nan3[3] = {NAN, 0.0, 0.0};
    assert_false(cdyn_soc_interior(3, nan3));
}

static void test_product_and_division(void **state)
{
    (void)state;
    test_rng g;
    test_rng_seed(&g, 11);
    for (int m = 1; m <= 3; ++m)
        for (int rep = 0; rep < 50; ++rep) {
            double lam[LD], r[LD], x[LD], back[LD], e[LD] = {1.0, 0.0, 0.0}, le[LD];
            random_interior(&g, m, lam);
            for (int i = 0; i < m; ++i)
                r[i] = test_rng_range(&g, -2.0, 2.0);
            cdyn_soc_div(m, lam, r, x);
            cdyn_soc_prod(m, lam, x, back);
            for (int i = 0; i < m; ++i)
                assert_true(fabs(back[i] - r[i]) <= 1e-11 * (1.0 + fabs(r[i])));
            cdyn_soc_prod(m, lam, e, le); /* e is the identity */
            for (int i = 0; i < m; ++i)
                assert_true(le[i] == lam[i]);
        }
}

static void test_nt_scaling_identities(void **state)
{
    (void)state;
    test_rng g;
    test_rng_seed(&g, 12);
    for (int m = 1; m <= 3; ++m)
        for (int rep = 0; rep < 200; ++rep) {
            double s[LD], z[LD], W[LD * LD], Wi[LD * LD], lam[LD], Wz[LD], Wis[LD];
            random_pair(&g, m, rep, s, z);
            assert_int_equal(cdyn_soc_nt(m, s, z, W, Wi, lam), 0);
            cdyn_soc_matvec(m, W, z, Wz);
            cdyn_soc_matvec(m, Wi, s, Wis);
            double scale = 0.0;
            for (int i = 0; i < m; ++i)
                scale = fmax(scale, fabs(lam[i]));
            for (int i = 0; i < m; ++i) {
                assert_true(fabs(Wz[i] - lam[i]) <= 1e-12 * scale);
                assert_true(fabs(Wis[i] - lam[i]) <= 1e-10 * scale);
            }
            /* W symmetric, W W^{-1} = I */
            for (int i = 0; i < m; ++i)
                for (int j = 0; j < m; ++j) {
                    double t = 0.0;
                    for (int k = 0; k < m; ++k)
                        t += W[i + LD * k] * Wi[k + LD * j];
                    assert_true(fabs(t - (i == j)) <= 1e-10);
                    assert_true(fabs(W[i + LD * j] - W[j + LD * i]) <= 1e-14 * fabs(W[0]) + 1e-300);
                }
            /* lambda in int Q and lambda'lambda = s'z */
            assert_true(cdyn_soc_interior(m, lam));
            double ll = 0.0, sz = 0.0;
            for (int i = 0; i < m; ++i)
                ll += lam[i] * lam[i], sz += s[i] * z[i];
            assert_true(fabs(ll - sz) <= 1e-12 * sz);
        }
}

static void test_nt_rejects_boundary(void **state)
{
    (void)state;
    const double s[3] = {5.0, 3.0, 4.0}, z[3] = {2.0, 0.0, 0.0};
    double W[9], Wi[9], lam[3];
    assert_int_equal(cdyn_soc_nt(3, s, z, W, Wi, lam), -1);
    assert_int_equal(cdyn_soc_nt(3, z, s, W, Wi, lam), -1);
}

/* Reference: bisection on alpha for membership of u + alpha d. */
static double bisect_step(int m, const double *u, const double *d)
{
    double v[LD];
    for (int i = 0; i < m; ++i)
        v[i] = u[i] + 1e8 * d[i];
    if (member(m, v))
        return INFINITY;
    double lo = 0.0, hi = 1e8;
    for (int it = 0; it < 200; ++it) {
        const double mid = 0.5 * (lo + hi);
        for (int i = 0; i < m; ++i)
            v[i] = u[i] + mid * d[i];
        if (member(m, v))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void test_lambda_min_sq(void **state)
{
    (void)state;
    test_rng g;
    test_rng_seed(&g, 14);
    for (int m = 1; m <= 3; ++m)
        for (int rep = 0; rep < 200; ++rep) {
            double s[LD], z[LD], W[LD * LD], Wi[LD * LD], lam[LD];
            random_pair(&g, m, rep, s, z);
            assert_int_equal(cdyn_soc_nt(m, s, z, W, Wi, lam), 0);
            /* the eigenvalues of lambda are lambda0 -+ ||lambda1|| */
            const double t = m == 3 ? hypot(lam[1], lam[2]) : (m == 2 ? fabs(lam[1]) : 0.0);
            const double ref = (lam[0] - t) * (lam[0] - t), got = cdyn_soc_lambda_min_sq(m, s, z);
            assert_true(fabs(got - ref) <= 1e-9 * ref + 1e-14 * lam[0] * lam[0]);
        }
    /* on the central path (s = z = t e) it is s'z; on the boundary 0 */
    const double e[3] = {0.5, 0.0, 0.0}, b[3] = {5.0, 3.0, 4.0};
    assert_true(fabs(cdyn_soc_lambda_min_sq(3, e, e) - 0.25) <= 4 * DBL_EPSILON * 0.25);
    assert_true(cdyn_soc_lambda_min_sq(3, b, e) == 0.0);
    /* s and z with parallel tails (a pair far from the path): lambda_min^2 << s'z */
    const double s1[3] = {1.0, 0.99, 0.0}, z1[3] = {1.0, 0.99, 0.0};
    assert_true(cdyn_soc_lambda_min_sq(3, s1, z1) < 1e-4 * (1.0 + 0.99 * 0.99));
}

static void test_max_step_vs_bisection(void **state)
{
    (void)state;
    test_rng g;
    test_rng_seed(&g, 13);
    int finite = 0, infinite = 0;
    for (int m = 1; m <= 3; ++m)
        for (int rep = 0; rep < 300; ++rep) {
            double u[LD], d[LD];
            random_interior(&g, m, u);
            for (int i = 0; i < m; ++i)
                d[i] = test_rng_range(&g, -3.0, 3.0);
            const double a = cdyn_soc_max_step(m, u, d), ref = bisect_step(m, u, d);
            if (isinf(ref)) {
                assert_true(isinf(a));
                ++infinite;
            } else {
                assert_true(fabs(a - ref) <= 1e-9 * (1.0 + ref));
                ++finite;
            }
        }
    assert_true(finite > 100 && infinite > 50); /* both branches exercised */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_det_and_interior),      cmocka_unit_test(test_product_and_division),
        cmocka_unit_test(test_nt_scaling_identities), cmocka_unit_test(test_nt_rejects_boundary),
        cmocka_unit_test(test_max_step_vs_bisection), cmocka_unit_test(test_lambda_min_sq),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
