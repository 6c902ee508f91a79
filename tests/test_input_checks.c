/* Issue 18, inputs: user arrays are validated before any walk over them, public sizes are
 * multiplied in size_t with overflow checks, and nested solver options are refused when the
 * stepper is created. Each case read out of bounds, overflowed an int, or was accepted before
 * (tests run under AddressSanitizer and UndefinedBehaviorSanitizer in CI, which report the old
 * reads and overflows). Arrays are heap blocks of their exact documented length, so that a read
 * past them is caught. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/design.h"
#include "cdyn/fc3d.h"
#include "cdyn/mcp.h"
#include "cdyn/step.h"
#include "step_scenes.h"

/* rowptr = {0, 3, 2}: row 0 claims blocks 0..2, but rowptr[n] = 2 says colind and values hold 2
 * blocks. The check walked row 0 (reading colind[2]) before it saw that row 1 ends before it
 * starts. */
static void test_fc3d_rowptr_out_of_order(void **state)
{
    (void)state;
    const int rowptr[3] = {0, 3, 2};
    int *colind = malloc(2 * sizeof(int));
    double *values = calloc(18, sizeof(double));
    assert_non_null(colind);
    assert_non_null(values);
    colind[0] = 0;
    colind[1] = 1;
    values[0] = values[4] = values[8] = values[9] = values[13] = values[17] = 1.0;
    const cdyn_fc3d_blocks b = {rowptr, colind, values};
    const double q[6] = {-1, 0, 0, -1, 0, 0}, mu[2] = {0.5, 0.5};
    const cdyn_fc3d p = {2, NULL, &b, q, mu};
    cdyn_fc3d_report rep;
    assert_int_equal(cdyn_fc3d_check(&p, &rep), CDYN_EINVAL);
    assert_non_null(strstr(rep.message, "rowptr"));
    double r[6] = {7, 7, 7, 7, 7, 7}, u[6] = {7, 7, 7, 7, 7, 7};
    assert_int_equal(cdyn_fc3d_solve(&p, NULL, r, u, &rep), CDYN_EINVAL);
    for (int k = 0; k < 6; ++k)
        assert_true(r[k] == 7 && u[k] == 7);
    free(colind);
    free(values);
}

static int mcp_f(void *ctx, const double *x, double *F)
{
    (void)ctx;
    F[0] = x[0] - 1;
    F[1] = x[1] - 1;
    return 0;
}

static int mcp_jac(void *ctx, const double *x, double *values)
{
    (void)ctx;
    (void)x;
    values[0] = values[1] = 1;
    return 0;
}

/* The same defect in an MCP's sparse pattern: colptr = {0, 3, 2} with rowind of colptr[n] = 2
 * entries; column 0 was walked (rowind[2]) before column 1 was seen to decrease. Here the
 * buffer has a poisoned third int, so that reading it shows without a sanitizer: the refusal
 * must name colptr, not that entry. */
static void test_mcp_colptr_out_of_order(void **state)
{
    (void)state;
    const int colptr[3] = {0, 3, 2};
    int *rowind = malloc(3 * sizeof(int));
    assert_non_null(rowind);
    rowind[0] = 0;
    rowind[1] = 1;
    rowind[2] = -7; /* past the pattern's colptr[n] = 2 entries */
    cdyn_mcp p;
    memset(&p, 0, sizeof p);
    p.n = 2;
    p.F = mcp_f;
    p.colptr = colptr;
    p.rowind = rowind;
    p.jac_sparse = mcp_jac;
    double x[2] = {3, 4};
    cdyn_report rep;
    assert_int_equal(cdyn_mcp_solve(&p, NULL, x, &rep), CDYN_EINVAL);
    assert_non_null(strstr(rep.message, "colptr")); /* not a verdict on what lies past rowind */
    assert_true(x[0] == 3 && x[1] == 4);
    cdyn_mcp_solver *s = NULL;
    assert_int_equal(cdyn_mcp_solver_create(&p, NULL, &s, &rep), CDYN_EINVAL);
    assert_null(s);
    free(rowind);
}

static int design_f(void *ctx, int thread, const double *p, double *f, double *grad)
{
    (void)ctx;
    (void)thread;
    (void)grad;
    *f = p[0] * p[0];
    return 0;
}

/* cdyn_design_minimize computed 1 + 2n and n * n in int: signed overflow for large n. Now the
 * sizes are checked first, before any array is read (these arrays hold one value). */
static void test_design_size_overflow(void **state)
{
    (void)state;
    const double lo[1] = {-1}, hi[1] = {1};
    double p[1] = {0.5};
    const int sizes[3] = {INT_MAX, INT_MAX / 2 + 1, 1 << 30};
    for (int k = 0; k < 3; ++k) {
        cdyn_report rep;
        assert_int_equal(cdyn_design_minimize(sizes[k], design_f, NULL, lo, hi, p, NULL, NULL, &rep),
                         CDYN_ETOOBIG);
        assert_true(p[0] == 0.5);
    }
}

/* cdyn_stepper_create accepted NaN or negative nested solver options, and every step then
 * failed with CDYN_EINVAL; step.h promises refusal at creation. */
static void test_stepper_nested_options(void **state)
{
    (void)state;
    cdyn_model *m = scene_sphere(0.1, 1.0, 0.5);
    assert_non_null(m);
    for (int k = 0; k < 4; ++k) {
        cdyn_step_options o;
        cdyn_step_defaults(&o, k == 1 ? CDYN_SCHEME_PYRAMID_LCP : CDYN_SCHEME_IMPLICIT_NCP);
        const char *what = "";
        switch (k) {
        case 0:
            o.mcp.tol = NAN;
            what = "options.mcp";
            break;
        case 1:
            o.lcp.lemke.tol = NAN;
            what = "options.lcp.lemke";
            break;
        case 2:
            o.fc3d.tol = -1;
            what = "options.fc3d";
            break;
        default:
            o.coneqp.max_iter = -5;
            what = "options.coneqp";
            break;
        }
        cdyn_stepper *s = (cdyn_stepper *)&o; /* any non-NULL value: create sets it to NULL */
        cdyn_report rep;
        assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_EINVAL);
        assert_null(s);
        assert_non_null(strstr(rep.message, what));
    }
    /* the defaults of every scheme pass */
    for (int sc = 0; sc < 5; ++sc) {
        cdyn_step_options o;
        cdyn_step_defaults(&o, (cdyn_scheme)sc);
        cdyn_stepper *s = NULL;
        assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_OK);
        cdyn_stepper_free(s);
    }
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fc3d_rowptr_out_of_order),
        cmocka_unit_test(test_mcp_colptr_out_of_order),
        cmocka_unit_test(test_design_size_overflow),
        cmocka_unit_test(test_stepper_nested_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
