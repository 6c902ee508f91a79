/* The part feeder's gradient-based design (examples/part_feeder_sens.c) on a short IVP: 500 steps
 * of 1 ms, through the part's first strike on the tab (at 0.38 s) and 0.12 s of contact with it.
 *  - d(x_N, y_N, theta_N)/d(x_p, y_p) from the forward sensitivities of the per-step derivatives
 *    against central differences of whole IVPs, at a point whose steps sit at no switch (no step
 *    took a pair on a side): relative error <= 1e-6 per column (issue 19's target for per-step
 *    Jacobians away from switches).
 *  - cdyn_design_minimize with these exact gradients recovers a known design: the target is the
 *    IVP's own end at p* = (4.95, 5.05), so the cost |q_N(p) - q_N(p*)|^2 is 0 exactly at p*.
 * CDYN_TEST_VERBOSE=1 prints the measured values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <cdyn/design.h>

#include "part_feeder_sens.h"

#define N_STEPS 500
#define FD_STEP 1e-6 /* m: 1e-12 relative truncation (O(h^2)), rounding ~1e-16 / 1e-6 */

static const double P_STAR[2] = {4.95, 5.05};

static int verbose(void)
{
    const char *v = getenv("CDYN_TEST_VERBOSE");
    return v != NULL && v[0] == '1';
}

static void run(const double *p, pf_result *r, double J[6], pf_sens_info *info)
{
    const int rc = pf_run_sens(p[0], p[1], PF_PALM_B_X, N_STEPS, r, J, info);
    if (rc != 0)
        fail_msg("pf_run_sens(%g, %g): %d: %s %s", p[0], p[1], rc, r->message, info->message);
}

static void test_gradient_vs_central_differences(void **state)
{
    (void)state;
    pf_result r;
    pf_sens_info info;
    double J[6], Jd[6];
    run(P_STAR, &r, J, &info);
    assert_true(r.first_tab > 0 && r.first_tab < N_STEPS * PF_H); /* the tab was struck */
    assert_int_equal(info.degenerate, 0);
    for (int c = 0; c < 2; c++) {
        double pp[2] = {P_STAR[0], P_STAR[1]}, pm[2] = {P_STAR[0], P_STAR[1]};
        pp[c] += FD_STEP, pm[c] -= FD_STEP;
        pf_result a, b;
        pf_sens_info ia;
        run(pp, &a, Jd, &ia);
        run(pm, &b, Jd, &ia);
        const double fd[3] = {(a.x - b.x) / (2 * FD_STEP), (a.y - b.y) / (2 * FD_STEP),
                              (a.theta - b.theta) / (2 * FD_STEP)};
        double err = 0, scale = 0;
        for (int i = 0; i < 3; i++) {
            err = fmax(err, fabs(J[2 * i + c] - fd[i]));
            scale = fmax(scale, fabs(fd[i]));
        }
        if (verbose())
            printf("column %d: exact (%.10g, %.10g, %.10g), central (%.10g, %.10g, %.10g), "
                   "relative error %.2e\n", c, J[c], J[2 + c], J[4 + c], fd[0], fd[1], fd[2],
                   err / scale);
        assert_true(scale > 0.1); /* the tab moves the end: the check is not vacuous */
        assert_true(err <= 1e-6 * scale);
    }
}

static double target[3];

/* |q_N(p) - target|^2 and its gradient 2 J' (q_N - target) */
static int recover_cost(void *ctx, int thread, const double *p, double *f, double *g)
{
    (void)ctx, (void)thread;
    pf_result r;
    pf_sens_info info;
    double J[6];
    if (pf_run_sens(p[0], p[1], PF_PALM_B_X, N_STEPS, &r, J, &info) != 0)
        return 1;
    const double d[3] = {r.x - target[0], r.y - target[1], r.theta - target[2]};
    *f = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    for (int c = 0; g != NULL && c < 2; c++)
        g[c] = 2 * (d[0] * J[c] + d[1] * J[2 + c] + d[2] * J[4 + c]);
    return 0;
}

static void test_design_recovers_known_optimum(void **state)
{
    (void)state;
    pf_result r;
    pf_sens_info info;
    double J[6];
    run(P_STAR, &r, J, &info);
    target[0] = r.x, target[1] = r.y, target[2] = r.theta;
    const double lo[2] = {4.75, 4.75}, hi[2] = {5.25, 5.25};
    double p[2] = {5.0, 5.0}; /* the paper's box centre */
    cdyn_design_options o;
    cdyn_design_defaults(&o);
    o.gradient = CDYN_DESIGN_GRAD_USER;
    o.tol = 1e-10;
    cdyn_design_result res;
    cdyn_report rep;
    const cdyn_status st = cdyn_design_minimize(2, recover_cost, NULL, lo, hi, p, &o, &res, &rep);
    /* At the answer |g|_inf <= tol with g = 2 J'J (p - p*) to first order, so
     * |p - p*|_2 <= sqrt(2) tol / (2 sigma_min(J)^2), sigma_min^2 the smaller eigenvalue of J'J
     * at p*; twice that for the second-order terms. */
    const double a = J[0] * J[0] + J[2] * J[2] + J[4] * J[4];
    const double b = J[0] * J[1] + J[2] * J[3] + J[4] * J[5];
    const double d = J[1] * J[1] + J[3] * J[3] + J[5] * J[5];
    const double smin2 = 0.5 * (a + d) - sqrt(0.25 * (a - d) * (a - d) + b * b);
    const double bound = 2 * sqrt(2.0) * o.tol / (2 * smin2);
    const double dist = hypot(p[0] - P_STAR[0], p[1] - P_STAR[1]);
    if (verbose())
        printf("recovered (%.12f, %.12f) from (5, 5): cost %.3g, |p - p*| %.2e (bound %.2e), "
               "%d iterations, %d IVPs; status %s %s\n", p[0], p[1], res.f, dist, bound,
               res.iterations, res.evaluations, cdyn_status_str(st), rep.message);
    assert_int_equal(st, CDYN_OK);
    assert_true(smin2 > 0);
    assert_true(dist <= bound);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gradient_vs_central_differences),
        cmocka_unit_test(test_design_recovers_known_optimum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
