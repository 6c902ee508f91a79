/* The design layer (cdyn/design.h): bound-constrained minimization against closed-form KKT
 * points, Rosenbrock's minimum, the three gradient modes, results independent of the number of
 * threads bit for bit, and bad input. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/design.h"

/* f = sum_i c_i (p_i - a_i)^2 + s (p_0 - a_0)(p_1 - a_1): a convex quadratic whose unconstrained
 * minimum a lies outside the box [0, 1]^2 in component 0. */
static const double QA[2] = {1.5, 0.3}, QC[2] = {1.0, 2.0}, QS = 0.5;

static int quadratic(void *ctx, int thread, const double *p, double *f, double *g)
{
    (void)ctx, (void)thread;
    const double e0 = p[0] - QA[0], e1 = p[1] - QA[1];
    *f = QC[0] * e0 * e0 + QC[1] * e1 * e1 + QS * e0 * e1;
    if (g != NULL) {
        g[0] = 2 * QC[0] * e0 + QS * e1;
        g[1] = 2 * QC[1] * e1 + QS * e0;
    }
    return 0;
}

/* In the box [0, 1]^2 the minimum holds p_0 at its upper bound 1 (the gradient there pushes
 * outward) and p_1 minimizes f(1, p_1): 2 c_1 (p_1 - a_1) + s (1 - a_0) = 0, so
 * p_1 = a_1 - s (1 - a_0) / (2 c_1) = 0.3 + 0.5 * 0.5 / 4 = 0.3625 (KKT: g_0 < 0 at the upper
 * bound). */
static void test_quadratic_kkt(void **unused)
{
    (void)unused;
    const double lo[2] = {0, 0}, hi[2] = {1, 1}, p1 = QA[1] - QS * (1 - QA[0]) / (2 * QC[1]);
    const cdyn_design_gradient modes[3] = {CDYN_DESIGN_GRAD_USER, CDYN_DESIGN_GRAD_FORWARD,
                                           CDYN_DESIGN_GRAD_CENTRAL};
    /* attainable: the cost is flat to rounding within |dp| ~ sqrt(8 eps f / f'') =
     * sqrt(8 * 2.2e-16 * 0.24 / 4) ~ 1e-8 of the minimum; forward differences add O(step) */
    const double tol[3] = {1e-8, 1e-5, 1e-8};
    for (int k = 0; k < 3; k++) {
        cdyn_design_options o;
        cdyn_design_defaults(&o);
        o.gradient = modes[k];
        o.tol = modes[k] == CDYN_DESIGN_GRAD_FORWARD ? 1e-5 : 1e-9;
        double p[2] = {0.2, 0.9};
        cdyn_design_result res;
        cdyn_report rep;
        assert_int_equal(cdyn_design_minimize(2, quadratic, NULL, lo, hi, p, &o, &res, &rep),
                         CDYN_OK);
        print_message("gradient mode %d: p = (%.10f, %.10f) (KKT point (1, %.4f)), %d iterations, "
                      "%d evaluations\n", (int)modes[k], p[0], p[1], p1, res.iterations,
                      res.evaluations);
        assert_true(p[0] == 1.0);
        assert_true(fabs(p[1] - p1) <= tol[k]);
        assert_false(res.projected_start);
    }
}

static int rosenbrock(void *ctx, int thread, const double *p, double *f, double *g)
{
    (void)ctx, (void)thread;
    const double a = 1 - p[0], b = p[1] - p[0] * p[0];
    *f = a * a + 100 * b * b;
    if (g != NULL) {
        g[0] = -2 * a - 400 * p[0] * b;
        g[1] = 200 * b;
    }
    return 0;
}

/* Rosenbrock's valley, minimum (1, 1) inside the box [-2, 2]^2, from the classic start (-1.2, 1). */
static void test_rosenbrock(void **unused)
{
    (void)unused;
    const double lo[2] = {-2, -2}, hi[2] = {2, 2};
    double p[2] = {-1.2, 1.0};
    cdyn_design_options o;
    cdyn_design_defaults(&o);
    o.gradient = CDYN_DESIGN_GRAD_USER;
    o.max_iter = 200;
    cdyn_design_result res;
    assert_int_equal(cdyn_design_minimize(2, rosenbrock, NULL, lo, hi, p, &o, &res, NULL),
                     CDYN_OK);
    print_message("Rosenbrock: (%.8f, %.8f) in %d iterations\n", p[0], p[1], res.iterations);
    assert_true(fabs(p[0] - 1) < 1e-4 && fabs(p[1] - 1) < 1e-4);
    /* a box that excludes (1, 1): p_1 <= 0.5; on the bound p_1 = 0.5 the minimum of
     * (1 - x)^2 + 100 (0.5 - x^2)^2 has 2 (x - 1) - 400 x (0.5 - x^2) = 0; check stationarity */
    const double hi2[2] = {2, 0.5};
    double q[2] = {0.0, 0.0};
    assert_int_equal(cdyn_design_minimize(2, rosenbrock, NULL, lo, hi2, q, &o, &res, NULL),
                     CDYN_OK);
    assert_true(q[1] == 0.5);
    assert_true(fabs(2 * (q[0] - 1) - 400 * q[0] * (0.5 - q[0] * q[0])) < 1e-7);
    assert_true(q[0] > 0.6 && q[0] < 0.75); /* the root near 0.7 (x^2 ~ 0.5) */
}

/* A deterministic objective that costs some work, to make threads overlap. */
static int bumpy(void *ctx, int thread, const double *p, double *f, double *g)
{
    (void)ctx, (void)thread, (void)g;
    double acc = 0;
    for (int k = 1; k <= 2000; k++)
        acc += sin(k * p[0]) * cos(k * p[1] + p[2]) / (k * k);
    *f = acc + (p[0] - 0.3) * (p[0] - 0.3) + (p[1] + 0.1) * (p[1] + 0.1) + p[2] * p[2];
    return 0;
}

/* Threads: a sweep and a minimization with 1, 2 and 4 threads give the same bits. */
static void test_threads_bit_identical(void **unused)
{
    (void)unused;
    enum { NP = 37 };
    double pts[NP * 3], v1[NP], v2[NP], v4[NP];
    for (int i = 0; i < NP; i++)
        for (int j = 0; j < 3; j++)
            pts[i * 3 + j] = sin(1.7 * i + j) * 0.8;
    cdyn_design_options o;
    cdyn_design_defaults(&o);
    int ok[NP];
    o.threads = 1;
    assert_int_equal(cdyn_design_sweep(3, bumpy, NULL, NP, pts, v1, ok, &o, NULL), CDYN_OK);
    o.threads = 2;
    assert_int_equal(cdyn_design_sweep(3, bumpy, NULL, NP, pts, v2, NULL, &o, NULL), CDYN_OK);
    o.threads = 4;
    assert_int_equal(cdyn_design_sweep(3, bumpy, NULL, NP, pts, v4, NULL, &o, NULL), CDYN_OK);
    assert_memory_equal(v1, v2, sizeof v1);
    assert_memory_equal(v1, v4, sizeof v1);
    for (int i = 0; i < NP; i++) {
        double f;
        bumpy(NULL, 0, pts + i * 3, &f, NULL);
        assert_true(ok[i] && v1[i] == f);
    }
    const double lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
    double p1[3] = {0.5, 0.5, 0.5}, p2[3] = {0.5, 0.5, 0.5};
    cdyn_design_result r1, r2;
    o.threads = 1;
    const cdyn_status s1 = cdyn_design_minimize(3, bumpy, NULL, lo, hi, p1, &o, &r1, NULL);
    o.threads = 2;
    const cdyn_status s2 = cdyn_design_minimize(3, bumpy, NULL, lo, hi, p2, &o, &r2, NULL);
    assert_int_equal(s1, s2);
    assert_memory_equal(p1, p2, sizeof p1);
    assert_true(r1.f == r2.f && r1.evaluations == r2.evaluations);
}

static int always_fails(void *ctx, int thread, const double *p, double *f, double *g)
{
    (void)ctx, (void)thread, (void)p, (void)g;
    *f = 0;
    return 1;
}

/* Fails beyond p_0 > 0.5: the line search must back off and still converge (to the KKT point of
 * the quadratic restricted to where it can be evaluated: here its minimum (0.5?) is not needed,
 * only a clean stop with the best point kept). */
static int fails_right(void *ctx, int thread, const double *p, double *f, double *g)
{
    if (p[0] > 0.5)
        return 1;
    return quadratic(ctx, thread, p, f, g);
}

static void test_bad_input(void **unused)
{
    (void)unused;
    const double lo[2] = {0, 0}, hi[2] = {1, 1}, bad_hi[2] = {-1, 1};
    double p[2] = {0.5, 0.5};
    cdyn_report rep;
    assert_int_equal(cdyn_design_minimize(0, quadratic, NULL, lo, hi, p, NULL, NULL, &rep),
                     CDYN_EINVAL);
    assert_int_equal(cdyn_design_minimize(2, NULL, NULL, lo, hi, p, NULL, NULL, &rep),
                     CDYN_EINVAL);
    assert_int_equal(cdyn_design_minimize(2, quadratic, NULL, lo, bad_hi, p, NULL, NULL, &rep),
                     CDYN_EINVAL);
    assert_non_null(strstr(rep.message, "lower <= upper"));
    double nan_p[2] = {NAN, 0.5};
    assert_int_equal(cdyn_design_minimize(2, quadratic, NULL, lo, hi, nan_p, NULL, NULL, &rep),
                     CDYN_EINVAL);
    cdyn_design_options o;
    cdyn_design_defaults(&o);
    o.threads = 0;
    assert_int_equal(cdyn_design_minimize(2, quadratic, NULL, lo, hi, p, &o, NULL, &rep),
                     CDYN_EINVAL);
    /* an objective that never works: a clean failure, p as given */
    double q[2] = {0.25, 0.75};
    assert_int_equal(cdyn_design_minimize(2, always_fails, NULL, lo, hi, q, NULL, NULL, &rep),
                     CDYN_ENUMERIC);
    assert_true(q[0] == 0.25 && q[1] == 0.75);
    /* a start outside the box is projected and said so */
    double r[2] = {3.0, -2.0};
    cdyn_design_result res;
    cdyn_design_defaults(&o);
    o.gradient = CDYN_DESIGN_GRAD_USER;
    assert_int_equal(cdyn_design_minimize(2, quadratic, NULL, lo, hi, r, &o, &res, &rep), CDYN_OK);
    assert_true(res.projected_start);
    /* failures beyond p_0 = 0.5: the best point stays where the cost exists */
    double s[2] = {0.1, 0.1};
    const cdyn_status st = cdyn_design_minimize(2, fails_right, NULL, lo, hi, s, &o, &res, &rep);
    assert_true(st == CDYN_OK || st == CDYN_ENOCONV);
    assert_true(s[0] <= 0.5 && res.failed > 0 && isfinite(res.f));
    /* sweep: failed points are NaN and flagged */
    const double pts[4] = {0.2, 0.2, 0.7, 0.2};
    double v[2];
    int ok[2];
    assert_int_equal(cdyn_design_sweep(2, fails_right, NULL, 2, pts, v, ok, NULL, &rep), CDYN_OK);
    assert_true(ok[0] == 1 && ok[1] == 0 && isnan(v[1]));
    assert_non_null(strstr(rep.message, "1 of 2"));
    assert_int_equal(cdyn_design_sweep(2, quadratic, NULL, 1, NULL, v, ok, NULL, &rep),
                     CDYN_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quadratic_kkt),
        cmocka_unit_test(test_rosenbrock),
        cmocka_unit_test(test_threads_bit_identical),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
